package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

func strList(ids ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(ids))
	for i, id := range ids {
		checks[i] = knownvalue.StringExact(id)
	}
	return knownvalue.ListExact(checks)
}

func idRange(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

// R1: the ME4084 as 8 RAID6 8+2 groups and 4 spares, the ME4024 as 12 RAID1 pairs.
func TestArrayLayoutDataSourceR1(t *testing.T) {
	const storage = `
data "hpcstorage_array_layout" "st" {
  model                = %[1]q
  drive_capacity_bytes = 12000000000000
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}
data "hpcstorage_array_layout" "md" {
  drive_count      = 24
  drive_media_type = "SSD"
  policy = {
    raid_level  = "RAID1"
    name_prefix = "mdt"
  }
}
output "diagram" { value = data.hpcstorage_array_layout.st.diagram }
`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(storage, "ME4084"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups"), knownvalue.ListSizeExact(8)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups").AtSliceIndex(0),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name":           knownvalue.StringExact("dg01"),
						"raid_level":     knownvalue.StringExact("RAID6"),
						"drive_ids":      strList(idRange(0, 9)...),
						"drawers":        knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(0)}),
						"capacity_bytes": knownvalue.Int64Exact(96000000000000),
					})),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups").AtSliceIndex(7).AtMapKey("drive_ids"),
					strList(idRange(72, 81)...)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("spare_drive_ids"), strList("40", "41", "82", "83")),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("unused_drive_ids"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("diagram"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  28-41 \| 03 03 04 04 04 04 04 04 04 04 04 04  S  S$`))),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.md", tfjsonpath.New("disk_groups"), knownvalue.ListSizeExact(12)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.md", tfjsonpath.New("disk_groups").AtSliceIndex(11),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name":           knownvalue.StringExact("mdt12"),
						"raid_level":     knownvalue.StringExact("RAID1"),
						"drive_ids":      strList("22", "23"),
						"drawers":        knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(0)}),
						"capacity_bytes": knownvalue.Int64Exact(0),
					})),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.md", tfjsonpath.New("spare_drive_ids"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

func TestArrayLayoutDataSourceDrivesList(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "hpcstorage_array_layout" "t" {
  drives = [
    { id = "0.3", media_type = "SSD", slot = 3 },
    { id = "0.0", media_type = "SSD", slot = 0 },
    { id = "0.1", media_type = "SSD", slot = 1 },
    { id = "0.2", media_type = "SSD", slot = 2 },
    { id = "0.4", media_type = "HDD", slot = 4 },
  ]
  policy = {
    raid_level = "RAID1"
    media_type = "SSD"
    group_count = 1
    leftover_as_spares = false
    min_spares = 1
  }
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.t", tfjsonpath.New("disk_groups").AtSliceIndex(0).AtMapKey("drive_ids"), strList("0.0", "0.1")),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.t", tfjsonpath.New("spare_drive_ids"), strList("0.2")),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.t", tfjsonpath.New("unused_drive_ids"), strList("0.3", "0.4")),
			},
		}},
	})
}

// Bad policies fail at plan time with a diagnostic on the attribute.
func TestArrayLayoutDataSourceErrors(t *testing.T) {
	tests := []struct {
		name   string
		source string
		policy string
		want   string
	}{
		{"RAID6 with 3 drives", `model = "ME4084"`, `raid_level = "RAID6"
    drives_per_group = 3`, `(?s)policy.drives_per_group.*RAID6 needs 4 to 16 drives, got 3`},
		{"RAID6 without group size", `model = "ME4084"`, `raid_level = "RAID6"`, `(?s)policy.drives_per_group.*required for RAID6`},
		{"unknown RAID level", `model = "ME4084"`, `raid_level = "RAID7"`, `(?s)policy.raid_level.*RAID7`},
		{"too many groups", `model = "ME4024"`, `raid_level = "RAID1"
    group_count = 13`, `(?s)policy.group_count.*13 groups of 2 drives`},
		{"drive used twice", `drives = [{ id = "a" }, { id = "b" }, { id = "a" }]`, `raid_level = "RAID1"`, `(?s)drives\[2\].id.*listed more than once`},
		{"mixed media", `drives = [{ id = "a", media_type = "SSD" }, { id = "b", media_type = "HDD" }]`, `raid_level = "RAID1"`, `(?s)policy.media_type.*HDD, SSD`},
		{"two drive sources", `model = "ME4024"
  drive_count = 4`, `raid_level = "RAID1"`, `(?s)These attributes cannot be configured together|Invalid Attribute Combination`},
		{"unknown model", `model = "ME5084"`, `raid_level = "RAID1"`, `(?s)model.*ME4084`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
data "hpcstorage_array_layout" "t" {
  %[1]s
  policy = {
    %[2]s
  }
}`, tc.source, tc.policy),
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// Planning straight from an array: the R1 ME4084 the mock serves.
func TestArrayLayoutDataSourceFromEndpoint(t *testing.T) {
	lab := startLab(t, "r1", redfishmock.Options{}, "me4084-1")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{{
			Config: lab.providerBlock() + `
data "hpcstorage_array_layout" "st" {
  endpoint = "me4084-1"
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups"), knownvalue.ListSizeExact(8)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups").AtSliceIndex(4).AtMapKey("drawers"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(1)})),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("disk_groups").AtSliceIndex(0).AtMapKey("capacity_bytes"),
					knownvalue.Int64Exact(96_000_000_000_000)),
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("spare_drive_ids"), strList("0.40", "0.41", "0.82", "0.83")),
				// 84 drives of 12 TB, the R1 figure: what the module reports
				// as its raw capacity.
				statecheck.ExpectKnownValue("data.hpcstorage_array_layout.st", tfjsonpath.New("raw_capacity_bytes"), knownvalue.Int64Exact(84*12_000_000_000_000)),
			},
		}},
	})
}
