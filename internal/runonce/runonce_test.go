package runonce

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The rendered item, run by the real /bin/sh: a success leaves the marker
// (creating its folder), a failure leaves none and keeps its exit status.
func TestItemWithRealSh(t *testing.T) {
	dir := t.TempDir()
	ok := Item("x", "test-once", Marker(filepath.Join(dir, "a", "b"), "x", "n1"), "true").Command
	if ok.Creates != filepath.Join(dir, "a", "b", "x.n1") || ok.Name != "x" {
		t.Fatalf("creates %q name %q", ok.Creates, ok.Name)
	}
	if err := exec.Command(ok.Argv[0], ok.Argv[1:]...).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ok.Creates); err != nil {
		t.Fatal("no marker after success")
	}
	fail := Item("y", "test-once", Marker(dir, "y", "n1"), "sh", "-c", "exit 3").Command
	err := exec.Command(fail.Argv[0], fail.Argv[1:]...).Run()
	if ee, isExit := err.(*exec.ExitError); !isExit || ee.ExitCode() != 3 {
		t.Fatalf("failing command: %v", err)
	}
	if _, err := os.Stat(fail.Creates); !os.IsNotExist(err) {
		t.Fatal("marker left by a failed command")
	}
	if !slices.Equal(fail.Argv[3:], []string{"test-once", fail.Creates, "sh", "-c", "exit 3"}) {
		t.Fatalf("argv %q: want the label, the marker, then the command", fail.Argv)
	}
}
