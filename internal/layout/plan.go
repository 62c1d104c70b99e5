package layout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Drive is one drive bay of an array as the planner sees it.
type Drive struct {
	ID            string
	MediaType     string // "HDD", "SSD" ... ; empty when unknown
	CapacityBytes int64  // 0 when unknown
	Drawer        int    // drawer (or enclosure) number, 0 for single-drawer arrays
	Slot          int    // position used to order drives and label the diagram
}

// Policy says how to carve the drives.
type Policy struct {
	Level RAIDLevel
	// DrivesPerGroup: members of each group (10 for RAID6 8+2); 0 means the
	// level's natural size (2 for RAID1, otherwise required).
	DrivesPerGroup int
	// GroupCount: how many groups; 0 means as many as fit.
	GroupCount int
	// MinSpares: drives kept as global spares before groups are formed.
	MinSpares int
	// LeftoverAsSpares turns every eligible drive left over into a global
	// spare; otherwise leftovers beyond MinSpares stay unused.
	LeftoverAsSpares bool
	// MediaType restricts the plan to drives of that media type; empty means
	// all drives, which must then share one media type.
	MediaType string
	// NamePrefix names groups <prefix>01, <prefix>02 ...; "dg" when empty.
	NamePrefix string
}

// Group is one planned disk group.
type Group struct {
	Name        string
	Level       RAIDLevel
	DriveIDs    []string
	Drawers     []int // drawers the members sit in, ascending
	UsableBytes int64 // 0 when drive capacities are unknown
}

// Plan is the result: groups, spares, drives left alone, and a text drawing.
type Plan struct {
	Groups   []Group
	Spares   []string
	Unused   []string
	Diagram  string
	DriveSet []Drive // the drives planned over, in bay order
}

// FieldError ties an error to the input field that caused it, so the
// provider can put the diagnostic on the right attribute. Field uses the
// Terraform attribute names of the policy ("drives_per_group") or "drives"
// with Index set for one drive.
type FieldError struct {
	Field string
	Index int // position in the drive list, -1 when not about one drive
	Err   error
}

func (e *FieldError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("%s[%d]: %v", e.Field, e.Index, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error) error { return &FieldError{Field: field, Index: -1, Err: err} }

// Model is a preset drive enclosure.
type Model struct {
	Name        string
	Drives      int
	DrawerSize  int
	MediaType   string
	Description string
}

// Models are the enclosures of the reference designs.
var Models = []Model{
	{Name: "ME4084", Drives: 84, DrawerSize: 42, MediaType: "HDD", Description: "PowerVault ME4084: 84 bays in two drawers (0-41 top, 42-83 bottom)"},
	{Name: "ME484", Drives: 84, DrawerSize: 42, MediaType: "HDD", Description: "PowerVault ME484 expansion: 84 bays in two drawers"},
	{Name: "ME4024", Drives: 24, DrawerSize: 24, MediaType: "SSD", Description: "PowerVault ME4024: 24 bays, one drawer"},
	{Name: "EF600", Drives: 24, DrawerSize: 24, MediaType: "SSD", Description: "NetApp EF600: 24 NVMe bays in the controller shelf (tray 99), one drawer"},
}

// ModelNames lists the preset names (for enum validators).
func ModelNames() []string {
	out := make([]string, len(Models))
	for i, m := range Models {
		out[i] = m.Name
	}
	return out
}

// LookupModel returns the preset called name.
func LookupModel(name string) (Model, bool) {
	for _, m := range Models {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

// GenerateDrives returns count drives with ids "0".."count-1", split into
// drawers of drawerSize bays (one drawer when drawerSize is 0).
func GenerateDrives(count, drawerSize int, mediaType string, capacity int64) []Drive {
	out := make([]Drive, count)
	for i := range out {
		d := 0
		if drawerSize > 0 {
			d = i / drawerSize
		}
		out[i] = Drive{ID: fmt.Sprint(i), MediaType: mediaType, CapacityBytes: capacity, Drawer: d, Slot: i}
	}
	return out
}

// Make plans groups and spares over drives following p. Drives are taken in
// bay order; a group stays inside one drawer whenever a drawer still has room
// for a whole group, so a drawer pulled for service takes out as few groups
// as possible, and leftovers end up at the end of each drawer.
func Make(drives []Drive, p Policy) (Plan, error) {
	if err := checkDrives(drives); err != nil {
		return Plan{}, err
	}
	size, err := groupSize(p)
	if err != nil {
		return Plan{}, err
	}
	if p.GroupCount < 0 {
		return Plan{}, fieldErr("group_count", fmt.Errorf("%w: must not be negative, got %d", ErrPolicy, p.GroupCount))
	}
	if p.MinSpares < 0 {
		return Plan{}, fieldErr("min_spares", fmt.Errorf("%w: must not be negative, got %d", ErrPolicy, p.MinSpares))
	}

	ordered := slices.Clone(drives)
	slices.SortStableFunc(ordered, func(a, b Drive) int {
		return cmp.Or(cmp.Compare(a.Drawer, b.Drawer), cmp.Compare(a.Slot, b.Slot))
	})

	var eligible []int // indexes into ordered
	media := map[string]bool{}
	for i, d := range ordered {
		if p.MediaType != "" && !strings.EqualFold(d.MediaType, p.MediaType) {
			continue
		}
		eligible = append(eligible, i)
		media[d.MediaType] = true
	}
	if len(media) > 1 {
		kinds := make([]string, 0, len(media))
		for k := range media {
			kinds = append(kinds, cmp.Or(k, "unknown"))
		}
		slices.Sort(kinds)
		return Plan{}, fieldErr("media_type", fmt.Errorf("%w (%s): set media_type to choose one", ErrMixedMedia, strings.Join(kinds, ", ")))
	}

	fit := (len(eligible) - p.MinSpares) / size
	if fit < 0 {
		fit = 0
	}
	want := fit
	if p.GroupCount > 0 {
		if p.GroupCount > fit {
			return Plan{}, fieldErr("group_count", fmt.Errorf("%w: %d groups of %d drives plus %d spares need %d drives, only %d eligible",
				ErrNotEnoughDrives, p.GroupCount, size, p.MinSpares, p.GroupCount*size+p.MinSpares, len(eligible)))
		}
		want = p.GroupCount
	}
	if want == 0 {
		field := "drives_per_group"
		if p.MediaType != "" {
			field = "media_type"
		}
		return Plan{}, fieldErr(field, fmt.Errorf("%w: one group of %d drives plus %d spares needs %d eligible drives, found %d",
			ErrNotEnoughDrives, size, p.MinSpares, size+p.MinSpares, len(eligible)))
	}

	owner := make([]int, len(ordered)) // 0 free, g+1 in group g, -1 spare
	var members [][]int
	take := func(idx []int) {
		g := len(members)
		for _, i := range idx {
			owner[i] = g + 1
		}
		members = append(members, idx)
	}
	// Pass 1: whole groups inside one drawer.
	byDrawer := map[int][]int{}
	var drawers []int
	for _, i := range eligible {
		d := ordered[i].Drawer
		if _, ok := byDrawer[d]; !ok {
			drawers = append(drawers, d)
		}
		byDrawer[d] = append(byDrawer[d], i)
	}
	for _, d := range drawers {
		free := byDrawer[d]
		for len(members) < want && len(free) >= size {
			take(free[:size])
			free = free[size:]
		}
	}
	// Pass 2: remaining groups from what is left, across drawers.
	if len(members) < want {
		var free []int
		for _, i := range eligible {
			if owner[i] == 0 {
				free = append(free, i)
			}
		}
		for len(members) < want && len(free) >= size {
			take(free[:size])
			free = free[size:]
		}
	}

	var plan Plan
	plan.DriveSet = ordered
	prefix := cmp.Or(p.NamePrefix, "dg")
	for g, idx := range members {
		grp := Group{Name: fmt.Sprintf("%s%02d", prefix, g+1), Level: p.Level}
		sizes := make([]int64, 0, len(idx))
		known := true
		for _, i := range idx {
			d := ordered[i]
			grp.DriveIDs = append(grp.DriveIDs, d.ID)
			if !slices.Contains(grp.Drawers, d.Drawer) {
				grp.Drawers = append(grp.Drawers, d.Drawer)
			}
			sizes = append(sizes, d.CapacityBytes)
			known = known && d.CapacityBytes > 0
		}
		slices.Sort(grp.Drawers)
		if known {
			grp.UsableBytes = UsableBytes(p.Level, sizes)
		}
		plan.Groups = append(plan.Groups, grp)
	}
	spares := 0
	for _, i := range eligible {
		if owner[i] != 0 {
			continue
		}
		if p.LeftoverAsSpares || spares < p.MinSpares {
			owner[i] = -1
			spares++
			plan.Spares = append(plan.Spares, ordered[i].ID)
		}
	}
	for i, d := range ordered {
		if owner[i] == 0 {
			plan.Unused = append(plan.Unused, d.ID)
		}
	}
	plan.Diagram = diagram(ordered, owner, plan.Groups)
	return plan, nil
}

func groupSize(p Policy) (int, error) {
	if !slices.Contains(PoolLevels, p.Level) {
		return 0, fieldErr("raid_level", fmt.Errorf("%w %q (one of %v)", ErrUnknownLevel, p.Level, PoolLevels))
	}
	size := p.DrivesPerGroup
	if size == 0 {
		if p.Level != RAID1 {
			return 0, fieldErr("drives_per_group", fmt.Errorf("%w: required for %s (%s)", ErrPolicy, p.Level, DriveCountRule(p.Level)))
		}
		size = 2
	}
	if err := CheckDriveCount(p.Level, size); err != nil {
		return 0, fieldErr("drives_per_group", err)
	}
	return size, nil
}

func checkDrives(drives []Drive) error {
	seen := map[string]int{}
	for i, d := range drives {
		if d.ID == "" {
			return &FieldError{Field: "drives", Index: i, Err: fmt.Errorf("%w: drive without an id", ErrPolicy)}
		}
		if j, ok := seen[d.ID]; ok {
			return &FieldError{Field: "drives", Index: i, Err: fmt.Errorf("%w: %q also at position %d", ErrDuplicateDrive, d.ID, j)}
		}
		seen[d.ID] = i
	}
	return nil
}
