package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"

	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// FileSystem is what mmcrfs creates.
type FileSystem struct {
	Device    string
	BlockSize string // -B, e.g. "8M"
	// MetaBlockSize is --metadata-block-size: the system pool's own block
	// size ("" or BlockSize: one size everywhere). GPFS allows it only
	// when every system-pool disk is metadataOnly.
	MetaBlockSize string
	LayoutMap     string // -j
	MetaRepl      int    // -m
	MaxMeta       int    // -M
	DataRepl      int    // -r
	MaxData       int    // -R
	NumNodes      int    // -n
	MountPoint    string // -T
	AutoMount     bool   // -A yes|no
	Disks         []NSD  // stanza content (name, usage, failure group, pool)
	Pools         []Pool
	// Policy is the placement policy text ("" when none).
	Policy string
	// MaxBlockSize is the cluster's maxblocksize in bytes (0: unknown).
	MaxBlockSize int64
	// Version is the Storage Scale version ("": DefaultVersion): mmcrfs
	// gets only the options it lists.
	Version string
	// AutoInodeLimit is --auto-inode-limit (5.1.6 and later): GPFS raises
	// the inode limit as files are created.
	AutoInodeLimit bool
}

// MmcrfsArgv creates the file system from a stanza file.
func (f FileSystem) MmcrfsArgv(stanzaFile string) []string {
	a := "no"
	if f.AutoMount {
		a = "yes"
	}
	argv := []string{"mmcrfs", f.Device, "-F", stanzaFile, "-B", f.BlockSize, "-j", f.LayoutMap,
		"-m", strconv.Itoa(f.MetaRepl), "-M", strconv.Itoa(f.MaxMeta), "-r", strconv.Itoa(f.DataRepl),
		"-R", strconv.Itoa(f.MaxData), "-n", strconv.Itoa(f.NumNodes), "-T", f.MountPoint, "-A", a}
	if f.separateMetaBlocks() && hasMetadataBlockSize(f.Version) {
		argv = append(argv, "--metadata-block-size", f.MetaBlockSize)
	}
	if f.AutoInodeLimit && hasAutoInodeLimit(f.Version) {
		argv = append(argv, "--auto-inode-limit")
	}
	return argv
}

// separateMetaBlocks is true when the system pool gets its own block size.
func (f FileSystem) separateMetaBlocks() bool {
	return f.MetaBlockSize != "" && !sizeEq(f.MetaBlockSize, f.BlockSize)
}

// blockSizes are the block sizes mmcrfs -B and --metadata-block-size take.
var blockSizes = []int64{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}

// SubblockOf is the subblock size GPFS 5.x gives a block size (IBM's
// table: 64K: 2K, 128K: 4K, 256K to 4M: 8K, 8M and 16M: 16K).
func SubblockOf(bs int64) int64 {
	switch {
	case bs <= 64<<10:
		return 2 << 10
	case bs <= 128<<10:
		return 4 << 10
	case bs <= 4<<20:
		return 8 << 10
	}
	return 16 << 10
}

// Subblocks is what mmlsfs -f and --subblocks-per-full-block will show:
// every pool has the same number of subblocks per block, the smaller of
// the two block sizes' counts, so the data pools' subblock is their block
// size over it. 8M alone: 512 of 16K; 8M with 2M metadata: 256 of 32K.
func (f FileSystem) Subblocks() (perBlock, dataSubblock int64, err error) {
	bs, err := ParseSize(f.BlockSize)
	if err != nil {
		return 0, 0, err
	}
	md := bs
	if f.separateMetaBlocks() {
		if md, err = ParseSize(f.MetaBlockSize); err != nil {
			return 0, 0, err
		}
	}
	n := min(bs/SubblockOf(bs), md/SubblockOf(md))
	return n, bs / n, nil
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
		ps.add(located.At("device"), "%q is not a file system device name (letters, digits, underscores)", f.Device)
	}
	bs, err := ParseSize(f.BlockSize)
	if err != nil {
		ps.add(located.At("block_size"), "%v", err)
	} else {
		if !slices.Contains(blockSizes, bs) {
			ps.add(located.At("block_size"), "%s is not a GPFS block size (64K, 128K, 256K, 512K, 1M, 2M, 4M, 8M or 16M)", f.BlockSize)
		} else if f.MaxBlockSize > 0 && bs > f.MaxBlockSize {
			ps.add(located.At("block_size"), "block size %s is above the cluster's maxblocksize %s: mmcrfs would fail with 6027-1084 "+
				"(set maxblocksize=%s in the cluster's config first; it restarts the daemons)", f.BlockSize,
				FormatSize(f.MaxBlockSize), f.BlockSize)
		}
	}
	if !ValidVersion(versionOr(f.Version)) {
		ps.add(located.At("version"), "%q is not one of %s", f.Version, strings.Join(Versions, ", "))
	}
	if f.separateMetaBlocks() {
		mb, err := ParseSize(f.MetaBlockSize)
		switch {
		case err != nil:
			ps.add(located.At("metadata_block_size"), "%v", err)
		case !slices.Contains(blockSizes, mb):
			ps.add(located.At("metadata_block_size"), "%s is not a GPFS block size (64K, 128K, 256K, 512K, 1M, 2M, 4M, 8M or 16M)", f.MetaBlockSize)
		case f.MaxBlockSize > 0 && mb > f.MaxBlockSize:
			ps.add(located.At("metadata_block_size"), "block size %s is above the cluster's maxblocksize %s (6027-1084)", f.MetaBlockSize, FormatSize(f.MaxBlockSize))
		}
		for i, d := range f.Disks {
			if poolOf(d) == SystemPool && d.Usage != MetadataOnly {
				ps.add(located.At("metadata_block_size"), "the system pool can have its own block size only when all its NSDs are %s; "+
					"disks[%d] (%s) is %s", MetadataOnly, i, d.Name, d.Usage)
				break
			}
		}
	}
	if !slices.Contains(LayoutMaps, f.LayoutMap) {
		ps.add(located.At("allocation"), "%q is not one of %s", f.LayoutMap, strings.Join(LayoutMaps, ", "))
	}
	if !strings.HasPrefix(f.MountPoint, "/") {
		ps.add(located.At("mount_point"), "%q is not an absolute path", f.MountPoint)
	}
	repl := func(lo, hi int, loName, hiName string) {
		switch {
		case lo < 1 || lo > MaxReplicas:
			ps.add(located.At(loName), "%d replicas: want 1 to %d", lo, MaxReplicas)
		case hi < 1 || hi > MaxReplicas:
			ps.add(located.At(hiName), "%d replicas: want 1 to %d", hi, MaxReplicas)
		case lo > hi:
			ps.add(located.At(loName), "%d default replicas is more than the maximum %s = %d", lo, hiName, hi)
		}
	}
	repl(f.MetaRepl, f.MaxMeta, "metadata_replicas", "max_metadata_replicas")
	repl(f.DataRepl, f.MaxData, "data_replicas", "max_data_replicas")
	if f.NumNodes < 1 {
		ps.add(located.At("num_nodes"), "%d: want at least 1", f.NumNodes)
	}
	if len(f.Disks) == 0 {
		ps.add(located.At("disks"), "a file system needs at least one NSD")
	}
	seen := map[string]int{}
	metaFG, dataFG := map[int]bool{}, map[int]bool{}
	pools := map[string]bool{SystemPool: true}
	for _, p := range f.Pools {
		pools[p.Name] = true
	}
	for i, d := range f.Disks {
		at := func(s string) located.Path { return located.At("disks").Index(i).Name(s) }
		if j, dup := seen[d.Name]; dup {
			ps.add(at("nsd"), "NSD %s is listed twice (disks[%d])", d.Name, j)
		}
		seen[d.Name] = i
		if !slices.Contains(Usages, d.Usage) {
			ps.add(at("usage"), "usage %q is not one of %s%s", d.Usage, strings.Join(Usages, ", "), didYouMean(d.Usage, Usages))
		}
		if d.Usage != DataOnly && slices.Contains(Usages, d.Usage) && poolOf(d) != SystemPool {
			ps.add(at("usage"), "NSD %s is %s in pool %s: metadata lives in the system pool only (mmcrfs and mmadddisk "+
				"refuse it); make it %s, or put it in pool system", d.Name, d.Usage, poolOf(d), DataOnly)
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
			ps.add(located.At("disks"), "no NSD holds metadata: give the system pool metadataOnly or dataAndMetadata NSDs")
		}
		// Replicas are written to distinct failure groups: the default
		// count needs that many now (the maximum only bounds later changes).
		if f.MetaRepl > len(metaFG) && len(metaFG) > 0 {
			ps.add(located.At("metadata_replicas"), "%d metadata replicas need as many failure groups among the metadata NSDs; they have %d",
				f.MetaRepl, len(metaFG))
		}
		if f.DataRepl > len(dataFG) && len(dataFG) > 0 {
			ps.add(located.At("data_replicas"), "%d data replicas need as many failure groups among the data NSDs; they have %d",
				f.DataRepl, len(dataFG))
		}
	}
	for i, p := range f.Pools {
		if p.Name == SystemPool {
			continue
		}
		if pb, err := ParseSize(p.BlockSize); err != nil {
			ps.add(located.At("pools").Index(i).Name("block_size"), "%v", err)
		} else if f.MaxBlockSize > 0 && pb > f.MaxBlockSize {
			ps.add(located.At("pools").Index(i).Name("block_size"), "block size %s is above the cluster's maxblocksize %s (6027-1084)",
				p.BlockSize, FormatSize(f.MaxBlockSize))
		}
		if !slices.Contains(LayoutMaps, p.LayoutMap) {
			ps.add(located.At("pools").Index(i).Name("layout_map"), "%q is not one of %s", p.LayoutMap, strings.Join(LayoutMaps, ", "))
		}
	}
	if f.NeedsPolicy() {
		if strings.TrimSpace(f.Policy) == "" {
			ps.add(located.At("placement_policy"), "data goes to pool(s) %s, not system: a placement policy must say which files go there "+
				"(without one every file lands in system, which holds metadata only here)", strings.Join(f.DataPools(), ", "))
		}
	}
	for _, p := range policyPools(f.Policy) {
		if !pools[p] {
			ps.add(located.At("placement_policy"), "the policy places files in pool %s, which no NSD of this file system is in", p)
		}
	}
	return ps
}

// CreateProblems are the settings the version's mmcrfs cannot express
// (checked before a file system is created; an existing one keeps what
// it was created with across an upgrade).
func (f FileSystem) CreateProblems() Problems {
	var ps Problems
	if f.AutoInodeLimit && !hasAutoInodeLimit(f.Version) {
		ps.add(located.At("auto_inode_limit"), "Storage Scale %s's mmcrfs has no --auto-inode-limit (added in 5.1.6): set version to 5.1 or later, "+
			"or leave auto_inode_limit unset", versionOr(f.Version))
	}
	if f.separateMetaBlocks() && !hasMetadataBlockSize(f.Version) {
		ps.add(located.At("metadata_block_size"), "Storage Scale %s's mmcrfs has no --metadata-block-size and nothing replaces it: the "+
			"system pool's own block size (%s, the paper's) cannot be had; leave metadata_block_size unset (one block size "+
			"everywhere) or create the file system with version 5.2", versionOr(f.Version), f.MetaBlockSize)
	}
	return ps
}

// FSSeen is a file system as read back; Exists false when mmlsfs does not
// know the device.
type FSSeen struct {
	Exists  bool
	Attrs   map[string]string // mmlsfs -Y, by field name
	Disks   []Disk            // mmlsdisk -Y
	Mounted bool              // mmlsmount -Y lists a node
	Policy  string            // mmlspolicy -L
}

// diskNames are the names of seen disks.
func (s FSSeen) diskSet() map[string]Disk {
	m := map[string]Disk{}
	for _, d := range s.Disks {
		m[d.Name] = d
	}
	return m
}

// NewDisks are the configured NSDs the file system does not have yet, in
// configuration order.
func (f FileSystem) NewDisks(seen FSSeen) []NSD {
	have := seen.diskSet()
	var out []NSD
	for _, d := range f.Disks {
		if _, ok := have[d.Name]; !ok {
			out = append(out, d)
		}
	}
	return out
}

// FSSteps bring seen to f. A new file system is created from every NSD
// (mmcrfs), gets its placement policy and is mounted everywhere. An
// existing one gets ONE mmadddisk with exactly the NSDs it lacks (then
// mmrestripefs -b when rebalance), never touching the others; NSDs in
// remove are deleted with one mmdeldisk (GPFS migrates their data first).
func (f FileSystem) FSSteps(seen FSSeen, remove []string, rebalance bool, dir string) []Step {
	var steps []Step
	policyFile := dir + "/policy"
	if !seen.Exists {
		sf := dir + "/mmcrfs.stanza"
		q, m := guardFS(f.Device)
		steps = append(steps, guarded(Step{Name: "mmcrfs", Argv: f.MmcrfsArgv(sf), Files: map[string]string{sf: StanzaFile(f.Disks, f.Pools)}}, q, m))
		if f.Policy != "" {
			q, m := guardPolicy(f.Device, f.Policy)
			steps = append(steps, guarded(Step{Name: "mmchpolicy", Argv: []string{"mmchpolicy", f.Device, policyFile},
				Files: map[string]string{policyFile: f.Policy}}, q, m))
		}
		q, m = guardMounted(f.Device)
		return append(steps, guarded(Step{Name: "mmmount", Argv: []string{"mmmount", f.Device, "-a"}}, q, m))
	}
	rf := RebalanceFile(dir)
	if add := f.NewDisks(seen); len(add) > 0 {
		af := dir + "/mmadddisk.stanza"
		var names []string
		for _, d := range add {
			names = append(names, d.Name)
		}
		q, m := guardDisks(f.Device, names)
		if rebalance {
			// The rebalance is recorded before the disks go in: a run
			// killed between mmadddisk and mmrestripefs finds the disks
			// added (mmadddisk is not sent again) and the record, and
			// restripes.
			steps = append(steps, guarded(Step{Name: "rebalance-pending", Argv: append([]string{"/bin/sh", "-c",
				`f=$1; shift; mkdir -p "${f%/*}" && printf '%s\n' "$@" >"$f"`, "gpfs-record", rf}, names...)}, q, m))
		}
		steps = append(steps, guarded(Step{Name: "mmadddisk", Argv: MmadddiskArgv(f.Device, af, false), Files: map[string]string{af: StanzaFile(add, newPools(f.Pools, seen))}}, q, m))
	}
	if rebalance {
		steps = append(steps, Step{Name: "mmrestripefs", Argv: []string{"mmrestripefs", f.Device, "-b"}, Pending: rf})
	}
	have := seen.diskSet()
	var gone []string
	for _, n := range sorted(remove) {
		if _, ok := have[n]; ok {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		steps = append(steps, once(Step{Name: "mmdeldisk", Argv: MmdeldiskArgv(f.Device, gone)}))
	}
	if f.Policy != "" && !samePolicy(f.Policy, seen.Policy) {
		q, m := guardPolicy(f.Device, f.Policy)
		steps = append(steps, guarded(Step{Name: "mmchpolicy", Argv: []string{"mmchpolicy", f.Device, policyFile},
			Files: map[string]string{policyFile: f.Policy}}, q, m))
	}
	// After the cluster's release=LATEST: the format follows the version.
	if ReleaseBelow(FSLevel(seen.Attrs["filesystemVersion"]), f.Version) {
		steps = append(steps, FormatUpgradeStep(f.Device))
	}
	if !seen.Mounted {
		q, m := guardMounted(f.Device)
		steps = append(steps, guarded(Step{Name: "mmmount", Argv: []string{"mmmount", f.Device, "-a"}}, q, m))
	}
	return steps
}

// RebalanceFile records, on the admin node, the disks an mmadddisk added
// that mmrestripefs -b has not rebalanced onto yet.
func RebalanceFile(dir string) string { return dir + "/rebalance.pending" }

// DeleteFSSteps take seen away: mmumount -a while a node mounts it (mmdelfs
// refuses a mounted file system), then mmdelfs. Both effects are absences
// no -Y query can guard, so they are Once, decided from this read-back: a
// destroy killed after mmdelfs reads the file system gone and sends none.
func DeleteFSSteps(device string, seen FSSeen) []Step {
	if !seen.Exists {
		return nil
	}
	var steps []Step
	if seen.Mounted {
		steps = append(steps, once(Step{Name: "mmumount", Argv: []string{"mmumount", device, "-a"}}))
	}
	return append(steps, once(Step{Name: "mmdelfs", Argv: []string{"mmdelfs", device}}))
}

// newPools are the %pool stanzas of pools the file system has no disk in
// yet (mmadddisk creates a pool from its stanza).
func newPools(pools []Pool, seen FSSeen) []Pool {
	have := map[string]bool{}
	for _, d := range seen.Disks {
		have[d.Pool] = true
	}
	var out []Pool
	for _, p := range pools {
		if !have[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// samePolicy compares a policy with what mmlspolicy -L prints: every rule
// line of the policy must be there.
func samePolicy(want, got string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	g := norm(got)
	for _, l := range strings.Split(want, "\n") {
		if l = norm(l); l != "" && !strings.HasPrefix(l, "/*") && !strings.Contains(g, l) {
			return false
		}
	}
	return true
}

// FSDrift lists what differs between f and seen: the mmcrfs settings,
// missing or unexpected disks (usage, failure group, pool), the policy and
// the mount.
func (f FileSystem) FSDrift(seen FSSeen) map[string]string {
	d := map[string]string{}
	if !seen.Exists {
		d["filesystem"] = "not found: mmlsfs does not know " + f.Device
		return d
	}
	if lvl := FSLevel(seen.Attrs["filesystemVersion"]); ReleaseBelow(lvl, f.Version) {
		d["version"] = fmt.Sprintf("format level %s is below version %s (mmchfs -V full)", lvl, versionOr(f.Version))
	}
	bs, _ := ParseSize(f.BlockSize)
	for _, c := range []struct{ field, want string }{
		{"blockSize", strconv.FormatInt(bs, 10)}, {"blockAllocationType", f.LayoutMap},
		{"defaultMetadataReplicas", strconv.Itoa(f.MetaRepl)}, {"maxMetadataReplicas", strconv.Itoa(f.MaxMeta)},
		{"defaultDataReplicas", strconv.Itoa(f.DataRepl)}, {"maxDataReplicas", strconv.Itoa(f.MaxData)},
		{"defaultMountPoint", f.MountPoint},
	} {
		got, ok := seen.Attrs[c.field]
		if ok && got != c.want && !(c.field == "blockSize" && sizeEq(got, c.want)) {
			d["mmlsfs:"+c.field] = fmt.Sprintf("%s, want %s", got, c.want)
		}
	}
	if f.separateMetaBlocks() {
		mb, _ := ParseSize(f.MetaBlockSize)
		if got, ok := seen.Attrs["blockSize/system pool"]; !ok || !sizeEq(got, strconv.FormatInt(mb, 10)) {
			d["mmlsfs:blockSize/system pool"] = fmt.Sprintf("%s, want %d", got, mb)
		}
	}
	have := seen.diskSet()
	want := map[string]bool{}
	for _, n := range f.Disks {
		want[n.Name] = true
		g, ok := have[n.Name]
		switch {
		case !ok:
			d["disk:"+n.Name] = "not in the file system"
		case g.Usage() != n.Usage:
			d["disk:"+n.Name] = fmt.Sprintf("usage %s, want %s", g.Usage(), n.Usage)
		case g.Pool != poolOf(n):
			d["disk:"+n.Name] = fmt.Sprintf("pool %s, want %s", g.Pool, poolOf(n))
		case g.FailureGroup != strconv.Itoa(n.FailureGroup):
			d["disk:"+n.Name] = fmt.Sprintf("failure group %s, want %d", g.FailureGroup, n.FailureGroup)
		}
	}
	for _, g := range seen.Disks {
		if !want[g.Name] {
			d["disk:"+g.Name] = "in the file system, not configured"
		}
	}
	if f.Policy != "" && !samePolicy(f.Policy, seen.Policy) {
		d["policy"] = "the installed placement policy differs"
	}
	if !seen.Mounted {
		d["mount"] = "not mounted on any node"
	}
	return d
}

func sizeEq(a, b string) bool {
	x, err1 := ParseSize(a)
	y, err2 := ParseSize(b)
	return err1 == nil && err2 == nil && x == y
}

// ParseMounted reads mmlsmount DEV -Y: true when a node has it mounted.
func ParseMounted(out string) (bool, error) {
	p, err := ParseY(out)
	if err != nil {
		return false, err
	}
	for _, t := range p {
		if t.Command == "mmlsmount" && len(t.Rows) > 0 {
			return true, nil
		}
	}
	return false, nil
}
