package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// The array resources on an E-Series endpoint (R3's first EF600, its file
// nodes bb1-node1 and bb1-node2 defined as hosts), against the SANtricity
// mock over HTTPS with the real terraform CLI.

func eseriesProvider(srv *santricitymock.Server) string {
	return fmt.Sprintf(`
provider "hpcstorage" {
  endpoints = {
    "ef600-1" = {
      url            = %q
      username       = %q
      password       = %q
      ca_certificate = %q
      api            = "santricity"
    }
  }
}
`, srv.URL, srv.Username, srv.Password, string(srv.CAPEM()))
}

// eseriesClient reads and changes the mock "by hand", as an administrator
// with SANtricity System Manager would.
func eseriesClient(t *testing.T, srv *santricitymock.Server) *santricity.Client {
	t.Helper()
	c, err := santricity.New(santricity.Config{Name: "ef600-1", URL: srv.URL, Username: srv.Username, Password: srv.Password, CACertPEM: srv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// eseriesHolds lists what the array holds: groups, volumes with their
// size, mappings (volume:lun=hosts), hot spares.
func eseriesHolds(ctx context.Context, c *santricity.Client) (string, error) {
	gs, err := c.VolumeGroups(ctx)
	if err != nil {
		return "", err
	}
	vs, err := c.Volumes(ctx)
	if err != nil {
		return "", err
	}
	ms, err := c.Mappings(ctx)
	if err != nil {
		return "", err
	}
	ds, err := c.Drives(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "group %s %s; ", g.Name, g.RAIDLevel)
	}
	for _, v := range vs {
		fmt.Fprintf(&b, "volume %s %d; ", v.Name, v.CapacityBytes)
		for _, m := range ms {
			if m.VolumeID == v.ID {
				fmt.Fprintf(&b, "mapped %s lun %d; ", v.Name, m.LUN)
			}
		}
	}
	for _, d := range ds {
		if d.HotSpare {
			fmt.Fprintf(&b, "spare %s; ", d.Location())
		}
	}
	return strings.TrimSuffix(b.String(), "; "), nil
}

const eseriesConfig = `
data "hpcstorage_drives" "ef" {
  endpoint = "ef600-1"
}

resource "hpcstorage_disk_group" "st" {
  endpoint   = "ef600-1"
  name       = "stor01"
  raid_level = "RAID6"
  drive_ids  = [for d in slice(data.hpcstorage_drives.ef.drives, 0, 10) : d.id]
}

resource "hpcstorage_volume" "st" {
  endpoint           = "ef600-1"
  disk_group         = hpcstorage_disk_group.st.name
  name               = "stor01_t1"
  capacity_bytes     = %d
  segment_size_bytes = 524288
  host_mappings      = [{ host = "bb1-node1", lun = 1 }, { host = "bb1-node2", lun = 1 }]
}

resource "hpcstorage_spare_drives" "s" {
  endpoint  = "ef600-1"
  drive_ids = %s
}
`

// Create, update (grow, spares), import, drift by hand and destroy, each
// apply followed by an empty plan.
func TestArrayESeriesLifecycle(t *testing.T) {
	srv := eseriesLab(t)
	c := eseriesClient(t, srv)
	ctx := context.Background()
	const tib = int64(1) << 40
	cfg := func(size int64, spares string) string {
		return eseriesProvider(srv) + fmt.Sprintf(eseriesConfig, size, spares)
	}
	holds := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := eseriesHolds(ctx, c)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("the array holds\n  %s\nwant\n  %s", got, want)
			}
			return nil
		}
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		CheckDestroy:             func(*terraform.State) error { return holds("")(nil) },
		Steps: []resource.TestStep{{
			Config:           cfg(4*tib, `["99.22", "99.23"]`),
			ConfigPlanChecks: empty,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_disk_group.st", tfjsonpath.New("raid_level"), knownvalue.StringExact("RAID6")),
				statecheck.ExpectKnownValue("hpcstorage_disk_group.st", tfjsonpath.New("capacity_bytes"), knownvalue.Int64Exact(8*3840*1000*1000*1000)),
				statecheck.ExpectKnownValue("hpcstorage_volume.st", tfjsonpath.New("optimum_io_size_bytes"), knownvalue.Int64Exact(8*524288)),
				statecheck.ExpectKnownValue("hpcstorage_volume.st", tfjsonpath.New("raid_level"), knownvalue.StringExact("RAID6")),
				statecheck.ExpectKnownValue("hpcstorage_volume.st", tfjsonpath.New("wwn"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))),
				statecheck.ExpectKnownValue("data.hpcstorage_drives.ef", tfjsonpath.New("drives"), knownvalue.ListSizeExact(24)),
			},
			Check: holds(fmt.Sprintf("group stor01 raid6; volume stor01_t1 %d; mapped stor01_t1 lun 1; spare 99.22; spare 99.23", 4*tib)),
		}, {
			// Grow the volume, drop a spare: in place.
			Config: cfg(5*tib, `["99.23"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("hpcstorage_volume.st", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("hpcstorage_spare_drives.s", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("hpcstorage_disk_group.st", plancheck.ResourceActionNoop),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: holds(fmt.Sprintf("group stor01 raid6; volume stor01_t1 %d; mapped stor01_t1 lun 1; spare 99.23", 5*tib)),
		}, {
			ResourceName: "hpcstorage_disk_group.st", ImportState: true, ImportStateVerify: true,
			ImportStateIdFunc: idOf("hpcstorage_disk_group.st"),
		}, {
			// By name too: SANtricity labels are unique.
			ResourceName: "hpcstorage_volume.st", ImportState: true, ImportStateId: "ef600-1/1/stor01_t1", ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"id"},
		}, {
			ResourceName: "hpcstorage_spare_drives.s", ImportState: true, ImportStateId: "ef600-1/1", ImportStateVerify: true,
		}, {
			// Unmapped by hand: the plan puts the mapping back.
			PreConfig: func() {
				ms, err := c.Mappings(ctx)
				if err != nil || len(ms) != 1 {
					t.Fatalf("mappings %v, %v", ms, err)
				}
				if err := c.Unmap(ctx, ms[0].ID); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg(5*tib, `["99.23"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("hpcstorage_volume.st", plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: holds(fmt.Sprintf("group stor01 raid6; volume stor01_t1 %d; mapped stor01_t1 lun 1; spare 99.23", 5*tib)),
		}, {
			// Grown by hand beyond the configuration: E-Series volumes do
			// not shrink, so the plan fails and says so.
			PreConfig: func() {
				v, err := c.FindVolume(ctx, "stor01_t1")
				if err != nil {
					t.Fatal(err)
				}
				if err := c.ExpandVolume(ctx, v.ID, 6*tib); err != nil {
					t.Fatal(err)
				}
			},
			Config:      cfg(5*tib, `["99.23"]`),
			ExpectError: regexp.MustCompile(`(?s)Volumes Cannot Shrink.*only grow`),
		}, {
			// The configuration follows the array: nothing to do.
			Config:           cfg(6*tib, `["99.23"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            holds(fmt.Sprintf("group stor01 raid6; volume stor01_t1 %d; mapped stor01_t1 lun 1; spare 99.23", 6*tib)),
		}},
	})
}

func idOf(address string) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		r, ok := s.RootModule().Resources[address]
		if !ok {
			return "", fmt.Errorf("%s not in state", address)
		}
		return r.Primary.Attributes["id"], nil
	}
}

// Plan-time refusals on an E-Series endpoint; nothing reaches the array.
func TestArrayESeriesPlanErrors(t *testing.T) {
	srv := eseriesLab(t)
	p := eseriesProvider(srv)
	group := func(name, level, drives string) string {
		return fmt.Sprintf(`
resource "hpcstorage_disk_group" "g" {
  endpoint   = "ef600-1"
  name       = %q
  raid_level = %q
  drive_ids  = %s
}
`, name, level, drives)
	}
	ten := `["99.0", "99.1", "99.2", "99.3", "99.4", "99.5", "99.6", "99.7", "99.8", "99.9"]`
	volume := func(size, mappings string) string {
		return `
resource "hpcstorage_volume" "v" {
  endpoint       = "ef600-1"
  disk_group     = hpcstorage_disk_group.g.name
  name           = "v1"
  capacity_bytes = ` + size + `
  host_mappings  = ` + mappings + `
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{Config: p + group("g1", "RAID6", `["99.0", "99.1", "99.2", "99.3", "99.40"]`),
				ExpectError: regexp.MustCompile(`(?s)Unknown Drive.*"99.40" is not on ef600-1`)},
			{Config: p + group("g1", "RAID50", ten), ExpectError: regexp.MustCompile(`(?s)raid_level.*value must be one of`)},
			// E-Series RAID6 takes 5 to 30 drives: 4 is refused (a Redfish
			// array would take it).
			{Config: p + group("g1", "RAID6", `["99.0", "99.1", "99.2", "99.3"]`),
				ExpectError: regexp.MustCompile(`(?s)Wrong Drive Count.*5 to 30 drives, got 4`)},
			{Config: p + group("g1", "DDP", `["99.0", "99.1", "99.2"]`),
				ExpectError: regexp.MustCompile(`(?s)Wrong Drive Count.*11 or more drives, got 3`)},
			{Config: p + group("a_name_longer_than_thirty_chars", "RAID6", ten),
				ExpectError: regexp.MustCompile(`(?s)Invalid Name For An E-Series Array.*at most 30`)},
			{Config: p + group("g1", "RAID6", ten) + volume("40000000000000", `[{ host = "bb1-node1", lun = 1 }]`),
				ExpectError: regexp.MustCompile(`(?s)Volume Larger Than The Disk Group.*RAID6 over\s+10 drives.*30720000000000\s+bytes`)},
			{Config: p + group("g1", "RAID6", ten) + volume("1099511627776", `[{ host = "bb1-node1", lun = 1 }, { host = "bb1-node2", lun = 2 }]`),
				ExpectError: regexp.MustCompile(`(?s)One LUN Per Volume On E-Series`)},
			{Config: p + group("g1", "RAID6", ten) + volume("1099511627776", `[{ host = "bb9-node1", lun = 1 }]`),
				ExpectError: regexp.MustCompile(`(?s)Unknown Host.*"bb9-node1"`)},
			// The group exists: its free capacity bounds the volume.
			{Config: p + group("g1", "RAID6", ten)},
			{Config: p + group("g1", "RAID6", ten) + volume("40000000000000", `[{ host = "bb1-node1", lun = 1 }]`),
				ExpectError: regexp.MustCompile(`(?s)Volume Larger Than The Disk Group.*g1 has\s+30720000000000\s+bytes\s+free`)},
		},
	})
	if n := srv.Service.RequestCount(http.MethodPost, "/devmgr/v2/storage-systems/1/volumes"); n != 0 {
		t.Errorf("%d volume creates reached the array", n)
	}
}

// DDP on a Redfish array is refused at plan, naming the levels it offers.
func TestArrayDDPRefusedOnRedfish(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: lab.providerBlock() + `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "me4024-1"
  name        = "dg1"
  raid_level  = "DDP"
  drive_count = 12
}`,
			ExpectError: regexp.MustCompile(`(?s)RAID Level Not Offered.*E-Series level`),
		}},
	})
}

// The fault tests of the Redfish side on E-Series: 503 bursts on the group
// create, a connection reset after the array made the volume, a reset
// after the spares were set. One of each object, nothing stuck: the
// next plan is empty and destroy leaves the array bare.
func TestArrayESeriesCreateSurvivesFaults(t *testing.T) {
	srv := eseriesLab(t)
	c := eseriesClient(t, srv)
	ctx := context.Background()
	const sys = "/devmgr/v2/storage-systems/1/"
	cfg := eseriesProvider(srv) + `
resource "hpcstorage_disk_group" "g" {
  endpoint    = "ef600-1"
  name        = "meta01"
  raid_level  = "RAID10"
  drive_count = 4
  media_type  = "SSD"
}
resource "hpcstorage_volume" "v" {
  endpoint      = "ef600-1"
  disk_group    = hpcstorage_disk_group.g.name
  name          = "meta01_t1"
  host_mappings = [{ host = "bb1-node1", lun = 3 }, { host = "bb1-node2", lun = 3 }]
}
resource "hpcstorage_spare_drives" "s" {
  endpoint  = "ef600-1"
  drive_ids = ["99.23"]
}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		CheckDestroy: func(*terraform.State) error {
			got, err := eseriesHolds(ctx, c)
			if err == nil && got != "" {
				err = fmt.Errorf("after destroy the array holds %s", got)
			}
			return err
		},
		Steps: []resource.TestStep{{
			PreConfig: func() {
				for _, f := range []santricitymock.Fault{
					{Method: "POST", Path: sys + "storage-pools", Kind: redfishmock.FaultStatus, Status: 503, RetryAfter: 2, Count: 2},
					{Method: "POST", Path: sys + "volumes", Kind: redfishmock.FaultReset, Count: 1},
					{Method: "POST", Path: sys + "volume-mappings", Kind: redfishmock.FaultReset, Count: 1},
					{Method: "POST", Path: sys + "host-groups", Kind: redfishmock.FaultReset, Count: 1},
					{Method: "POST", Path: sys + "symbol/assignSpecificDrivesAsHotSpares", Kind: redfishmock.FaultReset, Count: 1},
				} {
					if err := srv.Service.InjectFault(f); err != nil {
						t.Fatal(err)
					}
				}
			},
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_disk_group.g", tfjsonpath.New("drive_ids"), strList("99.0", "99.1", "99.2", "99.3")),
				statecheck.ExpectKnownValue("hpcstorage_disk_group.g", tfjsonpath.New("raid_level"), knownvalue.StringExact("RAID10")),
			},
			Check: func(*terraform.State) error {
				got, err := eseriesHolds(ctx, c)
				if err != nil {
					return err
				}
				vs, _ := c.Volumes(ctx)
				want := fmt.Sprintf("group meta01 raid1; volume meta01_t1 %d; mapped meta01_t1 lun 3; spare 99.23", vs[0].CapacityBytes)
				if got != want {
					return fmt.Errorf("the array holds\n  %s\nwant\n  %s", got, want)
				}
				gs, err := c.HostGroups(ctx)
				if err != nil || len(gs) != 1 {
					return fmt.Errorf("host groups %v (%v), want one for both nodes", gs, err)
				}
				if n := srv.Service.RequestCount("POST", sys+"storage-pools"); n != 3 {
					return fmt.Errorf("%d group POSTs, want 3 (two 503s, then the create)", n)
				}
				for _, f := range srv.Service.Faults() {
					if f.Hits == 0 {
						return fmt.Errorf("fault %s %s never hit", f.Method, f.Path)
					}
				}
				return nil
			},
		}},
	})
}
