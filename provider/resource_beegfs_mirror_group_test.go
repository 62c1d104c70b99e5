package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// simQuery runs a read-only simulated command on a lab node.
func (r *r1Lab) simQuery(t *testing.T, node string, argv ...string) string {
	t.Helper()
	root, err := fsroot.Open(r.node(node).Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	out, code, err := runner.Sim{Root: root}.Query(context.Background(), argv...)
	if err != nil || code != 0 {
		t.Fatalf("%q: exit %d %v", argv, code, err)
	}
	return out
}

// editMirror rewrites the lab's management state by hand (what a
// failover, or someone with beegfs-ctl, would change).
func (r *r1Lab) editMirror(t *testing.T, edit func(st map[string]any)) {
	t.Helper()
	p := filepath.Join(r.dir, lab.SharedDir, "beegfs", "mirror.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]any{}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBeegfsMirrorGroup: a storage group is defined once and read back
// (a failover's swap of primary and secondary is no drift, a group gone
// is); a pair across sizes or pools is refused at plan; metadata
// mirroring is refused at plan while a client is mounted and runs once
// when none is.
func TestBeegfsMirrorGroup(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	host := r.node("client01").Host
	storage := func(secondarySize, secondaryPool string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_mirror_group" "st" {
  host      = %q
  node_type = "storage"
  group_id  = 1
  primary   = { id = 101, size_bytes = 8000000000000, server = "stor1" }
  secondary = { id = 117, size_bytes = %s, pool = %s, server = "stor2" }
}
`, host, secondarySize, secondaryPool)
	}
	meta := fmt.Sprintf(`
resource "hpcstorage_beegfs_mirror_group" "md" {
  host            = %q
  node_type       = "meta"
  group_id        = 1
  primary         = { id = 1, server = "meta1" }
  secondary       = { id = 7, server = "meta2" }
  mirror_metadata = true
}
`, host)
	good := storage("8000000000000", "1")
	mirrored := fmt.Sprintf(`
resource "hpcstorage_beegfs_stripe_pattern" "mirrored" {
  host             = %q
  path             = "mirrored"
  chunk_size_bytes = 1048576
  num_targets      = 1
  buddy_mirror     = true
  depends_on       = [hpcstorage_beegfs_mirror_group.st]
}
`, host)
	listed := func(want string) statecheck.StateCheck {
		return stateCheck(func(*tfjson.State) error {
			out := r.simQuery(t, "client01", beegfs.ListArgv("storage")...)
			if !regexp.MustCompile(want).MatchString(out) {
				return fmt.Errorf("--listmirrorgroups shows\n%s\nwant %s", out, want)
			}
			return nil
		})
	}
	adds := func() int {
		n := 0
		for _, argv := range r.commands(t, "client01") {
			if len(argv) > 1 && argv[1] == "--addmirrorgroup" {
				n++
			}
		}
		return n
	}
	const rsc = "hpcstorage_beegfs_mirror_group.st"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      storage("12000000000000", "1"),
				ExpectError: wordsRE("secondary.size_bytes: target 101 has 8000000000000 bytes, target 117 12000000000000"),
			},
			{
				Config:      storage("8000000000000", "2"),
				ExpectError: wordsRE("secondary.pool: target 101 is in pool 1, target 117 in pool 2"),
			},
			{
				Config: good,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsc, tfjsonpath.New("current_primary"), knownvalue.Int64Exact(101)),
					statecheck.ExpectKnownValue(rsc, tfjsonpath.New("command"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("beegfs-ctl"), knownvalue.StringExact("--addmirrorgroup"), knownvalue.StringExact("--nodetype=storage"),
						knownvalue.StringExact("--primary=101"), knownvalue.StringExact("--secondary=117"), knownvalue.StringExact("--groupid=1")})),
					listed(`(?m)^\s+1\s+101\s+117$`),
				},
			},
			{
				// BeeGFS swaps the members on a failover: the group stands.
				PreConfig: func() {
					r.editMirror(t, func(st map[string]any) {
						g := st["groups"].(map[string]any)["storage"].([]any)[0].(map[string]any)
						g["primary"], g["secondary"] = g["secondary"], g["primary"]
					})
				},
				Config: good,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsc, tfjsonpath.New("current_primary"), knownvalue.Int64Exact(117)),
					stateCheck(func(*tfjson.State) error {
						if n := adds(); n != 1 {
							return fmt.Errorf("--addmirrorgroup ran %d times, want 1", n)
						}
						return nil
					}),
				},
			},
			{
				// Gone from the management service: drift, defined again.
				PreConfig: func() {
					r.editMirror(t, func(st map[string]any) { st["groups"].(map[string]any)["storage"] = []any{} })
				},
				Config: good,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(rsc, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{listed(`(?m)^\s+1\s+101\s+117$`)},
			},
			{
				// A client is mounted: metadata mirroring is refused at
				// plan, naming it.
				PreConfig: func() {
					r.clientSim(t, "client01", "/bin/sh", "-c", "mkdir -p /etc/beegfs && echo '/mnt/beegfs /etc/beegfs/beegfs-client.conf' > "+
						"/etc/beegfs/beegfs-mounts.conf && systemctl start beegfs-client")
				},
				Config:      good + meta,
				ExpectError: wordsRE("Attribute mirror_metadata: beegfs-ctl --mirrormd needs every client unmounted, and 1 client(s) are: client01."),
			},
			{
				PreConfig: func() { r.clientSim(t, "client01", "systemctl", "stop", "beegfs-client") },
				Config:    good + meta + mirrored,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_beegfs_stripe_pattern.mirrored", tfjsonpath.New("buddy_mirror"), knownvalue.Bool(true)),
					stateCheck(func(*tfjson.State) error {
						if out := r.simQuery(t, "client01", "beegfs-ctl", "--getentryinfo", "/mnt/beegfs/mirrored"); !strings.Contains(out, "+ Type: Buddy Mirror\n") {
							return fmt.Errorf("the directory is not buddy mirrored:\n%s", out)
						}
						return nil
					}),
					stateCheck(func(*tfjson.State) error {
						b, err := os.ReadFile(filepath.Join(r.dir, lab.SharedDir, "beegfs", "mirror.json"))
						if err != nil || !strings.Contains(string(b), `"mirror_md": true`) {
							return fmt.Errorf("metadata mirroring not on: %s %v", b, err)
						}
						return nil
					})},
			},
		},
	})
}

// wordsRE matches the words of s in order, across the CLI's line wrapping.
func wordsRE(s string) *regexp.Regexp {
	var q []string
	for _, w := range strings.Fields(s) {
		q = append(q, regexp.QuoteMeta(w))
	}
	return regexp.MustCompile(strings.Join(q, `\s+`))
}
