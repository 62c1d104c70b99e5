package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// adoptConfig: one RAID1 group, its volume mapped to both metadata servers,
// two global spares, on the R1 ME4024.
const adoptConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "mdt01"
  raid_level = "RAID1"
  drive_ids  = ["0.0", "0.1"]
}

resource "hpcstorage_volume" "v" {
  endpoint           = "me4024-1"
  disk_group         = hpcstorage_disk_group.g.name
  name               = "mdt01"
  capacity_bytes     = 107374182400
  segment_size_bytes = 131072
  host_mappings = [
    { host = "meta1", lun = 1 },
    { host = "meta2", lun = 1 },
  ]
}

resource "hpcstorage_spare_drives" "s" {
  endpoint  = "me4024-1"
  drive_ids = ["0.22", "0.23"]
}
`

// arrayWrites lists the requests that changed the array since its stats
// were reset (sessions aside).
func arrayWrites(svc *redfishmock.Service) []string {
	var out []string
	for k, n := range svc.Stats() {
		if !strings.HasPrefix(k, "GET ") && !strings.Contains(k, "/SessionService/") {
			out = append(out, fmt.Sprintf("%s x%d", k, n))
		}
	}
	return out
}

// TestArrayAdoptsWhatAKilledRunLeft: objects of the configured names left on
// the array (as a killed apply leaves them) are adopted by the real
// terraform CLI when they match, with a warning, and the mappings converge;
// any that differ fail the plan (or the apply, when they appear after the
// plan) naming the object with an import command that works as given.
func TestArrayAdoptsWhatAKilledRunLeft(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	arr := lab.svcs["me4024-1"]
	cli := newPluginCLI(t, lab.providerBlock()+adoptConfig)
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("terraform init: exit %d\n%s", code, out)
	}
	ep := lab.client(t, "me4024-1")
	ctx := context.Background()
	const sid = "controller_a"
	fresh := func() {
		t.Helper()
		if err := arr.Reset(); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup"} {
			_ = os.Remove(filepath.Join(cli.dir, f))
		}
	}
	pool := func(drives ...string) *redfish.StoragePool {
		t.Helper()
		p, err := ep.CreatePool(ctx, sid, "mdt01", "RAID1", drives)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	volume := func(p *redfish.StoragePool, name string, size, seg int64) *redfish.Volume {
		t.Helper()
		v, err := ep.CreateVolume(ctx, sid, p.ID, name, size, seg)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	spare := func(id string) {
		t.Helper()
		d, err := ep.GetDrive(ctx, sid, id)
		if err == nil {
			err = ep.SetHotspare(ctx, d, "Global")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	importRE := regexp.MustCompile(`terraform import '<address>' (\S+)`)
	// Terraform wraps diagnostics to its width: match on single spaces.
	run := func(args ...string) (string, int) {
		out, code := cli.run(args...)
		return strings.Join(strings.Fields(out), " "), code
	}

	t.Run("match", func(t *testing.T) {
		fresh()
		p := pool("0.0", "0.1")
		v := volume(p, "mdt01", 100*gib, 131072)
		if err := ep.Map(ctx, sid, v, "meta1", 1); err != nil {
			t.Fatal(err)
		}
		spare("0.22")
		arr.ResetStats()
		out, code := run("apply", "-auto-approve")
		if code != 0 {
			t.Fatalf("apply: exit %d\n%s", code, out)
		}
		for _, w := range []string{"Warning: Existing Disk Group Will Be Adopted", "Warning: Existing Disk Group Adopted",
			"Warning: Existing Volume Adopted", "Warning: Existing Global Spares Adopted", "me4024-1/controller_a/mdt01"} {
			if !strings.Contains(out, w) {
				t.Errorf("apply output lacks %q:\n%s", w, out)
			}
		}
		// Nothing created anew but meta2's mapping and the second spare.
		stats := arr.Stats()
		for k, want := range map[string]int{
			"POST " + redfish.PoolsURI(sid):          0,
			"POST " + redfish.VolumesURI(sid):        0,
			"POST " + redfish.StorageGroupsURI(sid):  1,
			"PATCH " + redfish.DriveURI(sid, "0.23"): 1,
			"PATCH " + redfish.DriveURI(sid, "0.22"): 0,
		} {
			if stats[k] != want {
				t.Errorf("%s sent %d times, want %d (writes: %v)", k, stats[k], want, arrayWrites(arr))
			}
		}
		for k := range stats {
			if strings.HasPrefix(k, "DELETE ") && !strings.Contains(k, "/SessionService/") {
				t.Errorf("adoption deleted something: %v", arrayWrites(arr))
			}
		}
		if out, code := run("plan", "-detailed-exitcode"); code != 0 {
			t.Fatalf("plan after adoption: exit %d\n%s", code, out)
		}
		raw, err := os.ReadFile(filepath.Join(cli.dir, "terraform.tfstate"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readArray(t, ep).String(), parseState(t, raw)["me4024-1"].String(); got != want {
			t.Errorf("array holds\n  %s\nthe state\n  %s", got, want)
		}
	})

	// Each differing object fails the plan, naming it, before anything is
	// written; the import id in the message works.
	mismatches := []struct {
		name, setup, want, addr string
	}{
		{"disk group drives", "pool", `(?s)Error: Disk Group Already Exists.*"mdt01".*its drives are 0.2, 0.3, not 0.0, 0.1`, "hpcstorage_disk_group.g"},
		{"volume size", "volume", `(?s)Error: Volume Already Exists.*capacity_bytes.*holds 53687091200 bytes, not 107374182400`, "hpcstorage_volume.v"},
		{"volume group", "volume elsewhere", `(?s)Error: Volume Already Exists.*disk_group.*it is in disk group "other", not "mdt01"`, "hpcstorage_volume.v"},
		{"spares", "spares", `(?s)Error: Global Spares Already Set.*holds 0.20, which drive_ids does not list`, "hpcstorage_spare_drives.s"},
	}
	for _, tc := range mismatches {
		t.Run(tc.name, func(t *testing.T) {
			fresh()
			switch tc.setup {
			case "pool":
				pool("0.2", "0.3")
			case "volume":
				volume(pool("0.0", "0.1"), "mdt01", 50*gib, 131072)
			case "volume elsewhere":
				p, err := ep.CreatePool(ctx, sid, "other", "RAID1", []string{"0.4", "0.5"})
				if err != nil {
					t.Fatal(err)
				}
				volume(p, "mdt01", 100*gib, 131072)
			case "spares":
				spare("0.20")
			}
			arr.ResetStats()
			out, code := run("plan")
			if code == 0 || !regexp.MustCompile(tc.want).MatchString(out) {
				t.Fatalf("plan: exit %d, want an error matching %s:\n%s", code, tc.want, out)
			}
			if w := arrayWrites(arr); len(w) > 0 {
				t.Errorf("the refused plan wrote to the array: %v", w)
			}
			m := importRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no import command in:\n%s", out)
			}
			if out, code := run("import", tc.addr, m[1]); code != 0 {
				t.Fatalf("terraform import %s %s: exit %d\n%s", tc.addr, m[1], code, out)
			}
			// Imported, the difference is now an ordinary change of the plan.
			if out, code := run("plan", "-detailed-exitcode"); code != 2 || !strings.Contains(out, tc.addr) {
				t.Errorf("plan after import: exit %d, want changes to %s:\n%s", code, tc.addr, out)
			}
		})
	}

	// A volume that appears between plan and apply: the create refuses it.
	t.Run("volume at apply", func(t *testing.T) {
		fresh()
		if out, code := run("plan", "-out=tfplan"); code != 0 {
			t.Fatalf("plan: exit %d\n%s", code, out)
		}
		arr.ResetStats()
		p := pool("0.0", "0.1")
		volume(p, "mdt01", 100*gib, 65536)
		out, code := run("apply", "tfplan")
		if code == 0 || !regexp.MustCompile(`(?s)Error: Volume Already Exists.*segment_size_bytes.*its segment size is 65536 bytes, not 131072.*terraform import '<address>' me4024-1/controller_a/mdt01`).MatchString(out) {
			t.Fatalf("apply: exit %d, want Volume Already Exists:\n%s", code, out)
		}
		if n := arr.Stats()["POST "+redfish.VolumesURI(sid)]; n != 1 {
			t.Errorf("%d volume POSTs, want only the test's own", n)
		}
	})

	// A storage group of the name a mapping takes, mapping another volume.
	t.Run("mapping", func(t *testing.T) {
		fresh()
		p := pool("0.0", "0.1")
		volume(p, "mdt01", 100*gib, 131072)
		other := volume(p, "other", 10*gib, 131072)
		body := map[string]any{
			"Name":          "mdt01_meta1",
			"MappedVolumes": []any{map[string]any{"Volume": map[string]string{"@odata.id": other.URI}, "LogicalUnitNumber": "5"}},
			"Links": map[string]any{"ClientEndpointGroups": []any{
				map[string]string{"@odata.id": redfish.StorageURI(sid) + "/EndpointGroups/meta1"}}},
		}
		if _, err := ep.Post(ctx, redfish.StorageGroupsURI(sid), body); err != nil {
			t.Fatal(err)
		}
		out, code := run("apply", "-auto-approve")
		if code == 0 || !regexp.MustCompile(`(?s)Error: Host Mapping Already Exists.*host_mappings\[0\].*mdt01_meta1.*/Volumes/other`).MatchString(out) {
			t.Fatalf("apply: exit %d, want Host Mapping Already Exists:\n%s", code, out)
		}
	})
}

// Plan-time limits: a volume larger than the disk group planned beside it,
// a disk group over the ME4 drive maximum of its RAID level. Nothing
// reaches the array.
func TestArrayPlanTimeLimits(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	arr := lab.svcs["me4024-1"]
	drives := func(n int) string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("%q", fmt.Sprintf("0.%d", i))
		}
		return "[" + strings.Join(ids, ", ") + "]"
	}
	tests := []struct{ name, config, want string }{
		{"volume larger than its new group", `
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "mdt01"
  raid_level = "RAID5"
  drive_ids  = ["0.0", "0.1", "0.2"]
}
resource "hpcstorage_volume" "v" {
  endpoint       = "me4024-1"
  disk_group     = hpcstorage_disk_group.g.name
  name           = "mdt01"
  capacity_bytes = 2000000000000
}`, `(?s)Error: Volume Larger Than The Disk Group.*capacity_bytes.*Disk group mdt01, created by this plan as RAID5 over 3 drives of at least 960000000000 bytes, holds at most 1920000000000 bytes; the volume asks for 2000000000000`},
		{"volume larger than a drive_count group", `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "me4024-1"
  name        = "mdt01"
  raid_level  = "RAID1"
  drive_count = 2
  media_type  = "SSD"
}
resource "hpcstorage_volume" "v" {
  endpoint       = "me4024-1"
  disk_group     = hpcstorage_disk_group.g.name
  name           = "mdt01"
  capacity_bytes = 1000000000000
}`, `(?s)Error: Volume Larger Than The Disk Group.*capacity_bytes.*holds at most 960000000000 bytes`},
		{"two volumes larger than their new group", `
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "mdt01"
  raid_level = "RAID1"
  drive_ids  = ["0.0", "0.1"]
}
resource "hpcstorage_volume" "v" {
  count          = 2
  endpoint       = "me4024-1"
  disk_group     = hpcstorage_disk_group.g.name
  name           = "mdt0${count.index + 1}"
  capacity_bytes = 600000000000
}`, `(?s)Error: Volumes Larger Than The Disk Group.*capacity_bytes.*holds at most 960000000000 bytes; with this volume \(600000000000 bytes\) its volumes planned so far take 1200000000000`},
		{"RAID6 over 17 drives", `
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "st01"
  raid_level = "RAID6"
  drive_ids  = ` + drives(17) + `
}`, `(?s)Error: Wrong Drive Count For The RAID Level.*drive_ids.*RAID6 needs 4 to 16 drives, got 17`},
		{"RAID10 over 18 drives", `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "me4024-1"
  name        = "st01"
  raid_level  = "RAID10"
  drive_count = 18
}`, `(?s)Error: Wrong Drive Count For The RAID Level.*drive_count.*RAID10 needs an even number of drives, 4 to 16, got 18`},
		{"RAID0 over 1 drive", `
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "scratch"
  raid_level = "RAID0"
  drive_ids  = ["0.0"]
}`, `(?s)Error: Wrong Drive Count For The RAID Level.*drive_ids.*RAID0 needs 2 to 16 drives, got 1`},
		{"not enough free drives", `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "me4024-1"
  name        = "hdd"
  raid_level  = "RAID5"
  drive_count = 3
  media_type  = "HDD"
}`, `(?s)Error: Not Enough Free Drives.*drive_count.*me4024-1 has 0 free drives of media type "HDD", the group needs 3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arr.ResetStats()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: fastFactories(),
				Steps:                    []resource.TestStep{{Config: lab.providerBlock() + tc.config, ExpectError: regexp.MustCompile(strings.ReplaceAll(tc.want, " ", `\s+`))}},
			})
			if w := arrayWrites(arr); len(w) > 0 {
				t.Errorf("the refused plan wrote to the array: %v", w)
			}
		})
	}
}

// A replacement plans its new object once more without prior state, while
// the old one of the same name is still on the array: that is the object
// being replaced, not a leftover to adopt or refuse.
func TestArrayReplaceIsNotAdoption(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	cfg := func(d1, d2 string, seg int) string {
		return lab.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4024-1"
  name       = "mdt01"
  raid_level = "RAID1"
  drive_ids  = [%q, %q]
}
resource "hpcstorage_volume" "v" {
  endpoint           = "me4024-1"
  disk_group         = hpcstorage_disk_group.g.name
  name               = "mdt01"
  segment_size_bytes = %d
}`, d1, d2, seg)
	}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: cfg("0.0", "0.1", 131072), ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty}},
			{
				Config: cfg("0.2", "0.3", 65536),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_disk_group.g", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("hpcstorage_volume.v", plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: empty,
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_disk_group.g", tfjsonpath.New("drive_ids"), strList("0.2", "0.3")),
					statecheck.ExpectKnownValue("hpcstorage_volume.v", tfjsonpath.New("segment_size_bytes"), knownvalue.Int64Exact(65536)),
				},
			},
		},
	})
}
