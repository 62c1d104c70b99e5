// Package layout plans how an array's drives are carved into disk groups and
// global spares. It is pure: no I/O, the same input always gives the same
// plan, so the provider can run it at plan time.
package layout

import (
	"errors"
	"fmt"
	"slices"
)

// RAIDLevel is a disk group protection level, spelled as Swordfish's
// SupportedRAIDTypes does.
type RAIDLevel string

// The RAID levels a linear disk group can take.
const (
	RAID0  RAIDLevel = "RAID0"
	RAID1  RAIDLevel = "RAID1"
	RAID5  RAIDLevel = "RAID5"
	RAID6  RAIDLevel = "RAID6"
	RAID10 RAIDLevel = "RAID10"
)

// Levels lists every supported level once; validators and docs read it.
var Levels = []RAIDLevel{RAID0, RAID1, RAID5, RAID6, RAID10}

// DDP is NetApp E-Series' Dynamic Disk Pool: data in 8+2 stripes spread
// over every member, with reconstruction capacity kept in the pool instead
// of hot spares. Only E-Series offers it, so it is not in Levels; the
// planner takes it when asked (PoolLevels).
const DDP RAIDLevel = "DDP"

// PoolLevels are Levels plus DDP, the levels of an E-Series array.
var PoolLevels = append(slices.Clone(Levels), DDP)

// ddpMinDrives is the smallest pool SANtricity builds (NetApp's storagepool
// module: 11 drives).
const ddpMinDrives = 11

// LevelStrings returns Levels as strings (for enum validators).
func LevelStrings() []string {
	out := make([]string, len(Levels))
	for i, l := range Levels {
		out[i] = string(l)
	}
	return out
}

// Sentinel errors; callers match them with errors.Is.
var (
	// ErrUnknownLevel: the RAID level is not one of Levels.
	ErrUnknownLevel = errors.New("unknown RAID level")
	// ErrDriveCount: the drive count does not fit the RAID level.
	ErrDriveCount = errors.New("drive count does not fit the RAID level")
	// ErrDuplicateDrive: a drive appears twice.
	ErrDuplicateDrive = errors.New("drive listed more than once")
	// ErrMixedMedia: drives of different media types would share a group.
	ErrMixedMedia = errors.New("drives of different media types")
	// ErrNotEnoughDrives: the policy asks for more drives than there are.
	ErrNotEnoughDrives = errors.New("not enough drives")
	// ErrPolicy: the policy is inconsistent.
	ErrPolicy = errors.New("invalid layout policy")
)

// PoolLevelStrings returns PoolLevels as strings (for enum validators).
func PoolLevelStrings() []string {
	out := make([]string, len(PoolLevels))
	for i, l := range PoolLevels {
		out[i] = string(l)
	}
	return out
}

// ParseLevel returns the level named s or ErrUnknownLevel.
func ParseLevel(s string) (RAIDLevel, error) {
	l := RAIDLevel(s)
	if slices.Contains(Levels, l) || l == DDP {
		return l, nil
	}
	return "", fmt.Errorf("%w %q (one of %v)", ErrUnknownLevel, s, Levels)
}

// MaxDrives is the most drives a linear disk group of level l may hold on a
// PowerVault ME4 (Dell EMC PowerVault ME4 Series Storage System
// Administrator's Guide, Rev. A06, table "Linear disk group expansion by RAID
// level": NRAID 1; RAID 0, 3, 5, 6 16; RAID 1 2; RAID 10 16; RAID 50 32;
// ADAPT 128). The same guide's RAID level table gives RAID 0 a minimum of 2.
func MaxDrives(l RAIDLevel) int {
	if l == RAID1 {
		return 2
	}
	return 16
}

// DriveCountRule describes the drive counts a level accepts, in words (for
// docs and error messages).
func DriveCountRule(l RAIDLevel) string {
	switch l {
	case RAID0:
		return "2 to 16 drives"
	case RAID1:
		return "exactly 2 drives"
	case RAID5:
		return "3 to 16 drives"
	case RAID6:
		return "4 to 16 drives"
	case RAID10:
		return "an even number of drives, 4 to 16"
	case DDP:
		return "11 drives or more (E-Series only)"
	}
	return "a known RAID level"
}

// CheckDriveCount reports whether n drives can form a group of level l, with
// the limits of the PowerVault ME4 linear disk groups the designs use.
func CheckDriveCount(l RAIDLevel, n int) error {
	ok := false
	switch l {
	case RAID0:
		ok = n >= 2
	case RAID1:
		ok = n == 2
	case RAID5:
		ok = n >= 3
	case RAID6:
		ok = n >= 4
	case RAID10:
		ok = n >= 4 && n%2 == 0
	case DDP:
		if n < ddpMinDrives {
			return fmt.Errorf("%w: %s needs %s, got %d", ErrDriveCount, l, DriveCountRule(l), n)
		}
		return nil
	default:
		return fmt.Errorf("%w %q", ErrUnknownLevel, l)
	}
	if !ok || n > MaxDrives(l) {
		return fmt.Errorf("%w: %s needs %s, got %d", ErrDriveCount, l, DriveCountRule(l), n)
	}
	return nil
}

// UsableBytes is the capacity a group of level l built from drives of the
// given sizes offers: every member counts as large as the smallest one.
func UsableBytes(l RAIDLevel, sizes []int64) int64 {
	if len(sizes) == 0 {
		return 0
	}
	smallest := slices.Min(sizes)
	n := int64(len(sizes))
	switch l {
	case RAID0:
		return n * smallest
	case RAID1:
		return smallest
	case RAID5:
		return (n - 1) * smallest
	case RAID6:
		return (n - 2) * smallest
	case RAID10:
		return n / 2 * smallest
	case DDP:
		// Two drives' worth of reconstruction reserve, then 8 data pieces
		// in every 10 (an estimate: the array's figure replaces it).
		if n < ddpMinDrives {
			return 0
		}
		return (n - 2) * smallest / 10 * 8
	}
	return 0
}
