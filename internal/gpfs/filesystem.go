package gpfs

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// FileSystem is what mmcrfs creates.
type FileSystem struct {
	Device     string
	BlockSize  string // -B, e.g. "8M"
	LayoutMap  string // -j
	MetaRepl   int    // -m
	MaxMeta    int    // -M
	DataRepl   int    // -r
	MaxData    int    // -R
	NumNodes   int    // -n
	MountPoint string // -T
	AutoMount  bool   // -A yes|no
	Disks      []NSD  // stanza content (name, usage, failure group, pool)
	Pools      []Pool
	// Policy is the placement policy text ("" when none).
	Policy string
	// MaxBlockSize is the cluster's maxblocksize in bytes (0: unknown).
	MaxBlockSize int64
}

// MmcrfsArgv creates the file system from a stanza file.
func (f FileSystem) MmcrfsArgv(stanzaFile string) []string {
	a := "no"
	if f.AutoMount {
		a = "yes"
	}
	return []string{"mmcrfs", f.Device, "-F", stanzaFile, "-B", f.BlockSize, "-j", f.LayoutMap,
		"-m", strconv.Itoa(f.MetaRepl), "-M", strconv.Itoa(f.MaxMeta), "-r", strconv.Itoa(f.DataRepl),
		"-R", strconv.Itoa(f.MaxData), "-n", strconv.Itoa(f.NumNodes), "-T", f.MountPoint, "-A", a}
}

// MmadddiskArgv adds the NSDs of a stanza file.
func MmadddiskArgv(device, stanzaFile string, restripe bool) []string {
	argv := []string{"mmadddisk", device, "-F", stanzaFile}
	if restripe {
		argv = append(argv, "-r")
	}
	return argv
}

// MmdeldiskArgv removes NSDs (GPFS migrates their data first).
func MmdeldiskArgv(device string, nsds []string) []string {
	return []string{"mmdeldisk", device, strings.Join(nsds, ";")}
}

// DataPools are the pools data goes to, sorted (system first when used).
func (f FileSystem) DataPools() []string {
	set := map[string]bool{}
	for _, d := range f.Disks {
		if d.Usage == DataOnly || d.Usage == DataAndMetadata || d.Usage == "" {
			set[poolOf(d)] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] == SystemPool || out[j] != SystemPool && out[i] < out[j] })
	return out
}

func poolOf(d NSD) string {
	if d.Pool == "" {
		return SystemPool
	}
	return d.Pool
}

// NeedsPolicy is true when data can go to a pool other than system: files
// land in system unless a placement rule says otherwise, and a
// metadata-only system pool cannot hold them.
func (f FileSystem) NeedsPolicy() bool {
	for _, p := range f.DataPools() {
		if p != SystemPool {
			return true
		}
	}
	return false
}

// DefaultPolicy places every file in the first data pool other than
// system (the pool all of R5's data LUNs are in).
func (f FileSystem) DefaultPolicy() string {
	for _, p := range f.DataPools() {
		if p != SystemPool {
			return PlacementPolicy(p)
		}
	}
	return ""
}

// PlacementPolicy is a policy with one default placement rule.
func PlacementPolicy(pool string) string {
	return fmt.Sprintf("/* Written by hpcstorage: new files go to pool %s. */\nRULE 'default' SET POOL '%s'\n", pool, pool)
}

// policyPools lists the pools a policy's SET POOL rules name.
func policyPools(policy string) []string {
	var out []string
	rest := policy
	for {
		i := strings.Index(strings.ToUpper(rest), "SET POOL")
		if i < 0 {
			return out
		}
		rest = strings.TrimLeft(rest[i+len("SET POOL"):], " \t")
		if len(rest) > 0 && (rest[0] == '\'' || rest[0] == '"') {
			q := rest[0]
			if j := strings.IndexByte(rest[1:], q); j >= 0 {
				out = append(out, rest[1:1+j])
				rest = rest[2+j:]
			}
		}
	}
}

// Validate checks the plan-time rules; attrs are the filesystem
// resource's attribute names.
func (f FileSystem) Validate() Problems {
	var ps Problems
	if !validName(f.Device, "") || f.Device[0] >= '0' && f.Device[0] <= '9' {
		ps.add("device", "%q is not a file system device name (letters, digits, underscores)", f.Device)
	}
	bs, err := ParseSize(f.BlockSize)
	if err != nil {
		ps.add("block_size", "%v", err)
	} else {
		if !slices.Contains([]int64{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}, bs) {
			ps.add("block_size", "%s is not a GPFS block size (64K, 128K, 256K, 512K, 1M, 2M, 4M, 8M or 16M)", f.BlockSize)
		} else if f.MaxBlockSize > 0 && bs > f.MaxBlockSize {
			ps.add("block_size", "block size %s is above the cluster's maxblocksize %s: mmcrfs would fail with 6027-1084 "+
				"(set maxblocksize=%s in the cluster's config first; it restarts the daemons)", f.BlockSize,
				FormatSize(f.MaxBlockSize), f.BlockSize)
		}
	}
	if !slices.Contains(LayoutMaps, f.LayoutMap) {
		ps.add("allocation", "%q is not one of %s", f.LayoutMap, strings.Join(LayoutMaps, ", "))
	}
	if !strings.HasPrefix(f.MountPoint, "/") {
		ps.add("mount_point", "%q is not an absolute path", f.MountPoint)
	}
	repl := func(lo, hi int, loName, hiName string) {
		switch {
		case lo < 1 || lo > MaxReplicas:
			ps.add(loName, "%d replicas: want 1 to %d", lo, MaxReplicas)
		case hi < 1 || hi > MaxReplicas:
			ps.add(hiName, "%d replicas: want 1 to %d", hi, MaxReplicas)
		case lo > hi:
			ps.add(loName, "%d default replicas is more than the maximum %s = %d", lo, hiName, hi)
		}
	}
	repl(f.MetaRepl, f.MaxMeta, "metadata_replicas", "max_metadata_replicas")
	repl(f.DataRepl, f.MaxData, "data_replicas", "max_data_replicas")
	if f.NumNodes < 1 {
		ps.add("num_nodes", "%d: want at least 1", f.NumNodes)
	}
	if len(f.Disks) == 0 {
		ps.add("disks", "a file system needs at least one NSD")
	}
	seen := map[string]int{}
	metaFG, dataFG := map[int]bool{}, map[int]bool{}
	pools := map[string]bool{SystemPool: true}
	for _, p := range f.Pools {
		pools[p.Name] = true
	}
	for i, d := range f.Disks {
		at := func(s string) string { return fmt.Sprintf("disks[%d].%s", i, s) }
		if j, dup := seen[d.Name]; dup {
			ps.add(at("nsd"), "NSD %s is listed twice (disks[%d])", d.Name, j)
		}
		seen[d.Name] = i
		if !slices.Contains(Usages, d.Usage) {
			ps.add(at("usage"), "usage %q is not one of %s%s", d.Usage, strings.Join(Usages, ", "), didYouMean(d.Usage, Usages))
		}
		if !pools[poolOf(d)] {
			ps.add(at("pool"), "pool %s has no entry in pools (its block size and layout map)", poolOf(d))
		}
		if d.Usage != DataOnly {
			metaFG[d.FailureGroup] = true
		}
		if d.Usage != MetadataOnly {
			dataFG[d.FailureGroup] = true
		}
	}
	if len(f.Disks) > 0 {
		if len(metaFG) == 0 {
			ps.add("disks", "no NSD holds metadata: give the system pool metadataOnly or dataAndMetadata NSDs")
		}
		if f.MaxMeta > len(metaFG) && len(metaFG) > 0 {
			ps.add("max_metadata_replicas", "%d metadata replicas need as many failure groups among the metadata NSDs; they have %d",
				f.MaxMeta, len(metaFG))
		}
		if f.MaxData > len(dataFG) && len(dataFG) > 0 {
			ps.add("max_data_replicas", "%d data replicas need as many failure groups among the data NSDs; they have %d",
				f.MaxData, len(dataFG))
		}
	}
	for i, p := range f.Pools {
		if p.Name == SystemPool {
			continue
		}
		if pb, err := ParseSize(p.BlockSize); err != nil {
			ps.add(fmt.Sprintf("pools[%d].block_size", i), "%v", err)
		} else if f.MaxBlockSize > 0 && pb > f.MaxBlockSize {
			ps.add(fmt.Sprintf("pools[%d].block_size", i), "block size %s is above the cluster's maxblocksize %s (6027-1084)",
				p.BlockSize, FormatSize(f.MaxBlockSize))
		}
		if !slices.Contains(LayoutMaps, p.LayoutMap) {
			ps.add(fmt.Sprintf("pools[%d].layout_map", i), "%q is not one of %s", p.LayoutMap, strings.Join(LayoutMaps, ", "))
		}
	}
	if f.NeedsPolicy() {
		if strings.TrimSpace(f.Policy) == "" {
			ps.add("placement_policy", "data goes to pool(s) %s, not system: a placement policy must say which files go there "+
				"(without one every file lands in system, which holds metadata only here)", strings.Join(f.DataPools(), ", "))
		}
	}
	for _, p := range policyPools(f.Policy) {
		if !pools[p] {
			ps.add("placement_policy", "the policy places files in pool %s, which no NSD of this file system is in", p)
		}
	}
	return ps
}
