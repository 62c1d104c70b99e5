package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// captureDir finds a capture: ../shared/mockups beside the repository, or
// the lab's testdata/captures.
func captureDir(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{filepath.Join("..", "..", "shared", "mockups", name), filepath.Join("..", "internal", "lab", "redfishmock", "testdata", "captures", name)} {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
	}
	t.Skipf("capture %s not found (../shared/mockups lives beside the repository)", name)
	return ""
}

// replayLab serves a capture as endpoint "bmc" over verified TLS.
func replayLab(t *testing.T, name string) (*mockLab, *redfishmock.Service) {
	t.Helper()
	lab := replayDirLab(t, captureDir(t, name))
	return lab, lab.svcs["bmc"]
}

// replayDirLab serves a mockup folder as endpoint "bmc" over verified TLS.
func replayDirLab(t *testing.T, dir string) *mockLab {
	t.Helper()
	svc, err := redfishmock.NewReplay(dir, redfishmock.Options{Username: "root", Password: "replay-s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	u, p := svc.Credentials()
	return &mockLab{svcs: map[string]*redfishmock.Service{"bmc": svc},
		eps: map[string]redfish.Config{"bmc": {Name: "bmc", URL: srv.URL, Username: u, Password: p, CACertPEM: ca.PEM()}}}
}

// captureCase is what each capture holds, as its vendor published it.
type captureCase struct {
	dir, system string // system: "" for the only one
	model       string // regexp
	cpus, cores int64
	storage     string // "": the default must be found; "-": the capture has no storage to read
	drives      int
}

var captureCases = []captureCase{
	{dir: "libredfish-dell", model: `^PowerEdge`, cpus: 2, cores: 36, storage: "/redfish/v1/Systems/System.Embedded.1/Storage/CPU.1", drives: 3},
	{dir: "libredfish-hpe", model: `^ProLiant`, cpus: 2, cores: 128, storage: "/redfish/v1/Systems/1/Storage/DE081000", drives: 2},
	{dir: "libredfish-lenovo", model: `^ThinkSystem`, cpus: 2, cores: 64, storage: "/redfish/v1/Systems/1/Storage/M.2", drives: 2},
	{dir: "libredfish-supermicro", model: `.+`, cpus: 2, cores: 64, drives: 8},
	{dir: "dmtf-public-rackmount1", model: `.+`, cpus: 2, cores: 8, storage: "-"},
	{dir: "dmtf-public-localstorage", model: `.+`, cpus: 2, cores: 8, drives: 4},
	{dir: "dmtf-public-tower", model: `^3500$`, cpus: 8, cores: 128, storage: "/redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID", drives: 2},
	{dir: "nvidia-dgx-h100", system: "DGX", model: `DGX`, cpus: 2, cores: 112, storage: "-"},
}

// Every read-only data source that talks to a BMC, against captures of
// real BMCs that nobody here wrote, served by the mock's replay mode.
func TestDataSourcesReadCaptures(t *testing.T) {
	t.Parallel()
	for _, tc := range captureCases {
		t.Run(tc.dir, func(t *testing.T) {
			lab, _ := replayLab(t, tc.dir)
			sysAttr := ""
			if tc.system != "" {
				sysAttr = fmt.Sprintf("system_id = %q", tc.system)
			}
			cfg := lab.providerBlock() + fmt.Sprintf(`data "hpcstorage_server" "s" {
  endpoint = "bmc"
  %s
}
`, sysAttr)
			ds := "data.hpcstorage_server.s"
			checks := []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("model"), knownvalue.StringRegexp(regexp.MustCompile(tc.model))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("power_state"), knownvalue.StringRegexp(regexp.MustCompile(`^(On|Off|PoweringOn|PoweringOff)$`))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("system_id"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpu_count"), knownvalue.Int64Exact(tc.cpus)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("core_count"), knownvalue.Int64Exact(tc.cores)),
			}
			if tc.storage != "-" {
				sid := ""
				if tc.storage != "" {
					sid = fmt.Sprintf("storage_id = %q", tc.storage)
				}
				cfg += fmt.Sprintf(`data "hpcstorage_drives" "d" {
  endpoint = "bmc"
  %[1]s
}
data "hpcstorage_array_layout" "l" {
  endpoint = "bmc"
  %[1]s
  policy = {
    raid_level = "RAID1"
  }
}
`, sid)
				checks = append(checks,
					statecheck.ExpectKnownValue("data.hpcstorage_drives.d", tfjsonpath.New("drives"), knownvalue.ListSizeExact(tc.drives)),
					statecheck.ExpectKnownValue("data.hpcstorage_drives.d", tfjsonpath.New("drives").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringRegexp(regexp.MustCompile(`.`))),
					statecheck.ExpectKnownValue("data.hpcstorage_drives.d", tfjsonpath.New("storage_id"), knownvalue.StringRegexp(regexp.MustCompile(`^/redfish/v1/Systems/[^/]+/Storage/[^/]+$`))),
					statecheck.ExpectKnownValue("data.hpcstorage_array_layout.l", tfjsonpath.New("disk_groups"), knownvalue.ListSizeExact(tc.drives/2)),
				)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps:                    []resource.TestStep{{Config: cfg, ConfigStateChecks: checks}},
			})
		})
	}
}

// Storage the default cannot pick: the error lists the ids to choose from.
func TestDrivesDataSourceAmbiguousStorage(t *testing.T) {
	lab, _ := replayLab(t, "dmtf-public-tower")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config:      lab.providerBlock() + `data "hpcstorage_drives" "d" { endpoint = "bmc" }`,
			ExpectError: regexp.MustCompile(`(?s)has 4 storage services.*/redfish/v1/Systems/437XR1238R2/Storage/RAIDIntegrated.*set\s+storage_id`),
		}},
	})
}

// The data source on the stateful mock: inventory and the full BIOS.
func TestServerDataSource(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "mgmt-bmc")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: lab.providerBlock() + `data "hpcstorage_server" "m" { endpoint = "mgmt-bmc" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_server.m", tfjsonpath.New("model"), knownvalue.StringExact("PowerEdge R640")),
				statecheck.ExpectKnownValue("data.hpcstorage_server.m", tfjsonpath.New("bios_attributes").AtMapKey("SysProfile"), knownvalue.StringExact("PerfPerWattOptimizedDapc")),
				statecheck.ExpectKnownValue("data.hpcstorage_server.m", tfjsonpath.New("bios_attributes").AtMapKey("AcPwrRcvryUserDelay"), knownvalue.StringExact("60")),
				statecheck.ExpectKnownValue("data.hpcstorage_server.m", tfjsonpath.New("nic_macs"), knownvalue.NotNull()),
			},
		}},
	})
}
