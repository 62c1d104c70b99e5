package sim

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// mkdir follows mkdir(1) inside the root: -p creates missing parents and
// accepts an existing directory; without it an existing path or a missing
// parent fails ("cannot create directory ...: File exists / No such file
// or directory").

func mkdir(e *Env, args []string) int {
	parents := false
	var dirs []string
	for _, a := range args {
		switch {
		case a == "-p" || a == "--parents":
			parents = true
		case strings.HasPrefix(a, "-"):
		default:
			dirs = append(dirs, a)
		}
	}
	if len(dirs) == 0 {
		return e.fail(1, "missing operand")
	}
	code := 0
	for _, d := range dirs {
		if !strings.HasPrefix(d, "/") {
			code = e.fail(1, "cannot create directory '%s': relative paths are not simulated", d)
			continue
		}
		if st, err := e.Root.Stat(d); err == nil {
			if !parents || !st.IsDir() {
				code = e.fail(1, "cannot create directory '%s': File exists", d)
			}
			continue
		}
		if !parents {
			parent := d[:strings.LastIndex(strings.TrimRight(d, "/"), "/")+1]
			if st, err := e.Root.Stat(parent); err != nil || !st.IsDir() {
				code = e.fail(1, "cannot create directory '%s': No such file or directory", d)
				continue
			}
		}
		if !parents {
			// mkdir(2): of two racing callers, one gets EEXIST (a lock).
			if err := os.Mkdir(e.Root.HostPath(d), 0o755); err != nil {
				if errors.Is(err, fs.ErrExist) {
					err = errors.New("File exists")
				}
				code = e.fail(1, "cannot create directory '%s': %v", d, err)
			}
			continue
		}
		if _, err := e.Root.MkdirAll(d, 0o755); err != nil {
			code = e.fail(1, "cannot create directory '%s': %v", d, err)
		}
	}
	return code
}
