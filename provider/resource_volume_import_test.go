package provider

import (
	"os"
	"path/filepath"
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

// An array whose pools have ids that are not their names (as ME4 arrays
// give them): an imported volume records its disk group by name, as the
// configuration writes it, so the next plan replaces nothing.
func TestVolumeImportPoolIDIsNotItsName(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{
		"":        `{"@odata.id":"/redfish/v1","Storage":{"@odata.id":"/redfish/v1/Storage"}}`,
		"Storage": `{"@odata.id":"/redfish/v1/Storage","Members":[{"@odata.id":"/redfish/v1/Storage/arr1"}]}`,
		"Storage/arr1": `{"@odata.id":"/redfish/v1/Storage/arr1","Id":"arr1","Drives":[],
			"Volumes":{"@odata.id":"/redfish/v1/Storage/arr1/Volumes"},"StoragePools":{"@odata.id":"/redfish/v1/Storage/arr1/StoragePools"}}`,
		"Storage/arr1/StoragePools": `{"@odata.id":"/redfish/v1/Storage/arr1/StoragePools","Members":[{"@odata.id":"/redfish/v1/Storage/arr1/StoragePools/00c0ff0a1b"}]}`,
		"Storage/arr1/StoragePools/00c0ff0a1b": `{"@odata.id":"/redfish/v1/Storage/arr1/StoragePools/00c0ff0a1b","Id":"00c0ff0a1b","Name":"dg01",
			"SupportedRAIDTypes":["RAID6"],"Capacity":{"Data":{"AllocatedBytes":96000000000000,"ConsumedBytes":4294967296}}}`,
		"Storage/arr1/Volumes": `{"@odata.id":"/redfish/v1/Storage/arr1/Volumes","Members":[{"@odata.id":"/redfish/v1/Storage/arr1/Volumes/00c0ff0c2d"}]}`,
		"Storage/arr1/Volumes/00c0ff0c2d": `{"@odata.id":"/redfish/v1/Storage/arr1/Volumes/00c0ff0c2d","Id":"00c0ff0c2d","Name":"st01",
			"CapacityBytes":4294967296,"StripSizeBytes":524288,"RAIDType":"RAID6",
			"Identifiers":[{"DurableNameFormat":"NAA","DurableName":"600C0FF0000000000000000000000001"}],
			"Links":{"ProvidingStoragePool":{"@odata.id":"/redfish/v1/Storage/arr1/StoragePools/00c0ff0a1b"}}}`,
	}
	for rel, body := range docs {
		d := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "index.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lab := replayDirLab(t, dir)
	cfg := lab.providerBlock() + `
resource "hpcstorage_volume" "v" {
  endpoint   = "bmc"
  storage_id = "arr1"
  disk_group = "dg01"
  name       = "st01"
}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: "hpcstorage_volume.v", ImportState: true, ImportStateId: "bmc/arr1/00c0ff0c2d", ImportStatePersist: true},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_volume.v", tfjsonpath.New("disk_group"), knownvalue.StringExact("dg01")),
				}},
		},
	})
}
