package gpfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
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

// A pending step's item, run by the real /bin/sh: its guard holds (skip)
// while the record is missing or empty; with disks recorded the command
// runs and empties the record; a failing command keeps it.
func TestPendingItemWithRealSh(t *testing.T) {
	dir := t.TempDir()
	rec := RebalanceFile(dir)
	skip := func(it *protocol.Command) bool { return exec.Command(it.Unless[0], it.Unless[1:]...).Run() == nil }
	ok := PendingItem("mmrestripefs", rec, []string{"true"}).Command
	if !skip(ok) {
		t.Fatal("runs without a record")
	}
	if err := os.WriteFile(rec, []byte("a1_e01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := PendingItem("mmrestripefs", rec, []string{"false"}).Command
	if skip(bad) {
		t.Fatal("skipped while the record holds disks")
	}
	if exec.Command(bad.Argv[0], bad.Argv[1:]...).Run() == nil {
		t.Fatal("a failing command succeeded")
	}
	if b, _ := os.ReadFile(rec); len(b) == 0 {
		t.Fatal("a failed restripe emptied the record")
	}
	if err := exec.Command(ok.Argv[0], ok.Argv[1:]...).Run(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(rec); len(b) != 0 || !skip(ok) {
		t.Fatalf("record after success: %q", b)
	}
}
