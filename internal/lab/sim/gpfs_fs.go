package sim

// File-system commands, after IBM Storage Scale 5.1's mmcrfs, mmlsfs,
// mmlsdisk, mmadddisk, mmdeldisk, mmrestripefs, mmchpolicy, mmlspolicy,
// mmmount, mmumount and mmlsmount:
//
//   - mmcrfs DEV -F STANZAFILE [-B BS] [-j cluster|scatter] [-m m] [-M M]
//     [-r r] [-R R] [-n N] [-T MOUNTPOINT] [-A yes|no|automount]
//     [--metadata-block-size BS]: refused for an existing device name; a
//     block size outside 64K..16M powers of two; a block size above the
//     maxblocksize in effect in the local daemon (6027-1084: maxblocksize
//     is set with mmchconfig and read when the daemon starts); the local
//     daemon not active; replication factors outside 1..3 or a default
//     above its maximum; a stanza NSD that does not exist, is already in a
//     file system or is listed twice; metadata (metadataOnly,
//     dataAndMetadata) outside the system pool; no metadata disk in the
//     system pool; no disk for data at all (a metadata-only system pool
//     needs a data pool); more default replicas than distinct failure
//     groups (metadata: among the metadata disks; data: in each pool
//     holding data); a data pool whose %pool blockSize is not -B (all data
//     blocks have one size); a system-pool block size other than -B unless
//     every system-pool disk is metadataOnly.
//     Subblocks follow 5.x's variant subblocks: a block size gets the
//     subblock of IBM's table (64K: 2K, 128K: 4K, 256K..4M: 8K, 8M and 16M:
//     16K); with a separate metadata block size every pool has the smaller
//     of the two subblock counts, so -B 8M with a 2M metadataOnly system
//     pool gives 256 subblocks of 32 KiB in the data pools, as the PixStor
//     paper shows (mmlsfs -f), and -B 8M alone 512 of 16 KiB.
//   - mmadddisk DEV -F STANZAFILE [-r]: adds exactly the stanza's NSDs
//     (the same NSD and pool rules as mmcrfs; a new pool's block size must
//     be the file system's), mounted or not.
//   - mmdeldisk DEV "n1;n2": refuses a disk not in DEV and leaving no
//     metadata or no data disk; the disks become free NSDs.
//   - mmdelfs DEV: refused while DEV is mounted on any node; its disks
//     become free NSDs and its NFS and SMB exports go.
//   - mmchpolicy DEV FILE: RULE statements; refuses a file without rules
//     and a rule naming a pool DEV does not have.
//   - mmmount/mmumount DEV -a|-N nodes: mounts on nodes whose daemon is
//     active (others are reported and the command fails, as the remote
//     mount fails there), recorded per node and shown in each node's
//     proc/mounts ("DEV MOUNTPOINT gpfs rw,relatime 0 0"), the mount point
//     created; mmshutdown unmounts.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var fsNameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$`)

// subblockOf is the subblock size of IBM's 5.x table for a block size.
func subblockOf(bs int64) int64 {
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

func validBlockSize(bs int64) bool {
	for s := int64(64 << 10); s <= 16<<20; s *= 2 {
		if bs == s {
			return true
		}
	}
	return false
}

// fsDisk is one NSD as a file-system stanza names it (usage, failure
// group and pool may override the NSD's).
type fsDisk struct {
	nsd         *gpfsNSD
	usage, pool string
	fg          int
}

func isMeta(usage string) bool { return usage == "metadataOnly" || usage == "dataAndMetadata" }
func isData(usage string) bool { return usage == "dataOnly" || usage == "dataAndMetadata" }

// fsStanzas reads a file-system stanza file: the NSDs (which must exist
// and be free) and the %pool stanzas.
func (g *gpfsRun) fsStanzas(file string) ([]fsDisk, map[string]map[string]string, error) {
	stanzas, err := g.readStanzas(file)
	if err != nil {
		return nil, nil, err
	}
	var disks []fsDisk
	pools := map[string]map[string]string{}
	for _, s := range stanzas {
		switch s.kind {
		case "pool":
			name := s.attrs["pool"]
			if name == "" {
				return nil, nil, fmt.Errorf("6027-2108 Error found while processing stanza in line %d: pool is missing.", s.line)
			}
			pools[name] = s.attrs
		case "nsd":
			name := s.attrs["nsd"]
			n := g.nsd(name)
			if name == "" || n == nil {
				return nil, nil, fmt.Errorf("Disk %s is not an existing NSD (create it with mmcrnsd first).", name)
			}
			if n.FS != "" {
				return nil, nil, fmt.Errorf("Disk %s is already in use by file system %s.", name, n.FS)
			}
			if slices.ContainsFunc(disks, func(d fsDisk) bool { return d.nsd == n }) {
				return nil, nil, fmt.Errorf("Disk %s is specified more than once.", name)
			}
			d := fsDisk{nsd: n, usage: n.Usage, pool: n.Pool, fg: n.FG}
			if v := s.attrs["usage"]; v != "" {
				if !slices.Contains(nsdUsages, v) {
					return nil, nil, fmt.Errorf("Incorrect usage %s for disk %s (want one of %s).", v, name, strings.Join(nsdUsages, ", "))
				}
				d.usage = v
			}
			if v := s.attrs["pool"]; v != "" {
				d.pool = v
			}
			if v := s.attrs["failureGroup"]; v != "" {
				if d.fg, err = strconv.Atoi(v); err != nil {
					return nil, nil, fmt.Errorf("Incorrect failure group %s for disk %s.", v, name)
				}
			}
			if isMeta(d.usage) && d.pool != "system" {
				return nil, nil, fmt.Errorf("Disk %s: metadata can only be stored in the system pool (usage %s, pool %s).", name, d.usage, d.pool)
			}
			disks = append(disks, d)
		}
	}
	if len(disks) == 0 {
		return nil, nil, fmt.Errorf("6027-1268 Missing arguments: %s has no %%nsd stanza.", file)
	}
	return disks, pools, nil
}

// distinctFGs counts the failure groups of the disks that pick selects.
func distinctFGs(disks []fsDisk, pick func(fsDisk) bool) int {
	seen := map[int]bool{}
	for _, d := range disks {
		if pick(d) {
			seen[d.fg] = true
		}
	}
	return len(seen)
}

// replArg reads a replication option (1..3).
func replArg(f flags, opt string, def int) (int, error) {
	v, ok := f.vals[opt]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 3 {
		return 0, fmt.Errorf("Incorrect value %s for the %s option: valid values are 1, 2 and 3.", v, opt)
	}
	return n, nil
}

func mmcrfs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-F", "-B", "-j", "-m", "-M", "-r", "-R", "-n", "-T", "-A", "-v", "-D", "-k", "-i", "-L", "-Q", "-S", "-z", "--metadata-block-size", "--inode-limit", "--version", "--write-cache-threshold")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		if msg := mmcrfsLevelCheck(gpfsCodeLevel(e), f); msg != "" {
			return g.fail("%s", msg)
		}
		dev := strings.TrimPrefix(f.pos[0], "/dev/")
		if !fsNameRe.MatchString(dev) || dev == "all" {
			return g.fail("Incorrect file system name %s.", f.pos[0])
		}
		if g.fs(dev) != nil {
			return g.fail("File system %s already exists in cluster %s.", dev, g.st.Cluster.Name)
		}
		bs := int64(4 << 20)
		if v := f.vals["-B"]; v != "" {
			if bs, err = parseSize(v); err != nil || !validBlockSize(bs) {
				return g.fail("Incorrect value %s for the -B option: valid block sizes are 64K, 128K, 256K, 512K, 1M, 2M, 4M, 8M and 16M.", v)
			}
		}
		alloc := f.vals["-j"]
		if alloc == "" {
			alloc = "scatter"
		}
		if alloc != "scatter" && alloc != "cluster" {
			return g.fail("Incorrect value %s for the -j option (want cluster or scatter).", alloc)
		}
		var repl [4]int
		for i, o := range []struct {
			opt string
			def int
		}{{"-m", 1}, {"-M", 2}, {"-r", 1}, {"-R", 2}} {
			if repl[i], err = replArg(f, o.opt, o.def); err != nil {
				return g.fail("%v", err)
			}
		}
		if repl[0] > repl[1] {
			return g.fail("The default metadata replicas (-m %d) cannot exceed the maximum metadata replicas (-M %d).", repl[0], repl[1])
		}
		if repl[2] > repl[3] {
			return g.fail("The default data replicas (-r %d) cannot exceed the maximum data replicas (-R %d).", repl[2], repl[3])
		}
		numNodes := 32
		if v := f.vals["-n"]; v != "" {
			if numNodes, err = strconv.Atoi(v); err != nil || numNodes < 1 {
				return g.fail("Incorrect value %s for the -n option.", v)
			}
		}
		mp := f.vals["-T"]
		if mp == "" {
			mp = "/gpfs/" + dev
		}
		if !strings.HasPrefix(mp, "/") {
			return g.fail("Incorrect mount point %s: it must be an absolute path.", mp)
		}
		for _, o := range g.st.FS {
			if o.MountPoint == mp {
				return g.fail("Mount point %s is already used by file system %s.", mp, o.Name)
			}
		}
		auto := f.vals["-A"]
		if auto == "" {
			auto = "yes"
		}
		if auto != "yes" && auto != "no" && auto != "automount" {
			return g.fail("Incorrect value %s for the -A option (want yes, no or automount).", auto)
		}
		disks, pools, err := g.fsStanzas(f.vals["-F"])
		if err != nil {
			return g.fail("%v", err)
		}
		mdbs := bs
		if v := f.vals["--metadata-block-size"]; v != "" {
			if mdbs, err = parseSize(v); err != nil || !validBlockSize(mdbs) {
				return g.fail("Incorrect value %s for --metadata-block-size.", v)
			}
		}
		if p, ok := pools["system"]; ok && p["blockSize"] != "" {
			if mdbs, err = parseSize(p["blockSize"]); err != nil || !validBlockSize(mdbs) {
				return g.fail("Incorrect blockSize %s for pool system.", p["blockSize"])
			}
		}
		if mdbs != bs {
			for _, d := range disks {
				if d.pool == "system" && d.usage != "metadataOnly" {
					return g.fail("The system pool can have its own block size (%s) only when all its disks are metadataOnly; disk %s is %s.", sizeString(mdbs), d.nsd.Name, d.usage)
				}
			}
		}
		if code := g.checkPools(pools, bs); code != 0 {
			return code
		}
		if !slices.ContainsFunc(disks, func(d fsDisk) bool { return d.pool == "system" && isMeta(d.usage) }) {
			return g.fail("The system pool must contain at least one disk that can hold metadata (usage metadataOnly or dataAndMetadata).")
		}
		if !slices.ContainsFunc(disks, func(d fsDisk) bool { return isData(d.usage) }) {
			return g.fail("No disk can hold data: a metadata-only system pool needs a data pool (disks with usage dataOnly or dataAndMetadata).")
		}
		if n := distinctFGs(disks, func(d fsDisk) bool { return isMeta(d.usage) }); repl[0] > n {
			return g.fail("Default metadata replicas %d need as many failure groups; the metadata disks are in %d.", repl[0], n)
		}
		for _, p := range poolNames(disks) {
			n := distinctFGs(disks, func(d fsDisk) bool { return d.pool == p && isData(d.usage) })
			if n > 0 && repl[2] > n {
				return g.fail("Default data replicas %d need as many failure groups; the data disks of pool %s are in %d.", repl[2], p, n)
			}
		}
		local := g.node(g.host)
		if g.state(local) != "active" {
			return g.fail("GPFS is not active on node %s (state %s): start it with mmstartup.", g.host, g.state(local))
		}
		maxbs, _ := parseSize(g.effective(local, "maxblocksize"))
		for _, b := range []int64{bs, mdbs} {
			if b > maxbs {
				return g.fail("6027-1084 The specified block size (%s) exceeds the maximum allowed block size currently in effect (%s).\n  Either specify a smaller value for the -B parameter, or increase the maximum block size by issuing:\n  mmchconfig maxblocksize=%s and restart the GPFS daemon.", sizeString(b), sizeString(maxbs), sizeString(b))
			}
		}
		sub := min(mdbs/subblockOf(mdbs), bs/subblockOf(bs))
		g.st.Seq++
		fsys := &gpfsFS{Name: dev, BlockSize: bs, MetaBlockSize: mdbs, Subblocks: sub, Alloc: alloc, Repl: repl,
			NumNodes: numNodes, MountPoint: mp, AutoMount: auto, Pools: map[string]string{}, Created: gpfsNow(), Level: g.minReleaseLevel(),
			UID: fmt.Sprintf("%08X:%08X", hash32(g.st.Cluster.ID), uint32(g.st.Seq)), NextDiskID: 1}
		g.attach(fsys, disks, pools)
		g.st.FS = append(g.st.FS, fsys)
		g.dirty = true
		fmt.Fprintf(e.Stdout, "\nThe following disks of %s will be formatted on node %s:\n", dev, g.host)
		for _, d := range disks {
			fmt.Fprintf(e.Stdout, "    %s: size %d KB\n", d.nsd.Name, d.nsd.SizeKB)
		}
		fmt.Fprintf(e.Stdout, "Formatting file system ...\nCompleted creation of file system /dev/%s.\n", dev)
		fmt.Fprintf(e.Stderr, "mmcrfs: 6027-1371 Propagating the cluster configuration data to all\n  affected nodes.  This is an asynchronous process.\n")
		return 0
	})
}

// checkPools refuses a %pool stanza whose data block size is not the
// file system's or whose layoutMap is unknown.
func (g *gpfsRun) checkPools(pools map[string]map[string]string, bs int64) int {
	for name, p := range pools {
		if lm := p["layoutMap"]; lm != "" && lm != "scatter" && lm != "cluster" {
			return g.fail("Incorrect layoutMap %s for pool %s (want cluster or scatter).", lm, name)
		}
		if name == "system" || p["blockSize"] == "" {
			continue
		}
		pbs, err := parseSize(p["blockSize"])
		if err != nil || pbs != bs {
			return g.fail("Pool %s: blockSize %s differs from the file system's data block size %s (all data blocks of a file system have one size).", name, p["blockSize"], sizeString(bs))
		}
	}
	return 0
}

func poolNames(disks []fsDisk) []string {
	var out []string
	for _, d := range disks {
		if !slices.Contains(out, d.pool) {
			out = append(out, d.pool)
		}
	}
	slices.Sort(out)
	return out
}

// attach puts disks into fsys.
func (g *gpfsRun) attach(fsys *gpfsFS, disks []fsDisk, pools map[string]map[string]string) {
	for _, d := range disks {
		d.nsd.FS, d.nsd.Usage, d.nsd.Pool, d.nsd.FG = fsys.Name, d.usage, d.pool, d.fg
		d.nsd.DiskID = fsys.NextDiskID
		fsys.NextDiskID++
		if _, ok := fsys.Pools[d.pool]; !ok {
			lm := fsys.Alloc
			if p, ok := pools[d.pool]; ok && p["layoutMap"] != "" {
				lm = p["layoutMap"]
			}
			fsys.Pools[d.pool] = lm
		}
	}
}

func (g *gpfsRun) fsDisks(fsys *gpfsFS) []*gpfsNSD {
	var out []*gpfsNSD
	for _, n := range g.st.NSDs {
		if n.FS == fsys.Name {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *gpfsNSD) int { return a.DiskID - b.DiskID })
	return out
}

// fsField is one mmlsfs attribute: its flag, -Y name, value(s) and text.
type fsField struct {
	flag, name, desc string
	vals             [][2]string // value, remarks
}

func (g *gpfsRun) fsFields(fsys *gpfsFS) []fsField {
	one := func(v string) [][2]string { return [][2]string{{v, ""}} }
	disks := g.fsDisks(fsys)
	names := make([]string, len(disks))
	for i, d := range disks {
		names[i] = d.Name
	}
	frag := one(strconv.FormatInt(fsys.BlockSize/fsys.Subblocks, 10))
	bsv := one(strconv.FormatInt(fsys.BlockSize, 10))
	if fsys.MetaBlockSize != fsys.BlockSize {
		frag = [][2]string{{strconv.FormatInt(fsys.MetaBlockSize/fsys.Subblocks, 10), "system pool"}, {strconv.FormatInt(fsys.BlockSize/fsys.Subblocks, 10), "other pools"}}
		bsv = [][2]string{{strconv.FormatInt(fsys.MetaBlockSize, 10), "system pool"}, {strconv.FormatInt(fsys.BlockSize, 10), "other pools"}}
	}
	r := fsys.Repl
	pools := sortedKeys(fsys.Pools)
	return []fsField{
		{"-f", "minFragmentSize", "Minimum fragment (subblock) size in bytes", frag},
		{"-i", "inodeSize", "Inode size in bytes", one("4096")},
		{"-I", "indirectBlockSize", "Indirect block size in bytes", one("32768")},
		{"-m", "defaultMetadataReplicas", "Default number of metadata replicas", one(strconv.Itoa(r[0]))},
		{"-M", "maxMetadataReplicas", "Maximum number of metadata replicas", one(strconv.Itoa(r[1]))},
		{"-r", "defaultDataReplicas", "Default number of data replicas", one(strconv.Itoa(r[2]))},
		{"-R", "maxDataReplicas", "Maximum number of data replicas", one(strconv.Itoa(r[3]))},
		{"-j", "blockAllocationType", "Block allocation type", one(fsys.Alloc)},
		{"-D", "fileLockingSemantics", "File locking semantics in effect", one("nfs4")},
		{"-k", "ACLSemantics", "ACL semantics in effect", one("all")},
		{"-n", "numNodes", "Estimated number of nodes that will mount file system", one(strconv.Itoa(fsys.NumNodes))},
		{"-B", "blockSize", "Block size", bsv},
		{"-Q", "quotasAccountingEnabled", "Quotas accounting enabled", one("none")},
		{"", "quotasEnforced", "Quotas enforced", one("none")},
		{"", "defaultQuotasEnabled", "Default quotas enabled", one("none")},
		{"-V", "filesystemVersion", "File system version", one(fsFormat(fsys))},
		{"--create-time", "create-time", "File system creation time", one(fsys.Created)},
		{"-z", "DMAPIEnabled", "Is DMAPI enabled?", one("No")},
		{"-L", "logfileSize", "Logfile size", one("33554432")},
		{"-E", "exactMtime", "Exact mtime mount option", one("Yes")},
		{"-S", "suppressAtime", "Suppress atime mount option", one("relatime")},
		{"-K", "strictReplication", "Strict replica allocation option", one("whenpossible")},
		{"--inode-limit", "maxNumberOfInodes", "Maximum number of inodes", one("134217728")},
		{"", "UID", "File system UID", one(fsys.UID)},
		{"--subblocks-per-full-block", "subblocksPerFullBlock", "Number of subblocks per full block", one(strconv.FormatInt(fsys.Subblocks, 10))},
		{"-P", "storagePools", "Disk storage pools in file system", one(strings.Join(pools, ";"))},
		{"-d", "disks", "Disks in file system", one(strings.Join(names, ";"))},
		{"-A", "automaticMountOption", "Automatic mount option", one(fsys.AutoMount)},
		{"-o", "additionalMountOptions", "Additional mount options", one("none")},
		{"-T", "defaultMountPoint", "Default mount point", one(fsys.MountPoint)},
		{"--mount-priority", "mountPriority", "Mount priority", one("0")},
	}
}

func mmlsfs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		var list []*gpfsFS
		if f.pos[0] == "all" {
			list = g.st.FS
		} else {
			fsys, code := g.fsOrFail(f.pos[0])
			if code != 0 {
				return code
			}
			list = []*gpfsFS{fsys}
		}
		var b strings.Builder
		if f.set["-Y"] {
			yHeader(&b, "mmlsfs", "", "deviceName", "fieldName", "data", "remarks")
		}
		for _, fsys := range list {
			fields := g.fsFields(fsys)
			var picked []fsField
			for _, fl := range fields {
				if len(f.set) == 0 || (len(f.set) == 1 && f.set["-Y"]) || (fl.flag != "" && f.set[fl.flag]) {
					picked = append(picked, fl)
				}
			}
			if !f.set["-Y"] {
				fmt.Fprintf(&b, "flag                value                    description\n------------------- ------------------------ -----------------------------------\n")
			}
			for _, fl := range picked {
				for i, v := range fl.vals {
					if f.set["-Y"] {
						yData(&b, "mmlsfs", "", true, fsys.Name, fl.name, v[0], v[1])
						continue
					}
					flag, desc := fl.flag, fl.desc
					if i > 0 {
						flag = ""
					}
					if v[1] != "" {
						desc += " (" + v[1] + ")"
					}
					fmt.Fprintf(&b, " %-18s %-24s %s\n", flag, v[0], desc)
				}
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func mmlsdisk(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) < 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		disks := g.fsDisks(fsys)
		// The descriptor replicas: one disk in each of up to three failure
		// groups, metadata disks first.
		desc := map[string]bool{}
		fgs := map[int]bool{}
		for _, pass := range []bool{true, false} {
			for _, d := range disks {
				if len(desc) < 3 && isMeta(d.Usage) == pass && !fgs[d.FG] {
					desc[d.Name], fgs[d.FG] = true, true
				}
			}
		}
		q := strconv.Itoa(len(desc)/2 + 1)
		yn := func(b bool) string {
			if b {
				return "yes"
			}
			return "no"
		}
		var b strings.Builder
		if f.set["-Y"] {
			yHeader(&b, "mmlsdisk", "", "nsdName", "driverType", "sectorSize", "failureGroup", "metadata", "data", "status", "availability", "diskID", "storagePool", "remarks", "numQuorumDisks", "readQuorumValue", "writeQuorumValue", "diskSizeKB", "diskUID", "thinDiskType")
		} else {
			b.WriteString("disk         driver   sector     failure holds    holds                            storage\nname         type       size       group metadata data  status        availability pool\n------------ -------- ------ ----------- -------- ----- ------------- ------------ ------------\n")
		}
		for _, d := range disks {
			remarks := ""
			if desc[d.Name] {
				remarks = "desc"
			}
			if f.set["-Y"] {
				yData(&b, "mmlsdisk", "", false, d.Name, "nsd", "512", strconv.Itoa(d.FG), yn(isMeta(d.Usage)), yn(isData(d.Usage)), "ready", "up",
					strconv.Itoa(d.DiskID), d.Pool, remarks, strconv.Itoa(len(desc)), q, q, strconv.FormatInt(d.SizeKB, 10), d.VolumeID, "")
			} else {
				fmt.Fprintf(&b, "%-12s nsd         512 %11d %-8s %-5s ready         up           %-12s %s\n", d.Name, d.FG, yn(isMeta(d.Usage)), yn(isData(d.Usage)), d.Pool, remarks)
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func mmadddisk(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-F", "-v", "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		disks, pools, err := g.fsStanzas(f.vals["-F"])
		if err != nil {
			return g.fail("%v", err)
		}
		if code := g.checkPools(pools, fsys.BlockSize); code != 0 {
			return code
		}
		if fsys.MetaBlockSize != fsys.BlockSize {
			for _, d := range disks {
				if d.pool == "system" && d.usage != "metadataOnly" {
					return g.fail("Disk %s: the system pool of %s has its own block size and holds metadataOnly disks only.", d.nsd.Name, fsys.Name)
				}
			}
		}
		g.attach(fsys, disks, pools)
		if f.set["-r"] {
			fsys.Restriped++
		}
		g.dirty = true
		fmt.Fprintf(e.Stdout, "\nThe following disks of %s will be formatted on node %s:\n", fsys.Name, g.host)
		for _, d := range disks {
			fmt.Fprintf(e.Stdout, "    %s: size %d KB\n", d.nsd.Name, d.nsd.SizeKB)
		}
		fmt.Fprintf(e.Stdout, "Extending Allocation Map\nCompleted adding disks to file system %s.\n", fsys.Name)
		if f.set["-r"] {
			fmt.Fprintf(e.Stdout, "Restriping %s ...\nDone\n", fsys.Name)
		}
		fmt.Fprintf(e.Stderr, "mmadddisk: 6027-1371 Propagating the cluster configuration data to all\n  affected nodes.  This is an asynchronous process.\n")
		return 0
	})
}

func mmdeldisk(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args, "-N", "-F")
		if len(f.pos) != 2 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		names := splitDiskList(f.pos[1])
		if len(names) == 0 {
			return g.fail("6027-1268 Missing arguments.")
		}
		for _, name := range names {
			if n := g.nsd(name); n == nil || n.FS != fsys.Name {
				return g.fail("Disk %s is not part of file system %s.", name, fsys.Name)
			}
		}
		meta, data := false, false
		for _, d := range g.fsDisks(fsys) {
			if !slices.Contains(names, d.Name) {
				meta, data = meta || isMeta(d.Usage), data || isData(d.Usage)
			}
		}
		if !meta {
			return g.fail("Cannot delete the last disks holding metadata of file system %s.", fsys.Name)
		}
		if !data {
			return g.fail("Cannot delete the last disks holding data of file system %s.", fsys.Name)
		}
		for _, name := range names {
			n := g.nsd(name)
			n.FS, n.DiskID = "", 0
		}
		g.dirty = true
		fmt.Fprintf(e.Stdout, "Deleting disks ...\nScanning file system metadata ...\nScan completed successfully.\nCompleted deleting disks from file system %s.\n", fsys.Name)
		return 0
	})
}

func mmrestripefs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args, "-N", "-P")
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		if !f.set["-b"] && !f.set["-r"] && !f.set["-m"] && !f.set["-R"] {
			return g.fail("6027-1268 Missing arguments: one of -b, -m, -r, -R is required.")
		}
		fsys.Restriped++
		g.dirty = true
		fmt.Fprintf(e.Stdout, "Scanning file system metadata, phase 1 ...\nScan completed successfully.\nScanning user file metadata ...\n 100.00 %% complete on %s\nScan completed successfully.\n", gpfsNow())
		return 0
	})
}

var (
	ruleSplit = regexp.MustCompile(`(?i)\bRULE\b`)
	poolRef   = regexp.MustCompile(`(?i)\b(?:SET|TO|FROM)\s+POOL\s+'([^']*)'`)
	comments  = regexp.MustCompile(`(?s)/\*.*?\*/|--[^\n]*`)
)

func mmchpolicy(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args, "-I", "-t")
		if len(f.pos) != 2 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		data, err := e.Root.ReadFile(f.pos[1])
		if err != nil {
			return g.fail("Cannot read policy file %s: %v", f.pos[1], err)
		}
		text := comments.ReplaceAllString(string(data), "")
		parts := ruleSplit.Split(text, -1)
		var rules []string
		for i, p := range parts {
			if i == 0 {
				if strings.TrimSpace(p) != "" {
					return g.fail("[E] Error while parsing policy rules: text before the first RULE: %q", strings.TrimSpace(p))
				}
				continue
			}
			rule := "RULE " + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), ";"))
			for _, m := range poolRef.FindAllStringSubmatch(rule, -1) {
				if _, ok := fsys.Pools[m[1]]; !ok {
					return g.fail("[E] Error while validating policy rule %q: pool '%s' is not a storage pool of file system %s.", rule, m[1], fsys.Name)
				}
			}
			rules = append(rules, rule)
		}
		if len(rules) == 0 {
			return g.fail("[E] The policy file %s contains no rules.", f.pos[1])
		}
		if f.vals["-I"] == "test" {
			fmt.Fprintf(e.Stdout, "Validated policy '%s': Parsed %d policy rules.\n", f.pos[1], len(rules))
			return 0
		}
		fsys.Policy, fsys.PolicyRules, fsys.PolicyTime = string(data), rules, gpfsNow()
		g.dirty = true
		fmt.Fprintf(e.Stdout, "Validated policy '%s': Parsed %d policy rules.\nPolicy '%s' installed and broadcast to all nodes.\n", f.pos[1], len(rules), f.pos[1])
		return 0
	})
}

func mmlspolicy(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		if fsys.Policy == "" {
			fmt.Fprintf(e.Stdout, "No policy file was installed for file system '%s'.\nData will be stored in pool 'system'.\n", fsys.Name)
			return 0
		}
		if f.set["-L"] {
			fmt.Fprint(e.Stdout, fsys.Policy)
			if !strings.HasSuffix(fsys.Policy, "\n") {
				fmt.Fprintln(e.Stdout)
			}
			return 0
		}
		fmt.Fprintf(e.Stdout, "Policy for file system '/dev/%s':\n   Installed by root@%s on %s.\n   First line of policy: %s\n", fsys.Name, g.host, fsys.PolicyTime, fsys.PolicyRules[0])
		return 0
	})
}

// mountNodes are the nodes a mount command acts on: -a all, -N a list,
// else the local node.
func (g *gpfsRun) mountNodes(f flags) ([]string, error) {
	if f.set["-a"] {
		return g.resolveNodes("all")
	}
	if f.vals["-N"] != "" {
		return g.resolveNodes(f.vals["-N"])
	}
	return []string{g.host}, nil
}

func mmmount(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N", "-o")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) < 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		nodes, err := g.mountNodes(f)
		if err != nil {
			return g.fail("%v", err)
		}
		var down []string
		for _, n := range nodes {
			if g.state(g.node(n)) != "active" {
				down = append(down, n)
				continue
			}
			if !slices.Contains(fsys.Mounted, n) {
				fsys.Mounted = append(fsys.Mounted, n)
				g.showMount(n, fsys, true)
			}
			g.dirty = true
		}
		fmt.Fprintf(e.Stdout, "%s: 6027-1623 %s: Mounting file systems ...\n", gpfsNow(), e.tool)
		if len(down) > 0 {
			// The mounts that could be made stay: save before failing.
			code := g.fail("GPFS is not active on node(s) %s: %s not mounted there.", strings.Join(down, ","), fsys.Name)
			if g.dirty {
				_ = g.saveNow()
			}
			return code
		}
		return 0
	})
}

func mmumount(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) < 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		nodes, err := g.mountNodes(f)
		if err != nil {
			return g.fail("%v", err)
		}
		for _, n := range nodes {
			if slices.Contains(fsys.Mounted, n) {
				fsys.Mounted = slices.DeleteFunc(fsys.Mounted, func(m string) bool { return m == n })
				g.showMount(n, fsys, false)
			}
		}
		g.dirty = true
		fmt.Fprintf(e.Stdout, "%s: 6027-1674 %s: Unmounting file systems ...\n", gpfsNow(), e.tool)
		return 0
	})
}

func mmlsmount(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) < 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		var list []*gpfsFS
		if f.pos[0] == "all" {
			list = g.st.FS
		} else {
			fsys, code := g.fsOrFail(f.pos[0])
			if code != 0 {
				return code
			}
			list = []*gpfsFS{fsys}
		}
		var b strings.Builder
		if f.set["-Y"] {
			yHeader(&b, "mmlsmount", "", "localDevName", "realDevName", "owningCluster", "totalNodes", "nodeIP", "nodeName", "clusterName", "env")
		}
		for _, fsys := range list {
			if !f.set["-Y"] {
				if len(fsys.Mounted) == 0 {
					fmt.Fprintf(&b, "File system %s is not mounted.\n", fsys.Name)
				} else {
					fmt.Fprintf(&b, "File system %s is mounted on %d nodes:\n", fsys.Name, len(fsys.Mounted))
					for _, n := range fsys.Mounted {
						fmt.Fprintf(&b, "  %-15s %-12s %s\n", nodeIP(g.node(n).Number), n, g.st.Cluster.Name)
					}
				}
				continue
			}
			for _, n := range fsys.Mounted {
				yData(&b, "mmlsmount", "", false, fsys.Name, fsys.Name, g.st.Cluster.Name, strconv.Itoa(len(fsys.Mounted)),
					nodeIP(g.node(n).Number), n, g.st.Cluster.Name, "RW")
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func mmdelfs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		fsys, code := g.fsOrFail(f.pos[0])
		if code != 0 {
			return code
		}
		if len(fsys.Mounted) > 0 {
			return g.fail("File system %s is mounted on %d node(s) (%s): unmount it first.", fsys.Name, len(fsys.Mounted), strings.Join(fsys.Mounted, ","))
		}
		for _, n := range g.fsDisks(fsys) {
			n.FS, n.DiskID = "", 0
		}
		g.st.Exports = slices.DeleteFunc(g.st.Exports, func(x *gpfsExport) bool {
			return x.Path == fsys.MountPoint || strings.HasPrefix(x.Path, fsys.MountPoint+"/")
		})
		g.st.Shares = slices.DeleteFunc(g.st.Shares, func(x *gpfsShare) bool {
			return x.Path == fsys.MountPoint || strings.HasPrefix(x.Path, fsys.MountPoint+"/")
		})
		g.st.FS = slices.DeleteFunc(g.st.FS, func(o *gpfsFS) bool { return o == fsys })
		g.dirty = true
		fmt.Fprintf(e.Stdout, "All data on the following disks of %s will be destroyed:\n", fsys.Name)
		fmt.Fprintf(e.Stdout, "Completed deletion of file system /dev/%s.\n", fsys.Name)
		return 0
	})
}
