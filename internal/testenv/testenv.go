// Package testenv decides what a test does when this machine lacks what it
// needs (a program, a build): on a developer's machine it skips, naming the
// package to install; under CI=true it fails, because .ci/run installed
// everything (scripts/deps.sh) and a silent skip would hide a broken setup.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CI reports whether the tests run under CI (CI=true, as .ci/run sets it).
func CI() bool { return os.Getenv("CI") == "true" }

// Missing skips tb, or fails it under CI, with the reason.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	why := fmt.Sprintf(format, args...)
	if CI() {
		tb.Fatalf("%s (required under CI=true)", why)
		return
	}
	tb.Skip(why)
}

// NeedTool returns the path of program name, looked up in PATH and then in
// the sbin directories a non-root PATH lacks; when it is absent the test
// skips (fails under CI) saying to install pkg.
func NeedTool(tb testing.TB, name, pkg string) string {
	tb.Helper()
	if p, ok := Tool(name); ok {
		return p
	}
	Missing(tb, "%s not installed (apt-get install %s)", name, pkg)
	return ""
}

// Tool finds program name in PATH or the sbin directories.
func Tool(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
