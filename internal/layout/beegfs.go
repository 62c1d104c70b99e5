package layout

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// BeeGFS building-block layouts of one 24-drive EF600, as NetApp publishes
// them for BeeGFS on E-Series: the netapp_eseries.beegfs Ansible
// collection's building-block template
// (github.com/NetApp/beegfs, getting_started/beegfs_deployment_template/
// beegfs_cluster_building_blocks/create_beegfs_ha_cluster_structure/
// H2_DAC_IB_A2_EF600_inventory.yml, beegfs_target_settings):
//   - converged block (management, metadata and storage): one RAID 1 volume
//     group of 4 drives (RAID 10 2+2) for metadata, 128 KiB segments, one
//     volume per metadata service at 23.75 % of the group and, on the base
//     block, the management volume at 1 %; two RAID 6 groups of 10 drives
//     (8+2) for storage, 512 KiB segments, volumes at 24 % of the group.
//   - storage-only block: two RAID 6 groups of 12 drives (10+2), 512 KiB
//     segments, volumes at 24 % of the group.
//
// The volume counts per group (4) follow from the percentages: 4 x 23.75 %
// + 1 % and 4 x 24 % leave the few percent the template keeps free.

// BlockProfile is one of the building-block profiles of the R3 design.
type BlockProfile string

// The three building-block profiles of BeeGFS on NetApp (R3).
const (
	BlockBase            BlockProfile = "base"             // management + metadata + storage
	BlockMetadataStorage BlockProfile = "metadata_storage" // metadata + storage
	BlockStorage         BlockProfile = "storage"          // storage only
)

// BlockProfiles lists the profiles once (validators, docs).
var BlockProfiles = []BlockProfile{BlockBase, BlockMetadataStorage, BlockStorage}

// ErrProfile: the building-block profile is not one of BlockProfiles.
var ErrProfile = errors.New("unknown building-block profile")

// BlockVolume is one planned volume of a building block.
type BlockVolume struct {
	Name         string
	Group        string
	Service      string  // management, metadata, storage
	Percent      float64 // of the group's usable capacity
	SegmentBytes int64
	// CapacityBytes is Percent of the group, rounded down to whole MiB;
	// 0 when drive capacities are unknown.
	CapacityBytes int64
}

// BlockPlan is a building block's array layout: its groups (on E-Series,
// Level RAID10 is a raid1 volume group of 4 or more drives) and volumes.
type BlockPlan struct {
	Profile BlockProfile
	Plan
	Volumes []BlockVolume
}

// BeeGFSBlock lays out the 24 drives of a building block's EF600 as NetApp
// publishes it for profile.
func BeeGFSBlock(profile BlockProfile, drives []Drive) (BlockPlan, error) {
	if !slices.Contains(BlockProfiles, profile) {
		return BlockPlan{}, fieldErr("profile", fmt.Errorf("%w %q (one of %v)", ErrProfile, profile, BlockProfiles))
	}
	if err := checkDrives(drives); err != nil {
		return BlockPlan{}, err
	}
	if len(drives) != 24 {
		return BlockPlan{}, fieldErr("drives", fmt.Errorf("%w: a building block's EF600 has 24 drives, got %d", ErrNotEnoughDrives, len(drives)))
	}
	ordered := slices.Clone(drives)
	slices.SortStableFunc(ordered, func(a, b Drive) int {
		if a.Drawer != b.Drawer {
			return a.Drawer - b.Drawer
		}
		return a.Slot - b.Slot
	})
	type part struct {
		name    string
		level   RAIDLevel
		n       int
		service string
		vols    []float64
		segment int64
	}
	var parts []part
	switch profile {
	case BlockBase, BlockMetadataStorage:
		meta := []float64{23.75, 23.75, 23.75, 23.75}
		parts = append(parts, part{"meta01", RAID10, 4, "metadata", meta, 128 << 10})
		parts = append(parts, part{"stor01", RAID6, 10, "storage", []float64{24, 24, 24, 24}, 512 << 10},
			part{"stor02", RAID6, 10, "storage", []float64{24, 24, 24, 24}, 512 << 10})
	case BlockStorage:
		parts = append(parts, part{"stor01", RAID6, 12, "storage", []float64{24, 24, 24, 24}, 512 << 10},
			part{"stor02", RAID6, 12, "storage", []float64{24, 24, 24, 24}, 512 << 10})
	}
	bp := BlockPlan{Profile: profile}
	bp.DriveSet = ordered
	owner := make([]int, len(ordered))
	next := 0
	for gi, p := range parts {
		members := ordered[next : next+p.n]
		next += p.n
		media := members[0].MediaType
		grp := Group{Name: p.name, Level: p.level}
		sizes := make([]int64, 0, p.n)
		known := true
		for i, d := range members {
			if !strings.EqualFold(d.MediaType, media) {
				return BlockPlan{}, fieldErr("drives", fmt.Errorf("%w in group %s (%s, %s)", ErrMixedMedia, p.name, media, d.MediaType))
			}
			owner[next-p.n+i] = gi + 1
			grp.DriveIDs = append(grp.DriveIDs, d.ID)
			if !slices.Contains(grp.Drawers, d.Drawer) {
				grp.Drawers = append(grp.Drawers, d.Drawer)
			}
			sizes = append(sizes, d.CapacityBytes)
			known = known && d.CapacityBytes > 0
		}
		if known {
			grp.UsableBytes = UsableBytes(p.level, sizes)
		}
		bp.Groups = append(bp.Groups, grp)
		vols := p.vols
		if p.service == "metadata" && profile == BlockBase {
			bp.Volumes = append(bp.Volumes, blockVolume("mgmt", p.name, "management", 1, p.segment, grp.UsableBytes))
		}
		for i, pct := range vols {
			prefix := "stor"
			if p.service == "metadata" {
				prefix = "meta"
			}
			name := fmt.Sprintf("%s_%s_%02d", prefix, strings.TrimPrefix(strings.TrimPrefix(p.name, "stor"), "meta"), i+1)
			bp.Volumes = append(bp.Volumes, blockVolume(name, p.name, p.service, pct, p.segment, grp.UsableBytes))
		}
	}
	for i := next; i < len(ordered); i++ {
		bp.Unused = append(bp.Unused, ordered[i].ID)
	}
	bp.Diagram = diagram(ordered, owner, bp.Groups)
	return bp, nil
}

func blockVolume(name, group, service string, pct float64, segment, usable int64) BlockVolume {
	v := BlockVolume{Name: name, Group: group, Service: service, Percent: pct, SegmentBytes: segment}
	if usable > 0 {
		v.CapacityBytes = int64(float64(usable)*pct/100) / (1 << 20) * (1 << 20)
	}
	return v
}
