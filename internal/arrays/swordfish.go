package arrays

import (
	"context"
	"path"
	"slices"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// Swordfish adapts one Storage resource of a Redfish endpoint.
func Swordfish(ep *redfish.Endpoint, storageID string) Array {
	return &swordfish{ep: ep, sid: storageID}
}

type swordfish struct {
	ep  *redfish.Endpoint
	sid string
}

func (s *swordfish) API() string      { return APIRedfish }
func (s *swordfish) Levels() []string { return layout.LevelStrings() }

func (s *swordfish) CheckGroup(level string, n int) error {
	if err := CheckLevel(s, level); err != nil {
		return err
	}
	return layout.CheckDriveCount(layout.RAIDLevel(level), n)
}

func (s *swordfish) GroupCapacity(level string, sizes []int64) int64 {
	return layout.UsableBytes(layout.RAIDLevel(level), sizes)
}

func (s *swordfish) Drives(ctx context.Context) ([]Drive, error) {
	ds, err := s.ep.Drives(ctx, s.sid)
	if err != nil {
		return nil, err
	}
	out := make([]Drive, len(ds))
	for i, d := range ds {
		out[i] = Drive{ID: d.ID, MediaType: d.MediaType, CapacityBytes: d.CapacityBytes, Enclosure: d.Enclosure, Drawer: d.Drawer,
			Slot: d.Slot, Spare: d.HotspareType != "None" && d.HotspareType != "", Model: d.Model, Serial: d.SerialNumber}
		if d.PoolURI != "" {
			out[i].GroupID = path.Base(d.PoolURI)
		}
	}
	return out, nil
}

func group(p *redfish.StoragePool) *Group {
	return &Group{ID: p.ID, Name: p.Name, RAIDLevel: p.RAIDLevel, DriveIDs: p.DriveIDs, CapacityBytes: p.AllocatedBytes, ConsumedBytes: p.ConsumedBytes}
}

func (s *swordfish) CreateGroup(ctx context.Context, name, level string, driveIDs []string) (*Group, error) {
	p, err := s.ep.CreatePool(ctx, s.sid, name, level, driveIDs)
	if err != nil {
		return nil, err
	}
	return group(p), nil
}

func (s *swordfish) ReadGroup(ctx context.Context, idOrName string) (*Group, error) {
	p, err := s.ep.ReadPool(ctx, s.sid, idOrName)
	if err != nil {
		return nil, err
	}
	return group(p), nil
}

func (s *swordfish) DeleteGroup(ctx context.Context, id string) error {
	return s.ep.DeleteURI(ctx, redfish.PoolsURI(s.sid)+"/"+id)
}

func volume(v *redfish.Volume) *Volume {
	return &Volume{ID: v.ID, Name: v.Name, GroupID: v.PoolID, CapacityBytes: v.CapacityBytes, SegmentBytes: v.StripSizeBytes, WWN: v.WWN}
}

func (s *swordfish) CreateVolume(ctx context.Context, spec VolumeSpec) (*Volume, error) {
	v, err := s.ep.CreateVolume(ctx, s.sid, spec.GroupID, spec.Name, spec.CapacityBytes, spec.SegmentBytes)
	if err != nil {
		return nil, err
	}
	return volume(v), nil
}

func (s *swordfish) ReadVolume(ctx context.Context, idOrName string) (*Volume, []Mapping, error) {
	v, ms, err := s.ep.ReadVolume(ctx, s.sid, idOrName)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Mapping, len(ms))
	for i, m := range ms {
		out[i] = Mapping{Host: m.Host, LUN: m.LUN}
	}
	return volume(v), out, nil
}

func (s *swordfish) get(ctx context.Context, id string) (*redfish.Volume, error) {
	return s.ep.GetVolume(ctx, redfish.VolumesURI(s.sid)+"/"+id)
}

func (s *swordfish) ResizeVolume(ctx context.Context, id string, capacity int64) error {
	v, err := s.get(ctx, id)
	if err != nil {
		return err
	}
	if v.CapacityBytes == capacity {
		return nil
	}
	return s.ep.ResizeVolume(ctx, v, capacity)
}

// DeleteVolume unmaps first: Swordfish arrays refuse to delete a mapped
// volume, where E-Series drops its mapping with it.
func (s *swordfish) DeleteVolume(ctx context.Context, id string) error {
	if err := s.SetMappings(ctx, id, nil, 0); err != nil && !IsGone(err) {
		return err
	}
	return s.ep.DeleteURI(ctx, redfish.VolumesURI(s.sid)+"/"+id)
}

func (s *swordfish) SetMappings(ctx context.Context, volumeID string, hosts []string, lun int64) error {
	v, err := s.get(ctx, volumeID)
	if err != nil {
		return err
	}
	current, err := s.ep.Mappings(ctx, s.sid, v.URI)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, m := range current {
		if slices.Contains(hosts, m.Host) && m.LUN == lun {
			have[m.Host] = true
			continue
		}
		if err := s.ep.Unmap(ctx, m); err != nil {
			return err
		}
	}
	for _, h := range hosts {
		if have[h] {
			continue
		}
		if err := s.ep.Map(ctx, s.sid, v, h, lun); err != nil {
			return err
		}
	}
	return nil
}

func (s *swordfish) SetSpares(ctx context.Context, driveIDs []string, on bool) error {
	kind := "None"
	if on {
		kind = "Global"
	}
	for _, id := range driveIDs {
		d, err := s.ep.GetDrive(ctx, s.sid, id)
		if err != nil {
			return err
		}
		if err := s.ep.SetHotspare(ctx, d, kind); err != nil {
			return err
		}
	}
	return nil
}

func (s *swordfish) Hosts(ctx context.Context) ([]string, error) { return s.ep.Hosts(ctx, s.sid) }

func (s *swordfish) Groups(ctx context.Context) ([]Group, error) {
	ps, err := s.ep.Pools(ctx, s.sid)
	if err != nil {
		return nil, err
	}
	out := make([]Group, len(ps))
	for i, p := range ps {
		out[i] = *group(p)
	}
	return out, nil
}

func (s *swordfish) Volumes(ctx context.Context) ([]Volume, error) {
	vs, err := s.ep.Volumes(ctx, s.sid)
	if err != nil {
		return nil, err
	}
	out := make([]Volume, len(vs))
	for i, v := range vs {
		out[i] = *volume(v)
	}
	return out, nil
}
