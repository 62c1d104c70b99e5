package provider

import (
	"context"
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

const serverConfig = `
resource "hpcstorage_server" "meta" {
  endpoint    = %[1]q
  power_state = "On"
  bios_attributes = {
    SysProfile     = "PerfOptimized"
    LogicalProc    = "Disabled"
    SubNumaCluster = %[2]q
  }
  %[3]s
}
`

const resetPath = "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset"

// expectResets checks how many resets the BMC received since the last check.
func expectResets(svc *redfishmock.Service, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		defer svc.ResetStats()
		if got := svc.RequestCount("POST", resetPath); got != want {
			return fmt.Errorf("BMC received %d resets, want %d", got, want)
		}
		return nil
	}
}

func TestServerResource(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc", "meta2-bmc")
	meta1 := lab.svcs["meta1-bmc"]
	res := "hpcstorage_server.meta"
	cfg := func(ep, snc, extra string) string {
		return lab.providerBlock() + fmt.Sprintf(serverConfig, ep, snc, extra)
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			// Plan-time validation against the registry: nothing is applied.
			{
				Config:      cfg("meta1-bmc", "Enabled", `bios_attributes_extra = 1`),
				ExpectError: regexp.MustCompile(`Unsupported argument`),
			},
			{
				Config:      lab.providerBlock() + `resource "hpcstorage_server" "meta" {` + "\n" + `endpoint = "meta1-bmc"` + "\n" + `bios_attributes = { SysProfle = "PerfOptimized" }` + "\n}",
				ExpectError: regexp.MustCompile(`(?s)bios_attributes\["SysProfle"\].*unknown BIOS attribute "SysProfle"`),
			},
			{
				Config:      lab.providerBlock() + `resource "hpcstorage_server" "meta" {` + "\n" + `endpoint = "meta1-bmc"` + "\n" + `bios_attributes = { LogicalProc = "Off", AcPwrRcvryUserDelay = "soon" }` + "\n}",
				ExpectError: regexp.MustCompile(`(?s)bios_attributes\["LogicalProc"\].*LogicalProc = "Off"; allowed: Enabled, Disabled.*bios_attributes\["AcPwrRcvryUserDelay"\].*takes an integer, got "soon"`),
			},
			{
				Config:      lab.providerBlock() + `resource "hpcstorage_server" "meta" {` + "\n" + `endpoint = "nope-bmc"` + "\n}",
				ExpectError: regexp.MustCompile(`(?s)Unknown Endpoint.*"nope-bmc" \(configured: \[meta1-bmc\s+meta2-bmc\]\)`),
			},
			// Create: BIOS applied with exactly one reboot, inventory read.
			{
				PreConfig: func() { meta1.ResetStats() },
				Config:    cfg("meta1-bmc", "Enabled", ""),
				Check:     expectResets(meta1, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("id"), knownvalue.StringExact("meta1-bmc/System.Embedded.1")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("bios_attributes"), knownvalue.MapExact(map[string]knownvalue.Check{
						"SysProfile": knownvalue.StringExact("PerfOptimized"), "LogicalProc": knownvalue.StringExact("Disabled"),
						"SubNumaCluster": knownvalue.StringExact("Enabled"),
					})),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("bios_pending"), knownvalue.MapSizeExact(0)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("model"), knownvalue.StringExact("PowerEdge R740")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("cpu_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("nic_macs"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("power_state"), knownvalue.StringExact("On")),
				},
				ConfigPlanChecks: empty,
			},
			// Drift: someone turns hyper-threading back on through the BMC;
			// the plan shows it and the apply puts it back with one reboot.
			{
				PreConfig: func() {
					ep := lab.client(t, "meta1-bmc")
					sys, err := ep.GetSystem(context.Background(), "System.Embedded.1")
					if err != nil {
						t.Fatal(err)
					}
					if _, err := ep.ApplyBios(context.Background(), sys, map[string]any{"LogicalProc": "Enabled"}, fastWaiter()); err != nil {
						t.Fatal(err)
					}
					meta1.ResetStats()
				},
				Config: cfg("meta1-bmc", "Enabled", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(res, tfjsonpath.New("bios_attributes").AtMapKey("LogicalProc"), knownvalue.StringExact("Disabled")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectResets(meta1, 1),
			},
			// Update in place: one BIOS value and a boot override, one reboot.
			{
				Config: cfg("meta1-bmc", "Disabled", `boot_source_override = { target = "Pxe", enabled = "Continuous" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectResets(meta1, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("bios_attributes").AtMapKey("SubNumaCluster"), knownvalue.StringExact("Disabled")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("boot_source_override"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"target": knownvalue.StringExact("Pxe"), "enabled": knownvalue.StringExact("Continuous"), "mode": knownvalue.StringExact("UEFI"),
					})),
				},
			},
			// Import by endpoint/system-id.
			{
				ResourceName:            res,
				ImportState:             true,
				ImportStateId:           "meta1-bmc/System.Embedded.1",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"bios_attributes", "boot_source_override"},
			},
			// Another BMC: the plan says replace.
			{
				Config: cfg("meta2-bmc", "Disabled", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("id"), knownvalue.StringExact("meta2-bmc/System.Embedded.1")),
				},
			},
		},
	})
	// Destroy leaves the servers running with their settings.
	if meta1.PowerState() != "On" {
		t.Errorf("meta1 power after destroy = %s, want On", meta1.PowerState())
	}
	if cur, _ := meta1.BiosAttributes(); cur["LogicalProc"] != "Disabled" {
		t.Errorf("meta1 LogicalProc after destroy = %v", cur["LogicalProc"])
	}
}

// Power off and on through the resource, with a 503 burst on the way.
func TestServerResourcePowerWithFaults(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "stor1-bmc")
	svc := lab.svcs["stor1-bmc"]
	cfg := func(power string) string {
		return lab.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_server" "s" {
  endpoint    = "stor1-bmc"
  power_state = %[1]q
}`, power)
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := svc.InjectFault(redfishmock.Fault{Method: "GET", Path: "/redfish/v1/Systems/*", Kind: redfishmock.FaultStatus,
						Status: 503, RetryAfter: 1, Count: 3}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg("Off"),
				ConfigPlanChecks: empty,
				Check: func(*terraform.State) error {
					if svc.PowerState() != "Off" {
						return fmt.Errorf("power = %s", svc.PowerState())
					}
					return nil
				},
			},
			{Config: cfg("On"), ConfigPlanChecks: empty,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("hpcstorage_server.s", tfjsonpath.New("power_state"), knownvalue.StringExact("On"))}},
			// A boot target the BMC does not offer fails the plan on that attribute.
			{
				Config: cfg("On") + "\n" + `resource "hpcstorage_server" "u" {
  endpoint             = "stor1-bmc"
  boot_source_override = { target = "Usb", enabled = "Once" }
}`,
				ExpectError: regexp.MustCompile(`(?s)Boot Target Not Offered.*boot_source_override.target.*` + "`Pxe`"),
			},
			// Someone else changed the BIOS settings between our read and our
			// PATCH (412): the provider reads again and the apply converges.
			{
				PreConfig: func() {
					if err := svc.InjectFault(redfishmock.Fault{Method: "PATCH", Path: "/redfish/v1/Systems/System.Embedded.1/Bios/Settings",
						Kind: redfishmock.FaultStatus, Status: 412, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg("On") + "\n" + `resource "hpcstorage_server" "t" {
  endpoint        = "stor1-bmc"
  bios_attributes = { NodeInterleave = "Enabled" }
}`,
				ConfigPlanChecks: empty,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_server.t", tfjsonpath.New("bios_attributes").AtMapKey("NodeInterleave"), knownvalue.StringExact("Enabled")),
					mockCheck(func() error {
						if n := svc.RequestCount("PATCH", "/redfish/v1/Systems/System.Embedded.1/Bios/Settings"); n != 2 {
							return fmt.Errorf("%d BIOS PATCHes, want 2 (the 412 and the retry)", n)
						}
						return nil
					}),
				},
			},
		},
	})
}

// A Once override is armed once: the boot that consumes it is not drift,
// and a later apply (here the power-on that booted from it) does not arm it
// again; a changed override is set.
func TestServerOnceOverrideConsumed(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc")
	svc := lab.svcs["meta1-bmc"]
	cfg := func(power, enabled string) string {
		return lab.providerBlock() + fmt.Sprintf(`resource "hpcstorage_server" "s" {
  endpoint             = "meta1-bmc"
  power_state          = %q
  boot_source_override = { target = "Pxe", enabled = %q }
}`, power, enabled)
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	boot := func(target, enabled string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if t, e := svc.BootOverride(); t != target || e != enabled {
				return fmt.Errorf("BMC boot override %s/%s, want %s/%s", t, e, target, enabled)
			}
			return nil
		}
	}
	kept := statecheck.ExpectKnownValue("hpcstorage_server.s", tfjsonpath.New("boot_source_override").AtMapKey("enabled"), knownvalue.StringExact("Once"))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: cfg("On", "Once"), ConfigPlanChecks: empty, Check: boot("Pxe", "Once")},
			{Config: cfg("Off", "Once"), ConfigPlanChecks: empty, Check: boot("Pxe", "Once")},
			// Powering on boots from Pxe, which consumes the override.
			{Config: cfg("On", "Once"), ConfigPlanChecks: empty, ConfigStateChecks: []statecheck.StateCheck{kept}, Check: boot("None", "Disabled")},
			{Config: cfg("On", "Once"), PlanOnly: true},
			{Config: cfg("On", "Continuous"), ConfigPlanChecks: empty, Check: boot("Pxe", "Continuous")},
		},
	})
}

// A hpcstorage_server plan against every capture: the registry is found
// the way each vendor publishes it (typos fail on their key), or the plan
// warns that checks move to apply time; valid values plan a create.
func TestServerPlanAgainstCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct{ dir, system, attr, good, bad string }{
		{"libredfish-dell", "", "SysProfile", "PerfPerWattOptimizedOs", "Turbo"},
		{"libredfish-hpe", "", "WorkloadProfile", "HighPerformanceCompute(HPC)", "HighPerformanceCompute"},
		{"libredfish-lenovo", "", "Processors_HyperThreading", "Disabled", "Off"},
		{"nvidia-dgx-h100", "DGX", "ProcessorHyperThreadingDisable", "Disabled", "Off"}, // registry in en-US only
		// No BIOS registry published (or outside the capture): a warning.
		{"libredfish-supermicro", "", "Hyper_Threading_ALL__F27F", "Disable", ""},
		{"dmtf-public-rackmount1", "", "ProcHyperthreading", "Disabled", ""},
		{"dmtf-public-localstorage", "", "ProcHyperthreading", "Disabled", ""},
		{"dmtf-public-tower", "", "ProcTurboMode", "Disabled", ""},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			lab, _ := replayLab(t, tc.dir)
			cfg := func(v string) string {
				sys := ""
				if tc.system != "" {
					sys = fmt.Sprintf("system_id = %q", tc.system)
				}
				return lab.providerBlock() + fmt.Sprintf(`resource "hpcstorage_server" "s" {
  endpoint        = "bmc"
  %s
  bios_attributes = { %s = %q }
}`, sys, tc.attr, v)
			}
			steps := []resource.TestStep{{Config: cfg(tc.good), PlanOnly: true, ExpectNonEmptyPlan: true}}
			if tc.bad != "" {
				steps = append(steps, resource.TestStep{Config: cfg(tc.bad), PlanOnly: true,
					ExpectError: regexp.MustCompile(`(?s)bios_attributes\["` + tc.attr + `"\].*allowed:`)})
			}
			resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: fastFactories(), Steps: steps})
		})
	}
}

// A system without a Bios resource (the DGX's HGX baseboard) is managed
// without BIOS: asking for BIOS attributes fails the plan saying why.
func TestServerWithoutBios(t *testing.T) {
	lab, _ := replayLab(t, "nvidia-dgx-h100")
	res := lab.providerBlock() + `resource "hpcstorage_server" "s" {
  endpoint  = "bmc"
  system_id = "HGX_Baseboard_0"
  %s
}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: fmt.Sprintf(res, `bios_attributes = { TurboMode = "Disable" }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Server Has No BIOS Resource.*bios_attributes.*no BIOS resource`)},
			{Config: fmt.Sprintf(res, ""), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
}

// Refused credentials and an untrusted certificate say so, on no attribute,
// and the certificate failure is not retried.
func TestServerErrorsTellTheTruth(t *testing.T) {
	lab, _ := replayLab(t, "libredfish-dell")
	good := lab.eps["bmc"]
	bad := good
	bad.Password = "wrong-password"
	lab.eps["bmc"] = bad
	cfg := `
resource "hpcstorage_server" "s" {
  endpoint        = "bmc"
  bios_attributes = { SysProfile = "PerfOptimized" }
}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{Config: lab.providerBlock() + cfg, PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Error: Credentials Refused.*refused the credentials.*HTTP 401`)}},
	})
	other, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	untrusted := good
	untrusted.CACertPEM = other.PEM()
	lab.eps["bmc"] = untrusted
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{Config: lab.providerBlock() + cfg, PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Error: TLS Certificate Not Trusted.*retrying\s+cannot\s+help.*Set\s+ca_certificate`)}},
	})
}

// BIOS changes for a server that should stay off: it is powered on once to
// apply them (the values only land at boot), verified, then shut down.
func TestServerResourceBiosWhileOff(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "stor2-bmc")
	svc := lab.svcs["stor2-bmc"]
	ep := lab.client(t, "stor2-bmc")
	if err := ep.SetPower(context.Background(), "System.Embedded.1", "Off", fastWaiter()); err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: lab.providerBlock() + `
resource "hpcstorage_server" "s" {
  endpoint        = "stor2-bmc"
  power_state     = "Off"
  bios_attributes = { LogicalProc = "Disabled" }
}`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_server.s", tfjsonpath.New("power_state"), knownvalue.StringExact("Off")),
				mockCheck(func() error {
					if cur, pending := svc.BiosAttributes(); cur["LogicalProc"] != "Disabled" || len(pending) != 0 {
						return fmt.Errorf("current %v pending %v", cur["LogicalProc"], pending)
					}
					return nil
				}),
			},
		}},
	})
}
