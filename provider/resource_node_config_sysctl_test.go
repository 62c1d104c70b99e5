package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestNodeConfigSysctlTypes: a sysctl value its kernel type rules out
// fails the plan on its key, in hpcstorage_node_config (also beside a
// value known only at apply) and in a tuning profile's overrides, before
// any node is asked.
func TestNodeConfigSysctlTypes(t *testing.T) {
	node := func(sysctl string) string {
		return `
resource "terraform_data" "later" {}

resource "hpcstorage_node_config" "a" {
  host   = "127.0.0.1:1"
  owner  = "a"
  sysctl = {` + sysctl + `}
}
`
	}
	var steps []resource.TestStep
	for _, s := range []struct{ name, config, want string }{
		{"word for an integer", node(`"vm.swappiness" = "low"`),
			`Invalid Sysctl Value.*Attribute sysctl\["vm.swappiness"\].*the kernel takes an integer from 0 to 200`},
		{"percentage above 100", node(`"vm.dirty_ratio" = "120"`),
			`Attribute sysctl\["vm.dirty_ratio"\].*from 0 to 100`},
		{"vector cut short", node(`"net.ipv4.tcp_rmem" = "4096 87380"`),
			`Attribute sysctl\["net.ipv4.tcp_rmem"\].*3 integers separated by spaces`},
		{"boolean as a word", node(`"net.ipv4.conf.ib0.arp_filter" = "on"`),
			`Attribute sysctl\["net.ipv4.conf.ib0.arp_filter"\].*0 or 1`},
		{"beside a value known at apply", node(`"vm.dirty_ratio" = terraform_data.later.id, "net.ipv4.tcp_sack" = "yes"`),
			`Attribute sysctl\["net.ipv4.tcp_sack"\].*0 or 1`},
		{"tuning profile override", `
data "hpcstorage_tuning_profile" "p" {
  name      = "beegfs-storage"
  overrides = { "sysctl:vm.swappiness" = "low" }
}
`, `Attribute overrides\["sysctl:vm.swappiness"\].*from 0 to 200`},
	} {
		// One test case (one terraform init), a plan per mistake.
		steps = append(steps, resource.TestStep{Config: s.config, PlanOnly: true, PreConfig: func() { t.Log(s.name) },
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(s.want, " ", `\s+`))})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: nodeProviderFactories, Steps: steps})
}
