package gpfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A Once step's item, run by the real /bin/sh, leaves its marker in dir;
// the same step decided again (another nonce) gets another marker.
func TestOnceItemWithRealSh(t *testing.T) {
	dir := t.TempDir()
	s := once(Step{Name: "mmrestripefs", Argv: []string{"mmrestripefs", "fs1", "-b"}})
	it := OnceItem("mmrestripefs", s, []string{"true"}, dir, "n1").Command
	if filepath.Dir(it.Creates) != dir {
		t.Fatalf("marker %q outside %s", it.Creates, dir)
	}
	if err := exec.Command(it.Argv[0], it.Argv[1:]...).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(it.Creates); err != nil {
		t.Fatal("no marker after success")
	}
	if OnceMarker(dir, s, "n2") == it.Creates {
		t.Fatal("a new decision reuses the marker")
	}
	if it.Argv[3] != "gpfs-once" {
		t.Fatalf("label %q", it.Argv[3])
	}
}
