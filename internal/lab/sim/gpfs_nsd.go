package sim

// NSD commands, after IBM Storage Scale 5.1's mmcrnsd, mmlsnsd and
// mmdelnsd:
//
//   - mmcrnsd -F STANZAFILE [-v yes|no]: %nsd: stanzas (device, nsd,
//     servers, usage, failureGroup, pool; other attributes are kept out).
//     The device is the name on the first NSD server (on the local node
//     when servers is empty), checked there: it must exist; with -v yes
//     (the default) it must carry neither an NSD descriptor (a previous
//     mmcrnsd, on-disk: DataDir/gpfs-nsd/<kernel name> of that server's
//     root) nor any signature blkid sees. Refused too: a missing device or
//     nsd name, a duplicate NSD name (in the file or the cluster), more
//     than 8 servers, a server that is not a cluster node or is listed
//     twice, usage outside dataOnly, metadataOnly, dataAndMetadata,
//     descOnly, localCache, a non-numeric failure group, and (the
//     simulator's own rule, whatever -v says) a disk already backing an NSD
//     of this cluster. Nothing is created when one stanza fails. The
//     default failure group is -1, usage dataAndMetadata, pool system.
//   - mmlsnsd [-X] [-Y]: one line per NSD; with -X one per NSD and server,
//     with the device that server sees (found by the volume's WWN in its
//     root; empty when it does not see it) and its device type (dmm for a
//     device-mapper device, else generic).
//   - mmdelnsd "n1;n2": refuses an NSD that belongs to a file system or
//     does not exist; erases the descriptor.

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// NSDDescDir holds the simulated NSD descriptors, one file per kernel
// device name holding "nsdname volumeid": on-disk data, like SigDir.
const NSDDescDir = DataDir + "/gpfs-nsd"

var nsdNameRe = regexp.MustCompile(`^[A-Za-z0-9_]{1,255}$`)

var nsdUsages = []string{"dataOnly", "metadataOnly", "dataAndMetadata", "descOnly", "localCache"}

// diskInfo is what a server's root says about a device path.
type diskInfo struct {
	kernel string // sdb, dm-3
	id     string // naa.<wwn>, or node:/dev/<kernel>
	sizeKB int64
}

func (e *Env) diskInfo(node, dev string) (diskInfo, bool) {
	real, ok := e.device(dev)
	if !ok {
		return diskInfo{}, false
	}
	k := path.Base(real)
	d := diskInfo{kernel: k, id: node + ":/dev/" + k}
	if b, err := e.read("/sys/block/" + k + "/device/wwid"); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		d.id = strings.TrimSpace(string(b))
	}
	if b, err := e.read("/sys/block/" + k + "/size"); err == nil {
		if sectors, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			d.sizeKB = sectors / 2
		}
	}
	return d, true
}

// findDisk is the kernel name under which a root sees disk id, "" if none.
func (e *Env) findDisk(id string) string {
	ents, err := e.Root.ReadDir("/sys/block")
	if err != nil {
		return ""
	}
	for _, ent := range ents {
		b, err := e.read("/sys/block/" + ent.Name() + "/device/wwid")
		if err == nil && strings.TrimSpace(string(b)) == id {
			return ent.Name()
		}
	}
	return ""
}

func mmcrnsd(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-F", "-v")
		if err != nil {
			return g.fail("%v", err)
		}
		verify := f.vals["-v"]
		if verify == "" {
			verify = "yes"
		}
		if verify != "yes" && verify != "no" {
			return g.fail("Incorrect value %s for the -v option (want yes or no).", verify)
		}
		stanzas, err := g.readStanzas(f.vals["-F"])
		if err != nil {
			return g.fail("%v", err)
		}
		var created []*gpfsNSD
		type desc struct {
			node, kernel, line string
		}
		var descs []desc
		for _, s := range stanzas {
			if s.kind != "nsd" {
				continue
			}
			a := s.attrs
			dev, name := a["device"], a["nsd"]
			if dev == "" {
				return g.fail("6027-2108 Error found while processing stanza in line %d: device is missing.", s.line)
			}
			if !strings.HasPrefix(dev, "/") {
				dev = "/dev/" + dev
			}
			if name == "" {
				g.st.Seq++
				name = fmt.Sprintf("gpfs%dnsd", g.st.Seq)
			}
			if !nsdNameRe.MatchString(name) {
				return g.fail("Incorrect NSD name %s in line %d: letters, digits and underscores only.", name, s.line)
			}
			if g.nsd(name) != nil || slices.ContainsFunc(created, func(n *gpfsNSD) bool { return n.Name == name }) {
				return g.fail("Disk name %s is already in use by another NSD.", name)
			}
			var servers []string
			if sv := a["servers"]; sv != "" {
				for _, s := range strings.Split(sv, ",") {
					s, _, _ = strings.Cut(strings.TrimSpace(s), ".")
					if s == "" {
						continue
					}
					if slices.Contains(servers, s) {
						return g.fail("Server %s is listed twice for NSD %s.", s, name)
					}
					if g.node(s) == nil {
						return g.fail("Incorrect node %s specified for command: NSD server of %s is not a node of cluster %s.", s, name, g.st.Cluster.Name)
					}
					servers = append(servers, s)
				}
			}
			if len(servers) > 8 {
				return g.fail("NSD %s has %d servers: at most 8 NSD servers can be specified.", name, len(servers))
			}
			usage := a["usage"]
			if usage == "" {
				usage = "dataAndMetadata"
			}
			if !slices.Contains(nsdUsages, usage) {
				return g.fail("Incorrect usage %s for NSD %s (want one of %s).", usage, name, strings.Join(nsdUsages, ", "))
			}
			fg := -1
			if v := a["failureGroup"]; v != "" {
				if fg, err = strconv.Atoi(v); err != nil || fg < -1 || fg > 2147483647 {
					return g.fail("Incorrect failure group %s for NSD %s.", v, name)
				}
			}
			pool := a["pool"]
			if pool == "" {
				pool = "system"
			}
			check := g.host
			if len(servers) > 0 {
				check = servers[0]
			}
			ne, done := g.nodeEnv(check)
			if ne == nil {
				return g.fail("Unable to reach node %s to check disk %s.", check, dev)
			}
			info, ok := ne.diskInfo(check, dev)
			if !ok {
				done()
				return g.fail("Unable to find disk with NSD volume id or device name %s on node %s: No such device.", dev, check)
			}
			descData, _ := ne.read(NSDDescDir + "/" + info.kernel)
			sig := ne.signature(dev)
			done()
			for _, n := range append(append([]*gpfsNSD{}, g.st.NSDs...), created...) {
				if n.Disk == info.id {
					return g.fail("Disk %s on node %s is already NSD %s.", dev, check, n.Name)
				}
			}
			if verify == "yes" {
				if d := strings.Fields(string(descData)); len(d) > 0 {
					return g.fail("Disk %s refers to an existing NSD %s.\n  Use -v no to overwrite its NSD descriptor.", dev, d[0])
				}
				if sig != "" {
					return g.fail("Disk %s on node %s contains a %s signature (blkid); it may be in use.\n  Use -v no to overwrite it.", dev, check, sig)
				}
			}
			g.st.Seq++
			vid := fmt.Sprintf("%08X%08X", hash32(g.st.Cluster.ID+"/"+check), uint32(g.st.Seq))
			created = append(created, &gpfsNSD{Name: name, VolumeID: vid, Servers: servers, Device: dev, Disk: info.id,
				SizeKB: info.sizeKB, Usage: usage, FG: fg, Pool: pool})
			descs = append(descs, desc{check, info.kernel, name + " " + vid + "\n"})
		}
		if len(created) == 0 {
			return g.fail("6027-1268 Missing arguments: %s has no %%nsd stanza.", f.vals["-F"])
		}
		for _, d := range descs {
			if ne, done := g.nodeEnv(d.node); ne != nil {
				err := ne.write(NSDDescDir+"/"+d.kernel, []byte(d.line))
				done()
				if err != nil {
					return g.fail("writing the NSD descriptor on %s: %v", d.node, err)
				}
			}
		}
		g.st.NSDs = append(g.st.NSDs, created...)
		g.dirty = true
		fmt.Fprintf(e.Stderr, "mmcrnsd: Processing disk %s\n", strings.Join(namesOf(created), "\nmmcrnsd: Processing disk "))
		fmt.Fprintf(e.Stderr, "mmcrnsd: 6027-1371 Propagating the cluster configuration data to all\n  affected nodes.  This is an asynchronous process.\n")
		return 0
	})
}

func namesOf(ns []*gpfsNSD) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

func mmlsnsd(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-d", "-f")
		if err != nil {
			return g.fail("%v", err)
		}
		nsds := g.st.NSDs
		if d := f.vals["-d"]; d != "" {
			nsds = nil
			for _, name := range splitDiskList(d) {
				n := g.nsd(name)
				if n == nil {
					return g.fail("Disk %s is not an NSD of this cluster.", name)
				}
				nsds = append(nsds, n)
			}
		}
		if fsn := f.vals["-f"]; fsn != "" {
			fsys, code := g.fsOrFail(fsn)
			if code != 0 {
				return code
			}
			nsds = slices.DeleteFunc(slices.Clone(nsds), func(n *gpfsNSD) bool { return n.FS != fsys.Name })
		}
		var b strings.Builder
		fsName := func(n *gpfsNSD) string {
			if n.FS == "" {
				return "(free disk)"
			}
			return n.FS
		}
		switch {
		case f.set["-Y"] && f.set["-X"]:
			yHeader(&b, "mmlsnsd", "nsd", "fileSystem", "diskName", "volumeId", "serverList", "deviceType", "localDiskName", "remarks", "sizeMB")
			for _, n := range nsds {
				for _, s := range orSelf(n.Servers, g.host) {
					local, typ := "", "generic"
					if k, ok := strings.CutPrefix(n.Disk, s+":/dev/"); ok {
						local = "/dev/" + k
					} else if ne, done := g.nodeEnv(s); ne != nil {
						if k := ne.findDisk(n.Disk); k != "" {
							local = "/dev/" + k
							if strings.HasPrefix(k, "dm-") {
								typ = "dmm"
							}
						}
						done()
					}
					yData(&b, "mmlsnsd", "nsd", false, fsName(n), n.Name, n.VolumeID, s, typ, local, "server node", "")
				}
			}
		case f.set["-Y"]:
			yHeader(&b, "mmlsnsd", "nsd", "fileSystem", "diskName", "volumeId", "serverList", "thinDisk")
			for _, n := range nsds {
				yData(&b, "mmlsnsd", "nsd", false, fsName(n), n.Name, n.VolumeID, strings.Join(n.Servers, ","), "")
			}
		default:
			b.WriteString("\n File system   Disk name    NSD servers\n---------------------------------------------------------------------------\n")
			for _, n := range nsds {
				servers := strings.Join(n.Servers, ",")
				if servers == "" {
					servers = "(directly attached)"
				}
				fmt.Fprintf(&b, " %-13s %-12s %s\n", fsName(n), n.Name, servers)
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func orSelf(servers []string, self string) []string {
	if len(servers) == 0 {
		return []string{self}
	}
	return servers
}

// splitDiskList splits GPFS's "n1;n2" disk lists.
func splitDiskList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func mmdelnsd(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		names := splitDiskList(f.pos[0])
		for _, name := range names {
			n := g.nsd(name)
			if n == nil {
				return g.fail("Disk %s is not an NSD of this cluster.", name)
			}
			if n.FS != "" {
				return g.fail("Disk %s belongs to file system %s: remove it with mmdeldisk first.", name, n.FS)
			}
		}
		for _, name := range names {
			n := g.nsd(name)
			check := orSelf(n.Servers, g.host)[0]
			if ne, done := g.nodeEnv(check); ne != nil {
				if k := ne.findDisk(n.Disk); k != "" {
					_ = ne.Root.Remove(NSDDescDir + "/" + k)
				} else if info, ok := ne.diskInfo(check, n.Device); ok {
					_ = ne.Root.Remove(NSDDescDir + "/" + info.kernel)
				}
				done()
			}
		}
		g.st.NSDs = slices.DeleteFunc(g.st.NSDs, func(n *gpfsNSD) bool { return slices.Contains(names, n.Name) })
		g.dirty = true
		fmt.Fprintf(e.Stderr, "mmdelnsd: Processing disk %s\nmmdelnsd: 6027-1371 Propagating the cluster configuration data to all\n  affected nodes.  This is an asynchronous process.\n", strings.Join(names, "\nmmdelnsd: Processing disk "))
		return 0
	})
}
