package ceph

import (
	"errors"
	"os"
	"testing"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParsers(t *testing.T) {
	hosts, err := ParseHostLs(fixture(t, "host_ls.json"))
	if err != nil || len(hosts) != 5 || hosts[0].Hostname != "mon1" || hosts[0].Labels[0] != "_admin" || hosts[4].Status != "Offline" {
		t.Fatalf("host ls: %+v %v", hosts, err)
	}
	devs, err := ParseDeviceLs(fixture(t, "device_ls.json"))
	if err != nil || len(devs["osd1"]) != 23 {
		t.Fatalf("device ls: %d %v", len(devs["osd1"]), err)
	}
	boot := devs["osd1"][0]
	if boot.Path != "/dev/sda" || boot.Available || boot.Rejected[0] != "locked" || boot.SizeBytes != 480103981056 {
		t.Fatalf("boot disk: %+v", boot)
	}
	if n := devs["osd1"][1]; n.Model != cm6Model || n.SizeBytes != cm6Bytes || n.Rotational || !n.Available {
		t.Fatalf("nvme: %+v", n)
	}
	// The inventory's rounding is the one HumanReadableSize reproduces.
	if HumanReadableSize(boot.SizeBytes) != "447.13 GB" || HumanReadableSize(cm6Bytes) != "3.49 TB" {
		t.Fatal("human readable sizes differ from the inventory's")
	}
	sel, err := Select(r4Spec(), devs["osd1"], 0)
	if err != nil || len(sel.Data) != 21 {
		t.Fatalf("selection on the inventory (one NVMe rejected): %d %v", len(sel.Data), err)
	}
	mm, err := ParseMonDump(fixture(t, "mon_dump.json"))
	if err != nil || len(mm.Mons) != 3 || mm.Mons[1].IP() != "10.4.0.12" || len(mm.Quorum) != 3 || mm.Names()[2] != "mon3" {
		t.Fatalf("mon dump: %+v %v", mm, err)
	}
	pools, err := ParsePoolLsDetail(fixture(t, "pool_ls_detail.json"))
	if p := pools["rbd"]; err != nil || p.Size != 2 || p.MinSize != 1 || p.PGNum != 4096 || p.PGAutoscaleMode != "off" ||
		p.Applications["rbd"] == nil {
		t.Fatalf("pools: %+v %v", pools, err)
	}
	imgs, err := ParseRbdLs(fixture(t, "rbd_ls_l.json"))
	if err != nil || len(imgs) != 2 || imgs["c01-img02"].SizeBytes != 100<<30 {
		t.Fatalf("rbd ls: %+v %v", imgs, err)
	}
	mapped, err := ParseShowmapped(fixture(t, "showmapped.json"))
	if err != nil || len(mapped) != 2 || mapped["rbd/c01-img02"].Device != "/dev/rbd1" {
		t.Fatalf("showmapped: %+v %v", mapped, err)
	}
	auth, err := ParseAuthGet(fixture(t, "auth_get.json"))
	if err != nil || auth.Entity != "client.client01" || auth.Caps["osd"] != "profile rbd pool=rbd" {
		t.Fatalf("auth: %+v %v", auth, err)
	}
	if _, err := ParseMonDump([]byte(`Error EACCES: access denied`)); !errors.Is(err, ErrParse) {
		t.Fatalf("garbage: %v", err)
	}
}
