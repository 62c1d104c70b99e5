package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// NetApp's building-block layout, from the EF600 preset and from an E-Series
// endpoint of the lab (read through the array seam); refusals first, so the
// final destroy runs on a valid configuration.
func TestArrayLayoutBeeGFSBuildingBlock(t *testing.T) {
	srv := eseriesLab(t)
	provider := fmt.Sprintf(`
provider "hpcstorage" {
  endpoints = {
    "ef600-1" = {
      url            = %q
      username       = %q
      password       = %q
      ca_certificate = %q
      api            = "santricity"
    }
  }
}
`, srv.URL, srv.Username, srv.Password, string(srv.CAPEM()))
	const ds = "data.hpcstorage_array_layout.bb"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{
				Config: provider + `
data "hpcstorage_array_layout" "bb" {
  model                 = "ME4084"
  beegfs_building_block = "storage"
}`,
				ExpectError: regexp.MustCompile(`(?s)with data.hpcstorage_array_layout.bb,.*model.*24\s+drives, got 84`),
			},
			{
				Config: provider + `
data "hpcstorage_array_layout" "bb" {
  model                 = "EF600"
  beegfs_building_block = "storage"
  policy                = { raid_level = "RAID6", drives_per_group = 12 }
}`,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*beegfs_building_block`),
			},
			{
				Config: provider + `
data "hpcstorage_array_layout" "bb" {
  model                 = "EF600"
  drive_capacity_bytes  = 3840000000000
  beegfs_building_block = "base"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("disk_groups").AtSliceIndex(0).AtMapKey("raid_level"), knownvalue.StringExact("RAID10")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("disk_groups").AtSliceIndex(2).AtMapKey("capacity_bytes"), knownvalue.Int64Exact(8*3840000000000)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("volumes"), knownvalue.ListSizeExact(13)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("volumes").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("mgmt")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("volumes").AtSliceIndex(1).AtMapKey("percent"), knownvalue.Float64Exact(23.75)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("volumes").AtSliceIndex(12).AtMapKey("segment_size_bytes"), knownvalue.Int64Exact(512<<10)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("spare_drive_ids"), knownvalue.ListSizeExact(0)),
				},
			},
			{
				Config: provider + `
data "hpcstorage_array_layout" "bb" {
  endpoint              = "ef600-1"
  beegfs_building_block = "storage"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("disk_groups").AtSliceIndex(1).AtMapKey("drive_ids").AtSliceIndex(0), knownvalue.StringExact("99.12")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("disk_groups").AtSliceIndex(1).AtMapKey("capacity_bytes"), knownvalue.Int64Exact(10*3840000000000)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("volumes"), knownvalue.ListSizeExact(8)),
				},
			},
		},
	})
}
