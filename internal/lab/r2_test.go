package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/halvm"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/multipath"
)

// startR2 is the R2 lab with the ME4084 carved as the paper says: 8 RAID6
// 8+2 volumes with a 512 KiB segment (4 drives left as spares), each
// mapped to both NFS servers.
func startR2(t *testing.T) (*Lab, string, []string) {
	t.Helper()
	dir := t.TempDir()
	l, err := Up(Config{Design: "r2", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var wwns []string
	for g := 0; g < 8; g++ {
		var drives []string
		for d := 0; d < 10; d++ {
			drives = append(drives, fmt.Sprintf("0.%d", 10*g+d))
		}
		w, err := l.ProvisionVolume(VolumeRequest{Array: "me4084-1", Pool: fmt.Sprintf("dg%02d", g+1), RAID: "RAID6", Drives: drives,
			Volume: fmt.Sprintf("nfs%02d", g+1), SegmentBytes: 512 << 10, Hosts: []string{"nfs1", "nfs2"}, LUN: g + 1})
		if err != nil {
			t.Fatal(err)
		}
		wwns = append(wwns, w)
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Fatalf("cabling: %v", errs)
	}
	return l, dir, wwns
}

// simRun runs one simulated command on a node root.
func simRun(t *testing.T, root string, argv ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(simtest.Binary(t), argv...)
	cmd.Env = []string{"HPCSTORAGE_SIM_ROOT=" + root}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func mustSim(t *testing.T, root string, argv ...string) string {
	t.Helper()
	out, errs, code := simRun(t, root, argv...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(argv, " "), code, out, errs)
	}
	return out
}

func writeRootFile(t *testing.T, root, p, content string) {
	t.Helper()
	f := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestR2Cabling: every volume is two sd devices with its WWN on each
// server, and the nodes are RHEL 7.6 with the fixed packages.
func TestR2Cabling(t *testing.T) {
	l, dir, wwns := startR2(t)
	paths := l.Paths()
	for _, node := range []string{"nfs1", "nfs2"} {
		root := filepath.Join(dir, NodesDir, node)
		seen := map[string]bool{}
		for _, w := range wwns {
			p := paths[node][w]
			if len(p) != R2PathsPerVolume {
				t.Fatalf("%s: volume %s has paths %v, want %d", node, w, p, R2PathsPerVolume)
			}
			for _, sd := range p {
				if seen[sd] {
					t.Fatalf("%s: %s used twice", node, sd)
				}
				seen[sd] = true
				if got := readTrim(t, filepath.Join(root, "sys/block", sd, "device/wwid")); got != "naa."+w {
					t.Errorf("%s %s: wwid %s, want naa.%s", node, sd, got, w)
				}
			}
		}
		db := readTrim(t, filepath.Join(root, "var/lib/rpm/hpcstorage-fake-rpmdb.txt"))
		for _, want := range []string{"kernel\t0:3.10.0-957.10.1.el7", "resource-agents\t0:4.1.1-12.el7_6.4", "lvm2\t7:2.02.180-10.el7_6.3"} {
			if !strings.Contains(db, want) {
				t.Errorf("%s: rpm database lacks %q", node, want)
			}
		}
		if k := readTrim(t, filepath.Join(root, "proc/sys/kernel/osrelease")); k != R2Kernel {
			t.Errorf("%s: kernel %s", node, k)
		}
	}
	// Unmapping removes both paths.
	if err := l.UnmapVolume("me4084-1", "nfs08", "nfs2"); err != nil {
		t.Fatal(err)
	}
	for _, sd := range paths["nfs2"][wwns[7]] {
		if _, err := os.Stat(filepath.Join(dir, NodesDir, "nfs2", "sys/block", sd)); !os.IsNotExist(err) {
			t.Errorf("nfs2: %s still there after unmapping: %v", sd, err)
		}
	}
}

func readTrim(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestR2MultipathAndHALVM runs what the R2 resources run, by hand: the
// maps from the rendered multipath.conf, HA-LVM created on nfs1 (the
// renderer's own script), seen as foreign on nfs2, then moved to nfs2 the
// way LVM-activate does on failover.
func TestR2MultipathAndHALVM(t *testing.T) {
	_, dir, wwns := startR2(t)
	roots := map[string]string{"nfs1": filepath.Join(dir, NodesDir, "nfs1"), "nfs2": filepath.Join(dir, NodesDir, "nfs2")}
	conf := multipath.Config{Devices: []multipath.Device{multipath.ME4}}
	vg := halvm.VolumeGroup{Name: "vg_nfs", LogicalVolume: "lv_nfs", SegmentBytes: 512 << 10, DataDrives: 8}
	for i, w := range wwns {
		conf.Aliases = append(conf.Aliases, multipath.Alias{WWN: w, Name: fmt.Sprintf("nfs_vol%d", i+1)})
		vg.Devices = append(vg.Devices, multipath.MapperPath(fmt.Sprintf("nfs_vol%d", i+1)))
	}
	text, err := conf.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range roots {
		writeRootFile(t, root, "etc/multipath.conf", text)
		writeRootFile(t, root, "etc/lvm/lvmlocal.conf", halvm.LocalConfContent)
		// Before the maps, a path is an ordinary disk; with them, LVM
		// refuses the path (multipath owns it).
		mustSim(t, root, "multipath", "-r")
		ll := mustSim(t, root, "multipath", "-ll", "nfs_vol1")
		re := regexp.MustCompile(`(?s)^nfs_vol1 \(3` + wwns[0] + `\) dm-\d+ DellEMC,ME4084\nsize=\S+ features='0' hwhandler='1 alua' wp=rw\n` +
			`\|-\+- policy='service-time 0' prio=50 status=active\n\| ` + "`" + `- \d+:0:0:1 sd[a-z]+ \S+ active ready running\n` +
			"`" + `-\+- policy='service-time 0' prio=10 status=enabled\n  ` + "`" + `- \d+:0:0:1 sd[a-z]+ \S+ active ready running\n$`)
		if !re.MatchString(ll) {
			t.Errorf("multipath -ll:\n%s", ll)
		}
		if _, err := os.Lstat(filepath.Join(root, "dev/mapper/nfs_vol8")); err != nil {
			t.Errorf("no map for volume 8: %v", err)
		}
	}
	nfs1, nfs2 := roots["nfs1"], roots["nfs2"]
	sd, _ := os.Readlink(filepath.Join(nfs1, "dev/disk/by-id/wwn-0x"+wwns[0]))
	if _, errs, code := simRun(t, nfs1, "pvcreate", "/dev/"+filepath.Base(sd)); code != 5 || !strings.Contains(errs, "excluded by a filter") {
		t.Errorf("pvcreate on a multipath path: exit %d %s", code, errs)
	}

	item, err := vg.CreateItem()
	if err != nil {
		t.Fatal(err)
	}
	// A run killed right after vgcreate: the guard sees the unfinished
	// creation and the next run resumes it.
	out := mustSim(t, nfs1, append([]string{"pvcreate", "--yes"}, vg.Devices...)...)
	out += mustSim(t, nfs1, vg.VGCreateArgv()...)
	if !strings.Contains(out, `Volume group "vg_nfs" successfully created with system ID nfs1`) {
		t.Errorf("vgcreate:\n%s", out)
	}
	if _, _, code := simRun(t, nfs2, item.Command.Unless...); code == 0 {
		t.Fatal("the guard holds for a creation cut short")
	}
	out = mustSim(t, nfs1, append([]string{"sh"}, item.Command.Argv[1:]...)...)
	if !strings.Contains(out, `Logical volume "lv_nfs" created.`) || strings.Contains(out, "successfully created") {
		t.Errorf("resumed creation:\n%s", out)
	}
	// Created once: the guard holds on both nodes (foreign included).
	for _, root := range roots {
		mustSim(t, root, item.Command.Unless...)
	}
	// Left inactive, striped over the 8 volumes with the full RAID stripe.
	js := mustSim(t, nfs1, "lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o", "lv_name,lv_attr,stripes,stripe_size", "vg_nfs")
	var rep struct {
		Report []struct {
			LV []map[string]string `json:"lv"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Report) != 1 || len(rep.Report[0].LV) != 1 {
		t.Fatalf("lvs json: %v\n%s", err, js)
	}
	if lv := rep.Report[0].LV[0]; lv["lv_name"] != "lv_nfs" || lv["stripes"] != "8" || lv["stripe_size"] != "4194304" || lv["lv_attr"][4] != '-' {
		t.Errorf("lv %v: want lv_nfs, 8 stripes of 4 MiB, inactive", lv)
	}
	// Again: LVM refuses a second VG of that name and a PV of a VG.
	if _, errs, code := simRun(t, nfs1, append([]string{"vgcreate", "vg_nfs"}, vg.Devices...)...); code != 5 || !strings.Contains(errs, "already exists") {
		t.Errorf("second vgcreate: exit %d %s", code, errs)
	}
	if _, errs, code := simRun(t, nfs2, "pvcreate", "-y", vg.Devices[0]); code != 5 || !strings.Contains(errs, `of volume group "vg_nfs" without -ff`) {
		t.Errorf("pvcreate on a PV of a VG: exit %d %s", code, errs)
	}
	// nfs2 sees the VG as foreign only, and cannot activate it.
	if out := mustSim(t, nfs2, "vgs", "--noheadings", "-o", "vg_name"); strings.TrimSpace(out) != "" {
		t.Errorf("nfs2 lists a foreign VG without --foreign: %q", out)
	}
	if out := mustSim(t, nfs2, "vgs", "--foreign", "--noheadings", "-o", "vg_name,systemid", "vg_nfs"); strings.Join(strings.Fields(out), " ") != "vg_nfs nfs1" {
		t.Errorf("vgs --foreign on nfs2: %q", out)
	}
	if _, errs, code := simRun(t, nfs2, "vgchange", "-ay", "vg_nfs"); code != 5 || !strings.Contains(errs, "Cannot access VG vg_nfs with system ID nfs1 with local system ID nfs2") {
		t.Errorf("activation of a foreign VG: exit %d %s", code, errs)
	}
	if sig := strings.TrimSpace(mustSim(t, nfs2, "blkid", "-p", "-o", "value", "-s", "TYPE", "/dev/mapper/nfs_vol3")); sig != "LVM2_member" {
		t.Errorf("nfs2 blkid of a PV: %q", sig)
	}
	// Failover as LVM-activate (vg_access_mode=system_id) does it.
	mustSim(t, nfs2, "vgchange", "-y", "--config", `local/extra_system_ids=["nfs1"]`, "--systemid", "nfs2", "vg_nfs")
	mustSim(t, nfs2, "vgchange", "-ay", "vg_nfs")
	if sig := strings.TrimSpace(mustSim(t, nfs2, "blkid", "-p", "-o", "value", "-s", "TYPE", "/dev/vg_nfs/lv_nfs")); sig != "xfs" {
		t.Errorf("nfs2 sees %q on the LV, want the xfs made on nfs1", sig)
	}
	if _, errs, code := simRun(t, nfs1, "vgchange", "-ay", "vg_nfs"); code != 5 || !strings.Contains(errs, "with system ID nfs2 with local system ID nfs1") {
		t.Errorf("nfs1 activates the VG nfs2 owns: exit %d %s", code, errs)
	}
	// A map under an active LV is in use.
	if _, errs, code := simRun(t, nfs2, "multipath", "-f", "nfs_vol1"); code != 1 || !strings.Contains(errs, "map in use") {
		t.Errorf("flush of a map in use: exit %d %s", code, errs)
	}
}
