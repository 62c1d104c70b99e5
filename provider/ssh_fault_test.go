//go:build faults

package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
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

// nodeCommands reads the commands the agent ran on a lab node (its
// simulated-command log), in order.
func nodeCommands(t *testing.T, root string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "var/lib/hpcstorage-agent/commands.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e struct {
			Argv []string `json:"argv"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Argv)
	}
	return out
}

// TestR1SSHFaultStorm: every R1 lab node drops 10 % of its SSH requests
// (seeded; HPCSTORAGE_STORM_SEED replays) at random points (before a
// request runs, while it runs, after it ran) during an apply of
// examples/r1. With the storm over, one more apply converges, the plan
// after it is empty and nothing was done twice on the nodes.
func TestR1SSHFaultStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design twice")
	}
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 2, Simulator: simtest.Binary(t), PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r1", "modules/beegfs-high-capacity")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("HPCSTORAGE_STORM_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("storm seed %d (HPCSTORAGE_STORM_SEED=%d replays the nodes' choices)", seed, seed)
	nodes := l.Nodes().Nodes
	for i, n := range nodes {
		n.SetFaults(labnode.Faults{DropRate: 0.10, DropSeed: seed + uint64(i)})
	}
	err1 := tf.Apply(ctx, tfexec.Reattach(ri))
	requests, drops := 0, map[string]int{}
	for _, n := range nodes {
		requests += n.Requests()
		for _, d := range n.Drops() {
			drops[d.Point.String()]++
		}
		n.SetFaults(labnode.Faults{})
	}
	var diags []string
	if err1 != nil {
		for _, m := range regexp.MustCompile(`(?m)^(?:│ )?Error: (.+)$`).FindAllStringSubmatch(err1.Error(), -1) {
			diags = append(diags, m[1])
		}
	}
	t.Logf("apply under the storm: %d requests, cut %v; %d errors: %s", requests, drops, len(diags), summarize(diags))
	if drops["before"]+drops["while"]+drops["after"] == 0 {
		t.Fatal("the storm cut nothing")
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("the apply after the storm did not converge: %v", err)
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("plan after the second apply: changes %v, err %v", changes, err)
	}
	checkNothingTwice(t, l)
}

// summarize counts equal lines: "3× A; 1× B".
func summarize(lines []string) string {
	c := map[string]int{}
	for _, l := range lines {
		c[l]++
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d× %s", c[k], k)
	}
	return b.String()
}

// checkNothingTwice fails when a lab node's command log shows a device
// formatted twice (over the whole lab: a pair's servers share each
// volume) or the same creating command run twice on a node.
func checkNothingTwice(t *testing.T, l *lab.Lab) {
	t.Helper()
	formats := map[string][]string{}
	tools := map[string]int{}
	for _, n := range l.Nodes().Nodes {
		seen := map[string]int{}
		for _, argv := range nodeCommands(t, n.Root) {
			tools[commandLabel(argv)]++
			if m := lab.MkfsArgv(argv); m != nil && !isShellStep("hpcstorage-halvm")(loggedCmd{argv: argv}) {
				dev := m[len(m)-1]
				formats[dev] = append(formats[dev], n.Name)
			}
			seen[strings.Join(argv, "\x00")]++
		}
		for k, c := range seen {
			if c > 1 {
				t.Logf("%s: %d× %.200q", n.Name, c, strings.ReplaceAll(k, "\x00", " "))
			}
			if c > 1 && createsSomething(strings.Split(k, "\x00")) {
				t.Errorf("%s ran %q %d times", n.Name, strings.ReplaceAll(k, "\x00", " "), c)
			}
		}
	}
	for dev, on := range formats {
		if len(on) > 1 {
			t.Errorf("%s formatted %d times (on %v)", dev, len(on), on)
		}
	}
	// LVM: every volume group finished (no creation tag), each logical
	// volume with its one file system, each physical volume in one group.
	if b, err := os.ReadFile(filepath.Join(l.State.Dir, lab.SharedDir, "lvm", "lvm.json")); err == nil {
		var st lvmSnapshot
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		inVG := 0
		for name, vg := range st.VGs {
			inVG += len(vg.PVs)
			if slices.Contains(vg.Tags, "hpcstorage_creating") || len(vg.LVs) != 1 || vg.LVs[0].FSType == "" {
				t.Errorf("volume group %s not finished: %s", name, b)
			}
		}
		if inVG != len(st.PVs) {
			t.Errorf("%d physical volumes, %d of them in volume groups: %s", len(st.PVs), inVG, b)
		}
	}
	t.Logf("%d devices formatted once each; commands run: %v", len(formats), tools)
}

// creators are the node programs that make something a second run would
// make again (a file system, a BeeGFS target, a volume, a cluster object).
var creators = map[string]bool{
	"wipefs": true, "beegfs-setup-storage": true, "beegfs-setup-meta": true, "beegfs-setup-mgmtd": true,
	"pvcreate": true, "vgcreate": true, "lvcreate": true,
	"mmcrcluster": true, "mmcrnsd": true, "mmcrfs": true, "mmadddisk": true, "cephadm": true,
	// The guarded shell steps' labels: a target's format and its BeeGFS
	// initialisation (registration). (An HA-LVM creation cut short runs
	// again by design, resuming: checkNothingTwice reads what it made.)
	"hpcstorage-format": true, "hpcstorage-beegfs-init": true,
}

// createsSomething: argv runs a creator, directly or under the shell of a
// guarded step (a format, a run-once command), or adds a BeeGFS mirror
// group or pool.
func createsSomething(argv []string) bool {
	if isShellStep("hpcstorage-halvm")(loggedCmd{argv: argv}) {
		return false // resumable by design; checkNothingTwice reads its result
	}
	for _, a := range argv {
		b := filepath.Base(a)
		if creators[b] || strings.HasPrefix(b, "mkfs.") {
			return true
		}
	}
	return filepath.Base(argv[0]) == "beegfs-ctl" && slices.ContainsFunc(argv, func(a string) bool {
		return strings.HasPrefix(a, "--add")
	})
}
