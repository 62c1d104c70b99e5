package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

func firmwareConfig(lab *mockLab, floors ...string) string {
	return lab.providerBlock() + fmt.Sprintf(`data "hpcstorage_firmware_inventory" "fw" {
  endpoint = "nfs1-bmc"
  floors = [%s]
}
`, strings.Join(floors, ",\n"))
}

const cascadeLake = `reason = "R2: update the BIOS before moving to Cascade Lake CPUs"`

// The floors are checked at plan on the stateful mock, through a BIOS
// update that is staged (pending) and then lands with the reset.
func TestFirmwareInventoryDataSource(t *testing.T) {
	lab := startLab(t, "r2", redfishmock.Options{}, "nfs1-bmc")
	svc := lab.svcs["nfs1-bmc"]
	const uri = "http://repo.lab/r740/BIOS_2.12.2.exe"
	if err := svc.RegisterImage(redfishmock.Image{URI: uri, Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sys *redfish.System
	client := func() *redfish.Endpoint {
		ep := lab.client(t, "nfs1-bmc")
		id, err := ep.FindSystem(ctx, "")
		if err == nil {
			sys, err = ep.GetSystem(ctx, id)
		}
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	ds := "data.hpcstorage_firmware_inventory.fw"
	bios := tfjsonpath.New("components").AtSliceIndex(0)
	below := regexp.MustCompile(`(?s)Firmware Below Its Floor.*floors\[0\].*` + loose("BIOS runs 2.10.2, below 2.12.2 (R2: update the BIOS before moving to Cascade Lake CPUs)"))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{
				Config: firmwareConfig(lab, `{ component = "BIOS", min_version = "2.1.8", `+cascadeLake+` }`,
					`{ component = "iDRAC.Embedded.1-1", min_version = "4.40.0.0" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("model"), knownvalue.StringExact("PowerEdge R740")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("components"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(ds, bios, knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id": knownvalue.StringExact("Installed-159-2.10.2__BIOS.Setup.1-1"), "name": knownvalue.StringExact("BIOS"),
						"kind": knownvalue.StringExact("BIOS"), "version": knownvalue.StringExact("2.10.2"),
						"pending_version": knownvalue.StringExact(""), "updateable": knownvalue.Bool(true), "software_id": knownvalue.StringExact("159"),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("components").AtSliceIndex(1).AtMapKey("version"), knownvalue.StringExact("4.40.00.00")),
				},
			},
			{Config: firmwareConfig(lab, `{ component = "bios", min_version = "2.12.2", `+cascadeLake+` }`), ExpectError: below},
			{
				// Staged, not running: the floor still fails and says so.
				PreConfig: func() {
					ep := client()
					res, err := ep.UpdateFirmware(ctx, sys, redfish.FirmwareUpdate{Component: "BIOS", Version: "2.12.2", ImageURI: uri}, fastWaiter())
					if err != nil || !res.ResetRequired {
						t.Fatalf("staging the BIOS: %+v %v", res, err)
					}
				},
				Config:      firmwareConfig(lab, `{ component = "BIOS", min_version = "2.12.2", `+cascadeLake+` }`),
				ExpectError: regexp.MustCompile(below.String() + `.*` + loose("2.12.2 is staged and runs after the next reset")),
			},
			{
				PreConfig: func() {
					ep := client()
					if err := ep.Reset(ctx, sys, "ForceRestart"); err != nil {
						t.Fatal(err)
					}
					if err := fastWaiter().Until(ctx, "the new BIOS", func() (bool, string, error) {
						bios, _, pending := svc.Firmware()
						return bios == "2.12.2" && pending == "" && svc.PowerState() == redfishmock.PowerOn, bios, nil
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config: firmwareConfig(lab, `{ component = "BIOS", min_version = "2.12.2", `+cascadeLake+` }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, bios.AtMapKey("version"), knownvalue.StringExact("2.12.2")),
					statecheck.ExpectKnownValue(ds, bios.AtMapKey("pending_version"), knownvalue.StringExact("")),
				},
			},
		},
	})
}

// Bad floors are refused before anything is read, naming the floor; a
// floor on a component the server lacks lists what there is.
func TestFirmwareInventoryBadFloors(t *testing.T) {
	lab := startLab(t, "r2", redfishmock.Options{}, "nfs1-bmc")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: firmwareConfig(lab, `{ component = "BIOS", min_version = "" }`),
				ExpectError: regexp.MustCompile(`(?s)Invalid Firmware Floor.*floors\[0\].*` + loose(`min version "" holds no number or word`))},
			{Config: firmwareConfig(lab, `{ component = "BIOS", min_version = "1" }`, `{ component = "NIC.Slot.5-1", min_version = "1" }`),
				ExpectError: regexp.MustCompile(`(?s)floors\[1\].*` + loose(`no such firmware component: "NIC.Slot.5-1" (the inventory holds BIOS, Integrated Dell Remote Access Controller (BMC))`))},
		},
	})
}

// Real BMCs' inventories, replayed: iDRAC's Current-, Installed- and
// Previous- entries become one component each; the DMTF mockup's BIOS and
// BMC are found by what they relate to.
func TestFirmwareInventoryCaptures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, bios, bmc, biosFloor, bmcFloor string }{
		{"libredfish-dell", "1.8.2", "6.00.30.00", "1.2.4", "4.40.29.00"},
		{"dmtf-public-rackmount1", "P79 v1.45", "1.45.455b66-rev4", "P79 v1.10", "1.30.367a12-rev1"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			lab, _ := replayLab(t, tc.dir)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps: []resource.TestStep{{
					Config: lab.providerBlock() + fmt.Sprintf(`data "hpcstorage_firmware_inventory" "fw" {
  endpoint = "bmc"
  floors = [{ component = "BIOS", min_version = %q }, { component = "BMC", min_version = %q }]
}
output "bios" { value = one([for c in data.hpcstorage_firmware_inventory.fw.components : c.version if c.kind == "BIOS"]) }
output "bmc" { value = one([for c in data.hpcstorage_firmware_inventory.fw.components : c.version if c.kind == "BMC"]) }
output "previous" { value = length([for c in data.hpcstorage_firmware_inventory.fw.components : c if startswith(c.id, "Previous-")]) }
`, tc.biosFloor, tc.bmcFloor),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownOutputValue("bios", knownvalue.StringExact(tc.bios)),
						statecheck.ExpectKnownOutputValue("bmc", knownvalue.StringExact(tc.bmc)),
						statecheck.ExpectKnownOutputValue("previous", knownvalue.Int64Exact(0)),
					},
				}},
			})
		})
	}
}
