package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// A BIOS change costs what it needs: one PATCH, one reset (the iDRAC-like
// BMC creates its job from the PATCH), the registry from where the last
// plan found it, one read of the system and BIOS to type the values, a poll
// of the job, and the reads that record the result. A no-op plan after it
// reads the system, the BIOS and its settings once each.
func TestServerBiosChangeRequests(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc")
	svc := lab.svcs["meta1-bmc"]
	cfg := func(lp, snc string) string {
		return lab.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_server" "s" {
  endpoint        = "meta1-bmc"
  power_state     = "On"
  bios_attributes = { LogicalProc = %q, SubNumaCluster = %q }
}`, lp, snc)
	}
	byKind := func() (writes, gets map[string]int) {
		writes, gets = map[string]int{}, map[string]int{}
		for k, n := range svc.Stats() {
			method, p, _ := strings.Cut(k, " ")
			switch {
			case strings.HasPrefix(p, "/redfish/v1/SessionService/Sessions"):
			// iDRAC 9 answers the BIOS PATCH with the job's Task (the mock follows).
			case method == "GET" && (strings.Contains(p, "/Jobs/") || strings.Contains(p, "/TaskService/Tasks/")):
				gets["job"] += n
			case method == "GET":
				gets[p] += n
			default:
				writes[method+" "+p] += n
			}
		}
		return writes, gets
	}
	const sys = "/redfish/v1/Systems/System.Embedded.1"
	change := func(*terraform.State) error {
		defer svc.ResetStats()
		writes, gets := byKind()
		wantWrites := map[string]int{"PATCH " + sys + "/Bios/Settings": 1, "POST " + sys + "/Actions/ComputerSystem.Reset": 1}
		if fmt.Sprint(writes) != fmt.Sprint(wantWrites) {
			return fmt.Errorf("writes %v, want %v", writes, wantWrites)
		}
		// Plan refresh, apply read, poll (the values once while the job
		// runs, once after), state read after apply.
		if gets[sys] > 4 || gets[sys+"/Bios"] > 5 || gets[sys+"/Bios/Settings"] > 3 {
			return fmt.Errorf("system and BIOS read too often: %v", gets)
		}
		// The registry: once in the plan, once when terraform plans again
		// at apply, each straight from where it was found before.
		registry := 0
		for p, n := range gets {
			if strings.Contains(p, "Registr") {
				registry += n
			}
		}
		if registry > 2 || gets["/redfish/v1/Registries/BiosAttributeRegistry.v1_0_3"] > 0 || gets["job"] == 0 || gets["job"] > 12 {
			return fmt.Errorf("registry GETs %d, job polls %d: %v", registry, gets["job"], gets)
		}
		return nil
	}
	noop := func(*terraform.State) error {
		writes, gets := byKind()
		want := map[string]int{sys: 1, sys + "/Bios": 1, sys + "/Bios/Settings": 1}
		if len(writes) > 0 || fmt.Sprint(gets) != fmt.Sprint(want) {
			return fmt.Errorf("no-op plan: writes %v, GETs %v, want %v", writes, gets, want)
		}
		return nil
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: cfg("Disabled", "Enabled"), ConfigPlanChecks: empty},
			{Config: cfg("Enabled", "Disabled"), PreConfig: svc.ResetStats, Check: change, ConfigPlanChecks: empty},
			// Nothing to do: the refresh alone talks to the BMC.
			{Config: cfg("Enabled", "Disabled"), PreConfig: svc.ResetStats, Check: noop},
		},
	})
}

// TestServerApplyTimeoutIsADuration: apply_timeout takes a Go duration
// within its bounds, refused at plan otherwise, naming the attribute.
func TestServerApplyTimeoutIsADuration(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc")
	for _, bad := range []string{"90", "5s", "3h", "-1m"} {
		t.Run(bad, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps: []resource.TestStep{{
					Config: lab.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_server" "s" {
  endpoint      = "meta1-bmc"
  apply_timeout = %q
}`, bad),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)Attribute apply_timeout: .*from\s+10s\s+to\s+2h`),
				}},
			})
		})
	}
}
