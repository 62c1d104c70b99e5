package sim_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// gpfsLab is a few node roots sharing one cluster folder, as lab.Up
// links them: nsd1 and nsd2 see the same array volumes (under different
// kernel names), gw1 sees none.
type gpfsLab struct {
	t      *testing.T
	shared string
	nodes  map[string]*node
}

// sharedVolumes are 10 volumes of one array: the same WWNs on every
// server they are cabled to.
func sharedVolumes() []fakenode.Disk { return fakenode.ArrayVolumes("me4084-1", 10) }

func newGPFSLab(t *testing.T, names ...string) *gpfsLab {
	t.Helper()
	l := &gpfsLab{t: t, shared: t.TempDir(), nodes: map[string]*node{}}
	vols := sharedVolumes()
	for _, name := range names {
		dir := t.TempDir()
		var disks []fakenode.Disk
		switch name {
		case "nsd1":
			disks = vols
		case "nsd2": // the same volumes, discovered in the opposite order
			for i, v := range vols {
				v.Name = vols[len(vols)-1-i].Name
				disks = append(disks, v)
			}
		}
		if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Hostname: name, Disks: disks,
			Simulator: simtest.Binary(t), SharedDir: l.shared}); err != nil {
			t.Fatal(err)
		}
		if err := sim.RegisterNode(l.shared, name, dir); err != nil {
			t.Fatal(err)
		}
		root, err := fsroot.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		l.nodes[name] = &node{t: t, dir: dir, run: runner.Sim{Root: root}}
	}
	return l
}

// mm runs argv on node through runner.Sim, as the agent does, and fails
// the test when it fails.
func (l *gpfsLab) mm(node string, argv ...string) {
	l.t.Helper()
	l.nodes[node].ok(argv...)
}

// refused wants argv on node to fail with msg in its output: each
// refusal is a test case of its own, named by the message.
func (l *gpfsLab) refused(node, msg string, argv ...string) {
	l.t.Helper()
	l.t.Run(msg, func(t *testing.T) {
		err := l.nodes[node].run.Run(context.Background(), argv...)
		if err == nil {
			t.Errorf("%q on %s succeeded, want %q", argv, node, msg)
		} else if !strings.Contains(err.Error(), msg) {
			t.Errorf("%q on %s: %v, want %q", argv, node, err, msg)
		} else if !strings.Contains(err.Error(), "6027-1639 Command failed") && strings.HasPrefix(path.Base(argv[0]), "mm") {
			t.Errorf("%q on %s: no closing 6027-1639 line: %v", argv, node, err)
		}
	})
}

// y runs a -Y query on node and parses it.
func (l *gpfsLab) y(node string, argv ...string) map[string][]map[string]string {
	l.t.Helper()
	out, code := l.nodes[node].query(argv...)
	if code != 0 {
		l.t.Fatalf("%q on %s: exit %d\n%s", argv, node, code, out)
	}
	recs, err := parseY(out)
	if err != nil {
		l.t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	return recs
}

// parseY reads IBM's -Y format: every line "cmd:rec:..." ending in ':';
// "HEADER" in the third field names the record's fields; data lines have
// exactly as many fields; values are percent-decoded.
func parseY(out string) (map[string][]map[string]string, error) {
	headers := map[string][]string{}
	recs := map[string][]map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasSuffix(line, ":") {
			return nil, fmt.Errorf("line %d does not end with a colon: %q", i+1, line)
		}
		f := strings.Split(strings.TrimSuffix(line, ":"), ":")
		if len(f) < 6 {
			return nil, fmt.Errorf("line %d: %d fields", i+1, len(f))
		}
		key := f[0] + ":" + f[1]
		if f[2] == "HEADER" {
			if f[3] != "version" || f[4] != "reserved" || f[5] != "reserved" {
				return nil, fmt.Errorf("line %d: header %q", i+1, line)
			}
			for j := range f {
				var err error
				if f[j], err = url.PathUnescape(f[j]); err != nil {
					return nil, fmt.Errorf("line %d header field %q: %v", i+1, f[j], err)
				}
			}
			headers[key] = f
			continue
		}
		h, ok := headers[key]
		if !ok {
			return nil, fmt.Errorf("line %d: data before its HEADER: %q", i+1, line)
		}
		if len(f) != len(h) {
			return nil, fmt.Errorf("line %d has %d fields, its header %d: %q", i+1, len(f), len(h), line)
		}
		rec := map[string]string{}
		for j := 6; j < len(f); j++ {
			v, err := url.PathUnescape(f[j])
			if err != nil {
				return nil, fmt.Errorf("line %d field %s: %v", i+1, h[j], err)
			}
			rec[h[j]] = v
		}
		recs[key] = append(recs[key], rec)
	}
	return recs, nil
}

func (l *gpfsLab) write(node, p, content string) { l.nodes[node].write(p, content) }

// cluster builds the R5 cluster of the named nodes (all quorum-manager
// but the last, a quorum node when there are three), licensed, with
// pagepool and maxblocksize on the NSD servers, started.
func (l *gpfsLab) cluster(nodes ...string) {
	l.t.Helper()
	var nf strings.Builder
	for _, n := range nodes {
		d := "quorum-manager"
		if strings.HasPrefix(n, "gw") {
			d = "quorum"
		}
		fmt.Fprintf(&nf, "%s:%s\n", n, d)
	}
	l.write(nodes[0], "root/gpfs/nodes", nf.String())
	l.mm(nodes[0], "mmcrcluster", "-N", "/root/gpfs/nodes", "-C", "r5.lab", "-r", "/usr/bin/ssh", "-R", "/usr/bin/scp", "-A")
	l.mm(nodes[0], "mmchlicense", "server", "--accept", "-N", strings.Join(nodes, ","))
	l.mm(nodes[0], "mmcrnodeclass", "nsdservers", "-N", "nsd1,nsd2")
	l.mm(nodes[0], "mmchconfig", "pagepool=16G,maxblocksize=8M", "-N", "nsdservers")
	l.mm(nodes[0], "mmchconfig", "maxblocksize=8M")
	l.mm(nodes[0], "mmstartup", "-a")
}

const nsdStanzas = `# R5: metadata on SSD RAID1 LUNs, data on RAID6 LUNs
%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=meta01 servers=nsd1,nsd2 usage=metadataOnly failureGroup=1 pool=system
%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=meta02 servers=nsd2,nsd1 usage=metadataOnly failureGroup=2 pool=system
%%nsd:
  device=/dev/disk/by-id/wwn-0x%s
  nsd=data01 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data
%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=data02 servers=nsd2,nsd1 usage=dataOnly failureGroup=2 pool=data
%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=data03 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data
%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=data04 servers=nsd2,nsd1 usage=dataOnly failureGroup=2 pool=data
`

const poolStanzas = `%pool: pool=system blockSize=2M layoutMap=scatter
%pool: pool=data blockSize=8M layoutMap=scatter
`

func nsdFile(vols []fakenode.Disk) string {
	args := make([]any, 6)
	for i := range args {
		args[i] = vols[i].WWN
	}
	return fmt.Sprintf(nsdStanzas, args...)
}

func fsStanzaFile(names ...string) string {
	var b strings.Builder
	b.WriteString(poolStanzas)
	for _, n := range names {
		fmt.Fprintf(&b, "%%nsd: nsd=%s\n", n)
	}
	return b.String()
}

var r5fs = []string{"mmcrfs", "fs1", "-F", "/root/gpfs/fs.stanza", "-B", "8M", "-j", "scatter", "-m", "2", "-M", "2", "-r", "1", "-R", "2",
	"-n", "32", "-T", "/gpfs/fs1", "-A", "yes"}

// withNSDs creates the six NSDs of nsdStanzas and the file-system stanza.
func (l *gpfsLab) withNSDs() {
	l.t.Helper()
	l.write("nsd1", "root/gpfs/nsd.stanza", nsdFile(sharedVolumes()))
	l.mm("nsd1", "mmcrnsd", "-F", "/root/gpfs/nsd.stanza", "-v", "yes")
	l.write("nsd1", "root/gpfs/fs.stanza", fsStanzaFile("meta01", "meta02", "data01", "data02", "data03", "data04"))
}

func one(t *testing.T, recs []map[string]string, key, val string) map[string]string {
	t.Helper()
	for _, r := range recs {
		if r[key] == val {
			return r
		}
	}
	t.Fatalf("no record with %s=%s in %v", key, val, recs)
	return nil
}

// TestGPFSFullSequence: cluster, licences, configuration by node class,
// startup, NSDs, the 8 MiB file system, mount, capacity expansion with
// mmadddisk and a CES NFS export, across roots sharing one cluster, every
// -Y output parsed back.
func TestGPFSFullSequence(t *testing.T) {
	l := newGPFSLab(t, "nsd1", "nsd2", "gw1")
	l.refused("nsd2", "6027-1382 This node does not belong to a GPFS cluster.", "mmlscluster", "-Y")
	l.cluster("nsd1", "nsd2", "gw1")

	// The other nodes see the same cluster.
	cl := l.y("nsd2", "mmlscluster", "-Y")
	if s := cl["mmlscluster:clusterSummary"]; len(s) != 1 || s[0]["clusterName"] != "r5.lab" || s[0]["rshPath"] != "/usr/bin/ssh" || s[0]["repositoryType"] != "CCR" {
		t.Errorf("clusterSummary %v", s)
	}
	if n := cl["mmlscluster:clusterNode"]; len(n) != 3 || one(t, n, "daemonNodeName", "nsd1")["designation"] != "quorumManager" ||
		one(t, n, "daemonNodeName", "gw1")["designation"] != "quorum" {
		t.Errorf("clusterNode %v", n)
	}
	st := l.y("gw1", "mmgetstate", "-a", "-Y")["mmgetstate:"]
	for _, r := range st {
		if r["state"] != "active" || r["quorum"] != "2" || r["nodesUp"] != "3" || r["totalNodes"] != "3" {
			t.Errorf("mmgetstate %v", r)
		}
	}
	if len(st) != 3 {
		t.Errorf("mmgetstate -a: %d nodes", len(st))
	}
	cfg := l.y("gw1", "mmlsconfig", "-Y")["mmlsconfig:"]
	if r := one(t, cfg, "configParameter", "pagepool"); r["value"] != "16G" || r["nodeList"] != "nsdservers" {
		t.Errorf("pagepool %v", r)
	}
	if r := one(t, cfg, "configParameter", "autoload"); r["value"] != "yes" {
		t.Errorf("autoload %v", r)
	}
	if c := l.y("nsd2", "mmlsnodeclass", "-Y")["mmlsnodeclass:"]; len(c) != 1 || c[0]["nodeclassName"] != "nsdservers" || c[0]["members"] != "nsd1,nsd2" {
		t.Errorf("mmlsnodeclass %v", c)
	}
	l.mm("nsd1", "mmchnodeclass", "nsdservers", "add", "-N", "gw1")
	l.mm("nsd1", "mmchnodeclass", "nsdservers", "delete", "-N", "gw1")
	l.mm("nsd1", "mmchnodeclass", "nsdservers", "replace", "-N", "nsd2,nsd1")
	if c := l.y("nsd2", "mmlsnodeclass", "nsdservers", "-Y")["mmlsnodeclass:"]; len(c) != 1 || c[0]["members"] != "nsd2,nsd1" {
		t.Errorf("mmlsnodeclass after mmchnodeclass replace: %v", c)
	}
	l.refused("nsd1", "nsdNodes is a system-defined node class", "mmcrnodeclass", "nsdNodes", "-N", "nsd1,nsd2")
	l.refused("nsd1", "Node class nsdservers already exists", "mmcrnodeclass", "nsdservers", "-N", "nsd1")
	l.refused("nsd1", "cannot be left empty", "mmchnodeclass", "nsdservers", "delete", "-N", "nsd1,nsd2")
	l.refused("nsd1", "Node class nosuch does not exist", "mmchnodeclass", "nosuch", "add", "-N", "nsd1")
	// A system class works with -N directly.
	l.mm("nsd1", "mmchconfig", "workerThreads=1024", "-N", "nsdNodes")

	l.withNSDs()
	nsds := l.y("nsd2", "mmlsnsd", "-X", "-Y")["mmlsnsd:nsd"]
	if len(nsds) != 12 {
		t.Fatalf("mmlsnsd -X: %d lines, want 6 NSDs x 2 servers: %v", len(nsds), nsds)
	}
	var d1 []map[string]string
	for _, r := range nsds {
		if r["diskName"] == "meta01" {
			d1 = append(d1, r)
		}
		if r["fileSystem"] != "(free disk)" || r["localDiskName"] == "" || r["deviceType"] != "generic" {
			t.Errorf("mmlsnsd -X line %v", r)
		}
	}
	// meta01 is the first volume: sdb on nsd1, sdk on nsd2 (reversed).
	if len(d1) != 2 || one(t, d1, "serverList", "nsd1")["localDiskName"] != "/dev/sdb" || one(t, d1, "serverList", "nsd2")["localDiskName"] != "/dev/sdk" {
		t.Errorf("meta01 on its servers: %v", d1)
	}
	// The descriptor is on the disk: the primary server's root has it.
	if got := l.nodes["nsd1"].read(".hpcstorage-sim/data/gpfs-nsd/sdb"); !strings.HasPrefix(got, "meta01 ") {
		t.Errorf("NSD descriptor of sdb: %q", got)
	}

	l.mm("nsd1", r5fs...)
	fsY := l.y("gw1", "mmlsfs", "fs1", "-Y")["mmlsfs:"]
	field := func(name, remarks string) string {
		for _, r := range fsY {
			if r["fieldName"] == name && r["remarks"] == remarks {
				return r["data"]
			}
		}
		t.Errorf("mmlsfs: no %s (%s) in %v", name, remarks, fsY)
		return ""
	}
	if field("blockSize", "other pools") != "8388608" || field("blockSize", "system pool") != "2097152" ||
		field("minFragmentSize", "other pools") != "32768" || field("subblocksPerFullBlock", "") != "256" ||
		field("blockAllocationType", "") != "scatter" || field("defaultMetadataReplicas", "") != "2" ||
		field("maxDataReplicas", "") != "2" || field("defaultMountPoint", "") != "/gpfs/fs1" ||
		field("storagePools", "") != "data;system" || field("automaticMountOption", "") != "yes" {
		t.Errorf("mmlsfs -Y:\n%v", fsY)
	}
	if out, _ := l.nodes["nsd1"].query("mmlsfs", "fs1", "-Y"); !strings.Contains(out, ":defaultMountPoint:%2Fgpfs%2Ffs1::") {
		t.Errorf("mmlsfs encodes slashes in values, as GPFS does:\n%s", out)
	}
	if out, _ := l.nodes["nsd1"].query("mmlsfs", "fs1", "-f"); !strings.Contains(out, "32768") || !strings.Contains(out, "Minimum fragment (subblock) size in bytes (other pools)") {
		t.Errorf("mmlsfs -f:\n%s", out)
	}
	l.write("nsd1", "root/gpfs/policy", "/* data goes to the data pool */\nRULE 'default' SET POOL 'data'\n")
	l.mm("nsd1", "mmchpolicy", "fs1", "/root/gpfs/policy")
	if out, _ := l.nodes["gw1"].query("mmlspolicy", "fs1", "-L"); !strings.Contains(out, "RULE 'default' SET POOL 'data'") {
		t.Errorf("mmlspolicy -L: %q", out)
	}

	l.mm("nsd1", "mmmount", "fs1", "-a")
	for name, n := range l.nodes {
		if !strings.Contains(n.read("proc/mounts"), "fs1 /gpfs/fs1 gpfs rw,relatime 0 0") {
			t.Errorf("%s's mount table: %q", name, n.read("proc/mounts"))
		}
	}
	if m := l.y("nsd2", "mmlsmount", "fs1", "-Y")["mmlsmount:"]; len(m) != 3 || m[0]["realDevName"] != "fs1" || m[0]["env"] != "RW" || m[0]["totalNodes"] != "3" {
		t.Errorf("mmlsmount %v", m)
	}

	// Capacity expansion: two more NSDs, one mmadddisk with exactly them.
	vols := sharedVolumes()
	l.write("nsd2", "root/gpfs/new.stanza", fmt.Sprintf("%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=data05 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data\n"+
		"%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=data06 servers=nsd2,nsd1 usage=dataOnly failureGroup=2 pool=data\n", vols[6].WWN, vols[7].WWN))
	l.mm("nsd2", "mmcrnsd", "-F", "/root/gpfs/new.stanza", "-v", "yes")
	before := l.y("nsd1", "mmlsdisk", "fs1", "-Y")["mmlsdisk:"]
	l.mm("nsd2", "mmadddisk", "fs1", "-F", "/root/gpfs/new.stanza")
	after := l.y("nsd1", "mmlsdisk", "fs1", "-Y")["mmlsdisk:"]
	if len(before) != 6 || len(after) != 8 {
		t.Fatalf("mmlsdisk: %d disks before, %d after", len(before), len(after))
	}
	for i, r := range before {
		if fmt.Sprint(after[i]) != fmt.Sprint(r) {
			t.Errorf("disk %s changed by mmadddisk: %v -> %v", r["nsdName"], r, after[i])
		}
	}
	if a := after[6]; a["nsdName"] != "data05" || a["storagePool"] != "data" || a["metadata"] != "no" || a["data"] != "yes" || a["failureGroup"] != "1" || a["status"] != "ready" {
		t.Errorf("added disk %v", a)
	}
	if m := l.y("gw1", "mmlsmount", "fs1", "-Y")["mmlsmount:"]; len(m) != 3 {
		t.Errorf("the file system did not stay mounted: %v", m)
	}
	if r := one(t, before, "nsdName", "meta01"); r["remarks"] != "desc" || r["metadata"] != "yes" || r["data"] != "no" {
		t.Errorf("meta01 %v", r)
	}

	// Gateways: CES NFS export of the file system.
	l.mm("gw1", "mmchconfig", "cesSharedRoot=/gpfs/fs1/ces")
	l.mm("gw1", "mmchnode", "--ces-enable", "-N", "gw1")
	l.mm("gw1", "mmces", "service", "enable", "NFS")
	l.mm("gw1", "mmces", "address", "add", "--ces-ip", "10.10.0.50,10.10.0.51")
	l.mm("gw1", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "10.20.0.0/16(Access_Type=RW,Squash=no_root_squash);*(Access_Type=RO)")
	ex := l.y("nsd1", "mmnfs", "export", "list", "-Y")["mmnfs:nfsexports"]
	if len(ex) != 2 || one(t, ex, "Clients", "10.20.0.0/16")["Access_Type"] != "RW" || one(t, ex, "Clients", "10.20.0.0/16")["Squash"] != "NO_ROOT_SQUASH" ||
		one(t, ex, "Clients", "*")["Access_Type"] != "RO" || ex[0]["Path"] != "/gpfs/fs1" {
		t.Errorf("exports %v", ex)
	}
	if s := l.y("nsd2", "mmces", "service", "list", "-Y")["mmces:service"]; len(s) != 1 || s[0]["serviceName"] != "NFS" || s[0]["nodeName"] != "gw1" || s[0]["state"] != "running" {
		t.Errorf("mmces service list %v", s)
	}
	if n := l.y("nsd2", "mmces", "node", "list", "-Y")["mmces:node"]; len(n) != 1 || n[0]["nodeName"] != "gw1" {
		t.Errorf("mmces node list %v", n)
	}
	cl = l.y("nsd1", "mmlscluster", "-Y")
	if c := cl["mmlscluster:cesNode"]; len(c) != 1 || c[0]["cesIpList"] != "10.10.0.50,10.10.0.51" {
		t.Errorf("cesNode %v", c)
	}
	if s := cl["mmlscluster:cesSummary"]; len(s) != 1 || s[0]["cesSharedRoot"] != "/gpfs/fs1/ces" || s[0]["EnabledServices"] != "NFS" {
		t.Errorf("cesSummary %v", s)
	}
	l.mm("gw1", "mmnfs", "export", "remove", "/gpfs/fs1")

	// Shut down: the mounts go from every node's table.
	l.mm("nsd1", "mmumount", "fs1", "-a")
	for name, n := range l.nodes {
		if strings.Contains(n.read("proc/mounts"), "gpfs") {
			t.Errorf("%s still shows a GPFS mount: %q", name, n.read("proc/mounts"))
		}
	}
	l.mm("nsd1", "mmshutdown", "-a")
	if st := l.y("nsd1", "mmgetstate", "-a", "-Y")["mmgetstate:"]; st[0]["state"] != "down" {
		t.Errorf("after mmshutdown: %v", st)
	}
}

// TestGPFSRefusals: each rule the simulator enforces, as its own case,
// from a started three-node cluster with the six NSDs (unless the case
// needs less).
func TestGPFSRefusals(t *testing.T) {
	vols := sharedVolumes()
	stanza := func(l *gpfsLab, p, s string) { l.write("nsd1", p, s) }
	cases := []struct {
		name  string
		bare  bool // no cluster
		noNSD bool
		run   func(t *testing.T, l *gpfsLab)
	}{
		{"no command before mmcrcluster", true, true, func(t *testing.T, l *gpfsLab) {
			l.refused("nsd1", "6027-1382", "mmlsconfig", "-Y")
			l.refused("nsd1", "6027-1639 Command failed", "mmcrnsd", "-F", "/root/x")
		}},
		{"node not a cluster member", false, true, func(t *testing.T, l *gpfsLab) {
			l.refused("gw2", "6027-1382 This node does not belong to a GPFS cluster.", "mmgetstate", "-a", "-Y")
		}},
		{"startup without a licence", true, true, func(t *testing.T, l *gpfsLab) {
			l.write("nsd1", "root/nodes", "nsd1:quorum-manager\nnsd2:quorum-manager\ngw1:quorum\ngw2\n")
			l.mm("nsd1", "mmcrcluster", "-N", "/root/nodes", "-C", "c")
			l.refused("nsd1", "gw2 has no GPFS license designation", "mmstartup", "-a")
			l.refused("nsd1", "requires a server license", "mmchlicense", "client", "--accept", "-N", "nsd1")
			l.mm("nsd1", "mmchlicense", "server", "--accept", "-N", "nsd1,nsd2,gw1")
			l.mm("nsd1", "mmchlicense", "client", "--accept", "-N", "gw2")
			l.mm("nsd1", "mmstartup", "-a")
			// An NSD server needs a server licence: gw2 (client) cannot
			// start once it serves an NSD.
			l.mm("nsd1", "mmshutdown", "-N", "gw2")
			l.write("nsd1", "root/s", fmt.Sprintf("%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=x1 servers=nsd1,gw2\n", vols[0].WWN))
			l.mm("nsd1", "mmcrnsd", "-F", "/root/s")
			l.refused("nsd1", "gw2 is an NSD server and needs a server license, not client", "mmstartup", "-N", "gw2")
			// gw2 sees none of the arrays' volumes.
			l.write("nsd1", "root/s", fmt.Sprintf("%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=x2 servers=gw2\n", vols[1].WWN))
			l.refused("nsd1", "on node gw2: No such device", "mmcrnsd", "-F", "/root/s")
		}},
		{"mmcrcluster twice, bad designation, no quorum", true, true, func(t *testing.T, l *gpfsLab) {
			l.write("nsd1", "root/bad", "nsd1:quorum-server\n")
			l.refused("nsd1", `Incorrect node designation "quorum-server"`, "mmcrcluster", "-N", "/root/bad", "-C", "c")
			l.write("nsd1", "root/noq", "nsd1:manager\n")
			l.refused("nsd1", "At least one quorum node", "mmcrcluster", "-N", "/root/noq", "-C", "c")
			l.write("nsd1", "root/ok", "nsd1:quorum\n")
			l.mm("nsd1", "mmcrcluster", "-N", "/root/ok", "-C", "c")
			l.refused("nsd1", "already a member of cluster c", "mmcrcluster", "-N", "/root/ok", "-C", "c")
			l.refused("nsd1", "Incorrect node nsd9 specified", "mmchlicense", "server", "--accept", "-N", "nsd9")
		}},
		{"mmchconfig unknown attribute", false, true, func(t *testing.T, l *gpfsLab) {
			l.refused("nsd1", "Unknown attribute pagePool (did you mean pagepool?)", "mmchconfig", "pagePool=16G")
			l.refused("nsd1", "Unknown attribute noSuchKey", "mmchconfig", "pagepool=16G,noSuchKey=1")
			l.refused("nsd1", "Incorrect value 16Q for attribute pagepool", "mmchconfig", "pagepool=16Q")
			// The mmchconfig reference's limits and words.
			l.refused("nsd1", "Incorrect value 16 for attribute pagepool: valid range is 4M", "mmchconfig", "pagepool=16")
			l.refused("nsd1", "the block size must be a power of 2", "mmchconfig", "maxblocksize=12M")
			l.refused("nsd1", "valid range is 64K to 16M", "mmchconfig", "maxblocksize=32M")
			l.refused("nsd1", "valid range is 10 to 70", "mmchconfig", "nsdbufspace=80")
			l.refused("nsd1", "want one of yes, no, meta", "mmchconfig", "unmountOnDiskFail=metadata")
			l.refused("nsd1", "cannot be changed with -i", "mmchconfig", "maxblocksize=16M", "-i")
			l.refused("nsd1", "Incorrect node nobody", "mmchconfig", "pagepool=8G", "-N", "nobody")
			if v := one(t, l.y("nsd1", "mmlsconfig", "-Y")["mmlsconfig:"], "configParameter", "pagepool")["value"]; v != "16G" {
				t.Errorf("a refused mmchconfig changed pagepool to %s", v)
			}
		}},
		{"block size above maxblocksize until restart", true, false, func(t *testing.T, l *gpfsLab) {
			l.write("nsd1", "root/nodes", "nsd1:quorum-manager\nnsd2:quorum-manager\ngw1:quorum\n")
			l.mm("nsd1", "mmcrcluster", "-N", "/root/nodes", "-C", "c")
			l.mm("nsd1", "mmchlicense", "server", "--accept", "-N", "all")
			l.mm("nsd1", "mmstartup", "-a")
			l.withNSDs()
			fs := append([]string{}, r5fs...)
			l.refused("nsd1", "mmcrfs: 6027-1084 The specified block size (8M) exceeds the maximum allowed block size currently in effect (4M).", fs...)
			// maxblocksize changes only with every daemon down.
			l.refused("nsd1", "maxblocksize cannot be changed while GPFS is active", "mmchconfig", "maxblocksize=8M")
			l.mm("nsd1", "mmshutdown", "-a")
			l.mm("nsd1", "mmchconfig", "maxblocksize=8M")
			l.refused("nsd1", "GPFS is not active on node nsd1", fs...)
			l.mm("nsd1", "mmstartup", "-a")
			l.mm("nsd1", fs...)
		}},
		{"mmcrnsd refuses a signature unless -v no", false, true, func(t *testing.T, l *gpfsLab) {
			l.mm("nsd1", "mkfs.xfs", "/dev/sdb")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=x1 servers=nsd1,nsd2\n", vols[0].WWN))
			l.refused("nsd1", "contains a xfs signature", "mmcrnsd", "-F", "/root/s", "-v", "yes")
			l.refused("nsd1", "contains a xfs signature", "mmcrnsd", "-F", "/root/s")
			l.mm("nsd1", "mmcrnsd", "-F", "/root/s", "-v", "no")
		}},
		{"mmcrnsd refuses an NSD descriptor unless -v no", false, true, func(t *testing.T, l *gpfsLab) {
			// A disk an earlier cluster made an NSD: its descriptor is on
			// the disk (here: the primary server sees it as sdc).
			l.write("nsd1", ".hpcstorage-sim/data/gpfs-nsd/sdc", "old07 0A0A0A0A00000007\n")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=x1 servers=nsd1,nsd2\n", vols[1].WWN))
			l.refused("nsd1", "refers to an existing NSD old07", "mmcrnsd", "-F", "/root/s", "-v", "yes")
			l.mm("nsd1", "mmcrnsd", "-F", "/root/s", "-v", "no")
			// mmdelnsd erases the descriptor: the disk is reusable.
			l.mm("nsd1", "mmdelnsd", "x1")
			l.mm("nsd1", "mmcrnsd", "-F", "/root/s", "-v", "yes")
		}},
		{"mmcrnsd refuses a device the server does not have", false, true, func(t *testing.T, l *gpfsLab) {
			stanza(l, "root/s", "%nsd: device=/dev/mapper/nothere nsd=x1 servers=nsd2,nsd1\n")
			l.refused("nsd1", "device name /dev/mapper/nothere on node nsd2", "mmcrnsd", "-F", "/root/s")
			// gw1 is a member without the arrays' volumes.
			stanza(l, "root/s", "%nsd: device=/dev/sdb nsd=x1 servers=gw1\n")
			l.refused("nsd1", "on node gw1: No such device", "mmcrnsd", "-F", "/root/s")
		}},
		{"mmcrnsd refuses duplicate names, too many servers, strangers, bad usage", false, true, func(t *testing.T, l *gpfsLab) {
			dev := func(i int) string { return "/dev/disk/by-id/wwn-0x" + vols[i].WWN }
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1\n%%nsd: device=%s nsd=x1 servers=nsd1\n", dev(0), dev(1)))
			l.refused("nsd1", "Disk name x1 is already in use", "mmcrnsd", "-F", "/root/s")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1,nsd2,gw1,nsd1\n", dev(0)))
			l.refused("nsd1", "Server nsd1 is listed twice", "mmcrnsd", "-F", "/root/s")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1,nsd9\n", dev(0)))
			l.refused("nsd1", "Incorrect node nsd9", "mmcrnsd", "-F", "/root/s")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1 usage=dataonly\n", dev(0)))
			l.refused("nsd1", "Incorrect usage dataonly", "mmcrnsd", "-F", "/root/s")
			var nodes strings.Builder
			for i := 1; i <= 9; i++ {
				fmt.Fprintf(&nodes, "io%d\n", i)
			}
			l.write("nsd1", "root/more", nodes.String())
			l.mm("nsd1", "mmaddnode", "-N", "/root/more")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1,io1,io2,io3,io4,io5,io6,io7,io8\n", dev(0)))
			l.refused("nsd1", "at most 8 NSD servers", "mmcrnsd", "-F", "/root/s")
			// A failed file leaves nothing half-created.
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1\n%%nsd: device=/dev/nothing nsd=x2 servers=nsd1\n", dev(0)))
			l.refused("nsd1", "No such device", "mmcrnsd", "-F", "/root/s")
			if n := l.y("nsd1", "mmlsnsd", "-Y")["mmlsnsd:nsd"]; len(n) != 0 {
				t.Errorf("a refused mmcrnsd created %v", n)
			}
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1\n", dev(0)))
			l.mm("nsd1", "mmcrnsd", "-F", "/root/s")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x1 servers=nsd1\n", dev(1)))
			l.refused("nsd1", "Disk name x1 is already in use", "mmcrnsd", "-F", "/root/s")
			stanza(l, "root/s", fmt.Sprintf("%%nsd: device=%s nsd=x2 servers=nsd1\n", dev(0)))
			l.refused("nsd1", "is already NSD x1", "mmcrnsd", "-F", "/root/s", "-v", "no")
		}},
		{"mmcrfs refuses missing NSDs and NSDs in use", false, false, func(t *testing.T, l *gpfsLab) {
			l.write("nsd1", "root/gpfs/bad.stanza", fsStanzaFile("meta01", "data01", "nosuch"))
			l.refused("nsd1", "Disk nosuch is not an existing NSD", "mmcrfs", "fs0", "-F", "/root/gpfs/bad.stanza", "-B", "8M")
			l.mm("nsd1", r5fs...)
			l.write("nsd1", "root/gpfs/again.stanza", fsStanzaFile("meta01", "data01"))
			l.refused("nsd1", "Disk meta01 is already in use by file system fs1", "mmcrfs", "fs2", "-F", "/root/gpfs/again.stanza", "-B", "8M", "-T", "/gpfs/fs2")
			l.refused("nsd1", "File system fs1 already exists", r5fs...)
			l.refused("nsd1", "belongs to file system fs1", "mmdelnsd", "data01;data02")
		}},
		{"mmcrfs replication rules", false, false, func(t *testing.T, l *gpfsLab) {
			with := func(opt ...string) []string {
				a := append([]string{}, r5fs...)
				for i := 0; i < len(opt); i += 2 {
					a[slices.Index(a, opt[i])+1] = opt[i+1]
				}
				return a
			}
			l.refused("nsd1", "default metadata replicas (-m 3) cannot exceed the maximum metadata replicas (-M 2)", with("-m", "3")...)
			l.refused("nsd1", "Incorrect value 4 for the -M option", with("-M", "4")...)
			l.refused("nsd1", "default data replicas (-r 2) cannot exceed the maximum data replicas (-R 1)", with("-r", "2", "-R", "1")...)
			l.refused("nsd1", "Incorrect value 4 for the -R option", with("-R", "4")...)
			l.refused("nsd1", "Default metadata replicas 3 need as many failure groups; the metadata disks are in 2", with("-m", "3", "-M", "3")...)
			l.refused("nsd1", "Default data replicas 3 need as many failure groups; the data disks of pool data are in 2", with("-r", "3", "-R", "3")...)
			l.refused("nsd1", "Incorrect value 3M for the -B option", with("-B", "3M")...)
		}},
		{"mmcrfs pool rules", false, false, func(t *testing.T, l *gpfsLab) {
			l.write("nsd1", "root/gpfs/meta.stanza", fsStanzaFile("meta01", "meta02"))
			l.refused("nsd1", "a metadata-only system pool needs a data pool", "mmcrfs", "fs0", "-F", "/root/gpfs/meta.stanza", "-B", "8M")
			l.write("nsd1", "root/gpfs/data.stanza", fsStanzaFile("data01", "data02"))
			l.refused("nsd1", "The system pool must contain at least one disk that can hold metadata", "mmcrfs", "fs0", "-F", "/root/gpfs/data.stanza", "-B", "8M")
			l.write("nsd1", "root/gpfs/md.stanza", "%nsd: nsd=meta01\n%nsd: nsd=data01 usage=dataAndMetadata\n")
			l.refused("nsd1", "metadata can only be stored in the system pool", "mmcrfs", "fs0", "-F", "/root/gpfs/md.stanza", "-B", "8M")
			l.write("nsd1", "root/gpfs/bs.stanza", "%pool: pool=data blockSize=4M\n%nsd: nsd=meta01\n%nsd: nsd=data01\n")
			l.refused("nsd1", "Pool data: blockSize 4M differs", "mmcrfs", "fs0", "-F", "/root/gpfs/bs.stanza", "-B", "8M")
			l.write("nsd1", "root/gpfs/mix.stanza", "%pool: pool=system blockSize=1M\n%nsd: nsd=meta01\n%nsd: nsd=data01 pool=system usage=dataAndMetadata\n")
			l.refused("nsd1", "only when all its disks are metadataOnly", "mmcrfs", "fs0", "-F", "/root/gpfs/mix.stanza", "-B", "8M")
			// -B 8M with one block size everywhere: 512 subblocks of 16 KiB.
			l.write("nsd1", "root/gpfs/plain.stanza", "%nsd: nsd=meta01\n%nsd: nsd=data01\n")
			l.mm("nsd1", "mmcrfs", "fs0", "-F", "/root/gpfs/plain.stanza", "-B", "8M", "-T", "/gpfs/fs0")
			fsY := l.y("nsd1", "mmlsfs", "fs0", "-f", "--subblocks-per-full-block", "-Y")["mmlsfs:"]
			if len(fsY) != 2 || fsY[0]["data"] != "16384" || fsY[1]["data"] != "512" {
				t.Errorf("mmlsfs -f of -B 8M alone: %v", fsY)
			}
		}},
		{"mmadddisk and mmdeldisk", false, false, func(t *testing.T, l *gpfsLab) {
			l.mm("nsd1", r5fs...)
			l.write("nsd1", "root/gpfs/add.stanza", "%nsd: nsd=data01\n")
			l.refused("nsd1", "Disk data01 is already in use by file system fs1", "mmadddisk", "fs1", "-F", "/root/gpfs/add.stanza")
			l.refused("nsd1", "File system fs9 is not known", "mmadddisk", "fs9", "-F", "/root/gpfs/add.stanza")
			l.refused("nsd1", "Cannot delete the last disks holding metadata", "mmdeldisk", "fs1", "meta01;meta02")
			l.refused("nsd1", "Cannot delete the last disks holding data", "mmdeldisk", "fs1", "data01;data02;data03;data04")
			l.refused("nsd1", "Disk nosuch is not part of file system fs1", "mmdeldisk", "fs1", "nosuch")
			l.mm("nsd1", "mmdeldisk", "fs1", "data04")
			if n := one(t, l.y("nsd1", "mmlsnsd", "-Y")["mmlsnsd:nsd"], "diskName", "data04"); n["fileSystem"] != "(free disk)" {
				t.Errorf("data04 after mmdeldisk: %v", n)
			}
			l.mm("nsd1", "mmrestripefs", "fs1", "-b")
			l.mm("nsd1", "mmmount", "fs1", "-a")
			l.refused("nsd1", "File system fs1 is mounted on 3 node(s)", "mmdelfs", "fs1")
			l.mm("nsd1", "mmumount", "fs1", "-a")
			l.mm("nsd1", "mmdelfs", "fs1")
			if n := l.y("nsd1", "mmlsnsd", "-Y")["mmlsnsd:nsd"]; len(n) != 6 || n[0]["fileSystem"] != "(free disk)" {
				t.Errorf("NSDs after mmdelfs: %v", n)
			}
			l.refused("nsd1", "File system fs1 is not known", "mmlsfs", "fs1")
		}},
		{"mmchpolicy refuses unknown pools", false, false, func(t *testing.T, l *gpfsLab) {
			l.mm("nsd1", r5fs...)
			if out, _ := l.nodes["nsd1"].query("mmlspolicy", "fs1", "-L"); !strings.Contains(out, "No policy file was installed for file system 'fs1'") {
				t.Errorf("mmlspolicy without a policy: %q", out)
			}
			l.write("nsd1", "root/p", "RULE 'x' SET POOL 'fast'\n")
			l.refused("nsd1", "pool 'fast' is not a storage pool of file system fs1", "mmchpolicy", "fs1", "/root/p")
			l.write("nsd1", "root/p", "/* nothing */\n")
			l.refused("nsd1", "contains no rules", "mmchpolicy", "fs1", "/root/p")
		}},
		{"mmmount needs active daemons", false, false, func(t *testing.T, l *gpfsLab) {
			l.mm("nsd1", r5fs...)
			l.mm("nsd1", "mmshutdown", "-N", "gw1")
			l.refused("nsd1", "GPFS is not active on node(s) gw1", "mmmount", "fs1", "-a")
			if m := l.y("nsd1", "mmlsmount", "fs1", "-Y")["mmlsmount:"]; len(m) != 2 {
				t.Errorf("mounted on %v, want the two active nodes", m)
			}
			if strings.Contains(l.nodes["gw1"].read("proc/mounts"), "gpfs") {
				t.Errorf("gw1 is down but shows the mount")
			}
		}},
		{"CES refusals", false, false, func(t *testing.T, l *gpfsLab) {
			l.refused("gw1", "The NFS service is not enabled", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RW)")
			l.refused("gw1", "cesSharedRoot is not set", "mmchnode", "--ces-enable", "-N", "gw1")
			l.mm("gw1", "mmchconfig", "cesSharedRoot=/gpfs/fs1/ces")
			l.refused("gw1", "There are no CES nodes", "mmces", "service", "enable", "NFS")
			l.mm("gw1", "mmchnode", "--ces-enable", "-N", "gw1")
			l.mm("gw1", "mmces", "service", "enable", "NFS")
			l.refused("gw1", "Incorrect IP address 10.0.0.300", "mmces", "address", "add", "--ces-ip", "10.0.0.300")
			l.refused("gw1", "The path /gpfs/fs1 is not in a GPFS file system", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RW)")
			l.mm("nsd1", r5fs...)
			l.refused("gw1", "File system fs1 of /gpfs/fs1 is not mounted", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RW)")
			l.mm("gw1", "mmmount", "fs1", "-a")
			l.refused("gw1", "Unknown NFS export option Acces_Type", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Acces_Type=RW)")
			l.refused("gw1", "Incorrect value RWX for NFS option Access_Type", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RWX)")
			l.refused("gw1", "The path /gpfs/fs1/none does not exist", "mmnfs", "export", "add", "/gpfs/fs1/none", "--client", "*(Access_Type=RW)")
			l.mm("gw1", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RW,Protocols=3,4)")
			l.refused("gw1", "An export for /gpfs/fs1 already exists", "mmnfs", "export", "add", "/gpfs/fs1", "--client", "*(Access_Type=RW)")
			if ex := l.y("gw1", "mmnfs", "export", "list", "-Y")["mmnfs:nfsexports"]; len(ex) != 1 || ex[0]["Protocols"] != "3,4" {
				t.Errorf("exports %v", ex)
			}
			l.refused("gw1", "There is no NFS export for /gpfs/other", "mmnfs", "export", "remove", "/gpfs/other")
			// SMB exports: mmsmb export add NAME PATH [--option "K=V"]...
			l.refused("gw1", "The SMB service is not enabled", "mmsmb", "export", "add", "fs1", "/gpfs/fs1")
			l.mm("gw1", "mmces", "service", "enable", "SMB")
			l.refused("gw1", "Incorrect SMB export name \"a:b\"", "mmsmb", "export", "add", "a:b", "/gpfs/fs1")
			l.refused("gw1", "The SMB export name homes is reserved", "mmsmb", "export", "add", "homes", "/gpfs/fs1")
			l.refused("gw1", "The path /srv is not in a GPFS file system", "mmsmb", "export", "add", "srv", "/srv")
			l.refused("gw1", "The path /gpfs/fs1/none does not exist", "mmsmb", "export", "add", "none", "/gpfs/fs1/none")
			l.refused("gw1", "Unsupported SMB option \"browsable=yes\"", "mmsmb", "export", "add", "fs1", "/gpfs/fs1", "--option", "browsable=yes")
			l.refused("gw1", "Incorrect value maybe for SMB option guest ok", "mmsmb", "export", "add", "fs1", "/gpfs/fs1", "--option", "guest ok=maybe")
			l.refused("gw1", "Incorrect value always for SMB option smb encrypt", "mmsmb", "export", "add", "fs1", "/gpfs/fs1", "--option", "smb encrypt=always")
			l.mm("gw1", "mmsmb", "export", "add", "fs1", "/gpfs/fs1", "--option", "browseable=no", "--option", "smb encrypt=desired", "--remark", "R5")
			l.refused("gw1", "The SMB export FS1 already exists", "mmsmb", "export", "add", "FS1", "/gpfs/fs1")
			sh := l.y("nsd1", "mmsmb", "export", "list", "-Y", "--all")["mmsmb:exports"]
			if len(sh) != 1 || sh[0]["export"] != "fs1" || sh[0]["path"] != "/gpfs/fs1" || sh[0]["browseable"] != "no" ||
				sh[0]["smb encrypt"] != "desired" || sh[0]["guest ok"] != "no" || sh[0]["read only"] != "no" {
				t.Errorf("SMB exports %v", sh)
			}
			if sh = l.y("nsd1", "mmsmb", "export", "list", "-Y")["mmsmb:exports"]; len(sh) != 1 || len(sh[0]) != 5 {
				t.Errorf("default columns: %v", sh)
			}
			l.refused("gw1", "The SMB export other does not exist", "mmsmb", "export", "remove", "other")
			l.mm("gw1", "mmsmb", "export", "remove", "fs1")
			if sh = l.y("nsd1", "mmsmb", "export", "list", "-Y")["mmsmb:exports"]; len(sh) != 0 {
				t.Errorf("SMB exports after remove: %v", sh)
			}
		}},
		{"mmdelnode refusals", false, true, func(t *testing.T, l *gpfsLab) {
			l.refused("nsd1", "GPFS is still active on node gw1", "mmdelnode", "-N", "gw1")
			l.mm("nsd1", "mmshutdown", "-N", "gw1")
			l.mm("nsd1", "mmdelnode", "-N", "gw1")
			if n := l.y("nsd1", "mmlscluster", "-Y")["mmlscluster:clusterNode"]; len(n) != 2 {
				t.Errorf("nodes after mmdelnode: %v", n)
			}
			l.refused("gw1", "6027-1382", "mmlsconfig")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newGPFSLab(t, "nsd1", "nsd2", "gw1", "gw2")
			l.t = t
			for _, n := range l.nodes {
				n.t = t
			}
			if !c.bare {
				l.cluster("nsd1", "nsd2", "gw1")
				if !c.noNSD {
					l.withNSDs()
				}
			}
			c.run(t, l)
		})
	}
}

// TestGPFSStateIsShared: the state file is in the shared folder, not in
// a root.
func TestGPFSStateIsShared(t *testing.T) {
	l := newGPFSLab(t, "nsd1", "nsd2")
	l.write("nsd1", "root/n", "nsd1:quorum\nnsd2\n")
	l.mm("nsd1", "mmcrcluster", "-N", "/root/n", "-C", "c")
	if _, err := os.Stat(filepath.Join(l.shared, "gpfs", sim.GPFSStateFile)); err != nil {
		t.Fatal(err)
	}
	for name, n := range l.nodes {
		if _, err := os.Stat(filepath.Join(n.dir, ".hpcstorage-sim/data/shared")); err == nil {
			t.Errorf("%s keeps cluster state in its root", name)
		}
	}
}

// TestGPFSPowerCycle: a node's power cycle (the lab's BMC reset) stops its
// daemon; with autoload=yes GPFS comes back at boot and mounts the -A yes
// file systems, without it the node stays down and unmounted.
func TestGPFSPowerCycle(t *testing.T) {
	l := newGPFSLab(t, "nsd1", "nsd2", "gw1")
	l.cluster("nsd1", "nsd2", "gw1") // mmcrcluster -A: autoload=yes
	l.withNSDs()
	l.mm("nsd1", r5fs...)
	l.mm("nsd1", "mmmount", "fs1", "-a")
	cycle := func(node string) {
		t.Helper()
		if err := sim.PowerOff(l.nodes[node].dir); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(l.nodes[node].read("proc/mounts"), "gpfs") {
			t.Fatalf("%s powered off still shows the mount", node)
		}
		if err := sim.Boot(l.nodes[node].dir); err != nil {
			t.Fatal(err)
		}
	}
	// While it is off, the others see it down, not started by autoload,
	// and it cannot be started.
	if err := sim.PowerOff(l.nodes["nsd2"].dir); err != nil {
		t.Fatal(err)
	}
	if r := one(t, l.y("nsd1", "mmgetstate", "-a", "-Y")["mmgetstate:"], "nodeName", "nsd2"); r["state"] != "down" {
		t.Errorf("nsd2 powered off: %v", r)
	}
	l.refused("nsd1", "nsd2 is not reachable (powered off)", "mmstartup", "-N", "nsd2")
	if err := sim.Boot(l.nodes["nsd2"].dir); err != nil {
		t.Fatal(err)
	}
	cycle("nsd2")
	if r := one(t, l.y("nsd1", "mmgetstate", "-a", "-Y")["mmgetstate:"], "nodeName", "nsd2"); r["state"] != "active" {
		t.Errorf("nsd2 after a power cycle with autoload: %v", r)
	}
	if !strings.Contains(l.nodes["nsd2"].read("proc/mounts"), "fs1 /gpfs/fs1 gpfs") {
		t.Errorf("fs1 (-A yes) not mounted again on nsd2: %q", l.nodes["nsd2"].read("proc/mounts"))
	}
	// umount(8) on a node unmounts the file system there.
	l.mm("nsd2", "umount", "/gpfs/fs1")
	if m := l.y("nsd1", "mmlsmount", "fs1", "-Y")["mmlsmount:"]; len(m) != 2 {
		t.Errorf("after umount on nsd2, mounted on %v", m)
	}
	l.mm("nsd1", "mmmount", "fs1", "-a")
	l.mm("nsd1", "mmchconfig", "autoload=no")
	cycle("gw1")
	if r := one(t, l.y("nsd1", "mmgetstate", "-a", "-Y")["mmgetstate:"], "nodeName", "gw1"); r["state"] != "down" {
		t.Errorf("gw1 after a power cycle without autoload: %v", r)
	}
	if m := l.y("nsd1", "mmlsmount", "fs1", "-Y")["mmlsmount:"]; len(m) != 2 {
		t.Errorf("mounted on %v after gw1's power cycle", m)
	}
}

// TestGPFSNodeClassLifecycle: mmcrnodeclass refuses a class that exists
// (the day-2 lock relies on it), mmdelnodeclass deletes a user class and
// refuses system classes and missing ones.
func TestGPFSNodeClassLifecycle(t *testing.T) {
	l := newGPFSLab(t, "nsd1", "nsd2")
	l.write("nsd1", "root/n", "nsd1:quorum\nnsd2\n")
	l.mm("nsd1", "mmcrcluster", "-N", "/root/n", "-C", "c")
	l.mm("nsd1", "mmcrnodeclass", "lock-a", "-N", "nsd1")
	l.refused("nsd2", "Node class lock-a already exists.", "mmcrnodeclass", "lock-a", "-N", "nsd2")
	if r := one(t, l.y("nsd2", "mmlsnodeclass", "lock-a", "-Y")["mmlsnodeclass:"], "nodeclassName", "lock-a"); r["members"] != "nsd1" {
		t.Errorf("lock-a: %v", r)
	}
	l.refused("nsd1", "quorumNodes is a system-defined node class", "mmdelnodeclass", "quorumNodes")
	l.mm("nsd2", "mmdelnodeclass", "lock-a")
	l.refused("nsd1", "Node class lock-a does not exist.", "mmdelnodeclass", "lock-a")
	l.refused("nsd1", "Node class lock-a does not exist.", "mmlsnodeclass", "lock-a", "-Y")
}
