package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestBeegfsHAServicesRefusals: a pair's mistakes are refused at plan,
// naming the attribute, before any node is touched: a target volume not
// mapped to both servers, and two groups with one floating IP.
func TestBeegfsHAServicesRefusals(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	conf := func(mappedTo, secondIP string) string {
		return r.providerBlock() + fmt.Sprintf(`
locals {
  services = [for i, s in ["stor1", "stor2"] : {
    kind           = "storage"
    name           = s
    floating_ip    = i == 0 ? "10.100.0.32/24" : %q
    interface      = "ib0"
    preferred_node = s
    node_id        = i + 1
    targets = [{
      wwn = format("600c0ff00012345600000000%%08x", i + 1), mount_point = "/data/st0${i + 1}", segment_size_bytes = 524288, data_drives = 8
      mapped_to = i == 0 ? %s : ["stor1", "stor2"]
    }]
    storage_targets = [{ id = 101 + i, directory = "/data/st0${i + 1}/storage" }]
  }]
}

resource "hpcstorage_beegfs_ha_services" "stor1" {
  host                  = %q
  node                  = "stor1"
  nodes                 = ["stor1", "stor2"]
  mgmtd_ip              = "10.100.0.1"
  services              = local.services
  conn_auth_secret_file = %q
}
`, secondIP, mappedTo, r.node("stor1").Host, filepath.Join(dir, lab.SecretFile))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: conf(`["stor2"]`, "10.100.0.33/24"),
				ExpectError: wordsRE("Attribute services[0].targets[0].mapped_to: Fix the value in the configuration. Original Error: " +
					"invalid BeeGFS setting: services[0].targets[0].mapped_to: volume 600c0ff0001234560000000000000001 is mapped to stor2 but not to stor1"),
			},
			{
				Config: conf(`["stor1", "stor2"]`, "10.100.0.32/24"),
				ExpectError: wordsRE("Attribute services[1].floating_ip: Fix the value in the configuration. Original Error: invalid " +
					"BeeGFS setting: services[1].floating_ip: 10.100.0.32 is also the floating IP of services[0] (stor1)"),
			},
		},
	})
}
