package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// clientSim runs a simulated command on a lab node, as someone logged in
// on it would.
func (r *r1Lab) clientSim(t *testing.T, node string, argv ...string) string {
	t.Helper()
	root, err := fsroot.Open(r.node(node).Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s := runner.Sim{Root: root}
	if strings.Contains(strings.Join(argv, " "), "--getentryinfo") {
		out, code, err := s.Query(context.Background(), argv...)
		if err != nil || code != 0 {
			t.Fatalf("%q: exit %d %v", argv, code, err)
		}
		return out
	}
	if err := s.Run(context.Background(), argv...); err != nil {
		t.Fatal(err)
	}
	return ""
}

// TestBeegfsStripePatternReadBack: the pattern is read back from the
// client; a change made by hand on the node shows in the next plan and the
// apply sets it again.
func TestBeegfsStripePatternReadBack(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	conf := r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_stripe_pattern" "bench" {
  host        = %q
  path        = "bench"
  chunk_size_bytes  = 1048576
  num_targets = 1
}
`, r.node("client01").Host)
	const dirPath = "/mnt/beegfs/bench"
	want := "+ Chunksize: 1M\n+ Number of storage targets: desired: 1\n+ Storage Pool: 1 (Default)\n"
	onNode := func(want string) statecheck.StateCheck {
		return stateCheck(func(*tfjson.State) error {
			if out := r.clientSim(t, "client01", "beegfs-ctl", "--getentryinfo", dirPath); !strings.Contains(out, want) {
				return fmt.Errorf("client01 shows\n%s\nwant\n%s", out, want)
			}
			return nil
		})
	}
	setpatterns := func() int {
		n := 0
		for _, argv := range r.commands(t, "client01") {
			// The provider's runs (sh wrapper), not the hand changes.
			if argv[0] == "/bin/sh" && strings.Contains(strings.Join(argv, " "), "beegfs-ctl --setpattern") {
				n++
			}
		}
		return n
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_beegfs_stripe_pattern.bench", tfjsonpath.New("chunk_size_bytes"), knownvalue.Int64Exact(1<<20)),
					statecheck.ExpectKnownValue("hpcstorage_beegfs_stripe_pattern.bench", tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					onNode(want),
					stateCheck(func(*tfjson.State) error {
						if n := setpatterns(); n != 1 {
							return fmt.Errorf("setpattern ran %d times, want 1", n)
						}
						return nil
					}),
				},
			},
			{
				// By hand on the client: 4 targets, 512 KiB chunks.
				PreConfig: func() {
					r.clientSim(t, "client01", "beegfs-ctl", "--setpattern", "--chunksize=512k", "--numtargets=4", dirPath)
				},
				RefreshState: true,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("hpcstorage_beegfs_stripe_pattern.bench", "chunk_size_bytes", "524288"),
					resource.TestCheckResourceAttr("hpcstorage_beegfs_stripe_pattern.bench", "num_targets", "4"),
					resource.TestCheckResourceAttr("hpcstorage_beegfs_stripe_pattern.bench", "pool", "1"),
					resource.TestCheckResourceAttrSet("hpcstorage_beegfs_stripe_pattern.bench", "drift.command:setpattern"),
				),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_beegfs_stripe_pattern.bench", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("hpcstorage_beegfs_stripe_pattern.bench", tfjsonpath.New("num_targets"), knownvalue.Int64Exact(1)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					onNode(want),
					stateCheck(func(*tfjson.State) error {
						if n := setpatterns(); n != 2 {
							return fmt.Errorf("setpattern ran %d times, want 2 (once more to undo the hand change)", n)
						}
						return nil
					}),
				},
			},
			{
				// A pool changed by rewriting the simulation's record.
				PreConfig: func() {
					r.clientSim(t, "client01", "beegfs-ctl", "--setpattern", "--storagepoolid=3", dirPath)
				},
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_beegfs_stripe_pattern.bench", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{onNode(want)},
			},
		},
	})
}
