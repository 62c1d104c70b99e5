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

// TestAccHAClusterRulesAtPlan: a cluster whose values disagree with each
// other (pacemaker.Rules) fails the plan on the attribute at fault, also
// while other values are unknown until apply (a host from another
// resource).
func TestAccHAClusterRulesAtPlan(t *testing.T) {
	dir := t.TempDir()
	pw, key := filepath.Join(dir, "bmc.pw"), filepath.Join(dir, "authkey")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 128)), 0o600); err != nil {
		t.Fatal(err)
	}
	// cfg is a pair on 10.10.1.0/24 fenced through 10.0.0.1 and 10.0.0.2;
	// edits replace text in it, body is added to the resource.
	cfg := func(body string, edits ...string) string {
		s := fmt.Sprintf(`
resource "terraform_data" "later" {}

resource "hpcstorage_ha_cluster" "c" {
  name         = "rules"
  two_node     = true
  networks     = ["10.10.1.0/24"]
  authkey_file = %q
  nodes = {
    nfs1 = { host = "127.0.0.1:1", addrs = ["10.10.1.11"], fence = { ip = "10.0.0.1", username = "root", password_file = %q, systems_uri = "/redfish/v1/Systems/1" } }
    nfs2 = { host = "127.0.0.1:2", addrs = ["10.10.1.12"], fence = { ip = "10.0.0.2", username = "root", password_file = %q, systems_uri = "/redfish/v1/Systems/1" } }
  }
%s
}
`, key, pw, pw, body)
		for i := 0; i+1 < len(edits); i += 2 {
			if !strings.Contains(s, edits[i]) {
				t.Fatalf("no %q in the configuration", edits[i])
			}
			s = strings.Replace(s, edits[i], edits[i+1], 1)
		}
		return s
	}
	ip := func(addr, mask string) string {
		return `primitives = [{ id = "ip", type = "IPaddr2", params = { ip = "` + addr + `", cidr_netmask = "` + mask + `" } }]`
	}
	exports := func(a, b string) string {
		return `groups = [{ id = "g", members = [{ id = "e1", type = "exportfs", params = { ` + a + ` } }, { id = "e2", type = "exportfs", params = { ` + b + ` } }] }]`
	}
	later := `"127.0.0.1:2"`
	var steps []resource.TestStep
	for _, s := range []struct{ name, config, want string }{
		{"ring address off the cluster network", cfg("", `"10.10.1.12"`, `"10.10.2.12"`),
			`Attribute nodes\["nfs2"\]\.addrs\[0\].*ring 0 address 10.10.2.12 is not on the cluster network 10.10.1.0/24`},
		{"ring address of both nodes", cfg("", `"10.10.1.12"`, `"10.10.1.11"`),
			`Attribute nodes\["nfs2"\]\.addrs\[0\].*also node nfs1's`},
		{"floating address on another network", cfg(ip("192.168.10.100", "24")),
			`Attribute primitives\[0\]\.params\["ip"\].*on none of the cluster networks`},
		{"floating netmask narrower than the network", cfg(ip("10.10.1.100", "26")),
			`Attribute primitives\[0\]\.params\["cidr_netmask"\].*prefix length is 24`},
		{"floating netmask as dotted quad", cfg(ip("10.10.1.100", "255.255.255.0")),
			`Attribute primitives\[0\]\.params\["cidr_netmask"\].*want a prefix length`},
		{"floating address is a ring address", cfg(ip("10.10.1.12", "24")),
			`Attribute primitives\[0\]\.params\["ip"\].*node nfs2's ring address`},
		{"one fsid for two directories", cfg(exports(`directory = "/srv/a", clientspec = "*", fsid = "7"`, `directory = "/srv/b", clientspec = "*", fsid = "7"`)),
			`Attribute groups\[0\]\.members\[1\]\.params\["fsid"\].*fsid 7 is also groups\[0\]\.members\[0\]'s`},
		{"one directory twice to one client", cfg(exports(`directory = "/srv/a", clientspec = "10.10.0.0/16", fsid = "7"`, `directory = "/srv/a/", clientspec = "10.10.0.0/16", fsid = "8"`)),
			`Attribute groups\[0\]\.members\[1\]\.params\["clientspec"\].*already exported`},
		{"fence device on the other node's BMC", cfg("", `ip = "10.0.0.2"`, `ip = "10.0.0.1"`),
			`Attribute nodes\["nfs2"\]\.fence\.ip.*fencing nfs2 would power off nfs1`},
		{"fence device on the node itself", cfg("", `ip = "10.0.0.1"`, `ip = "10.10.1.11"`),
			`Attribute nodes\["nfs1"\]\.fence\.ip.*ring address`},
		{"score in small letters", cfg(`locations = [{ id = "l", rsc = "fence-nfs1", node = "nfs2", score = "infinity" }]`),
			`Attribute locations\[0\]\.score.*spelt in capitals`},
		{"score beyond INFINITY", cfg(`colocations = [{ id = "c", rsc = "fence-nfs1", with_rsc = "fence-nfs2", score = "-2000000" }]`),
			`Attribute colocations\[0\]\.score.*beyond pacemaker's limit`},
		{"stickiness word", cfg(`resource_defaults = { "resource-stickiness" = "high" }`),
			`Attribute resource_defaults\["resource-stickiness"\].*score "high"`},
		// A host known only at apply: the rules that do not need it run.
		{"unknown host, ring address of both nodes", cfg("", later, "terraform_data.later.id", `"10.10.1.12"`, `"10.10.1.11"`),
			`Attribute nodes\["nfs2"\]\.addrs\[0\].*also node nfs1's`},
		{"unknown system, fsid twice", cfg(exports(`directory = "/srv/a", clientspec = "*", fsid = "root"`, `directory = "/srv/b", clientspec = "*", fsid = "0"`),
			`systems_uri = "/redfish/v1/Systems/1"`, `systems_uri = "/redfish/v1/Systems/${terraform_data.later.id}"`),
			`Attribute groups\[0\]\.members\[1\]\.params\["fsid"\].*fsid 0 is also`},
	} {
		// One test case (one terraform init), a plan per mistake.
		steps = append(steps, resource.TestStep{Config: s.config, PlanOnly: true, PreConfig: func() { t.Log(s.name) },
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(s.want, " ", `\s+`))})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: nodeProviderFactories, Steps: steps})
}

// TestAccHAClusterFenceSystemAtPlan: in the R2 lab, with the BMC endpoints
// named after nothing, each node's fence block aimed at the other's BMC
// fails the plan: the system there reports the other node's host name;
// a system the BMC does not have fails it too.
func TestAccHAClusterFenceSystemAtPlan(t *testing.T) {
	l := startHALab(t)
	cfg := l.config(haConfig{fence: true})
	cfg = strings.NewReplacer(`"nfs1-bmc"`, `"bmc-a"`, `"nfs2-bmc"`, `"bmc-b"`).Replace(cfg)
	swapped := strings.NewReplacer(`fence = { endpoint = "bmc-a"`, `fence = { endpoint = "bmc-b"`,
		`fence = { endpoint = "bmc-b"`, `fence = { endpoint = "bmc-a"`).Replace(cfg)
	if swapped == cfg {
		t.Fatal("no fence endpoints to swap")
	}
	// A system the BMC does not have: fence_redfish would find nothing.
	typo := strings.Replace(cfg, `systems_uri = "/redfish/v1/Systems/${data.hpcstorage_server.nfs2.system_id}"`,
		`systems_uri = "/redfish/v1/Systems/${data.hpcstorage_server.nfs2.system_id}.2"`, 1)
	if typo == cfg {
		t.Fatal("no systems_uri of nfs2 to change")
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: swapped, PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Attribute\s+nodes\["nfs1"\]\.fence\.endpoint.*reports\s+host\s+name\s+nfs2`)},
			{Config: typo, PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Attribute\s+nodes\["nfs2"\]\.fence\.systems_uri.*has\s+no\s+system\s+at`)},
		},
	})
}
