package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/items"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// The r4 lab: 3 monitors, 4 OSD nodes whose roots hold the 22 NVMe drives
// the BMC lists (KCM6XRUL3T84, 3.84 TB, non-rotational) besides the boot
// disk, 10 clients, every node registered for the Ceph simulators.
func TestUpR4NodesAndDrives(t *testing.T) {
	l, err := Up(Config{Design: "r4", Dir: t.TempDir(), Clients: 10, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	roles := map[string]int{}
	for _, n := range l.State.Nodes {
		roles[n.Role]++
	}
	if roles[RoleMetadata] != 3 || roles[RoleStorage] != 4 || roles[RoleClient] != 10 {
		t.Fatalf("r4 nodes by role: %v", roles)
	}
	for _, n := range l.State.Nodes {
		root, err := fsroot.Open(n.Root)
		if err != nil {
			t.Fatal(err)
		}
		disks, err := items.ListDisks(root)
		root.Close()
		if err != nil {
			t.Fatal(err)
		}
		nvme := 0
		for _, d := range disks {
			if !strings.HasPrefix(d.Name, "nvme") {
				continue
			}
			if n.Role != RoleStorage {
				continue // the clients boot from NVMe
			}
			nvme++
			if d.Model != "KCM6XRUL3T84" || d.SizeBytes != 3840*1000*1000*1000 || d.Rotational || !strings.HasPrefix(d.WWID, "eui.8ce38e") {
				t.Errorf("%s %s: %+v", n.Name, d.Name, d)
			}
		}
		if n.Role == RoleStorage && (nvme != 22 || len(disks) != 23) {
			t.Errorf("%s: %d NVMe of %d disks, want 22 besides the boot disk", n.Name, nvme, len(disks))
		}
		if n.Role != RoleStorage && nvme > 1 {
			t.Errorf("%s: %d NVMe drives", n.Name, nvme)
		}
		if n.Role == RoleClient {
			unit, err := os.ReadFile(filepath.Join(n.Root, "lib/systemd/system/rbdmap.service"))
			status, _ := os.ReadFile(filepath.Join(n.Root, "var/lib/dpkg/status"))
			if err != nil || !strings.Contains(string(unit), "ExecStart=/usr/bin/rbdmap map") || !strings.Contains(string(status), "Package: ceph-common\n") {
				t.Errorf("%s: ceph-common and its rbdmap unit missing: %v", n.Name, err)
			}
		}
		reg := filepath.Join(l.State.Dir, SharedDir, sim.NodesDir, n.Name)
		if target, err := os.Readlink(reg); err != nil || target != n.Root {
			t.Errorf("node registry %s: %q %v", n.Name, target, err)
		}
	}
}
