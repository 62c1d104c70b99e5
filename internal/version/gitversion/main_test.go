package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// gitVersion in a real repository: untagged, on a tag, after it, dirty.
func TestGitVersion(t *testing.T) {
	testenv.NeedTool(t, "git", "git")
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(re string) {
		t.Helper()
		v, err := gitVersion()
		if err != nil || !regexp.MustCompile("^"+re+"$").MatchString(v) {
			t.Errorf("gitVersion() = %q, %v; want %s", v, err, re)
		}
	}
	git("init", "-q")
	write("a")
	git("add", "f")
	git("commit", "-q", "-m", "a")
	check(`0\.0\.0-dev\+[0-9a-f]{12}`)
	git("tag", "-a", "-m", "first", "v0.1.0")
	git("tag", "not-a-version") // ignored: only v[0-9]* tags count
	check(`0\.1\.0`)
	write("b")
	check(`0\.1\.1-dev\.0\+[0-9a-f]{12}\.dirty`)
	git("commit", "-q", "-am", "b")
	check(`0\.1\.1-dev\.1\+[0-9a-f]{12}`)
}

func TestInstallVersion(t *testing.T) {
	cl := filepath.Join(t.TempDir(), "CHANGELOG.md")
	if err := os.WriteFile(cl, []byte("# Changelog\n\n## 0.3.0 (Unreleased)\n\nFEATURES:\n\n## 0.2.0 (May 4, 2027)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{"0.2.0": "0.2.0", "0.2.1-dev.3+0123456789ab": "0.3.0", "0.0.0-dev+0123456789ab.dirty": "0.3.0"} {
		if got, err := installVersion(v, cl); err != nil || got != want {
			t.Errorf("installVersion(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	if err := os.WriteFile(cl, []byte("nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := installVersion("0.0.0-dev", cl); err == nil {
		t.Error("a changelog without a version section gave no error")
	}
}
