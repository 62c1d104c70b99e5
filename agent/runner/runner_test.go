package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"mount", "-o", "noatime,largeio", "/dev/sdb"}, "mount -o noatime,largeio /dev/sdb"},
		{[]string{"sh", "-c", "echo 'hi' > x"}, `sh -c 'echo '\''hi'\'' > x'`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		if got := Quote(tt.argv); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}

func simRoot(t *testing.T) (Sim, string) {
	t.Helper()
	dir := t.TempDir()
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/modules", "xfs 16384 0 - Live 0x0\n")
	write("proc/mounts", "/dev/sda2 / xfs rw 0 0\n")
	write("usr/lib/systemd/system/beegfs-storage.service", "[Unit]\n")
	write("usr/lib/systemd/system/beegfs-meta@.service", "[Unit]\n")
	write("dev/sdb", "")
	if err := os.MkdirAll(filepath.Join(dir, "data/st01"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return Sim{Root: root}, dir
}

func TestSimUndoRestoresFilesExactly(t *testing.T) {
	s, dir := simRoot(t)
	ctx := context.Background()
	read := func(p string) string {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		return string(b)
	}
	modules, mounts := read("proc/modules"), read("proc/mounts")
	steps := [][]string{
		{"modprobe", "beegfs"}, {"mount", "-t", "xfs", "-o", "noatime", "/dev/sdb", "/data/st01"},
		{"systemctl", "enable", "beegfs-storage.service"}, {"systemctl", "start", "beegfs-storage.service"},
		{"systemctl", "start", "beegfs-meta@meta1.service"},
	}
	for _, argv := range steps {
		if err := s.Run(ctx, argv...); err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
	}
	if out, code, _ := s.Query(ctx, "systemctl", "is-active", "beegfs-storage.service"); code != 0 || out != "active\n" {
		t.Errorf("is-active = %q %d", out, code)
	}
	if out, code, _ := s.Query(ctx, "systemctl", "is-enabled", "beegfs-storage.service"); code != 0 || out != "enabled\n" {
		t.Errorf("is-enabled = %q %d", out, code)
	}
	if !strings.Contains(read("proc/mounts"), "/dev/sdb /data/st01 xfs noatime 0 0") || !strings.Contains(read("proc/modules"), "beegfs ") {
		t.Fatalf("effects missing:\n%s\n%s", read("proc/mounts"), read("proc/modules"))
	}
	for _, argv := range [][]string{{"umount", "/data/st01"}, {"modprobe", "-r", "beegfs"}, {"systemctl", "stop", "beegfs-storage.service"},
		{"systemctl", "disable", "beegfs-storage.service"}, {"systemctl", "stop", "beegfs-meta@meta1.service"}} {
		if err := s.Run(ctx, argv...); err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
	}
	if read("proc/modules") != modules || read("proc/mounts") != mounts || read("run/hpcstorage-sim/systemd.json") != "{\n  \"units\": {}\n}\n" {
		t.Errorf("undo did not restore:\n%s\n%s\n%s", read("proc/modules"), read("proc/mounts"), read("run/hpcstorage-sim/systemd.json"))
	}
	log, err := ReadLog(s.Root)
	if err != nil || len(log) != 10 || !slices.Equal(log[0], []string{"modprobe", "beegfs"}) {
		t.Errorf("log %q %v", log, err)
	}
}

func TestSimFailsLikeTheRealTools(t *testing.T) {
	s, _ := simRoot(t)
	ctx := context.Background()
	tests := [][]string{
		{"systemctl", "start", "nfs-server.service"},
		{"mount", "-t", "xfs", "/dev/sdz", "/data/st01"},
		{"mount", "-t", "xfs", "/dev/sdb", "/data/missing"},
		{"umount", "/data/st01"},
	}
	for _, argv := range tests {
		if err := s.Run(ctx, argv...); err == nil {
			t.Errorf("%q succeeded", argv)
		}
	}
	if err := s.Run(ctx, "systemctl", "mask", "beegfs-storage.service"); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(ctx, "systemctl", "start", "beegfs-storage.service"); err == nil || !strings.Contains(err.Error(), "masked") {
		t.Errorf("starting a masked unit: %v", err)
	}
	if _, code, _ := s.Query(ctx, "blkid", "/dev/sdb"); code == 0 {
		t.Error("an unmodelled guard reported success")
	}
}

func TestSimMkfsAndBlkid(t *testing.T) {
	s, dir := simRoot(t)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(dir, "dev/disk/by-id"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../sdb", filepath.Join(dir, "dev/disk/by-id/wwn-0x600c0ff0001")); err != nil {
		t.Fatal(err)
	}
	if _, code, _ := s.Query(ctx, "blkid", "/dev/sdb"); code != 2 {
		t.Errorf("blank disk: blkid exit %d", code)
	}
	if err := s.Run(ctx, "mkfs.xfs", "-f", "-d", "su=512k,sw=8", "/dev/disk/by-id/wwn-0x600c0ff0001"); err != nil {
		t.Fatal(err)
	}
	if out, code, _ := s.Query(ctx, "blkid", "-o", "value", "/dev/sdb"); code != 0 || !strings.Contains(out, `TYPE="xfs"`) {
		t.Errorf("after mkfs: %q %d", out, code)
	}
	if err := s.Run(ctx, "mkfs.ext4", "/dev/sdz"); err == nil {
		t.Error("mkfs on a missing device succeeded")
	}
}

func TestSimBeegfsStripe(t *testing.T) {
	s, _ := simRoot(t)
	ctx := context.Background()
	info := func(p string) string {
		out, code, err := s.Query(ctx, "beegfs-ctl", "--getentryinfo", p)
		if err != nil || code != 0 {
			t.Fatalf("getentryinfo %s: %d %v", p, code, err)
		}
		return out
	}
	if out := info("/mnt/beegfs/bench"); !strings.Contains(out, "Stripe pattern details:\n+ Type: RAID0\n+ Chunksize: 512K\n+ Number of storage targets: desired: 4\n+ Storage Pool: 1 (Default)\n") {
		t.Errorf("default pattern:\n%s", out)
	}
	// Wrapped in the provider's sh script, as "$@".
	if err := s.Run(ctx, "/bin/sh", "-c", `dir=$1; shift; exec "$@"`, "hpcstorage-stripe", "/mnt/beegfs/bench",
		"beegfs-ctl", "--setpattern", "--chunksize=1m", "--numtargets=1", "--storagepoolid=2", "--mount=/mnt/beegfs", "/mnt/beegfs/bench"); err != nil {
		t.Fatal(err)
	}
	if out := info("/mnt/beegfs/bench/sub"); !strings.Contains(out, "+ Chunksize: 1M\n+ Number of storage targets: desired: 1\n+ Storage Pool: 2\n") {
		t.Errorf("inherited pattern:\n%s", out)
	}
	// Options not given keep the directory's values.
	if err := s.Run(ctx, "beegfs-ctl", "--setpattern", "--numtargets=8", "/mnt/beegfs/bench"); err != nil {
		t.Fatal(err)
	}
	if out := info("/mnt/beegfs/bench"); !strings.Contains(out, "+ Chunksize: 1M\n+ Number of storage targets: desired: 8\n+ Storage Pool: 2\n") {
		t.Errorf("after a partial setpattern:\n%s", out)
	}
	if err := s.Run(ctx, "beegfs-ctl", "--setpattern", "--chunksize=1000", "/mnt/beegfs/bench"); err == nil {
		t.Error("a chunk size that is not a power of two was accepted")
	}
	if _, code, _ := s.Query(ctx, "beegfs-ctl", "--listtargets"); code == 0 {
		t.Error("an unmodelled beegfs-ctl mode reported success")
	}
}

func TestSimBlkidForms(t *testing.T) {
	s, dir := simRoot(t)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(dir, "dev/disk/by-id"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev/sdb"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../sdb", filepath.Join(dir, "dev/disk/by-id/wwn-0x600c0ff0001")); err != nil {
		t.Fatal(err)
	}
	// The provider's format script, mkfs run as "$@".
	if err := s.Run(ctx, "/bin/sh", "-c", `dev=$1; shift 3; "$@"`, "hpcstorage-format", "/dev/disk/by-id/wwn-0x600c0ff0001", "/m", "0",
		"mkfs.ext4", "-q", "-J", "size=400", "/dev/disk/by-id/wwn-0x600c0ff0001"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "run/hpcstorage-sim/blkid/sdb")); err != nil || string(b) != "ext4\n" {
		t.Fatalf("signature file %q %v", b, err)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"blkid", "-p", "-o", "value", "-s", "TYPE", "/dev/sdb"}, "ext4\n"},
		{[]string{"blkid", "-p", "-o", "export", "/dev/sdb"}, "DEVNAME=/dev/sdb\nTYPE=ext4\n"},
		{[]string{"blkid", "/dev/disk/by-id/wwn-0x600c0ff0001"}, "/dev/disk/by-id/wwn-0x600c0ff0001: TYPE=\"ext4\"\n"},
	} {
		if out, code, err := s.Query(ctx, c.argv...); err != nil || code != 0 || out != c.want {
			t.Errorf("%q: %q %d %v, want %q", c.argv, out, code, err, c.want)
		}
	}
	if err := s.Run(ctx, "wipefs", "-a", "/dev/disk/by-id/wwn-0x600c0ff0001"); err != nil {
		t.Fatal(err)
	}
	if _, code, _ := s.Query(ctx, "blkid", "-p", "/dev/sdb"); code != 2 {
		t.Errorf("after wipefs: blkid exit %d, want 2", code)
	}
}
