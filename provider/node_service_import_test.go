package provider

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// A storage server and its targets applied once, forgotten by Terraform
// (removed blocks, nothing destroyed) and adopted again with import
// blocks: the import plan changes nothing but the secret's hash (the node
// cannot give the secret back), and the plan after that is empty.
func TestBeegfsImport(t *testing.T) {
	r := startR1Lab(t, 0)
	host := r.node("stor1").Host
	resources := fmt.Sprintf(`
resource "hpcstorage_beegfs_target" "st" {
  count        = 2
  host         = %[1]q
  wwn          = ["%[2]s", "%[3]s"][count.index]
  kind         = "storage"
  mount_point  = "/data/st0${count.index + 1}"
  segment_size_bytes = 524288
  data_drives  = 8
}

resource "hpcstorage_beegfs_storage" "s" {
  host             = %[1]q
  mgmtd_host       = "meta1"
  node_id          = 1
  targets          = [for t in hpcstorage_beegfs_target.st : { id = 100 + tonumber(substr(t.mount_point, -1, 1)), directory = "${t.mount_point}/storage" }]
  settings         = { tuneNumWorkers = "24" }
  conn_auth_secret = %[4]q
}
`, host, r.sts[0], r.sts[1], testSecret)
	forget := r.providerBlock() + `
removed {
  from = hpcstorage_beegfs_target.st
  lifecycle { destroy = false }
}
removed {
  from = hpcstorage_beegfs_storage.s
  lifecycle { destroy = false }
}
`
	adopt := r.providerBlock() + resources + fmt.Sprintf(`
import {
  to = hpcstorage_beegfs_target.st[0]
  id = "%[1]s/%[2]s"
}
import {
  to = hpcstorage_beegfs_target.st[1]
  id = "%[1]s/%[3]s"
}
import {
  to = hpcstorage_beegfs_storage.s
  id = "%[1]s/beegfs-storage"
}
`, host, beegfs.NormWWN(r.sts[0]), beegfs.NormWWN(r.sts[1]))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: r.providerBlock() + resources},
			{Config: forget},
			{
				Config: adopt,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_beegfs_target.st[0]", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("hpcstorage_beegfs_target.st[1]", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("hpcstorage_beegfs_storage.s", plancheck.ResourceActionUpdate),
						onlyChanged("hpcstorage_beegfs_storage.s", "conn_auth_secret_hash"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_beegfs_storage.s", tfjsonpath.New("node_id"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("hpcstorage_beegfs_target.st[1]", tfjsonpath.New("mount_point"), knownvalue.StringExact("/data/st02")),
				},
			},
			{
				// A node this provider never set up: refused, nothing imported.
				Config: adopt + fmt.Sprintf(`
resource "hpcstorage_beegfs_storage" "other" {
  host             = %[1]q
  mgmtd_host       = "meta1"
  node_id          = 2
  targets          = [{ id = 201, directory = "/data/st01/storage" }]
  conn_auth_secret = %[2]q
}
import {
  to = hpcstorage_beegfs_storage.other
  id = "%[1]s/beegfs-storage"
}
`, r.node("stor2").Host, testSecret),
				ExpectError: regexp.MustCompile(`Nothing To Import`),
			},
		},
	})
}

// onlyChanged checks that the update of address changes only the named
// attributes.
func onlyChanged(address string, attrs ...string) plancheck.PlanCheck {
	return planCheckFunc(func(req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
		for _, rc := range req.Plan.ResourceChanges {
			if rc.Address != address {
				continue
			}
			before, _ := rc.Change.Before.(map[string]any)
			after, _ := rc.Change.After.(map[string]any)
			var changed []string
			for k, a := range after {
				if fmt.Sprint(before[k]) != fmt.Sprint(a) {
					changed = append(changed, k)
				}
			}
			sort.Strings(changed)
			if strings.Join(changed, ",") != strings.Join(attrs, ",") {
				resp.Error = fmt.Errorf("%s changes %v, want only %v (before %v, after %v)", address, changed, attrs, before, after)
			}
			return
		}
		resp.Error = fmt.Errorf("%s not in the plan", address)
	})
}

type planCheckFunc func(plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse)

func (f planCheckFunc) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	f(req, resp)
}
