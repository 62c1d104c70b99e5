package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/profiles"
)

func TestTuningProfileDataSource(t *testing.T) {
	const ds = "data.hpcstorage_tuning_profile.p"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				// R2: 256 nfsd threads and the deadline scheduler.
				Config: `data "hpcstorage_tuning_profile" "p" { name = "nfs-server" }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("version"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_queues").AtSliceIndex(0).AtMapKey("scheduler"), knownvalue.StringExact("mq-deadline")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("files").AtMapKey("/etc/nfs.conf.d/hpcstorage-nfsd.conf").AtMapKey("content"),
						knownvalue.StringRegexp(regexp.MustCompile(`\[nfsd\]\nthreads = 256\n`))),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("package_floors").AtMapKey("lvm2"), knownvalue.StringExact("2.02.180-10.el7_6.2")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("sysctl"), knownvalue.Null()),
				},
			},
			{
				// R1 storage with overrides: a value replaced, THP dropped,
				// a sysctl added; conflicts and sources come along.
				Config: `data "hpcstorage_tuning_profile" "p" {
  name    = "beegfs-storage"
  version = 1
  overrides = {
    "sysctl:vm.dirty_ratio" = "40"
    "thp:enabled"           = ""
    "thp:defrag"            = ""
    "sysctl:vm.swappiness"  = "10"
  }
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("sysctl").AtMapKey("vm.dirty_ratio"), knownvalue.StringExact("40")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("sysctl").AtMapKey("vm.dirty_background_ratio"), knownvalue.StringExact("5")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("sysctl").AtMapKey("vm.swappiness"), knownvalue.StringExact("10")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("thp"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_queues").AtSliceIndex(0).AtMapKey("nr_requests"), knownvalue.Int64Exact(2048)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("files").AtMapKey("/etc/beegfs/beegfs-storage.conf").AtMapKey("set").AtMapKey("tuneNumWorkers"),
						knownvalue.StringExact("12")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("conflicts").AtMapKey("zone-reclaim"), knownvalue.StringExact(profiles.Conflicts["zone-reclaim"])),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("settings").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"key":    knownvalue.StringExact("sysctl:vm.dirty_background_ratio"),
						"value":  knownvalue.StringExact("5"),
						"source": knownvalue.StringRegexp(regexp.MustCompile(`^R1: Dell BeeGFS`)),
						"note":   knownvalue.NotNull(),
					})),
				},
			},
			{
				Config: `data "hpcstorage_tuning_profile" "p" { name = "gpfs-nsd-server" }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("cluster_settings").AtMapKey("pagepool"), knownvalue.StringExact("16G")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_queues").AtSliceIndex(0).AtMapKey("max_sectors_kb"), knownvalue.Int64Exact(4096)),
				},
			},
			{
				Config: `data "hpcstorage_tuning_profile" "p" {
  name    = "ceph-osd"
  version = 7
}`,
				ExpectError: regexp.MustCompile(`(?s)Attribute\s+version:.*at\s+version\s+1\s+in\s+this\s+provider`),
			},
		},
	})
}

func exampleFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every preset's items pass the real agent's check on a fake node of its
// role: keys exist, schedulers are offered, files and units are there.
// Only the R2 package floors fail, on purpose, on a node without them.
func TestPresetsCheckOnFakeNodes(t *testing.T) {
	needAgent(t)
	roles := map[string]fakenode.Profile{
		"beegfs-storage": fakenode.Storage, "beegfs-metadata": fakenode.Metadata, "beegfs-client": fakenode.Client,
		"nfs-server": fakenode.Storage, "gpfs-nsd-server": fakenode.Storage, "ceph-osd": fakenode.Storage, "ceph-mon": fakenode.Storage,
	}
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			role, ok := roles[name]
			if !ok {
				t.Fatalf("no fake node role for preset %s", name)
			}
			root := t.TempDir()
			if err := fakenode.SeedWith(root, role, fakenode.Options{Disks: fakenode.ArrayVolumes("n01", 2), Simulator: simtest.Binary(t)}); err != nil {
				t.Fatal(err)
			}
			if err := addArpFilter(root); err != nil {
				t.Fatal(err)
			}
			_, items, err := profiles.Resolve(name, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := json.Marshal(protocol.Spec{APIVersion: protocol.APIVersion, Owner: "preset", Items: items})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(agentDir, "hpcstorage-agent"), "apply", "-f", "-", "--check", "--root", root)
			cmd.Stdin = bytes.NewReader(spec)
			out, _ := cmd.Output()
			var res protocol.Result
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("agent output %q: %v", out, err)
			}
			for _, ir := range res.Items {
				if ir.Error == "" {
					continue
				}
				if name == "nfs-server" && strings.HasPrefix(ir.ID, "package_version:") || ir.Skipped {
					continue
				}
				t.Errorf("%s: %s", ir.ID, ir.Error)
			}
		})
	}
}
