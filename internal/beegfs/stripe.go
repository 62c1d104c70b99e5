package beegfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// StripeMarkerDir holds one file per stripe pattern set, named by a hash of
// directory and pattern: a changed pattern is a new marker, so it is set
// again.
const StripeMarkerDir = "/var/lib/hpcstorage/beegfs/stripe"

// Stripe is the stripe pattern of one directory of a mounted BeeGFS.
type Stripe struct {
	MountPoint string // client mount, e.g. /mnt/beegfs
	Path       string // directory inside it, relative ("" or "." = the root)
	ChunkSize  int64  // bytes, a power of two from 64 KiB
	NumTargets int
	Pool       int
}

// Dir is the absolute directory.
func (s Stripe) Dir() string {
	p := strings.Trim(s.Path, "/")
	if p == "" || p == "." {
		return s.MountPoint
	}
	return s.MountPoint + "/" + p
}

// Validate reports the first problem, naming the field.
func (s Stripe) Validate() error {
	if err := absPath("mount_point", s.MountPoint); err != nil {
		return err
	}
	if strings.Contains(s.Path, "..") || strings.ContainsAny(s.Path, "\n\t ,") {
		return fmt.Errorf("%w: path %q: a folder inside the mount, without .. or spaces", ErrInvalid, s.Path)
	}
	if s.ChunkSize < 64<<10 || s.ChunkSize&(s.ChunkSize-1) != 0 {
		return fmt.Errorf("%w: chunk_size %d: a power of two of at least 65536 (64 KiB)", ErrInvalid, s.ChunkSize)
	}
	if s.NumTargets < 1 || s.NumTargets > 1024 {
		return fmt.Errorf("%w: num_targets %d: want 1 to 1024", ErrInvalid, s.NumTargets)
	}
	if s.Pool < 1 || s.Pool > 65535 {
		return fmt.Errorf("%w: pool %d: want 1 to 65535", ErrInvalid, s.Pool)
	}
	return nil
}

// chunkArg is beegfs-ctl's size form: 512k, 1m.
func chunkArg(b int64) string {
	if b%(1<<20) == 0 {
		return fmt.Sprintf("%dm", b>>20)
	}
	return fmt.Sprintf("%dk", b>>10)
}

// SetPatternArgv is the BeeGFS 7.x command (BeeGFS 8: `beegfs entry set
// --chunk-size --num-targets --pool`).
func (s Stripe) SetPatternArgv() []string {
	return []string{"beegfs-ctl", "--setpattern", "--chunksize=" + chunkArg(s.ChunkSize), fmt.Sprintf("--numtargets=%d", s.NumTargets),
		fmt.Sprintf("--storagepoolid=%d", s.Pool), "--mount=" + s.MountPoint, s.Dir()}
}

// MarkerPath names this directory and pattern.
func (s Stripe) MarkerPath() string {
	sum := sha256.Sum256([]byte(strings.Join(s.SetPatternArgv(), "\x00")))
	return StripeMarkerDir + "/" + hex.EncodeToString(sum[:8])
}

const stripeScript = `dir=$1 marker=$2; shift 2
mkdir -p "$dir" || exit 1
"$@" || exit 1
mkdir -p "${marker%/*}" && printf '%s\n' "$*" > "$marker"`

// Items: create the directory if needed and set the pattern once per
// pattern value.
func (s Stripe) Items() ([]protocol.Item, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	argv := append([]string{"/bin/sh", "-c", stripeScript, "hpcstorage-stripe", s.Dir(), s.MarkerPath()}, s.SetPatternArgv()...)
	return []protocol.Item{{Command: &protocol.Command{Name: "setpattern", Argv: argv, Creates: s.MarkerPath()}}}, nil
}

// StripeOwnerSuffix names the agent owner of one directory's pattern
// (owners are at most 63 characters, so a hash).
func StripeOwnerSuffix(mountPoint, dir string) string {
	s := Stripe{MountPoint: mountPoint, Path: dir}
	sum := sha256.Sum256([]byte(s.Dir()))
	return hex.EncodeToString(sum[:6])
}
