package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestR5NodesSeeVolumesAndShareGPFS: in the R5 lab every server has a
// root; the NSD servers see the ME4084, ME484 and ME4024 volumes mapped to
// them (the gateways do not); the Storage Scale packages and commands are
// there; and an NSD made on nsd1 shows on both servers' devices when
// listed from a gateway, through the shared cluster.
func TestR5NodesSeeVolumesAndShareGPFS(t *testing.T) {
	dir := t.TempDir()
	l, err := Up(Config{Design: "r5", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	roots := map[string]string{}
	for _, n := range l.State.Nodes {
		roots[n.Name] = n.Root
	}
	for _, n := range []string{"mgmt", "nsd1", "nsd2", "gw1", "gw2"} {
		if _, err := os.Stat(filepath.Join(roots[n], "etc/hostname")); err != nil {
			t.Errorf("%s has no root: %v", n, err)
		}
		db, _ := os.ReadFile(filepath.Join(roots[n], "var/lib/rpm/hpcstorage-fake-rpmdb.txt"))
		if !strings.Contains(string(db), "gpfs.base\t0:"+GPFSRelease) {
			t.Errorf("%s: gpfs.base not installed", n)
		}
		if got := strings.Contains(string(db), "gpfs.nfs-ganesha\t"); got != strings.HasPrefix(n, "gw") {
			t.Errorf("%s: CES packages installed = %v", n, got)
		}
		r, err := fsroot.Open(roots[n])
		if err != nil {
			t.Fatal(err)
		}
		if st, err := r.Stat("/usr/lpp/mmfs/bin/mmcrfs"); err != nil || !st.Mode().IsRegular() || r.CheckConfined("/usr/lpp/mmfs/bin/mmcrfs") != nil {
			t.Errorf("%s: /usr/lpp/mmfs/bin/mmcrfs is not the simulator inside the root: %v", n, err)
		}
		r.Close()
	}

	drives := func(encl, from, n int) []string {
		var out []string
		for i := from; i < from+n; i++ {
			out = append(out, fmt.Sprintf("%d.%d", encl, i))
		}
		return out
	}
	both := []string{"nsd1", "nsd2"}
	vols := map[string]VolumeRequest{
		"ME4084 data": {Array: "me4084-1", Pool: "dg01", RAID: "RAID6", Drives: drives(0, 0, 10), Volume: "data01", SegmentBytes: 512 << 10, Hosts: both, LUN: 1},
		"ME484 data":  {Array: "me4084-1", Pool: "dg09", RAID: "RAID6", Drives: drives(1, 0, 10), Volume: "data09", SegmentBytes: 512 << 10, Hosts: both, LUN: 9},
		"base SSD":    {Array: "me4084-1", Pool: "md01", RAID: "RAID1", Drives: drives(0, 80, 2), Volume: "meta01", Hosts: both, LUN: 20},
		"ME4024 meta": {Array: "me4024-1", Pool: "md01", RAID: "RAID1", Drives: drives(0, 0, 2), Volume: "meta03", Hosts: both, LUN: 1},
	}
	wwns := map[string]string{}
	for what, r := range vols {
		w, err := l.ProvisionVolume(r)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		wwns[what] = w
	}
	for what, w := range wwns {
		for _, n := range both {
			if _, err := os.Stat(filepath.Join(roots[n], "dev/disk/by-id/wwn-0x"+w)); err != nil {
				t.Errorf("%s does not see the %s volume: %v", n, what, err)
			}
		}
		for _, n := range []string{"gw1", "gw2", "mgmt"} {
			if _, err := os.Lstat(filepath.Join(roots[n], "dev/disk/by-id/wwn-0x"+w)); err == nil {
				t.Errorf("%s sees the %s volume", n, what)
			}
		}
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Fatalf("cabling: %v", errs)
	}

	run := func(node string, argv ...string) string {
		t.Helper()
		r, err := fsroot.Open(roots[node])
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		out, code, err := runner.Sim{Root: r}.Query(context.Background(), argv...)
		if err != nil || code != 0 {
			t.Fatalf("%s %q: exit %d %v\n%s", node, argv, code, err, out)
		}
		return out
	}
	write := func(node, p, s string) {
		full := filepath.Join(roots[node], p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mgmt", "root/nodes", "mgmt:quorum\nnsd1:quorum-manager\nnsd2:quorum-manager\ngw1\ngw2\n")
	run("mgmt", "/usr/lpp/mmfs/bin/mmcrcluster", "-N", "/root/nodes", "-C", "r5", "-r", "/usr/bin/ssh", "-R", "/usr/bin/scp", "-A")
	var st strings.Builder
	for what, w := range wwns {
		name := strings.NewReplacer(" ", "_").Replace(what)
		fmt.Fprintf(&st, "%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=%s servers=nsd1,nsd2\n", w, name)
	}
	write("nsd1", "root/nsd.stanza", st.String())
	run("nsd1", "mmcrnsd", "-F", "/root/nsd.stanza", "-v", "yes")
	out := run("gw2", "mmlsnsd", "-X", "-Y")
	for what, w := range wwns {
		name := strings.NewReplacer(" ", "_").Replace(what)
		for _, n := range both {
			dev := l.Disks()[n][w]
			if want := fmt.Sprintf(":%s:", name); !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf(":%s:generic:/dev/%s:", n, dev)) {
				t.Errorf("mmlsnsd -X from gw2: %s on %s (/dev/%s) missing:\n%s", name, n, dev, out)
			}
		}
	}
}
