package runner

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// StripePath is the simulated BeeGFS stripe patterns of a fake client
// (what `beegfs-ctl --setpattern` set, what `--getentryinfo` prints): one
// entry per directory; a directory without one inherits its nearest
// ancestor's, else the BeeGFS defaults (512K chunks, 4 targets, pool 1).
const StripePath = "/run/hpcstorage-sim/beegfs-stripe.json"

// SimStripe is one directory's simulated stripe pattern.
type SimStripe struct {
	ChunkSize  int64 `json:"chunk_size"`
	NumTargets int   `json:"num_targets"`
	Pool       int   `json:"pool"`
}

var defaultStripe = SimStripe{ChunkSize: 512 << 10, NumTargets: 4, Pool: 1}

func (s Sim) loadStripes() (map[string]SimStripe, error) {
	m := map[string]SimStripe{}
	data, err := s.Root.ReadFile(StripePath)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", StripePath, err)
	}
	return m, nil
}

// stripeOf is the pattern of dir: its own or its nearest ancestor's.
func stripeOf(m map[string]SimStripe, dir string) SimStripe {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		if st, ok := m[d]; ok {
			return st
		}
		if d == "/" || d == "." {
			return defaultStripe
		}
	}
}

// beegfsArgs splits beegfs-ctl's arguments into --key[=value] options and
// positional words.
func beegfsArgs(args []string) (map[string]string, []string) {
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
	return opts, pos
}

// ParseSize reads a BeeGFS size: 524288, 512k, 512K, 1m, 1M, 1MiB.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional k, m or g", s)
	}
	return v * mult, nil
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

// beegfsCtl simulates `beegfs-ctl --setpattern`; other modes are recorded
// only.
func (s Sim) beegfsCtl(args []string) error {
	opts, pos := beegfsArgs(args)
	if _, ok := opts["setpattern"]; !ok {
		return nil
	}
	if len(pos) != 1 || !path.IsAbs(pos[0]) {
		return fmt.Errorf("setpattern: want one absolute path, got %q", pos)
	}
	m, err := s.loadStripes()
	if err != nil {
		return err
	}
	dir := path.Clean(pos[0])
	st := stripeOf(m, dir)
	if v, ok := opts["chunksize"]; ok {
		if st.ChunkSize, err = ParseSize(v); err != nil {
			return err
		}
		if st.ChunkSize < 64<<10 || st.ChunkSize&(st.ChunkSize-1) != 0 {
			return fmt.Errorf("invalid chunksize %s: a power of two of at least 64k", v)
		}
	}
	if v, ok := opts["numtargets"]; ok {
		if st.NumTargets, err = strconv.Atoi(v); err != nil || st.NumTargets < 1 {
			return fmt.Errorf("invalid numtargets %q", v)
		}
	}
	if v, ok := opts["storagepoolid"]; ok {
		if st.Pool, err = strconv.Atoi(v); err != nil || st.Pool < 1 {
			return fmt.Errorf("invalid storagepoolid %q", v)
		}
	}
	m[dir] = st
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if _, err := s.Root.MkdirAll(path.Dir(StripePath), 0o755); err != nil {
		return err
	}
	return s.write(StripePath, append(data, '\n'))
}

// beegfsCtlQuery answers `beegfs-ctl --getentryinfo PATH` in the 7.x
// format; other modes exit 1.
func (s Sim) beegfsCtlQuery(args []string) (string, int, error) {
	opts, pos := beegfsArgs(args)
	if _, ok := opts["getentryinfo"]; !ok || len(pos) != 1 || !path.IsAbs(pos[0]) {
		return "", 1, nil
	}
	m, err := s.loadStripes()
	if err != nil {
		return "", -1, err
	}
	dir := path.Clean(pos[0])
	st := stripeOf(m, dir)
	sum := sha256.Sum256([]byte(dir))
	pool := strconv.Itoa(st.Pool)
	if st.Pool == 1 {
		pool += " (Default)"
	}
	return fmt.Sprintf("Entry type: directory\nEntryID: %X-%X-1\nMetadata node: hpcstorage-sim [ID: 1]\n"+
		"Stripe pattern details:\n+ Type: RAID0\n+ Chunksize: %s\n+ Number of storage targets: desired: %d\n"+
		"+ Storage Pool: %s\n", sum[:2], sum[2:6], FormatChunk(st.ChunkSize), st.NumTargets, pool), 0, nil
}

// wrapped returns the argv a `sh -c SCRIPT NAME ARGS...` wrapper runs as
// "$@" (the convention of the provider's setup scripts): ARGS from the
// first word naming a command the simulation models. Nil when argv is no
// such wrapper.
func wrapped(argv []string) []string {
	if len(argv) < 5 || argv[1] != "-c" {
		return nil
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "dash":
	default:
		return nil
	}
	for i := 4; i < len(argv); i++ {
		if b := path.Base(argv[i]); b == "beegfs-ctl" || strings.HasPrefix(b, "mkfs.") {
			return argv[i:]
		}
	}
	return nil
}
