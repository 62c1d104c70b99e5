package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// TestProviderServes runs the real terraform CLI against the provider over
// protocol 6: plan and apply of a configuration that only configures it.
func TestProviderServes(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		Steps: []resource.TestStep{{
			Config: `provider "hpcstorage" {}
output "ok" { value = "served" }`,
			Check: resource.TestCheckOutput("ok", "served"),
		}},
	})
}
