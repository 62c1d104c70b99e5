package arrays

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// DDP is E-Series' Dynamic Disk Pool, offered next to the layout levels.
const DDP = string(layout.DDP)

// ESeries adapts a SANtricity client.
func ESeries(c *santricity.Client) Array { return &eseries{c: c} }

type eseries struct{ c *santricity.Client }

func (e *eseries) API() string { return APISantricity }

func (e *eseries) Levels() []string { return layout.PoolLevelStrings() }

// CheckGroup applies the drive counts NetApp's storagepool module documents:
// RAID 0 one or more, RAID 1 two, RAID 10 an even number from 4, RAID 5
// 3 to 30, RAID 6 5 to 30, DDP 11 or more.
func (e *eseries) CheckGroup(level string, n int) error {
	if _, err := toLevel(level, n); err != nil {
		return err
	}
	ok := true
	switch level {
	case string(layout.RAID0):
		ok = n >= 1
	case string(layout.RAID5):
		ok = n >= 3 && n <= 30
	case string(layout.RAID6):
		ok = n >= 5 && n <= 30
	case DDP:
		ok = n >= 11
	}
	if !ok {
		return fmt.Errorf("%w: %s on E-Series takes %s drives, got %d", layout.ErrDriveCount, level,
			map[string]string{"RAID0": "1 or more", "RAID5": "3 to 30", "RAID6": "5 to 30", DDP: "11 or more"}[level], n)
	}
	return nil
}

// GroupCapacity follows the layout formulas; a DDP keeps two drives of
// reconstruction reserve and stores data in 8+2 stripes (an estimate: the
// array's own figure replaces it once the pool exists).
func (e *eseries) GroupCapacity(level string, sizes []int64) int64 {
	return layout.UsableBytes(layout.RAIDLevel(level), sizes)
}

// toLevel spells a layout level the SANtricity way for n drives.
func toLevel(level string, n int) (string, error) {
	switch level {
	case string(layout.RAID0):
		return santricity.RAID0, nil
	case string(layout.RAID1):
		if n != 2 {
			return "", fmt.Errorf("%w: RAID1 is exactly 2 drives on E-Series (got %d); use RAID10 for more", layout.ErrDriveCount, n)
		}
		return santricity.RAID1, nil
	case string(layout.RAID10):
		if n < 4 || n%2 != 0 {
			return "", fmt.Errorf("%w: RAID10 needs an even number of drives, at least 4 (got %d)", layout.ErrDriveCount, n)
		}
		return santricity.RAID1, nil
	case string(layout.RAID5):
		return santricity.RAID5, nil
	case string(layout.RAID6):
		return santricity.RAID6, nil
	case DDP:
		return santricity.DiskPool, nil
	}
	return "", fmt.Errorf("%w: RAID level %q on an E-Series array (one of RAID0, RAID1, RAID5, RAID6, RAID10, DDP)", ErrNotSupported, level)
}

func fromLevel(level string, n int) string {
	switch level {
	case santricity.RAID1:
		if n > 2 {
			return string(layout.RAID10)
		}
		return string(layout.RAID1)
	case santricity.DiskPool:
		return DDP
	}
	return strings.ToUpper(level)
}

// drives reads the drives once and indexes them both ways: location ids
// ("99.3") are what users write, drive refs what the API takes.
func (e *eseries) drives(ctx context.Context) ([]santricity.Drive, map[string]string, map[string]string, error) {
	ds, err := e.c.Drives(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	toRef, toLoc := map[string]string{}, map[string]string{}
	for _, d := range ds {
		toRef[d.Location()] = d.ID
		toLoc[d.ID] = d.Location()
	}
	return ds, toRef, toLoc, nil
}

func (e *eseries) Drives(ctx context.Context) ([]Drive, error) {
	ds, _, _, err := e.drives(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Drive, len(ds))
	for i, d := range ds {
		out[i] = Drive{ID: d.Location(), MediaType: strings.ToUpper(d.MediaType), CapacityBytes: d.CapacityBytes, Enclosure: d.Tray,
			Slot: d.Slot, Spare: d.HotSpare, GroupID: d.VolumeGroupID, Model: d.Product, Serial: d.Serial}
	}
	return out, nil
}

func (e *eseries) refs(toRef map[string]string, ids []string) ([]string, error) {
	out := make([]string, len(ids))
	for i, id := range ids {
		r, ok := toRef[id]
		if !ok {
			return nil, fmt.Errorf("%w: no drive %q on %s (ids are tray.slot, e.g. 99.0)", santricity.ErrNotFound, id, e.c.Name())
		}
		out[i] = r
	}
	return out, nil
}

func (e *eseries) group(g *santricity.VolumeGroup, toLoc map[string]string) *Group {
	out := &Group{ID: g.ID, Name: g.Name, RAIDLevel: fromLevel(g.RAIDLevel, len(g.DriveIDs)), CapacityBytes: g.TotalBytes,
		ConsumedBytes: g.UsedBytes, Adopted: g.Adopted}
	for _, r := range g.DriveIDs {
		out.DriveIDs = append(out.DriveIDs, toLoc[r])
	}
	return out
}

func (e *eseries) CreateGroup(ctx context.Context, name, level string, driveIDs []string) (*Group, error) {
	lv, err := toLevel(level, len(driveIDs))
	if err != nil {
		return nil, err
	}
	_, toRef, toLoc, err := e.drives(ctx)
	if err != nil {
		return nil, err
	}
	refs, err := e.refs(toRef, driveIDs)
	if err != nil {
		return nil, err
	}
	g, err := e.c.CreateVolumeGroup(ctx, name, lv, refs)
	if err != nil {
		return nil, err
	}
	return e.group(g, toLoc), nil
}

func (e *eseries) ReadGroup(ctx context.Context, idOrName string) (*Group, error) {
	g, err := e.c.FindVolumeGroup(ctx, idOrName)
	if err != nil {
		return nil, err
	}
	_, _, toLoc, err := e.drives(ctx)
	if err != nil {
		return nil, err
	}
	return e.group(g, toLoc), nil
}

// DeleteGroup leaves a group with volumes alone: the array refuses, as
// Swordfish arrays do, so a volume is never destroyed by its group.
func (e *eseries) DeleteGroup(ctx context.Context, id string) error {
	return e.c.DeleteVolumeGroup(ctx, id, false)
}

func vol(v *santricity.Volume) *Volume {
	return &Volume{ID: v.ID, Name: v.Name, GroupID: v.VolumeGroupID, CapacityBytes: v.CapacityBytes, SegmentBytes: v.SegmentBytes,
		WWN: v.WWN, Adopted: v.Adopted}
}

func (e *eseries) CreateVolume(ctx context.Context, s VolumeSpec) (*Volume, error) {
	capacity := s.CapacityBytes
	if capacity == 0 {
		if v, err := e.c.FindVolume(ctx, s.Name); err == nil && v.VolumeGroupID == s.GroupID {
			out := vol(v) // made by an earlier run that took the free space
			out.Adopted = true
			return out, nil
		}
		g, err := e.c.FindVolumeGroup(ctx, s.GroupID)
		if err != nil {
			return nil, err
		}
		if capacity = g.FreeBytes; capacity <= 0 {
			return nil, fmt.Errorf("%w: volume group %s on %s has no free capacity", santricity.ErrBadRequest, g.Name, e.c.Name())
		}
	}
	v, err := e.c.CreateVolume(ctx, santricity.VolumeSpec{Name: s.Name, VolumeGroupID: s.GroupID, CapacityBytes: capacity, SegmentBytes: s.SegmentBytes})
	if err != nil {
		return nil, err
	}
	return vol(v), nil
}

// hostNames maps host and host group ids to the hosts they reach.
func (e *eseries) hostNames(ctx context.Context) (map[string][]string, []santricity.Host, []santricity.HostGroup, error) {
	hosts, err := e.c.Hosts(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	groups, err := e.c.HostGroups(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	out := map[string][]string{}
	for _, h := range hosts {
		out[h.ID] = []string{h.Name}
		if h.HostGroupID != "" {
			out[h.HostGroupID] = append(out[h.HostGroupID], h.Name)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out, hosts, groups, nil
}

func (e *eseries) ReadVolume(ctx context.Context, idOrName string) (*Volume, []Mapping, error) {
	v, err := e.c.FindVolume(ctx, idOrName)
	if err != nil {
		return nil, nil, err
	}
	ms, err := e.c.Mappings(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []Mapping
	var names map[string][]string
	for _, m := range ms {
		if m.VolumeID != v.ID {
			continue
		}
		if names == nil {
			if names, _, _, err = e.hostNames(ctx); err != nil {
				return nil, nil, err
			}
		}
		for _, h := range names[m.TargetID] {
			out = append(out, Mapping{Host: h, LUN: int64(m.LUN)})
		}
	}
	slices.SortFunc(out, func(a, b Mapping) int { return strings.Compare(a.Host, b.Host) })
	return vol(v), out, nil
}

func (e *eseries) ResizeVolume(ctx context.Context, id string, capacity int64) error {
	v, err := e.c.FindVolume(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case capacity == v.CapacityBytes:
		return nil
	case capacity < v.CapacityBytes:
		return fmt.Errorf("%w: E-Series volumes only grow (%s is %d bytes, asked %d)", ErrNotSupported, v.Name, v.CapacityBytes, capacity)
	}
	return e.c.ExpandVolume(ctx, v.ID, capacity)
}

func (e *eseries) DeleteVolume(ctx context.Context, id string) error {
	return e.c.DeleteVolume(ctx, id)
}

// groupName names the host group made for a set of hosts: readable when it
// fits SANtricity's 30 characters, else shortened with a hash.
func groupName(hosts []string) string {
	n := "hpcs_" + strings.Join(hosts, "_")
	if len(n) <= 30 {
		return n
	}
	h := sha256.Sum256([]byte(strings.Join(hosts, "\x00")))
	return n[:21] + "_" + hex.EncodeToString(h[:])[:8]
}

func (e *eseries) SetMappings(ctx context.Context, volumeID string, hosts []string, lun int64) error {
	want := slices.Sorted(slices.Values(hosts))
	names, hs, groups, err := e.hostNames(ctx)
	if err != nil {
		return err
	}
	ms, err := e.c.Mappings(ctx)
	if err != nil {
		return err
	}
	var current *santricity.Mapping
	for _, m := range ms {
		if m.VolumeID == volumeID {
			current = &m
		}
	}
	if current != nil && slices.Equal(names[current.TargetID], want) && int64(current.LUN) == lun {
		return nil
	}
	target := ""
	if len(want) > 0 {
		if target, err = e.targetFor(ctx, want, hs, groups); err != nil {
			return err
		}
	}
	if current != nil {
		if err := e.c.Unmap(ctx, current.ID); err != nil {
			return err
		}
	}
	if target == "" {
		return nil
	}
	_, err = e.c.Map(ctx, volumeID, target, int(lun))
	return err
}

// targetFor is the host, or the host group holding exactly hosts, creating
// the group when none of the hosts is in one yet.
func (e *eseries) targetFor(ctx context.Context, want []string, hs []santricity.Host, groups []santricity.HostGroup) (string, error) {
	byName := map[string]santricity.Host{}
	for _, h := range hs {
		byName[h.Name] = h
	}
	var ids []string
	for _, n := range want {
		h, ok := byName[n]
		if !ok {
			known := make([]string, 0, len(hs))
			for _, x := range hs {
				known = append(known, x.Name)
			}
			slices.Sort(known)
			return "", fmt.Errorf("%w: no host %q on %s (hosts: %s); define it with its initiator ports first",
				santricity.ErrNotFound, n, e.c.Name(), strings.Join(known, ", "))
		}
		ids = append(ids, h.ID)
	}
	if len(ids) == 1 {
		return ids[0], nil
	}
	slices.Sort(ids)
	for _, g := range groups {
		if slices.Equal(g.HostIDs, ids) {
			return g.ID, nil
		}
	}
	for _, n := range want {
		if g := byName[n].HostGroupID; g != "" {
			return "", fmt.Errorf("%w: host %s is in a host group with other members; E-Series maps a volume to one host or one host group, "+
				"so the hosts %v need a host group of their own", santricity.ErrConflict, n, want)
		}
	}
	g, err := e.c.CreateHostGroup(ctx, groupName(want), ids)
	if err != nil {
		// Volumes mapped in parallel race to make the same group: the
		// loser finds the winner's.
		again, gerr := e.c.HostGroups(ctx)
		if gerr == nil {
			for _, g := range again {
				if slices.Equal(g.HostIDs, ids) {
					return g.ID, nil
				}
			}
		}
		return "", err
	}
	return g.ID, nil
}

func (e *eseries) SetSpares(ctx context.Context, driveIDs []string, on bool) error {
	_, toRef, _, err := e.drives(ctx)
	if err != nil {
		return err
	}
	refs, err := e.refs(toRef, driveIDs)
	if err != nil {
		return err
	}
	return e.c.SetHotSpares(ctx, refs, on)
}

func (e *eseries) Hosts(ctx context.Context) ([]string, error) {
	hs, err := e.c.Hosts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	slices.Sort(out)
	return out, nil
}

func (e *eseries) Groups(ctx context.Context) ([]Group, error) {
	gs, err := e.c.VolumeGroups(ctx)
	if err != nil {
		return nil, err
	}
	_, _, toLoc, err := e.drives(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Group, len(gs))
	for i := range gs {
		out[i] = *e.group(&gs[i], toLoc)
	}
	return out, nil
}

func (e *eseries) Volumes(ctx context.Context) ([]Volume, error) {
	vs, err := e.c.Volumes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Volume, len(vs))
	for i := range vs {
		out[i] = *vol(&vs[i])
	}
	return out, nil
}
