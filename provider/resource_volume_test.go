package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// arrayConfig: the ME4024 of R1 carved by the layout planner (two RAID1
// pairs and two spares for the test), one volume per group mapped to both
// metadata servers. %[1]d is the size of mdt01, %[2]d the LUN of mdt02 on
// meta2.
const arrayConfig = `
data "hpcstorage_drives" "md" {
  endpoint = "me4024-1"
}

data "hpcstorage_array_layout" "md" {
  drives = [for d in data.hpcstorage_drives.md.drives : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  }]
  policy = {
    raid_level         = "RAID1"
    group_count        = 2
    min_spares         = 2
    leftover_as_spares = false
    name_prefix        = "mdt"
  }
}

# count, not for_each: terraform-plugin-testing's state shim can't index
# resources by string.
resource "hpcstorage_disk_group" "md" {
  count      = length(data.hpcstorage_array_layout.md.disk_groups)
  endpoint   = "me4024-1"
  name       = data.hpcstorage_array_layout.md.disk_groups[count.index].name
  raid_level = data.hpcstorage_array_layout.md.disk_groups[count.index].raid_level
  drive_ids  = data.hpcstorage_array_layout.md.disk_groups[count.index].drive_ids
}

resource "hpcstorage_spare_drives" "md" {
  endpoint  = "me4024-1"
  drive_ids = data.hpcstorage_array_layout.md.spare_drive_ids
}

resource "hpcstorage_volume" "mdt01" {
  endpoint           = "me4024-1"
  disk_group         = hpcstorage_disk_group.md[0].name
  name               = "mdt01"
  capacity_bytes     = %[1]d
  segment_size_bytes = 131072
  host_mappings = [
    { host = "meta1", lun = 1 },
    { host = "meta2", lun = 1 },
  ]
}

resource "hpcstorage_volume" "mdt02" {
  endpoint   = "me4024-1"
  disk_group = hpcstorage_disk_group.md[1].name
  name       = "mdt02"
  host_mappings = [
    { host = "meta1", lun = 2 },
    { host = "meta2", lun = %[2]d },
  ]
}
`

const gib = int64(1) << 30

func TestArrayResources(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	arr := lab.svcs["me4024-1"]
	cfg := func(size int64, lun int) string { return lab.providerBlock() + fmt.Sprintf(arrayConfig, size, lun) }
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	vol1, vol2 := "hpcstorage_volume.mdt01", "hpcstorage_volume.mdt02"

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			// Create everything; the next plan is empty.
			{
				Config:           cfg(400*gib, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_disk_group.md[0]", tfjsonpath.New("drive_ids"), strList("0.0", "0.1")),
					statecheck.ExpectKnownValue("hpcstorage_disk_group.md[1]", tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(960_000_000_000)),
					statecheck.ExpectKnownValue("hpcstorage_spare_drives.md", tfjsonpath.New("drive_ids"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("0.4"), knownvalue.StringExact("0.5")})),
					statecheck.ExpectKnownValue(vol1, tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(400*gib)),
					statecheck.ExpectKnownValue(vol1, tfjsonpath.New("segment_size_bytes"), knownvalue.Int64Exact(131072)),
					statecheck.ExpectKnownValue(vol1, tfjsonpath.New("raid_level"), knownvalue.StringExact("RAID1")),
					statecheck.ExpectKnownValue(vol1, tfjsonpath.New("wwn"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{16,32}$`))),
					// All the space left, rounded down to 4 MiB.
					statecheck.ExpectKnownValue(vol2, tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(960_000_000_000/(4<<20)*(4<<20))),
					mockCheck(func() error {
						if n := len(arr.MappingEvents()); n != 4 {
							return fmt.Errorf("%d mapping events, want 4", n)
						}
						return nil
					}),
				},
			},
			// Grow mdt01 and move mdt02's LUN on meta2: both in place.
			{
				Config: cfg(500*gib, 7),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(vol1, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(vol2, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vol1, tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(500*gib)),
					statecheck.ExpectKnownValue(vol2, tfjsonpath.New("host_mappings").AtSliceIndex(1).AtMapKey("lun"), knownvalue.Int64Exact(7)),
				},
			},
			// Plan-time refusals: shrinking, more than the group holds.
			{Config: cfg(300*gib, 7), ExpectError: regexp.MustCompile(`(?s)Volumes Cannot Shrink.*capacity_bytes`)},
			{Config: cfg(2000*gib, 7), ExpectError: regexp.MustCompile(`(?s)Volume Larger Than The Disk Group.*capacity_bytes`)},
			// Imports, without credentials in the id.
			{ResourceName: vol1, ImportState: true, ImportStateId: "me4024-1/controller_a/mdt01", ImportStateVerify: true},
			{ResourceName: "hpcstorage_disk_group.md[0]", ImportState: true, ImportStateId: "me4024-1/controller_a/mdt01", ImportStateVerify: true},
			// Drift: mdt02 deleted on the array behind Terraform's back.
			{
				PreConfig: func() {
					ep := lab.client(t, "me4024-1")
					ctx := context.Background()
					uri := redfish.VolumesURI("controller_a") + "/mdt02"
					ms, err := ep.Mappings(ctx, "controller_a", uri)
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range ms {
						if err := ep.Unmap(ctx, m); err != nil {
							t.Fatal(err)
						}
					}
					if err := ep.DeleteURI(ctx, uri); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(500*gib, 7),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(vol2, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: empty,
				},
			},
		},
	})
	if n := arr.Stats()["POST /redfish/v1/Storage/controller_a/StoragePools"]; n != 0 {
		t.Logf("pool POSTs after reset of stats: %d", n)
	}
}

// Plan-time validation of disk groups: nothing reaches the array.
func TestDiskGroupValidation(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	arr := lab.svcs["me4024-1"]
	group := func(body string) string {
		return lab.providerBlock() + "resource \"hpcstorage_disk_group\" \"g\" {\n  endpoint = \"me4024-1\"\n  name = \"g1\"\n" + body + "\n}\n"
	}
	tests := []struct {
		name, body, want string
	}{
		{"RAID6 with 3 drives", `raid_level = "RAID6"
  drive_ids = ["0.0", "0.1", "0.2"]`, `(?s)Wrong Drive Count.*drive_ids.*RAID6 needs 4 to 16\s+drives, got 3`},
		{"drive used twice", `raid_level = "RAID1"
  drive_ids = ["0.0", "0.0"]`, `(?s)Duplicate List Value.*duplicate values of: "0.0"`},
		{"unknown drive", `raid_level = "RAID1"
  drive_ids = ["0.0", "9.9"]`, `(?s)Unknown Drive.*drive_ids\[1\].*"9.9"`},
		{"count rule", `raid_level = "RAID10"
  drive_count = 5`, `(?s)drive_count.*RAID10 needs an even\s+number of drives, 4 to 16, got 5`},
		{"drive in two groups", `raid_level = "RAID1"
  drive_ids = ["0.0", "0.1"]
}
resource "hpcstorage_disk_group" "h" {
  endpoint   = "me4024-1"
  name       = "g2"
  raid_level = "RAID1"
  drive_ids  = ["0.1", "0.2"]`, `(?s)Drive Planned Twice.*"0.1" is also planned for disk group g[12]`},
		{"drive in a group and spare", `raid_level = "RAID1"
  drive_ids = ["0.0", "0.1"]
}
resource "hpcstorage_spare_drives" "s" {
  endpoint  = "me4024-1"
  drive_ids = ["0.1"]`, `(?s)Drive Planned Twice.*"0.1" is also planned for`},
		{"ids and count", `raid_level = "RAID1"
  drive_count = 2
  drive_ids = ["0.0", "0.1"]`, `(?s)Invalid Attribute Combination`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps:                    []resource.TestStep{{Config: group(tc.body), ExpectError: regexp.MustCompile(tc.want)}},
			})
		})
	}
	for k, n := range arr.Stats() {
		if k[:4] != "GET " && k != "POST /redfish/v1/SessionService/Sessions" {
			t.Errorf("validation sent %s (%d times)", k, n)
		}
	}
}

// A 503 burst with Retry-After on the pool POST and a connection reset on
// the volume POST: the apply converges with one pool and one volume.
func TestArrayCreateSurvivesFaults(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	arr := lab.svcs["me4024-1"]
	cfg := lab.providerBlock() + `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "me4024-1"
  name        = "mdt01"
  raid_level  = "RAID1"
  drive_count = 2
  media_type  = "SSD"
}
resource "hpcstorage_volume" "v" {
  endpoint   = "me4024-1"
  disk_group = hpcstorage_disk_group.g.name
  name       = "mdt01"
}
resource "hpcstorage_spare_drives" "s" {
  endpoint  = "me4024-1"
  drive_ids = ["0.23"]
}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				for _, f := range []redfishmock.Fault{
					{Method: "POST", Path: "/redfish/v1/Storage/controller_a/StoragePools", Kind: redfishmock.FaultStatus, Status: 503, RetryAfter: 2, Count: 2},
					{Method: "POST", Path: "/redfish/v1/Storage/controller_a/Volumes", Kind: redfishmock.FaultReset, Count: 1},
				} {
					if err := arr.InjectFault(f); err != nil {
						t.Fatal(err)
					}
				}
			},
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_disk_group.g", tfjsonpath.New("drive_ids"), strList("0.0", "0.1")),
			},
			Check: func(*terraform.State) error {
				ep := lab.client(t, "me4024-1")
				pools, err := ep.Drives(context.Background(), "controller_a")
				if err != nil {
					return err
				}
				used := 0
				for _, d := range pools {
					if d.PoolURI != "" {
						used++
					}
				}
				if used != 2 {
					return fmt.Errorf("%d drives in pools, want 2 (one pool)", used)
				}
				if _, err := ep.FindVolume(context.Background(), "controller_a", "mdt01"); err != nil {
					return err
				}
				st := arr.Stats()
				if st["POST /redfish/v1/Storage/controller_a/StoragePools"] != 3 || st["POST /redfish/v1/Storage/controller_a/Volumes"] < 1 {
					return fmt.Errorf("POSTs: %v", st)
				}
				return nil
			},
		}, {
			ResourceName: "hpcstorage_disk_group.g", ImportState: true, ImportStateId: "me4024-1/controller_a/mdt01",
			ImportStateVerify: true, ImportStateVerifyIgnore: []string{"drive_count", "media_type"},
		}, {
			// Imports take endpoint names, never credentials.
			ResourceName: "hpcstorage_volume.v", ImportState: true, ImportStateId: "me4024-1/controller_a/mdt01", ImportStateVerify: true,
		}, {
			ResourceName: "hpcstorage_spare_drives.s", ImportState: true, ImportStateId: "me4024-1/controller_a", ImportStateVerify: true,
		}, {
			// A new name is a new volume: the plan says replace.
			Config: strings.Replace(cfg, `name       = "mdt01"
}`, `name       = "mdt01b"
}`, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("hpcstorage_volume.v", plancheck.ResourceActionReplace)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_volume.v", tfjsonpath.New("id"), knownvalue.StringExact("me4024-1/controller_a/mdt01b")),
			},
		}},
	})
}

// Changing a disk group's drives or level replaces it (the plan says so);
// spares change in place.
func TestDiskGroupReplaceAndSparesUpdate(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	cfg := func(level, drives, spares string) string {
		return lab.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "g1"
  raid_level = %[1]q
  drive_ids  = %[2]s
}
resource "hpcstorage_spare_drives" "s" {
  endpoint  = "me4024-1"
  drive_ids = %[3]s
}`, level, drives, spares)
	}
	g, s := "hpcstorage_disk_group.g", "hpcstorage_spare_drives.s"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			// Drives listed out of bay order: no perpetual diff.
			{Config: cfg("RAID1", `["0.11", "0.10"]`, `["0.20"]`), ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty}},
			{
				Config: cfg("RAID10", `["0.10", "0.11", "0.12", "0.13"]`, `["0.20", "0.21"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(g, plancheck.ResourceActionReplace),
						plancheck.ExpectResourceAction(s, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(g, tfjsonpath.New("raid_level"), knownvalue.StringExact("RAID10")),
					statecheck.ExpectKnownValue(g, tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(2*960_000_000_000)),
					statecheck.ExpectKnownValue(s, tfjsonpath.New("drive_ids"), knownvalue.SetSizeExact(2)),
				},
			},
			// A drive of the group cannot become a spare: refused at plan.
			{Config: cfg("RAID10", `["0.10", "0.11", "0.12", "0.13"]`, `["0.20", "0.12"]`),
				ExpectError: regexp.MustCompile(`(?s)Drive In A Disk Group.*"0.12"`)},
		},
	})
	// Destroy released the spares and deleted the group.
	ep := lab.client(t, "me4024-1")
	drives, err := ep.Drives(context.Background(), "controller_a")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drives {
		if d.PoolURI != "" || d.HotspareType != "None" {
			t.Errorf("after destroy drive %s: pool %q spare %q", d.ID, d.PoolURI, d.HotspareType)
		}
	}
}

// Host mappings are checked at plan time: hosts the array knows, LUNs free
// on that host, no LUN planned twice.
func TestVolumeMappingValidation(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	ep := lab.client(t, "me4024-1")
	ctx := context.Background()
	if _, err := ep.CreatePool(ctx, "controller_a", "mdt01", "RAID1", []string{"0.0", "0.1"}); err != nil {
		t.Fatal(err)
	}
	v, err := ep.CreateVolume(ctx, "controller_a", "mdt01", "taken", 1<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Map(ctx, "controller_a", v, "meta1", 5); err != nil {
		t.Fatal(err)
	}
	vol := func(name, mappings string) string {
		return fmt.Sprintf(`
resource "hpcstorage_volume" %[1]q {
  endpoint       = "me4024-1"
  disk_group     = "mdt01"
  name           = %[1]q
  capacity_bytes = 1073741824
  host_mappings  = %[2]s
}`, name, mappings)
	}
	tests := []struct{ name, cfg, want string }{
		{"unknown host", vol("a", `[{ host = "stor1", lun = 1 }]`), `(?s)Unknown Host.*host_mappings\[0\].host.*"stor1"`},
		{"LUN used by another volume", vol("a", `[{ host = "meta1", lun = 5 }]`), `(?s)LUN Already Used.*host_mappings\[0\].lun.*LUN 5 on host meta1`},
		{"LUN planned twice", vol("a", `[{ host = "meta2", lun = 3 }]`) + vol("b", `[{ host = "meta2", lun = 3 }]`), `(?s)LUN Planned Twice.*LUN 3 on host meta2`},
		{"host twice", vol("a", `[{ host = "meta2", lun = 3 }, { host = "meta2", lun = 4 }]`), `(?s)Host Mapped Twice.*host_mappings\[1\].host`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps:                    []resource.TestStep{{Config: lab.providerBlock() + tc.cfg, ExpectError: regexp.MustCompile(tc.want)}},
			})
		})
	}
}

// host_mappings unknown until apply (built from another resource's
// computed output): the plan shows them as known after apply, the apply
// maps the final value, and the next plan is empty. Covers create, an
// in-place update, one unknown LUN, a host the array does not know
// (refused once the value is known) and unknown-then-empty.
func TestVolumeMappingsUnknownAtPlan(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	ep := lab.client(t, "me4024-1")
	ctx := context.Background()
	if _, err := ep.CreatePool(ctx, "controller_a", "mdt01", "RAID1", []string{"0.0", "0.1"}); err != nil {
		t.Fatal(err)
	}
	// terraform_data's output is unknown in the plan whenever its input
	// changes, so host_mappings is unknown as a whole until apply.
	cfg := func(input, mappings string) string {
		return lab.providerBlock() + fmt.Sprintf(`
resource "terraform_data" "hosts" {
  input = %[1]s
}
resource "hpcstorage_volume" "v" {
  endpoint       = "me4024-1"
  disk_group     = "mdt01"
  name           = "mdt01"
  capacity_bytes = 1073741824
  host_mappings  = %[2]s
}`, input, mappings)
	}
	forHosts := func(base int) string {
		return fmt.Sprintf(`[for i, h in terraform_data.hosts.output : { host = h, lun = i + %d }]`, base)
	}
	vol := "hpcstorage_volume.v"
	unknown := []plancheck.PlanCheck{plancheck.ExpectUnknownValue(vol, tfjsonpath.New("host_mappings"))}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	mapping := func(host string, lun int64) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{"host": knownvalue.StringExact(host), "lun": knownvalue.Int64Exact(lun)})
	}
	// onArray checks the volume's mappings on the mock, in any order.
	onArray := func(want ...string) mockCheck {
		return func() error {
			ms, err := ep.Mappings(ctx, "controller_a", redfish.VolumesURI("controller_a")+"/mdt01")
			if err != nil {
				return err
			}
			got := make([]string, len(ms))
			for i, m := range ms {
				got[i] = fmt.Sprintf("%s:%d", m.Host, m.LUN)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				return fmt.Errorf("mappings on the array %v, want %v", got, want)
			}
			return nil
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			// Create with mappings unknown at plan.
			{
				Config: cfg(`["meta1"]`, forHosts(1)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(vol, plancheck.ResourceActionCreate)}, unknown...),
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vol, tfjsonpath.New("host_mappings"), knownvalue.ListExact([]knownvalue.Check{mapping("meta1", 1)})),
					onArray("meta1:1"),
				},
			},
			// Update in place: a host added, LUNs moved, all unknown at plan;
			// the state keeps the configuration's order.
			{
				Config: cfg(`["meta2", "meta1"]`, forHosts(3)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(vol, plancheck.ResourceActionUpdate)}, unknown...),
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vol, tfjsonpath.New("host_mappings"),
						knownvalue.ListExact([]knownvalue.Check{mapping("meta2", 3), mapping("meta1", 4)})),
					onArray("meta1:4", "meta2:3"),
				},
			},
			// Only one LUN unknown at plan (an element unknown as a whole is
			// refused by Terraform itself).
			{
				Config: cfg(`9`, `[{ host = "meta1", lun = 4 }, { host = "meta2", lun = terraform_data.hosts.output }]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(vol, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(vol, tfjsonpath.New("host_mappings").AtSliceIndex(1).AtMapKey("lun")),
					},
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vol, tfjsonpath.New("host_mappings"),
						knownvalue.ListExact([]knownvalue.Check{mapping("meta1", 4), mapping("meta2", 9)})),
					onArray("meta1:4", "meta2:9"),
				},
			},
			// A host the array does not know is refused once it is known,
			// naming the item; nothing is unmapped.
			{
				Config:      cfg(`["stor1"]`, forHosts(1)),
				ExpectError: regexp.MustCompile(`(?s)Unknown Host.*host_mappings\[0\].host.*"stor1"`),
			},
			{
				PreConfig: func() {
					if err := onArray("meta1:4", "meta2:9")(); err != nil {
						t.Errorf("after the refused apply: %v", err)
					}
				},
				Config:           cfg(`9`, `[{ host = "meta1", lun = 4 }, { host = "meta2", lun = terraform_data.hosts.output }]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			// Unknown, then empty: every mapping removed.
			{
				Config: cfg(`[]`, forHosts(1)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(vol, plancheck.ResourceActionUpdate)}, unknown...),
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vol, tfjsonpath.New("host_mappings"), knownvalue.ListSizeExact(0)),
					onArray(),
				},
			},
		},
	})
}
