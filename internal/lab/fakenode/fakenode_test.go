package fakenode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestSeedProfiles(t *testing.T) {
	tests := []struct {
		profile  Profile
		disk     string
		pkgFile  string
		cpulist1 string
		conf     string
	}{
		{Storage, "sda", RPMDBPath, "20-39", "etc/beegfs/beegfs-storage.conf"},
		{Metadata, "sda", RPMDBPath, "20-39", "etc/beegfs/beegfs-meta.conf"},
		{Client, "nvme0n1", "var/lib/dpkg/status", "32-63", "etc/beegfs/beegfs-client.conf"},
	}
	for _, tt := range tests {
		t.Run(string(tt.profile), func(t *testing.T) {
			root := t.TempDir()
			if err := Seed(root, tt.profile); err != nil {
				t.Fatal(err)
			}
			if got := read(t, root, "proc/sys/vm/dirty_ratio"); got != "40" {
				t.Errorf("vm.dirty_ratio = %q", got)
			}
			if got := read(t, root, "sys/block/"+tt.disk+"/queue/scheduler"); got != "[mq-deadline] kyber bfq none" {
				t.Errorf("scheduler = %q", got)
			}
			if got := read(t, root, "sys/devices/system/node/node1/cpulist"); got != tt.cpulist1 {
				t.Errorf("node1 cpulist = %q, want %q", got, tt.cpulist1)
			}
			if got := read(t, root, "sys/kernel/mm/transparent_hugepage/enabled"); got != "[always] madvise never" {
				t.Errorf("thp = %q", got)
			}
			if got := read(t, root, "sys/class/net/ib0/type"); tt.profile != Client && got != "32" {
				t.Errorf("ib0 type = %q", got)
			}
			for _, f := range []string{tt.pkgFile, tt.conf, "etc/os-release", "proc/meminfo", "proc/mounts", SimSystemdPath} {
				if _, err := os.Stat(filepath.Join(root, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
		})
	}
}

func TestAddBlockDevice(t *testing.T) {
	root := t.TempDir()
	if err := Seed(root, Storage); err != nil {
		t.Fatal(err)
	}
	vols := ArrayVolumes("storage01", 30)
	if vols[0].Name != "sdb" || vols[24].Name != "sdz" || vols[25].Name != "sdaa" {
		t.Fatalf("names %s %s %s", vols[0].Name, vols[24].Name, vols[25].Name)
	}
	if other := ArrayVolumes("storage02", 1); other[0].WWN == vols[0].WWN {
		t.Fatal("two hosts got the same WWN")
	}
	for _, d := range vols[:2] {
		if err := AddBlockDevice(root, d); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "dev/disk/by-id/wwn-0x"+vols[1].WWN)
	target, err := os.Readlink(link)
	if err != nil || target != "../../sdc" {
		t.Fatalf("by-id link = %q, %v", target, err)
	}
	if got := read(t, root, "sys/block/sdc/device/wwid"); got != "naa."+vols[1].WWN {
		t.Errorf("wwid = %q", got)
	}
	if got := read(t, root, "sys/block/sdc/size"); got != "156250000000" {
		t.Errorf("size = %q", got)
	}
	if got := read(t, root, "sys/block/sdc/queue/rotational"); got != "1" {
		t.Errorf("rotational = %q", got)
	}
}

func TestRemoveBlockDevice(t *testing.T) {
	root := t.TempDir()
	vols := ArrayVolumes("storage01", 2)
	if err := SeedWith(root, Storage, Options{Disks: vols}); err != nil {
		t.Fatal(err)
	}
	if err := RemoveBlockDevice(root, "sdb"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sys/block/sdb", "dev/sdb", "dev/disk/by-id/wwn-0x" + vols[0].WWN} {
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "dev/disk/by-id/wwn-0x"+vols[1].WWN)); err != nil {
		t.Errorf("sdc's link went too: %v", err)
	}
	if err := RemoveBlockDevice(root, "sdb"); err != nil {
		t.Errorf("second unplug: %v", err)
	}
	if err := RemoveBlockDevice(root, "../sdc"); !errors.Is(err, ErrBadDisk) {
		t.Errorf("bad name: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	root := t.TempDir()
	if _, err := ParseProfile("gateway"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("ParseProfile: %v", err)
	}
	bad := []Disk{
		{Name: "../etc", SizeBytes: 1, WWN: "600c0ff0001234567890"},
		{Name: "sdb", SizeBytes: 1, WWN: "xyz"},
		{Name: "sdb", SizeBytes: 0, WWN: "600c0ff0001234567890"},
	}
	for _, d := range bad {
		if err := AddBlockDevice(root, d); !errors.Is(err, ErrBadDisk) {
			t.Errorf("AddBlockDevice(%+v) = %v, want ErrBadDisk", d, err)
		}
	}
}

func TestSignatureAndServerUnits(t *testing.T) {
	dir := t.TempDir()
	if err := Seed(dir, Metadata); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"beegfs-mgmtd", "beegfs-meta@", "beegfs-storage", "beegfs-storage@", "beegfs-mon"} {
		if _, err := os.Stat(filepath.Join(dir, "usr/lib/systemd/system", u+".service")); err != nil {
			t.Errorf("server unit %s: %v", u, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "proc/sys/net/ipv4/conf/all/arp_filter")); err != nil || string(b) != "0\n" {
		t.Errorf("arp_filter %q %v", b, err)
	}
	d := Disk{Name: "sdb", SizeBytes: 1 << 40, WWN: "600c0ff0000000000000000000000001", Model: "ME4084", FSType: "xfs"}
	if err := AddBlockDevice(dir, d); err != nil {
		t.Fatal(err)
	}
	sig := filepath.Join(dir, SimBlkidDir, "sdb")
	if b, err := os.ReadFile(sig); err != nil || string(b) != "xfs\n" {
		t.Fatalf("signature %q %v", b, err)
	}
	// Cabled again (a resize) without FSType: the signature stays.
	d.FSType = ""
	if err := AddBlockDevice(dir, d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sig); err != nil {
		t.Errorf("a resize lost the signature: %v", err)
	}
	if err := RemoveBlockDevice(dir, "sdb"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sig); !os.IsNotExist(err) {
		t.Errorf("unplugging left the signature: %v", err)
	}
	if err := AddBlockDevice(dir, Disk{Name: "sdc", SizeBytes: 1, WWN: "600c0ff0000000000000000000000002", FSType: "../x"}); !errors.Is(err, ErrBadDisk) {
		t.Errorf("bad fstype: %v", err)
	}
}
