package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/engine"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/facts"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
)

const usageText = `usage: hpcstorage-agent COMMAND [flags]

  apply -f FILE|- [--check] [--diff] [--root DIR] [--output json|text] [--lock-timeout D] [--expect-sha256 HEX]
  remove --owner ID [--check] [--diff] [--root DIR] [--output json|text] [--lock-timeout D] [--expect-sha256 HEX]
  facts [--root DIR] [--expect-sha256 HEX]
  serve [--expect-sha256 HEX [--install-as PATH]]   (framed requests on stdin, see agent/protocol/serve.go)
  validate -f FILE|-
  version

Exit status: 0 success, 2 an item failed, 1 invalid spec, misuse, or the run could not start,
3 this executable is not the build --expect-sha256 names (nothing was done).
See docs/guides/agent.md.
`

// errUsage marks command-line misuse (exit 1, usage printed).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return protocol.ExitUsage
	}
	var code int
	var err error
	switch args[0] {
	case "apply":
		code, err = cmdApply(ctx, args[1:], stdin, stdout, stderr)
	case "remove":
		code, err = cmdRemove(ctx, args[1:], stdout, stderr)
	case "facts":
		code, err = cmdFacts(ctx, args[1:], stdout, stderr)
	case "validate":
		code, err = cmdValidate(args[1:], stdin, stdout, stderr)
	case "serve":
		code, err = cmdServe(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version":
		code, err = cmdVersion(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return protocol.ExitOK
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "hpcstorage-agent %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			fmt.Fprint(stderr, usageText)
		}
		return protocol.ExitUsage
	}
	return code
}

type common struct {
	root        string
	check, diff bool
	output      string
	lockTimeout time.Duration
	// expectSHA256, when set, is the sha256 the running executable must
	// have (the transport's single-exec run on a new connection).
	expectSHA256 string
}

func newFlags(name string, stderr io.Writer, c *common, withRun bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.root, "root", "/", "root folder of the node (a test or image folder; unless it is /, commands are recorded and only run by the root's own simulators)")
	fs.StringVar(&c.expectSHA256, "expect-sha256", "", "exit 3 before doing anything unless this executable's sha256 is HEX")
	if withRun {
		fs.BoolVar(&c.check, "check", false, "plan only: report what would change and write nothing")
		fs.BoolVar(&c.diff, "diff", false, "include a unified diff per changed item")
		fs.StringVar(&c.output, "output", "json", "result format: json or text")
		fs.DurationVar(&c.lockTimeout, "lock-timeout", engine.DefaultLockTimeout, "how long to wait for another run on the same root")
	}
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

func (c common) validate() error {
	if c.output != "" && c.output != "json" && c.output != "text" {
		return fmt.Errorf("%w: --output %q: want json or text", errUsage, c.output)
	}
	return checkRoot(c.root)
}

// checkRoot refuses a --root that is missing or empty: every item would
// fail on a missing /proc, /sys or package database, and the cause would
// drown in their errors.
func checkRoot(dir string) error {
	if dir == "" || dir == "/" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return nil
	}
	what := "is empty"
	if err != nil {
		what = "cannot be read (" + err.Error() + ")"
	}
	return fmt.Errorf("%w: --root %s %s: the agent expects a node's file tree there (proc/sys, sys/block, etc, "+
		"var/lib/dpkg or rpm), as in a mounted image; for a test root, seed one with "+
		"`hpcstorage-lab seed-node --dir %s --profile storage`", errUsage, dir, what, dir)
}

func readSpec(file string, stdin io.Reader) (*protocol.Spec, error) {
	if file == "" {
		return nil, fmt.Errorf("%w: -f FILE (or -f - for stdin) is required", errUsage)
	}
	if file == "-" {
		return protocol.ReadSpec(stdin)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := protocol.ReadSpec(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

func cmdApply(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	var c common
	fs := newFlags("apply", stderr, &c, true)
	file := fs.String("f", "", "spec file (JSON or YAML), - for stdin")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := c.validate(); err != nil {
		return 0, err
	}
	if code, err := c.checkBuild(stderr); err != nil || code != 0 {
		return code, err
	}
	spec, err := readSpec(*file, stdin)
	if err != nil {
		return 0, err
	}
	root, err := fsroot.Open(c.root)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	res, err := engine.Apply(ctx, root, spec, engine.Options{Check: c.check, Diff: c.diff, LockTimeout: c.lockTimeout})
	if err != nil {
		return 0, err
	}
	// Agent time from the start of the command: reading and parsing the
	// spec count too.
	res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return res.ExitCode(), writeResult(stdout, res, c.output)
}

func cmdRemove(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var c common
	fs := newFlags("remove", stderr, &c, true)
	owner := fs.String("owner", "", "owner whose changes to put back")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := c.validate(); err != nil {
		return 0, err
	}
	if code, err := c.checkBuild(stderr); err != nil || code != 0 {
		return code, err
	}
	probe := protocol.Spec{APIVersion: protocol.APIVersion, Owner: *owner, Items: []protocol.Item{}}
	if err := probe.Validate(); err != nil {
		return 0, fmt.Errorf("%w: --owner: %w", errUsage, err)
	}
	root, err := fsroot.Open(c.root)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	res, err := engine.Remove(ctx, root, *owner, engine.Options{Check: c.check, Diff: c.diff, LockTimeout: c.lockTimeout})
	if err != nil {
		return 0, err
	}
	return res.ExitCode(), writeResult(stdout, res, c.output)
}

func writeResult(w io.Writer, res protocol.Result, output string) error {
	if output == "text" {
		_, err := io.WriteString(w, protocol.RenderText(res))
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

func cmdFacts(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var c common
	fs := newFlags("facts", stderr, &c, false)
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if code, err := c.checkBuild(stderr); err != nil || code != 0 {
		return code, err
	}
	if err := checkRoot(c.root); err != nil {
		return 0, err
	}
	root, err := fsroot.Open(c.root)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	f, err := facts.Gather(ctx, root, engine.RunnerFor(root))
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return protocol.ExitOK, enc.Encode(f)
}

func cmdValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "spec file (JSON or YAML), - for stdin")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	spec, err := readSpec(*file, stdin)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "valid: owner %s, %d items\n", spec.Owner, len(spec.Items))
	return protocol.ExitOK, nil
}

// checkBuild enforces --expect-sha256: it hashes the running executable
// (every run: nothing is cached) and, when that is another build, says so
// on stderr and returns ExitWrongBuild before anything is read or written.
func (c common) checkBuild(stderr io.Writer) (int, error) {
	if c.expectSHA256 == "" {
		return 0, nil
	}
	want := strings.ToLower(c.expectSHA256)
	if len(want) != 64 || strings.Trim(want, "0123456789abcdef") != "" {
		return 0, fmt.Errorf("%w: --expect-sha256 %q: want 64 hex digits", errUsage, c.expectSHA256)
	}
	got, err := selfSHA256()
	if err != nil {
		return 0, fmt.Errorf("--expect-sha256: hashing this executable: %w", err)
	}
	if got != want {
		fmt.Fprintf(stderr, "hpcstorage-agent: this executable (linux/%s, version %s) has sha256 %s, expected %s (--expect-sha256): wrong build, nothing was done\n",
			runtime.GOARCH, version.Version, got, want)
		return protocol.ExitWrongBuild, nil
	}
	return 0, nil
}

func cmdVersion(stdout io.Writer) (int, error) {
	info := protocol.VersionInfo{Version: version.Version, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if sum, err := selfSHA256(); err == nil {
		info.SHA256 = sum
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return protocol.ExitOK, enc.Encode(info)
}
