// Package arrays is the one interface the array resources need, whatever
// API the array speaks: Swordfish (internal/redfish, PowerVault ME4) or
// SANtricity (internal/santricity, NetApp E-Series). The same concepts carry
// the same names and units: RAID levels as internal/layout spells them,
// drive ids as "<enclosure or tray>.<slot>", capacities in bytes, mappings
// as a set of host names sharing one LUN.
//
// Where the two differ:
//   - E-Series also offers DDP (Dynamic Disk Pools); RAID10 is its raid1
//     over four or more drives, RAID1 exactly two.
//   - E-Series maps a volume once, to a host or a host group: several hosts
//     become a host group holding exactly them (found, or created as
//     hpcs_<hosts>). Swordfish maps to each host.
//   - E-Series volumes only grow, and need a size: capacity 0 means the
//     group's free capacity at creation.
//   - Hot spares are global on both.
//
// Errors wrap the sentinels of internal/redfish on both sides.
package arrays

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// APIs an endpoint can declare.
const (
	APIRedfish    = "redfish"
	APISantricity = "santricity"
)

// APIs lists them once (validators, docs).
var APIs = []string{APIRedfish, APISantricity}

// ErrNotSupported is returned for what an array's API cannot do.
var ErrNotSupported = redfish.ErrNotSupported

// Drive is one drive as the resources see it.
type Drive struct {
	ID            string // "0.12" (enclosure.slot) or "99.3" (tray.slot)
	MediaType     string // HDD, SSD
	CapacityBytes int64
	Enclosure     int
	Drawer        int
	Slot          int
	Spare         bool
	GroupID       string // "" when in no group
	Model         string
	Serial        string
}

// Group is a disk group (Swordfish StoragePool, E-Series volume group or
// pool).
type Group struct {
	ID            string
	Name          string
	RAIDLevel     string // layout spelling: RAID6, RAID10, DDP ...
	DriveIDs      []string
	CapacityBytes int64 // usable
	ConsumedBytes int64
	// Adopted: CreateGroup found it there already, as asked (E-Series
	// reports it; a Swordfish array does not say).
	Adopted bool
}

// VolumeSpec is what a create asks for.
type VolumeSpec struct {
	Name          string
	GroupID       string
	CapacityBytes int64 // 0: all the group's free capacity
	SegmentBytes  int64 // 0: the array's default
}

// Volume is a volume with its identity on the hosts.
type Volume struct {
	ID            string
	Name          string
	GroupID       string
	CapacityBytes int64
	SegmentBytes  int64
	WWN           string // lower-case hex
	// Adopted: CreateVolume found it there already, as asked.
	Adopted bool
}

// Mapping is one host seeing a volume under a LUN.
type Mapping struct {
	Host string
	LUN  int64
}

// Array is what the array resources call.
type Array interface {
	// API is APIRedfish or APISantricity.
	API() string
	// Levels lists the RAID levels the array offers.
	Levels() []string
	// CheckGroup says whether n drives can form a group of level on this
	// kind of array, before anything is sent (plan time).
	CheckGroup(level string, n int) error
	// GroupCapacity is the usable capacity a group of level over drives of
	// these sizes offers, for plan-time checks of volume sizes.
	GroupCapacity(level string, sizes []int64) int64
	Drives(ctx context.Context) ([]Drive, error)
	CreateGroup(ctx context.Context, name, level string, driveIDs []string) (*Group, error)
	// ReadGroup finds a group by id or name; ErrNotFound when gone.
	ReadGroup(ctx context.Context, idOrName string) (*Group, error)
	DeleteGroup(ctx context.Context, id string) error
	CreateVolume(ctx context.Context, s VolumeSpec) (*Volume, error)
	// ReadVolume finds a volume by id or name with its mappings, sorted by
	// host; ErrNotFound when gone.
	ReadVolume(ctx context.Context, idOrName string) (*Volume, []Mapping, error)
	ResizeVolume(ctx context.Context, id string, capacity int64) error
	// DeleteVolume removes a volume and its mappings; gone counts as done.
	DeleteVolume(ctx context.Context, id string) error
	// SetMappings makes exactly hosts see the volume under lun (none: not
	// mapped), changing only what differs.
	SetMappings(ctx context.Context, volumeID string, hosts []string, lun int64) error
	// SetSpares makes drives global spares (on) or plain drives (off).
	SetSpares(ctx context.Context, driveIDs []string, on bool) error
	// Hosts lists the hosts volumes can be mapped to.
	Hosts(ctx context.Context) ([]string, error)
	// Groups lists the array's disk groups (adoption of a carved array).
	Groups(ctx context.Context) ([]Group, error)
	// Volumes lists the array's volumes, without their mappings.
	Volumes(ctx context.Context) ([]Volume, error)
}

// CheckLevel reports whether level is one the array offers, naming them.
func CheckLevel(a Array, level string) error {
	for _, l := range a.Levels() {
		if l == level {
			return nil
		}
	}
	return fmt.Errorf("%w: RAID level %q on a %s array (it offers %s)", ErrNotSupported, level, a.API(), strings.Join(a.Levels(), ", "))
}

// IsGone reports whether err means the object no longer exists.
func IsGone(err error) bool { return errors.Is(err, redfish.ErrNotFound) }
