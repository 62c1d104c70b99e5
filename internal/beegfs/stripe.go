package beegfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
)

// Stripe is the stripe pattern of one directory of a mounted BeeGFS.
type Stripe struct {
	MountPoint string // client mount, e.g. /mnt/beegfs
	Path       string // directory inside it, relative ("" or "." = the root)
	ChunkSize  int64  // bytes, a power of two from 64 KiB
	NumTargets int
	Pool       int
	// BuddyMirror stripes over storage mirror groups instead of targets
	// (NumTargets then counts groups): every chunk is written twice, so
	// files here take twice their size.
	BuddyMirror bool
	// Version is the BeeGFS release ("" is the paper's, 7.2): 8 uses
	// `beegfs entry` instead of beegfs-ctl.
	Version string
	// TLSDisable (8) runs the beegfs command without TLS, for a
	// management service with tls-disable.
	TLSDisable bool
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
		return fmt.Errorf("%w: chunk_size_bytes %d: a power of two of at least 65536 (64 KiB)", ErrInvalid, s.ChunkSize)
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

// SetPatternArgv is the command that sets the pattern: BeeGFS 7.x
// beegfs-ctl --setpattern, 8 `beegfs entry set` (the chunk size in bytes;
// the pattern raid0 or mirrored: beegfs-go ctl/internal/cmd/entry/flags.go).
func (s Stripe) SetPatternArgv() []string {
	if IsV8(s.Version) {
		return []string{"beegfs", cliTLS(s.TLSDisable), "entry", "set", "--pattern=" + map[bool]string{false: "raid0", true: "mirrored"}[s.BuddyMirror],
			fmt.Sprintf("--chunk-size=%d", s.ChunkSize), fmt.Sprintf("--num-targets=%d", s.NumTargets), fmt.Sprintf("--pool=%d", s.Pool), s.Dir()}
	}
	argv := []string{"beegfs-ctl", "--setpattern"}
	// Without --pattern beegfs-ctl sets raid0.
	if s.BuddyMirror {
		argv = append(argv, "--pattern=buddymirror")
	}
	return append(argv, "--chunksize="+chunkArg(s.ChunkSize), fmt.Sprintf("--numtargets=%d", s.NumTargets),
		fmt.Sprintf("--storagepoolid=%d", s.Pool), "--mount="+s.MountPoint, s.Dir())
}

// GetEntryInfoArgv reads the directory's pattern back (BeeGFS 8:
// `beegfs entry info --retro`, same output).
func (s Stripe) GetEntryInfoArgv() []string {
	if IsV8(s.Version) {
		return []string{"beegfs", cliTLS(s.TLSDisable), "entry", "info", "--retro", s.Dir()}
	}
	return []string{"beegfs-ctl", "--getentryinfo", s.Dir()}
}

// chunkAlternatives are the ways beegfs-ctl may print a chunk size.
func chunkAlternatives(b int64) string {
	alts := []string{strconv.FormatInt(b, 10), strconv.FormatInt(b>>10, 10) + "K"}
	if b%(1<<20) == 0 {
		alts = append(alts, strconv.FormatInt(b>>20, 10)+"M")
	}
	return strings.Join(alts, "|")
}

// Matchers are what `beegfs-ctl --getentryinfo` prints when the directory
// has this pattern: the setpattern command's unless_match guard.
func (s Stripe) Matchers() []string {
	return []string{
		// 8's retro output prints IEC prefixes: 512Ki, 1Mi.
		`(?mi)^\+ Chunksize: (?:` + chunkAlternatives(s.ChunkSize) + `)(?:i?B|i)?[ \t]*$`,
		fmt.Sprintf(`(?m)^\+ Number of storage targets: desired: %d(?:[; \t].*)?$`, s.NumTargets),
		fmt.Sprintf(`(?m)^\+ Storage Pool: %d(?:[ \t].*)?$`, s.Pool),
		`(?mi)^\+ Type: ` + map[bool]string{false: `RAID0`, true: `Buddy ?Mirror`}[s.BuddyMirror] + `[ \t]*$`,
	}
}

// stripeScript creates the directory, then runs the setpattern argv
// ("$@").
const stripeScript = `dir=$1; shift
mkdir -p "$dir" || exit 1
exec "$@"`

// Items: set the pattern unless the directory already has it (read back
// with beegfs-ctl --getentryinfo), creating the directory if needed. A
// pattern changed by hand is set again by the next apply.
func (s Stripe) Items() ([]protocol.Item, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := CheckVersion(s.Version); err != nil {
		return nil, err
	}
	argv := append([]string{"/bin/sh", "-c", stripeScript, "hpcstorage-stripe", s.Dir()}, s.SetPatternArgv()...)
	return []protocol.Item{{Command: &protocol.Command{Name: "setpattern", Argv: argv, Unless: s.GetEntryInfoArgv(),
		UnlessMatch: s.Matchers()}}}, nil
}

// ProbeItem is the read-only query whose output ParseEntryInfo reads.
func (s Stripe) ProbeItem() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "getentryinfo", Argv: s.GetEntryInfoArgv(), ReadOnly: true}}
}

// IsBuddyMirror reports a buddy mirror pattern (7.x prints "Buddy Mirror",
// BeeGFS 8's table "BUDDYMIRROR" or "mirrored").
func (p Pattern) IsBuddyMirror() bool {
	t := strings.ReplaceAll(p.Type, " ", "")
	return t == "BUDDYMIRROR" || t == "MIRRORED"
}

// Pattern is a stripe pattern as BeeGFS reports it.
type Pattern struct {
	Type       string // RAID0, BUDDYMIRROR
	ChunkSize  int64
	NumTargets int
	Pool       int
}

var (
	reV8Pattern = regexp.MustCompile(`(?i)\b(RAID0|BUDDYMIRROR|mirrored)\s*\((\d+)\s*x\s*([0-9]+\s*[KMG]?(?:i?B)?)\)`)
	reV8Pool    = regexp.MustCompile(`(\S+)\s+\((\d+)\)`)
)

// ParseEntryInfo reads the stripe pattern from `beegfs-ctl --getentryinfo`
// (BeeGFS 7.x, and `beegfs entry info --retro` of BeeGFS 8) or from the
// table `beegfs entry info` prints by default in BeeGFS 8 (columns STORAGE
// POOL "default (1)" and STRIPE PATTERN "RAID0 (4x1M)").
func ParseEntryInfo(out string) (Pattern, error) {
	var p Pattern
	var haveChunk, haveTargets, havePool bool
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "+ "), ":")
		if !ok || !strings.HasPrefix(l, "+ ") {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "type":
			p.Type = strings.ToUpper(v)
		case "chunksize":
			n, err := parseSize(v)
			if err != nil {
				return p, fmt.Errorf("chunksize: %w", err)
			}
			p.ChunkSize, haveChunk = n, true
		case "number of storage targets":
			// "desired: 4" or "desired: 4; actual: 4"
			d, _, _ := strings.Cut(strings.TrimPrefix(v, "desired:"), ";")
			n, err := strconv.Atoi(strings.TrimSpace(d))
			if err != nil {
				return p, fmt.Errorf("number of storage targets %q: %w", v, err)
			}
			p.NumTargets, haveTargets = n, true
		case "storage pool":
			f := strings.Fields(v)
			if len(f) == 0 {
				return p, fmt.Errorf("storage pool %q", v)
			}
			n, err := strconv.Atoi(f[0])
			if err != nil {
				return p, fmt.Errorf("storage pool %q: %w", v, err)
			}
			p.Pool, havePool = n, true
		}
	}
	if !haveChunk && !haveTargets {
		// BeeGFS 8 table: the first data row after the header.
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			if !strings.Contains(l, "STRIPE PATTERN") {
				continue
			}
			for _, row := range lines[i+1:] {
				m := reV8Pattern.FindStringSubmatchIndex(row)
				if m == nil {
					continue
				}
				p.Type = strings.ToUpper(row[m[2]:m[3]])
				n, _ := strconv.Atoi(row[m[4]:m[5]])
				size, err := parseSize(row[m[6]:m[7]])
				if err != nil {
					return p, fmt.Errorf("stripe pattern: %w", err)
				}
				p.NumTargets, p.ChunkSize, haveTargets, haveChunk = n, size, true, true
				if pools := reV8Pool.FindAllStringSubmatch(row[:m[0]], -1); len(pools) > 0 {
					p.Pool, _ = strconv.Atoi(pools[len(pools)-1][2])
					havePool = true
				}
				break
			}
			break
		}
	}
	var missing []string
	for _, f := range []struct {
		ok   bool
		name string
	}{{haveChunk, "chunk size"}, {haveTargets, "number of storage targets"}, {havePool, "storage pool"}} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return p, fmt.Errorf("no %s in the entry info: %q", strings.Join(missing, ", "), clip(out))
	}
	return p, nil
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// parseSize reads a chunk size (524288, 512k, 512K, 1M, 1MiB, 1 MiB).
func parseSize(s string) (int64, error) {
	// BeeGFS 8 prints IEC prefixes without the B: 512Ki, 1Mi.
	if t := strings.TrimSpace(s); len(t) > 2 && strings.HasSuffix(t, "i") && strings.ContainsRune("KMGkmg", rune(t[len(t)-2])) {
		s = t[:len(t)-1]
	}
	v, err := bytesize.Parse(s)
	if err == nil && v <= 0 {
		err = fmt.Errorf("size %q: want a positive size", s)
	}
	return v, err
}

// StripeOwnerSuffix names the agent owner of one directory's pattern
// (owners are at most 63 characters, so a hash).
func StripeOwnerSuffix(mountPoint, dir string) string {
	s := Stripe{MountPoint: mountPoint, Path: dir}
	sum := sha256.Sum256([]byte(s.Dir()))
	return hex.EncodeToString(sum[:6])
}
