package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
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
