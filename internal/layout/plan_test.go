package layout

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seq(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

// R1: an ME4084 of 12 TB NL-SAS drives as 8 RAID6 8+2 groups and 4 global spares.
func TestMakeR1ME4084(t *testing.T) {
	const tb12 = 12_000_000_000_000
	m, _ := LookupModel("ME4084")
	drives := GenerateDrives(m.Drives, m.DrawerSize, m.MediaType, tb12)
	plan, err := Make(drives, Policy{Level: RAID6, DrivesPerGroup: 10, LeftoverAsSpares: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 8 {
		t.Fatalf("groups = %d, want 8", len(plan.Groups))
	}
	// Four groups per drawer, each inside its drawer, two spares at the end of each drawer.
	for g, grp := range plan.Groups {
		first := g * 10
		if g >= 4 {
			first = 42 + (g-4)*10
		}
		want := Group{
			Name: fmt.Sprintf("dg%02d", g+1), Level: RAID6, DriveIDs: seq(first, first+9),
			Drawers: []int{g / 4}, UsableBytes: 8 * tb12,
		}
		if diff := cmp.Diff(want, grp); diff != "" {
			t.Errorf("group %d (-want +got):\n%s", g, diff)
		}
	}
	if diff := cmp.Diff([]string{"40", "41", "82", "83"}, plan.Spares); diff != "" {
		t.Errorf("spares (-want +got):\n%s", diff)
	}
	if len(plan.Unused) != 0 {
		t.Errorf("unused = %v, want none", plan.Unused)
	}

	wantDiagram := `Drawer 0 (drives 0-41)
   0-13 | 01 01 01 01 01 01 01 01 01 01 02 02 02 02
  14-27 | 02 02 02 02 02 02 03 03 03 03 03 03 03 03
  28-41 | 03 03 04 04 04 04 04 04 04 04 04 04  S  S
Drawer 1 (drives 42-83)
  42-55 | 05 05 05 05 05 05 05 05 05 05 06 06 06 06
  56-69 | 06 06 06 06 06 06 07 07 07 07 07 07 07 07
  70-83 | 07 07 08 08 08 08 08 08 08 08 08 08  S  S
Legend: NN = disk group NN, S = global spare, . = not used
  01 dg01 RAID6 (10 drives): 0-9
  02 dg02 RAID6 (10 drives): 10-19
  03 dg03 RAID6 (10 drives): 20-29
  04 dg04 RAID6 (10 drives): 30-39
  05 dg05 RAID6 (10 drives): 42-51
  06 dg06 RAID6 (10 drives): 52-61
  07 dg07 RAID6 (10 drives): 62-71
  08 dg08 RAID6 (10 drives): 72-81
`
	if diff := cmp.Diff(wantDiagram, plan.Diagram); diff != "" {
		t.Errorf("diagram (-want +got):\n%s", diff)
	}
}

// R1 metadata array: an ME4024 of 24 SSDs as 12 RAID1 pairs, no spares.
func TestMakeR1ME4024(t *testing.T) {
	drives := GenerateDrives(24, 0, "SSD", 960_000_000_000)
	plan, err := Make(drives, Policy{Level: RAID1, LeftoverAsSpares: true, NamePrefix: "mdt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 12 || len(plan.Spares) != 0 || len(plan.Unused) != 0 {
		t.Fatalf("got %d groups, spares %v, unused %v; want 12 pairs only", len(plan.Groups), plan.Spares, plan.Unused)
	}
	for g, grp := range plan.Groups {
		want := Group{Name: fmt.Sprintf("mdt%02d", g+1), Level: RAID1, DriveIDs: seq(2*g, 2*g+1), Drawers: []int{0}, UsableBytes: 960_000_000_000}
		if diff := cmp.Diff(want, grp); diff != "" {
			t.Errorf("group %d (-want +got):\n%s", g, diff)
		}
	}
	if !strings.Contains(plan.Diagram, "   0-11 | 01 01 02 02 03 03 04 04 05 05 06 06\n  12-23 | 07 07 08 08 09 09 10 10 11 11 12 12\n") {
		t.Errorf("diagram:\n%s", plan.Diagram)
	}
}

func TestMakePolicies(t *testing.T) {
	hdd := GenerateDrives(84, 42, "HDD", 0)
	mixed := append(GenerateDrives(4, 0, "SSD", 0), Drive{ID: "x", MediaType: "HDD", Slot: 9})
	tests := []struct {
		name        string
		drives      []Drive
		policy      Policy
		wantGroups  int
		wantSpares  int
		wantUnused  int
		wantDrawers [][]int // of each group, when set
	}{
		{name: "fixed group count leaves the rest unused", drives: hdd,
			policy: Policy{Level: RAID6, DrivesPerGroup: 10, GroupCount: 2, MinSpares: 2}, wantGroups: 2, wantSpares: 2, wantUnused: 62},
		{name: "min spares are reserved before groups", drives: GenerateDrives(24, 0, "SSD", 0),
			policy: Policy{Level: RAID1, MinSpares: 1, LeftoverAsSpares: true}, wantGroups: 11, wantSpares: 2},
		{name: "media filter keeps other drives out", drives: mixed,
			policy: Policy{Level: RAID10, DrivesPerGroup: 4, MediaType: "ssd"}, wantGroups: 1, wantUnused: 1},
		{name: "group spans drawers only when no drawer has room", drives: GenerateDrives(12, 6, "HDD", 0),
			policy: Policy{Level: RAID6, DrivesPerGroup: 4, LeftoverAsSpares: true}, wantGroups: 3, wantSpares: 0,
			wantDrawers: [][]int{{0}, {1}, {0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Make(tc.drives, tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Groups) != tc.wantGroups || len(plan.Spares) != tc.wantSpares || len(plan.Unused) != tc.wantUnused {
				t.Fatalf("groups %d spares %d unused %d; want %d %d %d", len(plan.Groups), len(plan.Spares), len(plan.Unused),
					tc.wantGroups, tc.wantSpares, tc.wantUnused)
			}
			if tc.wantDrawers != nil {
				var got [][]int
				for _, g := range plan.Groups {
					got = append(got, g.Drawers)
				}
				if diff := cmp.Diff(tc.wantDrawers, got); diff != "" {
					t.Errorf("drawers (-want +got):\n%s", diff)
				}
			}
			// Every drive ends up in exactly one place.
			seen := map[string]int{}
			for _, g := range plan.Groups {
				for _, id := range g.DriveIDs {
					seen[id]++
				}
			}
			for _, id := range append(append([]string{}, plan.Spares...), plan.Unused...) {
				seen[id]++
			}
			for _, d := range tc.drives {
				if seen[d.ID] != 1 {
					t.Errorf("drive %s placed %d times", d.ID, seen[d.ID])
				}
			}
		})
	}
}

func TestMakeErrors(t *testing.T) {
	hdd := GenerateDrives(84, 42, "HDD", 0)
	tests := []struct {
		name      string
		drives    []Drive
		policy    Policy
		wantField string
		wantIndex int
		wantErr   error
	}{
		{"unknown level", hdd, Policy{Level: "RAID7", DrivesPerGroup: 10}, "raid_level", -1, ErrUnknownLevel},
		{"RAID6 with 3 drives", hdd, Policy{Level: RAID6, DrivesPerGroup: 3}, "drives_per_group", -1, ErrDriveCount},
		{"RAID1 of 3", hdd, Policy{Level: RAID1, DrivesPerGroup: 3}, "drives_per_group", -1, ErrDriveCount},
		{"RAID10 odd", hdd, Policy{Level: RAID10, DrivesPerGroup: 5}, "drives_per_group", -1, ErrDriveCount},
		{"RAID6 without size", hdd, Policy{Level: RAID6}, "drives_per_group", -1, ErrPolicy},
		{"too many groups", hdd, Policy{Level: RAID6, DrivesPerGroup: 10, GroupCount: 9}, "group_count", -1, ErrNotEnoughDrives},
		{"negative spares", hdd, Policy{Level: RAID1, MinSpares: -1}, "min_spares", -1, ErrPolicy},
		{"no drive of that media", hdd, Policy{Level: RAID1, MediaType: "SSD"}, "media_type", -1, ErrNotEnoughDrives},
		{"mixed media", append(GenerateDrives(4, 0, "SSD", 0), Drive{ID: "x", MediaType: "HDD"}), Policy{Level: RAID1}, "media_type", -1, ErrMixedMedia},
		{"duplicate drive", []Drive{{ID: "a"}, {ID: "b"}, {ID: "a"}}, Policy{Level: RAID1}, "drives", 2, ErrDuplicateDrive},
		{"drive without id", []Drive{{ID: "a"}, {}}, Policy{Level: RAID1}, "drives", 1, ErrPolicy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Make(tc.drives, tc.policy)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a FieldError", err)
			}
			if fe.Field != tc.wantField || fe.Index != tc.wantIndex || !errors.Is(err, tc.wantErr) {
				t.Errorf("got field %q index %d err %v; want %q %d %v", fe.Field, fe.Index, err, tc.wantField, tc.wantIndex, tc.wantErr)
			}
		})
	}
}

func TestCheckDriveCountAndCapacity(t *testing.T) {
	tests := []struct {
		level  RAIDLevel
		n      int
		ok     bool
		usable int64 // with 1-unit drives
	}{
		{RAID0, 2, true, 2}, {RAID0, 1, false, 1}, {RAID0, 16, true, 16}, {RAID0, 17, false, 1},
		{RAID1, 2, true, 1}, {RAID1, 4, false, 1},
		{RAID5, 3, true, 2}, {RAID5, 2, false, 1},
		{RAID5, 16, true, 15}, {RAID5, 17, false, 1},
		{RAID6, 10, true, 8}, {RAID6, 3, false, 1}, {RAID6, 16, true, 14}, {RAID6, 17, false, 1},
		{RAID10, 4, true, 2}, {RAID10, 6, true, 3}, {RAID10, 5, false, 2}, {RAID10, 16, true, 8}, {RAID10, 18, false, 1},
		{DDP, 10, false, 0}, {DDP, 11, true, 0}, {DDP, 40, true, 24}, // 1-unit drives: see below
	}
	for _, tc := range tests {
		err := CheckDriveCount(tc.level, tc.n)
		if (err == nil) != tc.ok {
			t.Errorf("%s with %d: err = %v, want ok=%v", tc.level, tc.n, err, tc.ok)
		}
		if !tc.ok {
			continue
		}
		sizes := make([]int64, tc.n)
		for i := range sizes {
			sizes[i] = 1
		}
		if got := UsableBytes(tc.level, sizes); got != tc.usable {
			t.Errorf("UsableBytes(%s, %d) = %d, want %d", tc.level, tc.n, got, tc.usable)
		}
	}
	// DDP: two drives of reserve, then 8 data pieces in 10.
	for n, want := range map[int]int64{11: 72, 12: 80, 24: 176} {
		sizes := slices.Repeat([]int64{10}, n)
		if got := UsableBytes(DDP, sizes); got != want {
			t.Errorf("UsableBytes(DDP, %d x 10) = %d, want %d", n, got, want)
		}
	}
	if got := UsableBytes(RAID6, []int64{4, 8, 8, 8}); got != 8 {
		t.Errorf("smallest member rules: got %d, want 8", got)
	}
}

// A DDP policy plans one pool per drives_per_group like any level; DDP is
// not in Levels (Swordfish arrays do not offer it) but ParseLevel knows it.
func TestMakeDDP(t *testing.T) {
	drives := GenerateDrives(24, 24, "SSD", 3840*1000*1000*1000)
	p, err := Make(drives, Policy{Level: DDP, DrivesPerGroup: 24})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Groups) != 1 || len(p.Groups[0].DriveIDs) != 24 || p.Groups[0].Level != DDP || p.Groups[0].UsableBytes != 22*3840*1000*1000*1000/10*8 {
		t.Fatalf("groups %+v", p.Groups)
	}
	if _, err := Make(drives, Policy{Level: DDP, DrivesPerGroup: 8}); !errors.Is(err, ErrDriveCount) {
		t.Errorf("DDP of 8 drives: %v", err)
	}
	if _, err := Make(drives, Policy{Level: DDP}); !errors.Is(err, ErrPolicy) {
		t.Errorf("DDP without drives_per_group: %v", err)
	}
	if slices.Contains(Levels, DDP) {
		t.Error("DDP is in Levels")
	}
	if l, err := ParseLevel("DDP"); err != nil || l != DDP {
		t.Errorf("ParseLevel(DDP) = %v, %v", l, err)
	}
}

func TestIDRanges(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"0", "1", "2", "5", "a", "7", "8"}, "0-2, 5, a, 7-8"},
		{[]string{"0.0", "0.1", "0.2", "1.3", "1.4", "0.5"}, "0.0-0.2, 1.3-1.4, 0.5"},
		{[]string{"01", "02"}, "01, 02"},
	}
	for _, tc := range tests {
		if got := idRanges(tc.in); got != tc.want {
			t.Errorf("idRanges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
