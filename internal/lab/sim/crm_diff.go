package sim

// crm_diff follows pacemaker's crm_diff(8): the real crm_diff on the
// node's files (--original, --new, --patch, read in the node's root), so
// its patch format and exit status are pacemaker's: 0 when the documents
// are the same, 1 when it printed a difference.

import "os"

func crmDiff(e *Env, args []string) int {
	tmp, err := os.MkdirTemp("", "hpcstorage-sim-diff-")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer os.RemoveAll(tmp)
	args, err = e.withFiles(tmp, args, "-o", "--original", "-n", "--new", "-p", "--patch")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	code, err := runReal("crm_diff", args, "", e.Stdout, e.Stderr)
	if err != nil {
		return e.fail(code, "%v", err)
	}
	return code
}
