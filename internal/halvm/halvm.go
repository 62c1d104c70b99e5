// Package halvm renders HA-LVM with system_id access, what the cluster's
// LVM-activate resource (vg_access_mode=system_id) needs: every node names
// itself as LVM's system ID, so a volume group belongs to the node that
// activated it and no other node activates it by accident; the volume
// group, one logical volume striped over all its volumes and XFS aligned
// to that stripe are created once, on one node, and left inactive for the
// cluster to activate.
package halvm

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ErrInvalid is wrapped by every validation error, each located
// (internal/located) at the hpcstorage_ha_lvm attribute it is about.
var ErrInvalid = errors.New("invalid HA-LVM setting")

// LocalConf is LVM's per-host config, read after lvm.conf (LVM 2.02.117
// and later), so the packaged lvm.conf stays as it is.
const LocalConf = "/etc/lvm/lvmlocal.conf"

// LocalConfContent makes the node's uname its LVM system ID.
const LocalConfContent = "# Managed by hpcstorage; local changes are reverted.\n" +
	"# HA-LVM: a volume group belongs to the node whose name it carries; the\n" +
	"# cluster's LVM-activate moves it on failover.\n" +
	"global {\n    system_id_source = \"uname\"\n}\n"

// NodeItems are the items every cluster node gets.
func NodeItems() []protocol.Item {
	c := LocalConfContent
	return []protocol.Item{{File: &protocol.File{Path: LocalConf, Content: &c, Mode: "0644", Owner: "root", Group: "root"}}}
}

// LVMFloor is R2's lvm2 floor (RHEL 7.6; lvm2 carries epoch 7 there).
var LVMFloor = protocol.PackageVersion{Name: "lvm2", Min: "7:2.02.180-10.el7_6.2",
	Why: "the first 128 KB of a physical volume can be corrupted"}

// FloorItem checks the lvm2 floor before anything is changed.
func FloorItem() protocol.Item { f := LVMFloor; return protocol.Item{PackageVersion: &f} }

// VolumeGroup is the shared volume group with its one logical volume and
// file system.
type VolumeGroup struct {
	Name          string
	LogicalVolume string
	// Devices are the multipathed volumes (/dev/mapper/<alias>).
	Devices []string
	// SegmentBytes and DataDrives are the RAID set's: its full stripe
	// (segment × data drives) is the logical volume's stripe size, so one
	// LVM stripe is one full RAID stripe on one volume.
	SegmentBytes int64
	DataDrives   int
	// Wipe erases existing signatures first; without it a device holding
	// anything is refused.
	Wipe bool
}

var (
	reName = regexp.MustCompile(`^[A-Za-z0-9+_.][A-Za-z0-9+_.-]{0,126}$`)
	reDev  = regexp.MustCompile(`^/dev/[A-Za-z0-9/_.:-]+$`)
)

// Defaults and limits of LVM's extents: the stripe may not exceed the
// extent, so the extent grows with it.
const (
	defaultExtent = 4 << 20
	minStripe     = 4 << 10
	maxStripe     = 512 << 20
)

// StripeBytes is the logical volume's stripe size.
func (v VolumeGroup) StripeBytes() int64 { return v.SegmentBytes * int64(v.DataDrives) }

// DevicePath is the logical volume's device.
func (v VolumeGroup) DevicePath() string { return "/dev/" + v.Name + "/" + v.LogicalVolume }

// Validate checks the volume group.
func (v VolumeGroup) Validate() error {
	var errs []error
	bad := func(at located.Path, format string, args ...any) {
		errs = append(errs, located.Errorf(at, "%w: %s", ErrInvalid, fmt.Sprintf(format, args...)))
	}
	if !reName.MatchString(v.Name) {
		bad(located.At("volume_group"), "%q: want an LVM name", v.Name)
	}
	if !reName.MatchString(v.LogicalVolume) {
		bad(located.At("logical_volume"), "%q: want an LVM name", v.LogicalVolume)
	}
	if len(v.Devices) == 0 {
		bad(located.At("devices"), "want the multipathed volumes (/dev/mapper/<alias>)")
	}
	seen := map[string]int{}
	for i, d := range v.Devices {
		if !reDev.MatchString(d) || path.Clean(d) != d {
			bad(located.At("devices").Index(i), "%q: want a device path", d)
		}
		if j, ok := seen[d]; ok {
			bad(located.At("devices").Index(i), "%s is also devices[%d]", d, j)
		}
		seen[d] = i
	}
	if v.DataDrives < 1 || v.DataDrives > 64 {
		bad(located.At("data_drives"), "%d: want 1 to 64", v.DataDrives)
	}
	s := v.StripeBytes()
	switch {
	case v.SegmentBytes < 512 || v.SegmentBytes%512 != 0:
		bad(located.At("segment_size_bytes"), "%d: want a multiple of 512 bytes", v.SegmentBytes)
	case v.DataDrives >= 1 && (s < minStripe || s > maxStripe || s&(s-1) != 0):
		bad(located.At("segment_size_bytes"), "a full stripe of %d bytes (%d × %d data drives): LVM stripes must be a power of two from "+
			"4 KiB to 512 MiB; this RAID set cannot align a striped volume", s, v.SegmentBytes, v.DataDrives)
	}
	return errors.Join(errs...)
}

// ExtentBytes is the volume group's extent size: LVM's default, or the
// stripe when that is larger.
func (v VolumeGroup) ExtentBytes() int64 { return max(defaultExtent, v.StripeBytes()) }

func kib(b int64) string { return strconv.FormatInt(b>>10, 10) + "k" }

// VGCreateArgv, LVCreateArgv and MkfsArgv are the commands the creation
// runs, in order.
func (v VolumeGroup) VGCreateArgv() []string {
	return append([]string{"vgcreate", "--physicalextentsize", kib(v.ExtentBytes()), "--addtag", CreatingTag, v.Name}, v.Devices...)
}

func (v VolumeGroup) LVCreateArgv() []string {
	return []string{"lvcreate", "--yes", "--type", "striped", "--stripes", strconv.Itoa(len(v.Devices)),
		"--stripesize", kib(v.StripeBytes()), "--extents", "100%FREE", "--name", v.LogicalVolume, v.Name}
}

// MkfsArgv aligns XFS to the logical volume: su is its stripe, sw the
// number of volumes. The log's stripe unit follows the stripe up to
// 256 KiB, XFS's maximum (mkfs.xfs otherwise warns and falls back to
// 32 KiB).
func (v VolumeGroup) MkfsArgv() []string {
	logSU := min(v.StripeBytes(), maxLogStripe)
	return []string{"mkfs.xfs", "-q", "-d", "su=" + kib(v.StripeBytes()) + ",sw=" + strconv.Itoa(len(v.Devices)),
		"-l", "su=" + kib(logSU), v.DevicePath()}
}

// maxLogStripe is the largest XFS log stripe unit.
const maxLogStripe = 256 << 10

// CreatingTag marks a volume group whose creation has not finished (LVM
// tags live in the volume group's metadata, so every node sees it): the
// next apply resumes it, after a killed run, instead of leaving a volume
// group without its logical volume or file system.
const CreatingTag = "hpcstorage_creating"

// createScript refuses used devices (unless wipe), then creates what is
// missing, step by step (a resumed run skips what exists), and leaves the
// volume group inactive: the cluster activates it where it runs the NFS
// group. vgcreate makes the physical volumes itself: with a pvcreate of
// its own before it, a run cut between the two left labelled devices
// without a volume group, which the next run refused as used. $1 is wipe
// (yes/no), $2 the device count, the devices, then the counts and argvs
// of vgcreate, lvcreate and mkfs, then the volume group and the logical
// volume.
const createScript = `set -eu
wipe=$1; shift
n=$1; shift
devs=""
i=0
while [ "$i" -lt "$n" ]; do devs="$devs $1"; shift; i=$((i+1)); done
next() {
  c=$1; shift
  argv=""
  i=0
  while [ "$i" -lt "$c" ]; do argv="$argv $1"; shift; i=$((i+1)); done
}
next "$@"; vgcreate=$argv; shift $((c+1))
next "$@"; lvcreate=$argv; shift $((c+1))
next "$@"; mkfs=$argv; shift $((c+1))
vg=$1; lv=$2
if ! vgs --foreign --noheadings -o vg_name "$vg" >/dev/null 2>&1; then
  for d in $devs; do
    sig=$(blkid -p -o value -s TYPE "$d" 2>/dev/null || true)
    [ -z "$sig" ] && sig=$(blkid -p -o value -s PTTYPE "$d" 2>/dev/null || true)
    if [ -n "$sig" ] && [ "$wipe" != yes ]; then
      echo "$d holds a $sig signature: refusing to create the volume group over it (set wipe to erase it)" >&2
      exit 1
    fi
  done
  if [ "$wipe" = yes ]; then for d in $devs; do wipefs -a "$d"; done; fi
  $vgcreate
fi
if ! lvs --noheadings -o lv_name "$vg/$lv" >/dev/null 2>&1; then
  $lvcreate
fi
vgchange --activate y "$vg"
sig=$(blkid -p -o value -s TYPE "/dev/$vg/$lv" 2>/dev/null || true)
if [ -z "$sig" ]; then
  $mkfs
fi
vgchange --deltag ` + CreatingTag + ` "$vg"
vgchange --activate n "$vg"
`

// doneScript is the creation's guard: it holds when the volume group
// exists (on any node, foreign ones included) and carries no CreatingTag,
// so a finished volume group, or one made by someone else, is never
// touched again.
const doneScript = `tags=$(vgs --foreign --noheadings -o vg_tags "$1" 2>/dev/null) || exit 1
case "$tags" in *` + CreatingTag + `*) exit 1 ;; esac
exit 0
`

// CreateItem creates the volume group, logical volume and file system once:
// it does not run when the volume group exists and its creation finished
// (on any node, a foreign one included), so it never re-creates or formats
// it; a creation that was cut short is resumed.
func (v VolumeGroup) CreateItem() (protocol.Item, error) {
	if err := v.Validate(); err != nil {
		return protocol.Item{}, err
	}
	wipe := "no"
	if v.Wipe {
		wipe = "yes"
	}
	argv := []string{"/bin/sh", "-c", createScript, "hpcstorage-halvm", wipe, strconv.Itoa(len(v.Devices))}
	argv = append(argv, v.Devices...)
	for _, step := range [][]string{v.VGCreateArgv(), v.LVCreateArgv(), v.MkfsArgv()} {
		argv = append(append(argv, strconv.Itoa(len(step))), step...)
	}
	argv = append(argv, v.Name, v.LogicalVolume)
	return protocol.Item{Command: &protocol.Command{Name: "create-" + v.Name, Argv: argv,
		Unless: []string{"/bin/sh", "-c", doneScript, "created-" + v.Name, v.Name}}}, nil
}

// usedScript refuses, read-only (so at plan time too), devices that hold a
// signature while the volume group does not exist yet; a device not there
// yet (its map comes with this apply) is checked again by the creation.
const usedScript = `vg=$1; shift
if vgs --foreign --noheadings -o vg_name "$vg" >/dev/null 2>&1; then exit 0; fi
for d in "$@"; do
  [ -e "$d" ] || continue
  sig=$(blkid -p -o value -s TYPE "$d" 2>/dev/null || true)
  if [ -n "$sig" ]; then
    echo "$d already holds a $sig signature (another volume group or file system): refusing to create $vg over it; set wipe = true to erase it"
    exit 1
  fi
done
`

// UsedProbe is the read-only refusal of used devices (none with Wipe).
func (v VolumeGroup) UsedProbe() (protocol.Item, bool) {
	if v.Wipe {
		return protocol.Item{}, false
	}
	return protocol.Item{Command: &protocol.Command{Name: "unused-" + v.Name, ReadOnly: true,
		Argv: append([]string{"/bin/sh", "-c", usedScript, "unused-" + v.Name, v.Name}, v.Devices...)}}, true
}
