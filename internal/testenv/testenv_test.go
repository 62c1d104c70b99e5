package testenv

import (
	"strings"
	"testing"
)

// recorder stands in for a test: it records whether Missing skipped or
// failed instead of ending the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skip(args ...any)                  { r.skipped = args[0].(string) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = format }

func TestMissingSkipsOutsideCIAndFailsUnderIt(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	Missing(r, "no %s", "fio")
	if r.skipped != "no fio" || r.failed != "" {
		t.Fatalf("outside CI: skipped %q failed %q", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	Missing(r, "no %s", "fio")
	if r.skipped != "" || !strings.Contains(r.failed, "required under CI=true") {
		t.Fatalf("under CI: skipped %q failed %q", r.skipped, r.failed)
	}
}

func TestToolFindsSbinPrograms(t *testing.T) {
	t.Setenv("PATH", "/nonexistent")
	if p, ok := Tool("sh"); ok {
		t.Fatalf("sh found without PATH: %s", p)
	}
	if _, ok := Tool("no-such-program-here"); ok {
		t.Fatal("found a program that does not exist")
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	if p, ok := Tool("sh"); !ok || !strings.HasSuffix(p, "/sh") {
		t.Fatalf("sh: %q %v", p, ok)
	}
}
