package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// With pacemaker_version = "3", what Pacemaker 3 removed fails the plan
// naming its attribute, before any node is reached (the hosts below do
// not exist); an unknown version too.
func TestAccHAClusterPacemaker3RefusedAtPlan(t *testing.T) {
	dir := t.TempDir()
	pw, key := filepath.Join(dir, "bmc.pw"), filepath.Join(dir, "authkey")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 128)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func(version, fenceParams, body string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "resource \"hpcstorage_ha_cluster\" \"c\" {\n  name = \"pcmk3\"\n  pacemaker_version = %q\n  two_node = true\n"+
			"  authkey_file = %q\n  nodes = {\n", version, key)
		for i, n := range []string{"nfs1", "nfs2"} {
			params := ""
			if i == 0 && fenceParams != "" {
				params = ", params = { " + fenceParams + " }"
			}
			fmt.Fprintf(&b, "    %s = { host = \"127.0.0.1:1\", addrs = [\"10.10.1.1%d\"], fence = { ip = \"10.0.0.%d\", username = \"root\", "+
				"password_file = %q, systems_uri = \"/redfish/v1/Systems/1\"%s } }\n", n, i+1, i+1, pw, params)
		}
		fmt.Fprintf(&b, "  }\n%s\n}\n", body)
		return b.String()
	}
	for _, s := range []struct {
		name, config, want string
	}{
		{"stonith-action poweroff", cfg("3", "", `properties = { "stonith-action" = "poweroff" }`),
			`(?s)Attribute properties.*stonith-action = "poweroff": Pacemaker 3 removed this value .pacemaker_version = "3".; use "off"`},
		{"crmd-transition-delay", cfg("3", "", `properties = { "crmd-transition-delay" = "2s" }`),
			`(?s)Attribute properties.*crmd-transition-delay: Pacemaker 3 removed this option.*use "transition-delay"`},
		{"restart-type", cfg("3", "", `groups = [{ id = "g", members = [{ id = "d", type = "Dummy", meta = { "restart-type" = "ignore" } }] }]`),
			`(?s)Attribute groups\[0\]\.members\[0\]\.meta.*restart-type: Pacemaker 3 removed this meta attribute`},
		{"deprecated fence parameter", cfg("3", `login = "root"`, ""),
			`(?s)Attribute nodes\["nfs1"\]\.fence.*parameter "login" of stonith:fence_redfish is deprecated.*use "username"`},
		{"unknown version", cfg("4", "", ""), `(?s)Attribute pacemaker_version value must be one of`},
	} {
		t.Run(s.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: nodeProviderFactories,
				Steps:                    []resource.TestStep{{Config: s.config, PlanOnly: true, ExpectError: regexp.MustCompile(strings.ReplaceAll(s.want, " ", `\s+`))}},
			})
		})
	}
}
