// Package beegfs renders BeeGFS 7.x services, targets and clients into
// hpcstorage-agent items. Every function is pure: same input, same items,
// no I/O. The provider sends the items to nodes.
//
// BeeGFS 8 differs in ways this package does not render yet: the
// management service is a Rust daemon with a TOML config
// (/etc/beegfs/beegfs-mgmtd.toml) initialised once with
// `beegfs-mgmtd --init` (it refuses to overwrite, a natural guard), one port
// serves TCP and UDP, helperd is gone (the client logs itself), string ids
// are set with the `beegfs` CLI instead of `-S`, and a licence file and TLS
// certificate are required for the CLI to reach mgmtd.
package beegfs

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// ErrInvalid wraps every validation error of this package.
var ErrInvalid = errors.New("invalid BeeGFS setting")

// Target kinds: what a volume holds.
const (
	KindMetadata   = "metadata"
	KindStorage    = "storage"
	KindManagement = "management"
)

// TargetKinds lists the kinds, for validators and docs.
var TargetKinds = []string{KindMetadata, KindStorage, KindManagement}

// MarkerDir holds one file per device this provider formatted: the format
// command's guard (never format twice), kept on destroy.
const MarkerDir = "/var/lib/hpcstorage/beegfs/formatted"

var (
	reWWN  = regexp.MustCompile(`^[0-9a-f]{16,32}$`)
	reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)
)

// Target is a volume formatted and mounted for one BeeGFS role.
type Target struct {
	WWN        string // NAA hex, with or without 0x / naa.
	Kind       string
	MountPoint string
	// SegmentBytes is the array's segment (strip) size per data drive;
	// DataDrives the drives that hold data in one stripe (8 for RAID6 8+2).
	// Both feed xfs su/sw for storage targets.
	SegmentBytes int64
	DataDrives   int
	// Wipe lets the format erase an existing signature. Off: a device with
	// any signature is never formatted.
	Wipe bool
	// MountOptions replace the role's defaults when set.
	MountOptions []string
}

// NormWWN returns the bare lower-case hex of a WWN.
func NormWWN(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	w = strings.TrimPrefix(w, "naa.")
	return strings.TrimPrefix(w, "0x")
}

// DevicePath is where udev links a volume by its WWN.
func DevicePath(wwn string) string { return "/dev/disk/by-id/wwn-0x" + NormWWN(wwn) }

// Validate reports the first problem, naming the field.
func (t Target) Validate() error {
	if !reWWN.MatchString(NormWWN(t.WWN)) {
		return fmt.Errorf("%w: wwn %q: want 16 to 32 hex digits (NAA), e.g. 600c0ff0...", ErrInvalid, t.WWN)
	}
	switch t.Kind {
	case KindMetadata, KindManagement:
	case KindStorage:
		if t.SegmentBytes < 4096 || t.SegmentBytes%4096 != 0 {
			return fmt.Errorf("%w: segment_size_bytes %d: storage targets need the array segment size, a multiple of 4 KiB", ErrInvalid, t.SegmentBytes)
		}
		if t.DataDrives < 1 || t.DataDrives > 64 {
			return fmt.Errorf("%w: data_drives %d: want 1 to 64 (8 for RAID6 8+2)", ErrInvalid, t.DataDrives)
		}
	default:
		return fmt.Errorf("%w: kind %q: want one of %s", ErrInvalid, t.Kind, strings.Join(TargetKinds, ", "))
	}
	if err := absPath("mount_point", t.MountPoint); err != nil {
		return err
	}
	for _, o := range t.MountOptions {
		if o == "" || strings.ContainsAny(o, ", \t\n") {
			return fmt.Errorf("%w: mount_options: %q: one option per entry, no commas or spaces", ErrInvalid, o)
		}
	}
	return nil
}

func absPath(field, p string) error {
	if p == "" || !path.IsAbs(p) || path.Clean(p) != p || p == "/" || strings.ContainsAny(p, " \t\n,") {
		return fmt.Errorf("%w: %s %q: want a clean absolute path other than / (no spaces or commas)", ErrInvalid, field, p)
	}
	return nil
}

// FSType is ext4 for metadata and management, xfs for storage.
func (t Target) FSType() string {
	if t.Kind == KindStorage {
		return "xfs"
	}
	return "ext4"
}

// MkfsArgv is the mkfs command for the target's device.
//
// Metadata: ext4 with small inodes-per-byte (-i 2048) and 512-byte inodes
// so BeeGFS keeps metadata in inline extended attributes, a 400 MiB journal,
// hashed directories. Storage: xfs aligned to the RAID stripe
// (su = segment, sw = data drives), log stripe unit at most 256 KiB (the
// xfs limit), 512-byte inodes.
func (t Target) MkfsArgv() []string {
	dev := DevicePath(t.WWN)
	if t.Kind != KindStorage {
		return []string{"mkfs.ext4", "-q", "-i", "2048", "-I", "512", "-J", "size=400", "-O", "dir_index,filetype", dev}
	}
	su := t.SegmentBytes / 1024
	logsu := su
	if logsu > 256 {
		logsu = 256
	}
	return []string{"mkfs.xfs", "-q", "-d", fmt.Sprintf("su=%dk,sw=%d", su, t.DataDrives),
		"-l", fmt.Sprintf("version=2,su=%dk", logsu), "-i", "size=512", dev}
}

// DefaultMountOptions are the R1/BeeGFS recommendations per role.
func (t Target) DefaultMountOptions() []string {
	if t.Kind == KindStorage {
		return []string{"noatime", "nodiratime", "logbufs=8", "logbsize=256k", "largeio", "inode64", "swalloc", "allocsize=131072k", "nofail"}
	}
	return []string{"noatime", "nodiratime", "nofail"}
}

// Options returns MountOptions or the defaults.
func (t Target) Options() []string {
	if len(t.MountOptions) > 0 {
		return t.MountOptions
	}
	return t.DefaultMountOptions()
}

// MarkerPath is the guard file of this target's format.
func (t Target) MarkerPath() string { return MarkerDir + "/wwn-0x" + NormWWN(t.WWN) }

// formatScript refuses a device with a signature (unless wipe), runs the
// mkfs argv given as "$@", then writes the marker. Arguments: device,
// marker, wipe (0|1), mkfs argv...
const formatScript = `dev=$1 marker=$2 wipe=$3; shift 3
if blkid -p "$dev" >/dev/null 2>&1; then
  sig=$(blkid -p -o value -s TYPE "$dev" 2>/dev/null)
  if [ "$wipe" != 1 ]; then
    echo "$dev already has a signature (${sig:-unknown}); refusing to format it: set wipe = true to erase it" >&2
    exit 3
  fi
  wipefs -a "$dev" >&2 || exit 1
fi
"$@" || exit 1
mkdir -p "${marker%/*}" && printf '%s\n' "$*" > "$marker"`

// FormatCommand is the one-shot format step, guarded by the marker file:
// the recorded argv ends with the exact mkfs argv.
func (t Target) FormatCommand() protocol.Command {
	wipe := "0"
	if t.Wipe {
		wipe = "1"
	}
	argv := append([]string{"/bin/sh", "-c", formatScript, "hpcstorage-format", DevicePath(t.WWN), t.MarkerPath(), wipe}, t.MkfsArgv()...)
	return protocol.Command{Name: "format-" + NormWWN(t.WWN), Argv: argv, Creates: t.MarkerPath()}
}

// Items renders the target: format once, then mount (persisted in fstab).
func (t Target) Items() ([]protocol.Item, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	c := t.FormatCommand()
	return []protocol.Item{
		{Command: &c},
		{Mount: &protocol.Mount{Device: DevicePath(t.WWN), Path: t.MountPoint, FSType: t.FSType(), Options: t.Options()}},
	}, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
