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

// The data sources read captures of real BMCs that nobody here wrote,
// served by the mock's replay mode.
func TestDataSourcesReadCaptures(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "mockups")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("captures not found at %s (they live beside the repository in ../shared/mockups)", root)
	}
	tests := []struct {
		dir, model, storage string
	}{
		{dir: "libredfish-dell", model: `PowerEdge`},
		{dir: "libredfish-hpe", model: `ProLiant`},
		{dir: "dmtf-public-rackmount1", model: `.+`},
		{dir: "dmtf-public-localstorage", model: `.+`, storage: "/redfish/v1/Systems/437XR1138R2/Storage/1"},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			svc, err := redfishmock.NewReplay(filepath.Join(root, tc.dir), redfishmock.Options{Username: "root", Password: "replay-s3cret"})
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
			lab := &mockLab{eps: map[string]redfish.Config{"bmc": {Name: "bmc", URL: srv.URL, Username: u, Password: p, CACertPEM: ca.PEM()}}}
			cfg := lab.providerBlock() + `data "hpcstorage_server" "s" { endpoint = "bmc" }` + "\n"
			checks := []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_server.s", tfjsonpath.New("model"), knownvalue.StringRegexp(regexp.MustCompile(tc.model))),
				statecheck.ExpectKnownValue("data.hpcstorage_server.s", tfjsonpath.New("power_state"), knownvalue.StringRegexp(regexp.MustCompile(`^(On|Off|PoweringOn|PoweringOff)$`))),
				statecheck.ExpectKnownValue("data.hpcstorage_server.s", tfjsonpath.New("system_id"), knownvalue.NotNull()),
			}
			if tc.storage != "" {
				cfg += fmt.Sprintf(`data "hpcstorage_drives" "d" {
  endpoint   = "bmc"
  storage_id = %q
}`, tc.storage)
				checks = append(checks, statecheck.ExpectKnownValue("data.hpcstorage_drives.d", tfjsonpath.New("drives"), knownvalue.ListSizeExact(4)))
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps:                    []resource.TestStep{{Config: cfg, ConfigStateChecks: checks}},
			})
		})
	}
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
