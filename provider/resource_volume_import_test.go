package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Volumes of RAID controllers in servers, as real controllers name them
// (spaces included) and where they keep them (storage under a system), are
// imported; the next plan is empty: nothing is replaced.
func TestVolumeImportFromCaptures(t *testing.T) {
	for _, tc := range []struct{ capture, importID, storage, name string }{
		// The volume's @odata.id after the endpoint.
		{"libredfish-hpe", "bmc/redfish/v1/Systems/1/Storage/DE081000/Volumes/1", "/redfish/v1/Systems/1/Storage/DE081000", "SR Volume 1"},
		// The id attribute's own form: <endpoint>/<storage_id>/<volume id>.
		{"dmtf-public-localstorage", "bmc//redfish/v1/Systems/437XR1138R2/Storage/1/2", "/redfish/v1/Systems/437XR1138R2/Storage/1", "Virtual Disk 2"},
		{"dmtf-public-tower", "bmc/redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID/Volumes/Boot", "/redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID", "Boot/Application Volume"},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			lab, _ := replayLab(t, tc.capture)
			cfg := lab.providerBlock() + `
resource "hpcstorage_volume" "v" {
  endpoint   = "bmc"
  storage_id = "` + tc.storage + `"
  disk_group = ""
  name       = "` + tc.name + `"
}`
			res := "hpcstorage_volume.v"
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps: []resource.TestStep{
					{Config: cfg, ResourceName: res, ImportState: true, ImportStateId: tc.importID, ImportStatePersist: true},
					{Config: cfg,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(res, tfjsonpath.New("name"), knownvalue.StringExact(tc.name)),
							statecheck.ExpectKnownValue(res, tfjsonpath.New("storage_id"), knownvalue.StringExact(tc.storage)),
						},
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
				},
			})
		})
	}
}

// Names the provider would create are still checked at plan time.
func TestVolumeNewNameChecked(t *testing.T) {
	lab, _ := replayLab(t, "dmtf-public-localstorage")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: lab.providerBlock() + `
resource "hpcstorage_volume" "v" {
  endpoint   = "bmc"
  storage_id = "/redfish/v1/Systems/437XR1138R2/Storage/1"
  disk_group = "dg01"
  name       = "My New Volume"
}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Invalid Name For A New Object.*letters, digits`),
		}},
	})
}

// Import ids of volumes and disk groups: plain storage ids, and storage
// under a system given by its @odata.id (one slash or the id attribute's
// two, with or without the collection segment).
func TestSplitStorageImportID(t *testing.T) {
	for _, tc := range []struct{ id, coll, ep, sid, obj string }{
		{"me4084-1/controller_a/st01", "Volumes", "me4084-1", "controller_a", "st01"},
		{"bmc/redfish/v1/Systems/1/Storage/DE081000/Volumes/1", "Volumes", "bmc", "/redfish/v1/Systems/1/Storage/DE081000", "1"},
		{"bmc//redfish/v1/Systems/1/Storage/DE081000/1", "Volumes", "bmc", "/redfish/v1/Systems/1/Storage/DE081000", "1"},
		{"bmc/redfish/v1/Systems/1/Storage/RAID/StoragePools/dg1", "StoragePools", "bmc", "/redfish/v1/Systems/1/Storage/RAID", "dg1"},
	} {
		ep, sid, obj, err := splitStorageImportID(tc.id, tc.coll)
		if err != nil || ep != tc.ep || sid != tc.sid || obj != tc.obj {
			t.Errorf("%s: %q %q %q %v", tc.id, ep, sid, obj, err)
		}
	}
	for _, bad := range []string{"bmc", "bmc/st01", "/controller_a/st01", "bmc/controller_a/", "bmc///x/1"} {
		if _, _, _, err := splitStorageImportID(bad, "Volumes"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
