package provider

// hpcstorage_node_config on SSH lab nodes (the lab nodes and the served
// provider are in harness_test.go).

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// r1Config applies the R1 storage-server profile to the first n lab nodes.
func r1Config(l *nodeLab, n int) string {
	var b strings.Builder
	b.WriteString(l.providerBlock())
	b.WriteString(`
data "hpcstorage_tuning_profile" "storage" {
  name = "beegfs-storage"
}
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "hpcstorage_node_config" "n%[1]d" {
  host           = %[2]q
  owner          = "r1-storage"
  sysctl         = data.hpcstorage_tuning_profile.storage.sysctl
  thp            = data.hpcstorage_tuning_profile.storage.thp
  block_queues   = data.hpcstorage_tuning_profile.storage.block_queues
  files          = data.hpcstorage_tuning_profile.storage.files
}
`, i, l.host(i))
	}
	return b.String()
}

// expectChange is a plan check: the resource's attribute goes from before
// to after (both as JSON values).
type expectChange struct {
	addr          string
	path          []any
	before, after any
}

func (e expectChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		b, a := dig(rc.Change.Before, e.path), dig(rc.Change.After, e.path)
		if fmt.Sprint(b) != fmt.Sprint(e.before) || fmt.Sprint(a) != fmt.Sprint(e.after) {
			resp.Error = fmt.Errorf("%s %v: planned %v -> %v, want %v -> %v", e.addr, e.path, b, a, e.before, e.after)
		}
		return
	}
	resp.Error = fmt.Errorf("%s not in the plan", e.addr)
}

func dig(v any, p []any) any {
	for _, k := range p {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// R1 storage profile on two lab nodes: apply, no-op re-plan, drift made by
// hand on one node shows on the very attributes and is put back, and
// destroy leaves both node roots byte-identical to before.
func TestNodeConfigR1Profile(t *testing.T) {
	l := startNodeLab(t, 2)
	before := []map[string]string{l.treeHash(t, 0), l.treeHash(t, 1)}
	conf := "/etc/beegfs/beegfs-storage.conf"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: r1Config(l, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_node_config.n0", tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					statecheck.ExpectKnownValue("hpcstorage_node_config.n1", tfjsonpath.New("sysctl").AtMapKey("vm.dirty_ratio"), knownvalue.StringExact("20")),
					statecheck.ExpectKnownValue("hpcstorage_node_config.n0", tfjsonpath.New("id"), knownvalue.StringExact(l.host(0)+"/r1-storage")),
				},
				Check: func(*terraform.State) error {
					for i := range 2 {
						for p, want := range map[string]string{
							"/proc/sys/vm/dirty_ratio":                    "20",
							"/proc/sys/vm/dirty_background_ratio":         "5",
							"/sys/kernel/mm/transparent_hugepage/enabled": "never",
							"/sys/block/sdb/queue/nr_requests":            "2048",
						} {
							if got := l.read(t, i, p); !strings.Contains(got, want) {
								return fmt.Errorf("node %d %s = %q, want %q", i, p, got, want)
							}
						}
						if got := l.read(t, i, "/sys/block/sdb/queue/scheduler"); !strings.Contains(got, "[mq-deadline]") {
							return fmt.Errorf("node %d scheduler %q", i, got)
						}
						if got := l.read(t, i, conf); !strings.Contains(got, "connMaxInternodeNum           = 64") {
							return fmt.Errorf("node %d %s:\n%s", i, conf, got)
						}
					}
					return nil
				},
			},
			{
				// Changes made by hand on node 0: a sysctl and a key of a
				// managed file.
				PreConfig: func() {
					l.write(t, 0, "/proc/sys/vm/dirty_ratio", "30\n")
					c := l.read(t, 0, conf)
					c = strings.Replace(c, "tuneNumWorkers                = 12", "tuneNumWorkers = 8", 1)
					l.write(t, 0, conf, c+"\n")
				},
				Config: r1Config(l, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_node_config.n0", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("hpcstorage_node_config.n1", plancheck.ResourceActionNoop),
						expectChange{"hpcstorage_node_config.n0", []any{"sysctl", "vm.dirty_ratio"}, "30", "20"},
						expectChange{"hpcstorage_node_config.n0", []any{"files", conf, "set", "tuneNumWorkers"}, "8", "12"},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					if got := l.read(t, 0, "/proc/sys/vm/dirty_ratio"); got != "20" {
						return fmt.Errorf("dirty_ratio %q after apply", got)
					}
					if got := l.read(t, 0, conf); !strings.Contains(got, "tuneNumWorkers = 12") {
						return fmt.Errorf("%s not fixed:\n%s", conf, got)
					}
					return nil
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			for i := range 2 {
				if err := sameTree(before[i], l.treeHash(t, i)); err != nil {
					return fmt.Errorf("node %d: %w", i, err)
				}
			}
			return nil
		},
	})
}

// Bad input fails the plan with the attribute or host named, and nothing
// reaches the node.
func TestNodeConfigBadInput(t *testing.T) {
	l := startNodeLab(t, 1)
	before := l.treeHash(t, 0)
	node := func(owner, body string) string {
		return fmt.Sprintf("resource \"hpcstorage_node_config\" %q {\n  host  = %q\n  owner = %q\n%s\n}\n", owner, l.host(0), owner, body)
	}
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{"unknown item field", node("a", `files = { "/etc/x.conf" = { contnt = "x" } }`), `contnt`},
		{"sysctl key with slash", node("a", `sysctl = { "vm/dirty_ratio" = "20" }`), `(?s)sysctl\["vm/dirty_ratio"\].*want a dotted kernel parameter`},
		{"sysctl key with dots", node("a", `sysctl = { "vm..dirty_ratio" = "20" }`), `(?s)sysctl\["vm..dirty_ratio"\].*want a dotted kernel parameter`},
		{"relative file path", node("a", `files = { "etc/x.conf" = { content = "x" } }`), `(?s)files\["etc/x.conf"\].*want an absolute path`},
		{"file path leaving the root", node("a", `files = { "/etc/../../x" = { content = "x" } }`), `(?s)files\["/etc/../../x"\].*not allowed`},
		{"scheduler not offered", node("a", `block_queues = [{ match = { name = "sd*", rotational = true }, scheduler = "deadline" }]`),
			`(?s)block_queues\[0\].scheduler.*scheduler "deadline" is not offered by sd.*use "mq-deadline"`},
		{"two owners of one key", node("a", `sysctl = { "vm.dirty_ratio" = "20" }`) + node("b", `sysctl = { "vm.dirty_ratio" = "25" }`),
			`(?s)Key Managed Twice.*sysctl:vm.dirty_ratio on host 127.0.0.1:\d+ is also managed by the hpcstorage_node_config with owner "[ab]"`},
		{"one owner in two resources", node("a", `sysctl = { "vm.dirty_ratio" = "20" }`) +
			strings.Replace(node("a", `sysctl = { "vm.swappiness" = "20" }`), `"a" {`, `"a2" {`, 1),
			`(?s)Owner Used Twice.*owner "a" on host`},
		{"unknown profile", `data "hpcstorage_tuning_profile" "x" { name = "beegfs-storag" }`, `(?s)name.*value must be one of.*beegfs-storage`},
		{"unknown override", `data "hpcstorage_tuning_profile" "x" {
  name      = "beegfs-storage"
  overrides = { "block_queue:schedular" = "none" }
}`, `did you mean "block_queue:scheduler"`},
		{"unreachable host", `resource "hpcstorage_node_config" "a" {
  host   = "127.0.0.1:1"
  owner  = "a"
  sysctl = { "vm.dirty_ratio" = "20" }
}`, `(?s)Node Unreachable.*Host 127.0.0.1:1`},
		{"bad owner", fmt.Sprintf(`resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "Bad Owner"
  sysctl = { "vm.dirty_ratio" = "20" }
}`, l.host(0)), `(?s)Attribute owner: "Bad Owner": want 1-63 characters`},
	}
	var steps []resource.TestStep
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config: l.providerBlock() + tt.config,
			// Terraform wraps long messages: a space matches any run of
			// white space.
			ExpectError: regexp.MustCompile(strings.ReplaceAll(tt.want, " ", `\s+`)),
			PreConfig:   func() { t.Log(tt.name) },
		})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: nodeProviderFactories, Steps: steps})
	if err := sameTree(before, l.treeHash(t, 0)); err != nil {
		t.Error(err)
	}
}

// A key another owner holds on the node is refused at plan time with that
// owner's name; the first owner's values stay.
func TestNodeConfigOtherOwnerOnNode(t *testing.T) {
	l := startNodeLab(t, 1)
	first := fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "first"
  sysctl = { "vm.dirty_ratio" = "20" }
}
`, l.host(0))
	second := fmt.Sprintf(`
resource "hpcstorage_node_config" "b" {
  host   = %q
  owner  = "second"
  sysctl = { "vm.dirty_ratio" = "25", "vm.swappiness" = "33" }
}
`, l.host(0))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: l.providerBlock() + first},
			{
				// Terraform plans b alone here (a is applied); the agent
				// on the node knows a's owner holds the key.
				Config:      l.providerBlock() + first + second,
				ExpectError: regexp.MustCompile(`(?s)sysctl\["vm.dirty_ratio"\].*claimed by owner "first"`),
			},
			{
				Config: l.providerBlock() + first,
				Check: func(*terraform.State) error {
					if got := l.read(t, 0, "/proc/sys/vm/dirty_ratio"); got != "20" {
						return fmt.Errorf("dirty_ratio %q", got)
					}
					if got := l.read(t, 0, "/proc/sys/vm/swappiness"); got == "33" {
						return fmt.Errorf("swappiness was applied by the refused resource")
					}
					return nil
				},
			},
		},
	})
}

// A node whose host key changed between two applies is refused.
func TestNodeConfigHostKeyChange(t *testing.T) {
	l := startNodeLab(t, 1)
	cfg := l.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "keys"
  sysctl = { "vm.dirty_ratio" = "20" }
}
`, l.host(0))
	good, err := os.ReadFile(l.knownHosts)
	if err != nil {
		t.Fatal(err)
	}
	// The node now presents a key other than the recorded one: record a
	// fresh key for its address instead (same thing from the client).
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	changed := transport.KnownHostsLine(l.host(0), other) + "\n"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					if err := os.WriteFile(l.knownHosts, []byte(changed), 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)SSH Host Key Changed.*Host 127.0.0.1:\d+`),
			},
			{
				PreConfig: func() {
					if err := os.WriteFile(l.knownHosts, good, 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
			},
		},
	})
}

// Import by host/owner recovers what the owner manages on the node.
func TestNodeConfigImport(t *testing.T) {
	l := startNodeLab(t, 1)
	cfg := l.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "imported"
  sysctl = { "vm.dirty_ratio" = "20", "vm.swappiness" = "10" }
  thp    = { enabled = "never", defrag = "never" }
  files = {
    "/etc/beegfs/connInterfacesFile.conf" = { content = "ib0\nib1\n" }
  }
  services = {
    "beegfs-storage" = { enabled = true, state = "started" }
  }
}
`, l.host(0))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				Config:            cfg,
				ResourceName:      "hpcstorage_node_config.a",
				ImportState:       true,
				ImportStateId:     l.host(0) + "/imported",
				ImportStateVerify: true,
			},
		},
	})
}

// The documented example applies as written (hosts and provider block
// swapped for the lab's).
func TestNodeConfigExample(t *testing.T) {
	l := startNodeLab(t, 2)
	b, err := os.ReadFile("../examples/resources/hpcstorage_node_config/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	ex := string(b)
	end := strings.Index(ex, "\n}\n")
	if !strings.HasPrefix(strings.TrimSpace(ex[strings.Index(ex, "provider"):]), `provider "hpcstorage"`) || end < 0 {
		t.Fatal("example does not start with the provider block")
	}
	ex = ex[end+3:]
	// plugin-testing's state shim cannot index for_each instances, so the
	// test counts instead.
	if !strings.Contains(ex, `for_each = toset(["stor01", "stor02"])`) || !strings.Contains(ex, "host  = each.key") {
		t.Fatal("example hosts changed: update this test")
	}
	ex = strings.Replace(ex, `for_each = toset(["stor01", "stor02"])`, "count = 2", 1)
	ex = strings.Replace(ex, "host  = each.key", fmt.Sprintf("host  = [%q, %q][count.index]", l.host(0), l.host(1)), 1)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{{
			Config: l.providerBlock() + ex,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{nodeCheck(func() error {
				if got := l.read(t, 1, "/etc/beegfs/connInterfacesFile.conf"); got != "ib0\nib1" {
					return fmt.Errorf("connInterfacesFile %q", got)
				}
				if got := l.read(t, 1, "/etc/beegfs/beegfs-storage.conf"); !strings.Contains(got, "sysMgmtdHost                  = mgmt01") {
					return fmt.Errorf("beegfs-storage.conf:\n%s", got)
				}
				return nil
			})},
		}},
	})
}

// BenchmarkNoopPlan50 measures `terraform plan` (real CLI) of the R1
// storage profile on 50 lab nodes after it was applied: nothing to change.
// "warm" reuses one provider process for every plan (its SSH pool keeps a
// connection per node); "cold" starts a new provider process per plan, as
// a terraform run does. Reported per plan: wall time, SSH execs per node,
// new connections per node; and agent uploads per node over the whole run.
func BenchmarkNoopPlan50(b *testing.B) {
	const nodes = 50
	l := startNodeLab(b, nodes)
	dir := b.TempDir()
	var cfg strings.Builder
	cfg.WriteString(l.providerBlock())
	cfg.WriteString("\nlocals {\n  hosts = {\n")
	for i := range nodes {
		fmt.Fprintf(&cfg, "    %q = %q\n", l.Nodes[i].Name, l.host(i))
	}
	cfg.WriteString(`  }
}

data "hpcstorage_tuning_profile" "storage" {
  name = "beegfs-storage"
}

resource "hpcstorage_node_config" "storage" {
  for_each     = local.hosts
  host         = each.value
  owner        = "r1-storage"
  sysctl       = data.hpcstorage_tuning_profile.storage.sysctl
  thp          = data.hpcstorage_tuning_profile.storage.thp
  block_queues = data.hpcstorage_tuning_profile.storage.block_queues
  files        = data.hpcstorage_tuning_profile.storage.files
}
`)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	tfPath := terraformCLI(b)
	tf, err := tfexec.NewTerraform(dir, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"})
	ctx := context.Background()

	warm, stop := serveProvider(b)
	defer stop()
	if err := tf.Init(ctx, tfexec.Reattach(warm)); err != nil {
		b.Fatal(err)
	}
	if err := tf.Apply(ctx, tfexec.Reattach(warm)); err != nil {
		b.Fatal(err)
	}
	// One plan to connect, so warm plans start from an open pool.
	if _, err := tf.Plan(ctx, tfexec.Reattach(warm)); err != nil {
		b.Fatal(err)
	}

	execs := func() []int64 {
		out := make([]int64, nodes)
		for i, n := range l.Nodes {
			out[i] = n.Execs()
		}
		return out
	}
	conns := func() (s int64) {
		for _, n := range l.Nodes {
			s += n.Connections()
		}
		return s
	}
	// The transport's agent probe (a probe command, or an sftp session that
	// reads the architecture and delivers): only when the single-exec run
	// on a new connection finds no agent or another build.
	probes := func() (s int) {
		for _, n := range l.Nodes {
			for _, c := range n.Commands() {
				if strings.HasPrefix(c, "sh -c 'uname -m") || c == transport.ArchCommand || c == labnode.SFTPCommand {
					s++
				}
			}
		}
		return s
	}
	plan := func(ri tfexec.ReattachInfo) {
		changes, err := tf.Plan(ctx, tfexec.Reattach(ri))
		if err != nil {
			b.Fatal(err)
		}
		if changes {
			b.Fatal("no-op plan has changes")
		}
	}
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			e0, c0, p0 := execs(), conns(), probes()
			b.ResetTimer()
			for range b.N {
				if mode == "warm" {
					plan(warm)
					continue
				}
				b.StopTimer()
				ri, stopCold := serveProvider(b)
				b.StartTimer()
				plan(ri)
				b.StopTimer()
				stopCold()
				b.StartTimer()
			}
			b.StopTimer()
			e1 := execs()
			for i := range e1 {
				per := float64(e1[i]-e0[i]) / float64(b.N)
				// Warm plans ride on the agent session the first plan
				// opened; a new provider process opens one.
				if mode == "warm" && per != 0 {
					b.Errorf("node %s: %.2f SSH execs per no-op plan, want none (the open agent session)", l.Nodes[i].Name, per)
				}
				if mode == "cold" && per != 1 {
					b.Errorf("node %s: %.2f SSH execs per no-op plan with a new provider process, want exactly 1 (the agent session, started with --expect-sha256)", l.Nodes[i].Name, per)
				}
			}
			var sum int64
			for i := range e1 {
				sum += e1[i] - e0[i]
			}
			b.ReportMetric(float64(sum)/float64(nodes*b.N), "execs/node/plan")
			b.ReportMetric(float64(conns()-c0)/float64(nodes*b.N), "dials/node/plan")
			b.ReportMetric(float64(probes()-p0)/float64(nodes*b.N), "probes/node/plan")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/plan")
			// Delivery: once per node for this agent version, over the
			// apply and every plan so far.
			uploads := 0
			for _, n := range l.Nodes {
				up := int(n.SFTPWrites())
				for _, c := range n.Commands() {
					if strings.HasPrefix(c, "sh -c 'mkdir -p") {
						up++
					}
				}
				if up != 1 {
					b.Errorf("node %s: agent uploaded %d times, want once per version", n.Name, up)
				}
				uploads += up
			}
			b.ReportMetric(float64(uploads)/nodes, "uploads/node")
		})
	}
	if err := tf.Destroy(ctx, tfexec.Reattach(warm)); err != nil {
		b.Fatal(err)
	}
}

// Values unknown at plan time (here from terraform_data) skip the
// plan-time node check; Terraform plans again at apply once they are
// known, and the check then refuses the missing unit before anything
// changes: the node is as before.
func TestNodeConfigCheckedWhenKnown(t *testing.T) {
	l := startNodeLab(t, 1)
	before := l.treeHash(t, 0)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{{
			Config: l.providerBlock() + fmt.Sprintf(`
resource "terraform_data" "later" {}

resource "hpcstorage_node_config" "a" {
  host     = %q
  owner    = "failing"
  sysctl   = { "vm.dirty_ratio" = "21" }
  files    = { "/etc/hpcstorage-test.conf" = { content = terraform_data.later.id } }
  services = { "no-such-daemon" = { state = "started" } }
}
`, l.host(0)),
			ExpectError: regexp.MustCompile(`(?s)Error running apply.*Item Cannot Be Applied To This Node.*services\["no-such-daemon"\].*not\s+found`),
		}},
	})
	if err := sameTree(before, l.treeHash(t, 0)); err != nil {
		t.Errorf("after the refused apply: %v", err)
	}
}

// The resource's ssh block overrides the provider's: here the provider
// knows no host key and the resource brings its own known_hosts.
func TestNodeConfigSSHOverride(t *testing.T) {
	l := startNodeLab(t, 1)
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	provider := fmt.Sprintf(`
provider "hpcstorage" {
  ssh = {
    private_key_file  = %q
    known_hosts_files = [%q]
  }
}
`, l.keyFile, empty)
	res := func(override string) string {
		return fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "override"
  sysctl = { "vm.dirty_ratio" = "23" }
  %s
}
`, l.host(0), override)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: provider + res(""), ExpectError: regexp.MustCompile(`SSH Host Key Unknown`)},
			{
				Config: provider + res(fmt.Sprintf("ssh = { known_hosts_files = [%q] }", l.knownHosts)),
				ConfigStateChecks: []statecheck.StateCheck{nodeCheck(func() error {
					if got := l.read(t, 0, "/proc/sys/vm/dirty_ratio"); got != "23" {
						return fmt.Errorf("dirty_ratio %q", got)
					}
					return nil
				})},
			},
		},
	})
}

func TestSpecPath(t *testing.T) {
	locs := []nodeconfig.Locator{
		{Attr: nodeconfig.AttrSysctl, Key: "vm/x", Index: -1},
		{Attr: nodeconfig.AttrBlockQueues, Index: 0},
		{Attr: nodeconfig.AttrFiles, Key: "/etc/x", Index: -1},
		{Attr: nodeconfig.AttrServices, Key: "beegfs-storage", Index: -1},
	}
	tests := []struct{ in, want string }{
		{"items[0].sysctl.key", `sysctl["vm/x"]`},
		{"items[1].block_queue.match.name", `block_queues[0].match.name`},
		{"items[1].block_queue.scheduler", `block_queues[0].scheduler`},
		{"items[2].file.path", `files["/etc/x"]`},
		{"items[2].file.mode", `files["/etc/x"].mode`},
		{"items[2].file.set.bad key", `files["/etc/x"].set`},
		{"items[3].service.notify[1]", `services["beegfs-storage"].notify[1]`},
		{"owner", `owner`},
		{"items[9].file.mode", ``},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := specPath(tt.in, locs).String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// Config -> attribute values -> config keeps every field, and empty
// optional strings come back as null (so state matches configuration).
func TestItemValuesRoundTrip(t *testing.T) {
	yes, n := true, 2048
	content := ""
	cfg := nodeconfig.Config{
		Sysctl:      map[string]string{"vm.dirty_ratio": "20"},
		THP:         &nodeconfig.THP{Enabled: "never"},
		BlockQueues: []nodeconfig.BlockQueue{{Match: protocol.DiskMatch{Name: "sd*", Rotational: &yes}, NrRequests: &n}},
		Files: map[string]nodeconfig.File{
			"/etc/empty": {Content: &content},
			"/etc/b":     {Set: map[string]string{"k": ""}, Mode: "0644"},
		},
		Services: map[string]nodeconfig.Service{"x": {Enabled: &yes, DropIns: map[string]string{"10-a": "[Service]\n"}}},
		Commands: []nodeconfig.Command{{Argv: []string{"true"}, Creates: "/x"}},
	}
	vals, err := itemValues(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !vals[nodeconfig.AttrTHP].(types.Object).Attributes()["defrag"].IsNull() {
		t.Error("unset thp.defrag is not null")
	}
	if vals[nodeconfig.AttrFiles].(types.Map).Elements()["/etc/empty"].(types.Object).Attributes()["content"].IsNull() {
		t.Error("empty file content became null")
	}
	if !vals[nodeconfig.AttrMounts].IsNull() {
		t.Error("no mounts is not null")
	}
	var m nodeConfigModel
	if d := setItems(context.Background(), &m, cfg); d.HasError() {
		t.Fatal(d)
	}
	var diags diag.Diagnostics
	back, known := (&nodeConfigResource{}).config(&m, &diags)
	if !known || diags.HasError() {
		t.Fatal(diags)
	}
	if d := cmp.Diff(cfg, back); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestNodeConfigDriftAfterBMCPowerCycle: a service started but not
// enabled does not survive a reboot. The server is power-cycled through
// its BMC (a real Redfish ComputerSystem.Reset over HTTPS against the
// lab's mock); the lab reboots the node behind it, and the next plan
// shows the service stopped and starts it again.
func TestNodeConfigDriftAfterBMCPowerCycle(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	const password = "lab-reboot-password-1"
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Password: password, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	node := r.node("stor1")
	const addr = "hpcstorage_node_config.stor1"
	config := r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_node_config" "stor1" {
  host  = %q
  owner = "reboot-drift"
  services = {
    "beegfs-storage" = { enabled = true, state = "started" }
    "beegfs-meta"    = { state = "started" }
  }
}
`, node.Host)
	active := func(unit string) bool {
		var sd struct {
			Units map[string]struct{ Active bool } `json:"units"`
		}
		if err := json.Unmarshal([]byte(r.read(t, "stor1", "run/hpcstorage-sim/systemd.json")), &sd); err != nil {
			t.Fatal(err)
		}
		return sd.Units[unit].Active
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				PreConfig: func() {
					if !active("beegfs-meta.service") || !active("beegfs-storage.service") {
						t.Fatal("the services did not start")
					}
					bmcPowerCycle(t, l, "stor1", password)
					if errs := l.Errors(); len(errs) > 0 {
						t.Fatal(errs)
					}
					if active("beegfs-meta.service") || !active("beegfs-storage.service") {
						t.Fatal("after the power cycle, want beegfs-meta stopped and the enabled beegfs-storage running")
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						expectChange{addr, []any{"services", "beegfs-meta", "state"}, "stopped", "started"},
						expectChange{addr, []any{"services", "beegfs-storage", "state"}, "started", "started"},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					if !active("beegfs-meta.service") {
						return errors.New("beegfs-meta not started again")
					}
					return nil
				},
			},
		},
	})
}

// bmcPowerCycle restarts a lab server the way an operator would: a
// ComputerSystem.Reset (ForceRestart) on its BMC over HTTPS (the lab's
// CA, basic auth), then waits until the system reports PowerState On.
func bmcPowerCycle(t *testing.T, l *lab.Lab, node, password string) {
	t.Helper()
	var base string
	for _, ep := range l.State.Endpoints {
		if ep.Node == node {
			base = strings.TrimSuffix(ep.URL, "/")
		}
	}
	if base == "" {
		t.Fatalf("no BMC for %s", node)
	}
	caPEM, err := os.ReadFile(filepath.Join(l.State.Dir, lab.CAFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("lab CA: no certificate")
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("admin", password)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %s\n%s", method, path, resp.Status, data)
		}
		out := map[string]any{}
		_ = json.Unmarshal(data, &out)
		return out
	}
	members, _ := call(http.MethodGet, "/redfish/v1/Systems", nil)["Members"].([]any)
	if len(members) != 1 {
		t.Fatalf("systems %v", members)
	}
	sys, _ := members[0].(map[string]any)["@odata.id"].(string)
	call(http.MethodPost, sys+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	seenOff := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		switch call(http.MethodGet, sys, nil)["PowerState"] {
		case "On":
			if seenOff {
				return
			}
		default:
			seenOff = true
		}
	}
	t.Fatalf("%s did not come back On after the reset", node)
}
