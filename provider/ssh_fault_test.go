package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
)

// changesNode: an agent request that may change the node (an apply or a
// remove that is not a check run).
func changesNode(req string) bool {
	return (strings.HasPrefix(req, "apply ") || strings.HasPrefix(req, "remove ")) && !strings.Contains(req, "--check")
}

// TestNodeConfigDroppedConnection: the node drops the SSH connection
// under the apply of a node configuration, before it runs, while it runs
// and after it ran. Terraform reports the lost connection naming the host
// and saying what it means; the next plain apply converges and the plan
// after it is empty. A plan whose read-only check run is dropped retries
// it and goes on.
func TestNodeConfigDroppedConnection(t *testing.T) {
	l := startNodeLab(t, 1)
	n := l.Nodes[0]
	cfg := func(swappiness int) string {
		return l.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "drop"
  sysctl = { "vm.dirty_ratio" = "21", "vm.swappiness" = "%d" }
  files  = { "/etc/hpcstorage-drop.conf" = { content = "swappiness = %[2]d\n" } }
}
`, l.host(0), swappiness)
	}
	// Terraform wraps diagnostics: any space may be a line break.
	words := func(s string) string { return strings.Join(strings.Fields(regexp.QuoteMeta(s)), `\s+`) }
	lost := regexp.MustCompile(`(?s)SSH Connection Lost.*` + words("Host "+l.host(0)) + `.*` + words("may have run in part") + `.*` +
		words("connection was lost while the agent was applying"))
	converged := func(swappiness int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := l.read(t, 0, "/proc/sys/vm/swappiness"); got != fmt.Sprint(swappiness) {
				return fmt.Errorf("swappiness %q, want %d", got, swappiness)
			}
			if d := n.Drops(); len(d) == 0 {
				return fmt.Errorf("the node cut no connection")
			}
			return nil
		}
	}
	isCheck := func(r string) bool { return strings.HasPrefix(r, "apply ") && strings.Contains(r, "--check") }
	steps := []resource.TestStep{{
		PreConfig: func() { n.SetFaults(labnode.Faults{DropAtRequest: 1, DropOnly: isCheck}) },
		Config:    cfg(7),
		Check:     converged(7),
	}}
	for i, at := range []labnode.DropPoint{labnode.DropBefore, labnode.DropWhile, labnode.DropAfterAnswer} {
		v := 8 + i
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				n.SetFaults(labnode.Faults{DropAtRequest: 1, DropAt: at, DropWhileMax: 1, DropOnly: changesNode})
			},
			Config:      cfg(v),
			ExpectError: lost,
		}, resource.TestStep{
			PreConfig: func() { n.SetFaults(labnode.Faults{}) },
			Config:    cfg(v),
			Check:     converged(v),
		})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: nodeProviderFactories, Steps: steps})
	var points []string
	for _, d := range n.Drops() {
		points = append(points, d.Point.String()+" "+strings.Fields(d.Request)[0])
	}
	if want := "before apply,before apply,while apply,after apply"; strings.Join(points, ",") != want {
		t.Errorf("the node cut %q, want %q", strings.Join(points, ","), want)
	}
}
