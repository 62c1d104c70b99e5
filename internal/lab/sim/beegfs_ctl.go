package sim

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
)

// beegfsCtl follows beegfs-ctl of BeeGFS 7.x (beegfs-ctl --help
// setpattern / getentryinfo): `--setpattern [--chunksize=C]
// [--numtargets=N] [--storagepoolid=P] DIR` sets DIR's pattern (options
// not given keep DIR's current values; a chunk size must be a power of
// two of at least 64k), `--getentryinfo PATH` prints it in 7.x's format;
// a directory without a pattern of its own inherits its nearest
// ancestor's, else the defaults (512K chunks, 4 targets, pool 1);
// `--pattern=raid0|buddymirror` sets the type (default raid0) (getentryinfo prints RAID0 or
// Buddy Mirror; other pattern names are refused). The mirror modes
// (--addmirrorgroup, --listmirrorgroups, --mirrormd, --listnodes of
// clients) are in beegfs_mirror.go. Other modes succeed without effect
// and, as queries, exit 1.
//
// Stripe patterns are file-system metadata: StripePath (under DataDir)
// survives reboots.

// StripePath holds one pattern per directory.
const StripePath = DataDir + "/beegfs-stripe.json"

// Stripe is one directory's pattern.
type Stripe struct {
	ChunkSize  int64 `json:"chunk_size"`
	NumTargets int   `json:"num_targets"`
	Pool       int   `json:"pool"`
	// BuddyMirror is the buddymirror pattern (RAID0 when false).
	BuddyMirror bool `json:"buddy_mirror,omitempty"`
}

var defaultStripe = Stripe{ChunkSize: 512 << 10, NumTargets: 4, Pool: 1}

func (e *Env) loadStripes() (map[string]Stripe, error) {
	m := map[string]Stripe{}
	data, err := e.read(StripePath)
	if err != nil || data == nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", StripePath, err)
	}
	return m, nil
}

// stripeOf is the pattern of dir: its own or its nearest ancestor's.
func stripeOf(m map[string]Stripe, dir string) Stripe {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		if st, ok := m[d]; ok {
			return st
		}
		if d == "/" || d == "." {
			return defaultStripe
		}
	}
}

// FormatChunk is how beegfs-ctl prints a chunk size: 512K, 1M.
func FormatChunk(b int64) string {
	if b%(1<<20) == 0 {
		return strconv.FormatInt(b>>20, 10) + "M"
	}
	if b%(1<<10) == 0 {
		return strconv.FormatInt(b>>10, 10) + "K"
	}
	return strconv.FormatInt(b, 10)
}

func beegfsCtl(e *Env, args []string) int {
	opts := map[string]string{}
	var pos []string
	for _, a := range args {
		if k, ok := strings.CutPrefix(a, "--"); ok {
			k, v, _ := strings.Cut(k, "=")
			opts[k] = v
			continue
		}
		pos = append(pos, a)
	}
	if code, ok := beegfsMirror(e, opts); ok {
		return code
	}
	_, set := opts["setpattern"]
	_, get := opts["getentryinfo"]
	if !set && !get {
		return 1
	}
	if len(pos) != 1 || !path.IsAbs(pos[0]) {
		return e.fail(1, "want one absolute path, got %q", pos)
	}
	m, err := e.loadStripes()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	dir := path.Clean(pos[0])
	st := stripeOf(m, dir)
	if get {
		sum := sha256.Sum256([]byte(dir))
		pool := strconv.Itoa(st.Pool)
		if st.Pool == 1 {
			pool += " (Default)"
		}
		typ := "RAID0"
		if st.BuddyMirror {
			typ = "Buddy Mirror"
		}
		fmt.Fprintf(e.Stdout, "Entry type: directory\nEntryID: %X-%X-1\nMetadata node: hpcstorage-sim [ID: 1]\n"+
			"Stripe pattern details:\n+ Type: %s\n+ Chunksize: %s\n+ Number of storage targets: desired: %d\n"+
			"+ Storage Pool: %s\n", sum[:2], sum[2:6], typ, FormatChunk(st.ChunkSize), st.NumTargets, pool)
		return 0
	}
	if v, ok := opts["chunksize"]; ok {
		if st.ChunkSize, err = bytesize.Parse(v); err != nil {
			return e.fail(1, "%v", err)
		}
		if st.ChunkSize < 64<<10 || st.ChunkSize&(st.ChunkSize-1) != 0 {
			return e.fail(1, "invalid chunksize %s: a power of two of at least 64k", v)
		}
	}
	// Without --pattern, setpattern sets beegfs-ctl's default, raid0.
	st.BuddyMirror = false
	if v, ok := opts["pattern"]; ok {
		switch v {
		case "raid0":
			st.BuddyMirror = false
		case "buddymirror":
			st.BuddyMirror = true
		default:
			return e.fail(1, "invalid pattern %q: want raid0 or buddymirror", v)
		}
	}
	if v, ok := opts["numtargets"]; ok {
		if st.NumTargets, err = strconv.Atoi(v); err != nil || st.NumTargets < 1 {
			return e.fail(1, "invalid numtargets %q", v)
		}
	}
	if v, ok := opts["storagepoolid"]; ok {
		if st.Pool, err = strconv.Atoi(v); err != nil || st.Pool < 1 {
			return e.fail(1, "invalid storagepoolid %q", v)
		}
	}
	m[dir] = st
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	if err := e.write(StripePath, append(data, '\n')); err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}
