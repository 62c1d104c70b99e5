package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestR2HALVMRefusesUsedDevice: a volume that already holds a file system
// fails the plan on wipe, naming the device; with wipe = true it becomes
// the volume group.
func TestR2HALVMRefusesUsedDevice(t *testing.T) {
	r := startR2Lab(t)
	used := r.provision(t, 9, "RAID1", []string{"0.82", "0.83"}, []string{"nfs1", "nfs2"}, "xfs")
	nfs1 := r.node("nfs1").Host
	mp := r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_multipath" "mp" {
  host    = %q
  volumes = { nfs_vol9 = %q }
}
`, nfs1, used)
	lvm := func(wipe bool) string {
		return mp + fmt.Sprintf(`
resource "hpcstorage_ha_lvm" "lvm" {
  host               = hpcstorage_multipath.mp.host
  volume_group       = "vg_reused"
  logical_volume     = "lv_reused"
  devices            = values(hpcstorage_multipath.mp.devices)
  segment_size_bytes = 524288
  data_drives        = 8
  create             = true
  wipe               = %t
}
`, wipe)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: mp},
			{Config: lvm(false), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Attribute wipe: .*` +
				loose("/dev/mapper/nfs_vol9 already holds a xfs signature (another volume group or file system): refusing to create vg_reused over it; set wipe = true to erase it"))},
			{
				Config: lvm(true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if s := r.sharedLVM(t); !strings.Contains(s, `"name": "lv_reused"`) {
						return fmt.Errorf("no volume group over the wiped volume:\n%s", s)
					}
					return nil
				})},
			},
		},
	})
}

// TestR2DestroyPutsFilesBack: the destroy paths of hpcstorage_nfs_server
// and hpcstorage_ha_lvm as documented. On a node whose site already had
// nfs.conf, idmapd.conf and lvmlocal.conf, apply replaces them; destroy
// puts each back byte for byte and the NFS unit's boot setting as it was,
// and never removes a volume group (here one made by the same apply).
func TestR2DestroyPutsFilesBack(t *testing.T) {
	r := startR2Lab(t)
	node := r.node("nfs1")
	site := map[string]string{
		"etc/nfs.conf":          "# the site's own\n[nfsd]\nthreads=16\n",
		"etc/idmapd.conf":       "[General]\nDomain = site.example\n",
		"etc/lvm/lvmlocal.conf": "# the site's lvmlocal.conf\nlocal {\n}\n",
	}
	for f, c := range site {
		p := filepath.Join(node.Root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unit := func() string {
		var sd struct {
			Units map[string]struct{ Enabled, Active bool } `json:"units"`
		}
		if err := json.Unmarshal([]byte(r.read(t, "nfs1", "run/hpcstorage-sim/systemd.json")), &sd); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+v", sd.Units["nfs-server.service"])
	}
	unitBefore := unit()
	config := r.providerBlock() + r.hosts() + fmt.Sprintf(`
resource "hpcstorage_multipath" "mp" {
  host    = %q
  volumes = local.vols
}

resource "hpcstorage_nfs_server" "nfs" {
  host         = %q
  threads      = 128
  idmap_domain = "hpc.example"
}

resource "hpcstorage_ha_lvm" "lvm" {
  host               = hpcstorage_multipath.mp.host
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = [for a in sort(keys(local.vols)) : hpcstorage_multipath.mp.devices[a]]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = true
}
`, node.Host, node.Host)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
				for f, c := range site {
					if r.read(t, "nfs1", f) == c {
						return fmt.Errorf("%s was not written by the apply", f)
					}
				}
				if s := r.sharedLVM(t); !strings.Contains(s, `"name": "lv_nfs"`) {
					return fmt.Errorf("no volume group after apply:\n%s", s)
				}
				return nil
			})},
		}},
		CheckDestroy: func(*terraform.State) error {
			for f, c := range site {
				if got := r.read(t, "nfs1", f); got != c {
					return fmt.Errorf("%s after destroy:\n%s\nwant the site's:\n%s", f, got, c)
				}
			}
			if got := unit(); got != unitBefore {
				return fmt.Errorf("nfs-server.service after destroy %s, before the apply %s", got, unitBefore)
			}
			if s := r.sharedLVM(t); !strings.Contains(s, `"name": "lv_nfs"`) || !strings.Contains(s, `"fstype": "xfs"`) {
				return fmt.Errorf("destroy removed the volume group or its file system:\n%s", s)
			}
			return nil
		},
	})
}
