package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

const serverFirmwareConfig = `
resource "hpcstorage_server" "meta" {
  endpoint    = "meta1-bmc"
  power_state = "On"
  bios_attributes = { SubNumaCluster = %[1]q }
  firmware = [
    { component = "BIOS", version = %[2]q, image_uri = "https://repo.example.com/BIOS_%[2]s.EXE", models = [%[3]q] },
    { component = "BMC", version = "7.10.30.00", image_uri = "https://repo.example.com/iDRAC_7.10.30.00.EXE" },
  ]
}
`

const updatePath = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"

// expectFirmware checks what the BMC runs and how many updates and resets
// it received since the last check.
func expectFirmware(svc *redfishmock.Service, bios, bmc string, updates, resets int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		defer svc.ResetStats()
		gotBIOS, gotBMC, pending := svc.Firmware()
		if gotBIOS != bios || gotBMC != bmc || pending != "" {
			return fmt.Errorf("BMC runs BIOS %s (pending %q) and BMC %s, want %s and %s", gotBIOS, pending, gotBMC, bios, bmc)
		}
		if got := svc.RequestCount("POST", updatePath); got != updates {
			return fmt.Errorf("%d SimpleUpdate requests, want %d", got, updates)
		}
		if got := svc.RequestCount("POST", resetPath); got != resets {
			return fmt.Errorf("%d resets, want %d", got, resets)
		}
		return nil
	}
}

// Firmware through the BMC: an image for another model is refused at plan
// naming it; BIOS firmware and a BIOS value of one apply cost one reboot
// and the BMC's own firmware none; a component already at its version is
// left alone; a version changed underneath shows in the next plan.
func TestServerFirmware(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc")
	meta1 := lab.svcs["meta1-bmc"]
	for _, img := range []redfishmock.Image{
		{URI: "https://repo.example.com/BIOS_2.12.2.EXE", Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}},
		{URI: "https://repo.example.com/BIOS_2.13.3.EXE", Component: redfishmock.ComponentBIOS, Version: "2.13.3", Models: []string{"PowerEdge R740"}},
		{URI: "https://repo.example.com/iDRAC_7.10.30.00.EXE", Component: redfishmock.ComponentBMC, Version: "7.10.30.00", Models: []string{"PowerEdge R740"}},
	} {
		if err := meta1.RegisterImage(img); err != nil {
			t.Fatal(err)
		}
	}
	res := "hpcstorage_server.meta"
	cfg := func(snc, bios, model string) string {
		return lab.providerBlock() + fmt.Sprintf(serverFirmwareConfig, snc, bios, model)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{
				Config:      cfg("Enabled", "2.12.2", "PowerEdge R640"),
				ExpectError: regexp.MustCompile(`(?s)Firmware Image For Another Model.*firmware\[0\]\.models.*fits PowerEdge R640, not.*PowerEdge R740`),
			},
			{
				PreConfig: func() { meta1.ResetStats() },
				Config:    cfg("Enabled", "2.12.2", "PowerEdge R740"),
				Check:     expectFirmware(meta1, "2.12.2", "7.10.30.00", 2, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("firmware").AtSliceIndex(0).AtMapKey("version"), knownvalue.StringExact("2.12.2")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("bios_version"), knownvalue.StringExact("2.12.2")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			// Already there: nothing sent, no reboot.
			{
				Config: cfg("Enabled", "2.12.2", "PowerEdge R740"),
				Check:  expectFirmware(meta1, "2.12.2", "7.10.30.00", 0, 0),
			},
			// A newer BIOS alone: one update, one reboot to run it.
			{
				Config: cfg("Enabled", "2.13.3", "PowerEdge R740"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectFirmware(meta1, "2.13.3", "7.10.30.00", 1, 1),
			},
		},
	})
}
