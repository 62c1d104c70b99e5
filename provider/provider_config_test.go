package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// Endpoint settings come from HPCSTORAGE_* variables (per endpoint, then
// provider-wide; the CA as a file path), and with TF_LOG=trace the password
// and the session token never reach the log while the traffic does.
func TestEndpointEnvAndTraceLogRedaction(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{Password: "Tr4ce-Me-N0t"}, "mgmt-bmc")
	c := lab.eps["mgmt-bmc"]
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, c.CACertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "provider.log")
	t.Setenv("HPCSTORAGE_MGMT_BMC_URL", c.URL)
	t.Setenv("HPCSTORAGE_PASSWORD", c.Password)
	t.Setenv("HPCSTORAGE_CA_CERTIFICATE", caFile)
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logFile)

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: `
provider "hpcstorage" {
  endpoints = {
    "mgmt-bmc" = { username = "root" }
  }
}
data "hpcstorage_server" "m" { endpoint = "mgmt-bmc" }
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_server.m", tfjsonpath.New("model"), knownvalue.StringExact("PowerEdge R640")),
			},
		}},
	})
	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	if !strings.Contains(log, "POST /redfish/v1/SessionService/Sessions") || !strings.Contains(log, `"Password":"REDACTED"`) {
		var lines []string
		for _, l := range strings.Split(log, "\n") {
			if strings.Contains(l, "Sessions") && len(lines) < 3 {
				lines = append(lines, l)
			}
		}
		t.Fatalf("the trace log lacks the redacted login (%d bytes): %q", len(log), lines)
	}
	if strings.Contains(log, "Tr4ce-Me-N0t") {
		t.Error("the password is in the trace log")
	}
	tokens := regexp.MustCompile(`X-Auth-Token: [^;\]]*`).FindAllString(log, -1)
	if len(tokens) == 0 {
		t.Error("no X-Auth-Token header in the trace log")
	}
	for _, m := range tokens {
		if m != "X-Auth-Token: REDACTED" {
			t.Errorf("a session token is in the trace log: %q", m)
		}
	}
}

// Missing or wrong endpoint settings are reported on the attribute.
func TestEndpointConfigErrors(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"no url", `"x" = { username = "root" }`, `(?s)Missing Endpoint URL.*HPCSTORAGE_X_URL`},
		{"bad url", `"x" = { url = "ftp://bmc" }`, `(?s)Invalid Endpoint Configuration.*https://host`},
		{"bad CA", `"x" = { url = "https://127.0.0.1:1", ca_certificate = "-----BEGIN nothing" }`, `(?s)ca_certificate holds no PEM\s+certificate`},
		{"bad limit", `"x" = { url = "https://127.0.0.1:1", max_concurrent_requests = 0 }`, `(?s)max_concurrent_requests value must be between 1 and\s+64`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps: []resource.TestStep{{
					Config:      "provider \"hpcstorage\" {\n  endpoints = {\n    " + tc.block + "\n  }\n}\ndata \"hpcstorage_drives\" \"d\" { endpoint = \"x\" }\n",
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// An endpoint URL known only after apply (here from terraform_data) does
// not fail the plan; the apply configures the endpoint and converges.
func TestEndpointKnownAfterApply(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc")
	c := lab.eps["meta1-bmc"]
	cfg := fmt.Sprintf(`
resource "terraform_data" "bmc_url" {
  input = %[1]q
}
provider "hpcstorage" {
  endpoints = {
    "meta1-bmc" = {
      url            = terraform_data.bmc_url.output
      username       = %[2]q
      password       = %[3]q
      ca_certificate = %[4]q
    }
  }
}
resource "hpcstorage_server" "m" {
  endpoint        = "meta1-bmc"
  bios_attributes = { LogicalProc = "Disabled" }
}
`, c.URL, c.Username, c.Password, string(c.CACertPEM))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_server.m", tfjsonpath.New("bios_attributes").AtMapKey("LogicalProc"), knownvalue.StringExact("Disabled")),
			},
		}},
	})
}
