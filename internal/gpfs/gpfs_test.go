package gpfs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseYConfig(t *testing.T) {
	c, err := ParseConfig(fixture(t, "mmlsconfig.Y"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ key, scope, want string }{
		{"maxblocksize", AllNodes, "8M"}, {"pagepool", "nsdServers", "16G"}, {"pagepool", "gwNodes", "4G"},
		{"pagepool", "mgmtNodes", "4G"}, {"verbsPorts", "nsdServers", "mlx5_0/1 mlx5_1/1"}, {"clusterName", AllNodes, "r5.hpc.example"},
	} {
		if got, ok := c.Value(tc.key, tc.scope); !ok || got != tc.want {
			t.Errorf("%s for %s = %q, %v; want %q", tc.key, tc.scope, got, ok, tc.want)
		}
	}
	if _, ok := c.Value("pagepool", AllNodes); ok {
		t.Error("pagepool has no cluster-wide value in the fixture")
	}
	if !SameValue("pagepool", "16G", "16384M") || SameValue("pagepool", "16G", "8G") || SameValue("workerThreads", "1024", "1K") {
		t.Error("SameValue compares sizes by bytes, other kinds as text")
	}
}

func TestParseYCluster(t *testing.T) {
	c, err := ParseCluster(fixture(t, "mmlscluster.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "r5.hpc.example" || c.ID != "7261945327163512402" || len(c.Nodes) != 5 {
		t.Fatalf("cluster = %+v", c)
	}
	if n := c.Nodes[0]; ShortName(n.DaemonName) != "nsd1" || n.Designation != "quorumManager" || len(c.CESNodes) != 0 {
		t.Errorf("first node = %+v", n)
	}
	st, err := ParseStates(fixture(t, "mmgetstate.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if st["nsd1"] != "active" || st["gw2"] != "down" || len(st) != 5 {
		t.Errorf("states = %v", st)
	}
	nc, err := ParseNodeClasses(fixture(t, "mmlsnodeclass.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nc["nsdServers"], []string{"nsd1", "nsd2"}) || len(nc) != 2 {
		t.Errorf("node classes = %v", nc)
	}
}

func TestParseYDisks(t *testing.T) {
	nsds, err := ParseNSDs(fixture(t, "mmlsnsd.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if n := nsds["me4084_1_d01"]; n.FileSystem != "fs1" || !reflect.DeepEqual(n.Servers, []string{"nsd2", "nsd1"}) ||
		n.Device != "/dev/mapper/me4084_1_d01" {
		t.Errorf("me4084_1_d01 = %+v", n)
	}
	if n := nsds["me4084_2_d01"]; n.FileSystem != "" || n.Device != "/dev/disk/by-id/wwn-0x600c0ff000d4e1c0" {
		t.Errorf("free disk = %+v", n)
	}
	fs, err := ParseFSAttrs(fixture(t, "mmlsfs.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if fs["blockSize"] != "8388608" || fs["blockAllocationType"] != "scatter" || fs["defaultMountPoint"] != "/gpfs/fs1" ||
		fs["subblocksPerFullBlock"] != "256" || fs["minFragmentSize"] != "32768" {
		t.Errorf("mmlsfs = %v", fs)
	}
	disks, err := ParseDisks(fixture(t, "mmlsdisk.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if len(disks) != 2 || disks[0].Usage() != MetadataOnly || disks[1].Usage() != DataOnly || disks[1].Pool != "data" {
		t.Errorf("mmlsdisk = %+v", disks)
	}
}

func TestParseYProtocols(t *testing.T) {
	svc, err := ParseCESServices(fixture(t, "mmces-service.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(svc, []string{"NFS", "SMB"}) {
		t.Errorf("services = %v", svc)
	}
	// The other documented shape: one row, a column per service.
	svc, err = ParseCESServices("mmces:service:HEADER:version:reserved:reserved:node:NFS:SMB:OBJ:\n" +
		"mmces:service:0:1:::gw1:enabled:disabled:disabled:\n")
	if err != nil || !reflect.DeepEqual(svc, []string{"NFS"}) {
		t.Errorf("column shape: %v, %v", svc, err)
	}
	ex, err := ParseExports(fixture(t, "mmnfs-export.Y"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 2 || ex[0].Path != "/gpfs/fs1" || ex[0].Clients != "10.20.0.0/16" || ex[0].Access != "RW" {
		t.Errorf("exports = %+v", ex)
	}
}

func TestParseYErrors(t *testing.T) {
	for name, in := range map[string]string{
		"data before header": "mmlsfs::0:1:::fs1:blockSize:8388608::\n",
		"bad escape":         "mmlsfs::HEADER:version:reserved:reserved:deviceName:fieldName:data:remarks:\nmmlsfs::0:1:::fs1:x:%zz::\n",
		"not -Y":             "File system fs1 is not known\n",
	} {
		if _, err := ParseY(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func r5NSDs() []NSD {
	pair := []string{"nsd1", "nsd2"}
	var out []NSD
	for i := 0; i < 4; i++ {
		out = append(out, NSD{Name: "a1_d0" + string(rune('1'+i)), Device: "/dev/mapper/a1_d0" + string(rune('1'+i)),
			Servers: AlternateServers(pair, i), Usage: DataOnly, FailureGroup: 1, Pool: "data"})
	}
	out = append(out, NSD{Name: "a1_md01", Device: "/dev/mapper/a1_md01", Servers: AlternateServers(pair, 0), Usage: MetadataOnly,
		FailureGroup: 1, Pool: SystemPool})
	return out
}

func TestStanzas(t *testing.T) {
	nsds := r5NSDs()
	got := StanzaFile(nsds, []Pool{{Name: SystemPool, BlockSize: "8M"}, {Name: "data", BlockSize: "8M", LayoutMap: "scatter"}})
	want := "%pool: pool=data blockSize=8M layoutMap=scatter\n" +
		"%nsd: device=/dev/mapper/a1_d01 nsd=a1_d01 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data\n" +
		"%nsd: device=/dev/mapper/a1_d02 nsd=a1_d02 servers=nsd2,nsd1 usage=dataOnly failureGroup=1 pool=data\n" +
		"%nsd: device=/dev/mapper/a1_d03 nsd=a1_d03 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data\n" +
		"%nsd: device=/dev/mapper/a1_d04 nsd=a1_d04 servers=nsd2,nsd1 usage=dataOnly failureGroup=1 pool=data\n" +
		"%nsd: device=/dev/mapper/a1_md01 nsd=a1_md01 servers=nsd1,nsd2 usage=metadataOnly failureGroup=1 pool=system\n"
	if got != want {
		t.Errorf("stanzas:\n%s\nwant:\n%s", got, want)
	}
	// Primaries alternate: each server first for half the data NSDs.
	first := map[string]int{}
	for _, n := range nsds[:4] {
		first[n.Servers[0]]++
	}
	if first["nsd1"] != 2 || first["nsd2"] != 2 {
		t.Errorf("primaries = %v", first)
	}
	if s := NSDStanza(NSD{Name: "a1_d01", Usage: DataOnly}); s != "%nsd: nsd=a1_d01 usage=dataOnly" {
		t.Errorf("existing NSD stanza = %q", s)
	}
}

func TestNodeFileAndLicences(t *testing.T) {
	nodes := []Node{{Name: "nsd2", Roles: []string{RoleQuorum, RoleManager, RoleNSDServer}},
		{Name: "nsd1", Roles: []string{RoleQuorum, RoleManager, RoleNSDServer}}, {Name: "mgmt", Roles: []string{RoleQuorum}},
		{Name: "gw1", Roles: []string{RoleGateway}}, {Name: "cn1", Roles: []string{RoleClient}}}
	if got := NodeFile(nodes); got != "cn1:client\ngw1:client\nmgmt:quorum\nnsd1:quorum-manager\nnsd2:quorum-manager\n" {
		t.Errorf("node file:\n%s", got)
	}
	l := Licences(nodes)
	if !reflect.DeepEqual(l["server"], []string{"gw1", "mgmt", "nsd1", "nsd2"}) || !reflect.DeepEqual(l["client"], []string{"cn1"}) {
		t.Errorf("licences = %v", l)
	}
	if a := MmchlicenseArgv("server", l["server"]); strings.Join(a, " ") != "mmchlicense server --accept -N gw1,mgmt,nsd1,nsd2" {
		t.Errorf("mmchlicense = %v", a)
	}
	if a := MmcrclusterArgv("/f", "r5"); strings.Join(a, " ") != "mmcrcluster -N /f -C r5 -r /usr/bin/ssh -R /usr/bin/scp -A" {
		t.Errorf("mmcrcluster = %v", a)
	}
}

func TestMmchconfig(t *testing.T) {
	if a := MmchconfigArgv("nsdNodes", map[string]string{"pagepool": "16G"}); strings.Join(a, " ") != "mmchconfig pagepool=16G -N nsdNodes -i" {
		t.Errorf("pagepool = %v", a)
	}
	// maxblocksize does not take -i (daemons must be down).
	if a := MmchconfigArgv(AllNodes, map[string]string{"maxblocksize": "8M", "pagepool": "16G"}); strings.Join(a, " ") != "mmchconfig maxblocksize=8M,pagepool=16G" {
		t.Errorf("cluster-wide = %v", a)
	}
}

func TestConfigKeys(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"pagepool", "16G", ""},
		{"pagePool", "16G", `write "pagepool"`},
		{"maxBlockSize", "8M", `write "maxblocksize"`},
		{"workerThread", "512", `did you mean "workerThreads"?`},
		{"noSuchKnob", "1", "not a known configuration attribute"},
		{"pagepool", "lots", "not a size"},
		{"workerThreads", "many", "whole number"},
		{"autoload", "true", "yes or no"},
		{"pagepool", "1G,maxMBpS=1", "commas"},
		// Units and limits of the mmchconfig reference.
		{"pagepool", "16384M", ""},
		{"pagepool", "16", "want at least 4M"},
		{"pagepool", "2M", "want at least 4M"},
		{"maxblocksize", "16M", ""},
		{"maxblocksize", "12M", "power of two"},
		{"maxblocksize", "32M", "want 64K to 16M"},
		{"maxblocksize", "32K", "want 64K to 16M"},
		{"maxMBpS", "10G", "whole number (no unit)"},
		{"workerThreads", "0", "want 1 to 8192"},
		{"workerThreads", "9000", "want 1 to 8192"},
		{"nsdbufspace", "80", "want 10 to 70"},
		{"prefetchPct", "61", "want 0 to 60"},
		{"pagepoolMaxPhysMemPct", "95", "want 10 to 90"},
		{"maxTcpConnsPerNodeConn", "9", "want 1 to 8"},
		{"numaMemoryInterleave", "Yes", "yes or no"},
		{"unmountOnDiskFail", "meta", ""},
		{"unmountOnDiskFail", "metadata", "want one of yes, no, meta"},
		{"verbsRdma", "enabled", `did you mean "enable"?`},
		{"readReplicaPolicy", "fastest", ""},
	} {
		err := CheckConfig(tc.key, tc.value)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s=%s: %v", tc.key, tc.value, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
}

func hasProblem(ps Problems, attr, msg string, warning bool) bool {
	for _, p := range ps {
		if p.Path.String() == attr && strings.Contains(p.Err.Error(), msg) && p.Warning == warning {
			return true
		}
	}
	return false
}

func TestClusterRules(t *testing.T) {
	nodes := []Node{{Name: "nsd1", Roles: []string{RoleQuorum, RoleManager}}, {Name: "nsd2", Roles: []string{RoleQuorum, RoleManager}}}
	ps := ValidateCluster("r5", nodes, map[string][]string{"nsdServers": {"nsd1", "nsd2", "nsd9"}, "nsdNodes": {"nsd1"}},
		map[string]map[string]string{"nsdServers": {"pagePool": "16G"}, "gwNodes": {"pagepool": "4G"}})
	for _, w := range []struct {
		attr, msg string
		warning   bool
	}{
		{"nodes", "odd number", true},
		{`node_classes["nsdServers"]`, "nsd9 is not a node", false},
		{`node_classes["nsdNodes"]`, "GPFS defines itself", false},
		{`config["nsdServers"]["pagePool"]`, `write "pagepool"`, false},
		{`config["gwNodes"]`, "neither a node class", false},
	} {
		if !hasProblem(ps, w.attr, w.msg, w.warning) {
			t.Errorf("missing %s: %s in %v", w.attr, w.msg, ps)
		}
	}
	nodes = append(nodes, Node{Name: "mgmt", Roles: []string{RoleQuorum}}, Node{Name: "x", Roles: []string{"quorom"}})
	ps = ValidateCluster("r5", nodes, nil, nil)
	if hasProblem(ps, "nodes", "odd number", true) || !hasProblem(ps, `nodes["x"].roles`, `did you mean "quorum"?`, false) {
		t.Errorf("three quorum nodes and a misspelt role: %v", ps)
	}
}

func TestNSDRules(t *testing.T) {
	nsds := r5NSDs()
	if ps := ValidateNSDs(nsds, nil, []string{"nsd1", "nsd2"}); len(ps) != 0 {
		t.Fatalf("R5 NSDs: %v", ps)
	}
	bad := slices.Clone(nsds)
	bad[1].Name = bad[0].Name
	bad[2].Usage = "dataonly"
	bad[3].Servers = []string{"nsd1", "nsd2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"}
	bad[4].Servers = []string{"nsd1", "gw1"}
	ps := ValidateNSDs(bad, nil, []string{"nsd1", "nsd2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"})
	for _, w := range []struct{ attr, msg string }{
		{"nsds[1].name", "not unique"},
		{"nsds[2].usage", `did you mean "dataOnly"?`},
		{"nsds[3].servers", "at most 8"},
		{"nsds[4].servers", "gw1 of NSD a1_md01 is not a node of the cluster"},
	} {
		if !hasProblem(ps, w.attr, w.msg, false) {
			t.Errorf("missing %s: %s in %v", w.attr, w.msg, ps)
		}
	}
	if err := ps.Err(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Err = %v", err)
	}
}

// TestOneVolumePerNSD: two NSDs on one volume (same WWN, or the same
// device given twice) are refused on the second; a WWN not known yet
// (""), as while the volume is created in the same apply, is not compared.
func TestOneVolumePerNSD(t *testing.T) {
	nsds := r5NSDs()
	wwns := []string{"600a1", "600a2", "600a3", "600a4", "600a5"}
	if ps := ValidateNSDs(nsds, wwns, nil); len(ps) != 0 {
		t.Fatalf("distinct volumes: %v", ps)
	}
	same := slices.Clone(wwns)
	same[3] = "600a1"
	if ps := ValidateNSDs(nsds, same, nil); !hasProblem(ps, "nsds[3].wwn", "volume 600a1 is already NSD a1_d01 (nsds[0])", false) || len(ps) != 1 {
		t.Errorf("same WWN twice: %v", ps)
	}
	unknown := slices.Clone(same)
	unknown[0] = ""
	if ps := ValidateNSDs(nsds, unknown, nil); len(ps) != 0 {
		t.Errorf("unknown WWN compared: %v", ps)
	}
	dev := slices.Clone(nsds)
	dev[2].Device = dev[1].Device
	if ps := ValidateNSDs(dev, nil, nil); !hasProblem(ps, "nsds[2].device", "device /dev/mapper/a1_d02 is already NSD a1_d02 (nsds[1])", false) {
		t.Errorf("same device twice: %v", ps)
	}
}

// TestUsageInPool: metadata (metadataOnly, dataAndMetadata) lives in the
// system pool only, in the NSD set and in the file system's disks.
func TestUsageInPool(t *testing.T) {
	nsds := r5NSDs()
	nsds[0].Usage = DataAndMetadata
	nsds[4].Pool = "data"
	ps := ValidateNSDs(nsds, nil, nil)
	for _, at := range []string{"nsds[0].usage", "nsds[4].usage"} {
		if !hasProblem(ps, at, "only the system pool holds metadata", false) {
			t.Errorf("%s: %v", at, ps)
		}
	}
	for _, tc := range []struct {
		usage, pool string
		bad         bool
	}{{MetadataOnly, "data", true}, {DataAndMetadata, "data", true}, {DataOnly, "data", false}, {DataAndMetadata, SystemPool, false}} {
		f := r5FS()
		f.Disks[0].Usage, f.Disks[0].Pool = tc.usage, tc.pool
		got := hasProblem(f.Validate(), "disks[0].usage", "metadata lives in the system pool only", false)
		if got != tc.bad {
			t.Errorf("%s in pool %s: refused %v, want %v", tc.usage, tc.pool, got, tc.bad)
		}
	}
}

// TestConfigPairs: a lower bound above its upper bound in one scope.
func TestConfigPairs(t *testing.T) {
	ps := ValidateCluster("r5", []Node{{Name: "n1", Roles: []string{RoleQuorum}}}, nil,
		map[string]map[string]string{AllNodes: {"nsdMinWorkerThreads": "64", "nsdMaxWorkerThreads": "32"}})
	if !hasProblem(ps, `config["all"]["nsdMinWorkerThreads"]`, "nsdMinWorkerThreads=64 is above nsdMaxWorkerThreads=32", false) {
		t.Errorf("%v", ps)
	}
}

func r5FS() FileSystem {
	var disks []NSD
	for _, n := range r5NSDs() {
		disks = append(disks, NSD{Name: n.Name, Usage: n.Usage, FailureGroup: n.FailureGroup, Pool: n.Pool})
	}
	f := FileSystem{Device: "fs1", BlockSize: "8M", LayoutMap: "scatter", MetaRepl: 1, MaxMeta: 1, DataRepl: 1, MaxData: 1,
		NumNodes: 32, MountPoint: "/gpfs/fs1", AutoMount: true, Disks: disks,
		Pools: []Pool{{Name: "data", BlockSize: "8M", LayoutMap: "scatter"}}, MaxBlockSize: 8 << 20}
	f.Policy = f.DefaultPolicy()
	return f
}

func TestFileSystem(t *testing.T) {
	f := r5FS()
	if ps := f.Validate(); len(ps) != 0 {
		t.Fatalf("R5 file system: %v", ps)
	}
	if got := strings.Join(f.MmcrfsArgv("/s"), " "); got != "mmcrfs fs1 -F /s -B 8M -j scatter -m 1 -M 1 -r 1 -R 1 -n 32 -T /gpfs/fs1 -A yes" {
		t.Errorf("mmcrfs = %s", got)
	}
	if f.Policy != "/* Written by hpcstorage: new files go to pool data. */\nRULE 'default' SET POOL 'data'\n" {
		t.Errorf("policy = %q", f.Policy)
	}
	if got := strings.Join(MmadddiskArgv("fs1", "/a", false), " "); got != "mmadddisk fs1 -F /a" {
		t.Errorf("mmadddisk = %s", got)
	}
	if got := strings.Join(MmdeldiskArgv("fs1", []string{"a", "b"}), " "); got != "mmdeldisk fs1 a;b" {
		t.Errorf("mmdeldisk = %s", got)
	}
}

func TestFileSystemRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		edit      func(*FileSystem)
		attr, msg string
	}{
		{"block size above maxblocksize", func(f *FileSystem) { f.MaxBlockSize = 4 << 20 }, "block_size", "6027-1084"},
		{"pool block size above maxblocksize", func(f *FileSystem) { f.BlockSize = "4M"; f.MaxBlockSize = 4 << 20 }, "pools[0].block_size", "6027-1084"},
		{"not a block size", func(f *FileSystem) { f.BlockSize = "3M" }, "block_size", "not a GPFS block size"},
		{"m above M", func(f *FileSystem) { f.MetaRepl = 2 }, "metadata_replicas", "more than the maximum"},
		{"R above 3", func(f *FileSystem) { f.MaxData = 4 }, "max_data_replicas", "want 1 to 3"},
		{"r above R", func(f *FileSystem) { f.DataRepl, f.MaxData = 3, 2 }, "data_replicas", "more than the maximum"},
		{"replicas above failure groups", func(f *FileSystem) { f.MaxMeta, f.MetaRepl = 2, 2 }, "metadata_replicas", "failure groups"},
		{"data replicas above failure groups", func(f *FileSystem) { f.MaxData, f.DataRepl = 3, 2 }, "data_replicas", "they have 1"},
		{"no policy", func(f *FileSystem) { f.Policy = "" }, "placement_policy", "placement policy must say"},
		{"policy to unknown pool", func(f *FileSystem) { f.Policy = "RULE 'x' SET POOL 'fast'" }, "placement_policy", "pool fast"},
		{"usage", func(f *FileSystem) { f.Disks[0].Usage = "data" }, "disks[0].usage", "not one of"},
		{"pool without stanza", func(f *FileSystem) { f.Disks[0].Pool = "cold" }, "disks[0].pool", "pool cold"},
		{"scatter misspelt", func(f *FileSystem) { f.LayoutMap = "scater" }, "allocation", "not one of"},
		{"duplicate disk", func(f *FileSystem) { f.Disks[1].Name = f.Disks[0].Name }, "disks[1].nsd", "listed twice"},
		{"metadata block size with data in system", func(f *FileSystem) {
			f.MetaBlockSize = "2M"
			i := slices.IndexFunc(f.Disks, func(d NSD) bool { return d.Pool == SystemPool })
			f.Disks[i].Usage = DataAndMetadata
		}, "metadata_block_size", "only when all its NSDs are metadataOnly"},
		{"metadata block size above maxblocksize", func(f *FileSystem) { f.MetaBlockSize, f.BlockSize, f.MaxBlockSize = "16M", "4M", 4<<20 },
			"metadata_block_size", "6027-1084"},
		{"metadata block size not a size", func(f *FileSystem) { f.MetaBlockSize = "3M" }, "metadata_block_size", "not a GPFS block size"},
	} {
		f := r5FS()
		f.Disks = slices.Clone(f.Disks)
		tc.edit(&f)
		if ps := f.Validate(); !hasProblem(ps, tc.attr, tc.msg, false) {
			t.Errorf("%s: want %s: %s, got %v", tc.name, tc.attr, tc.msg, ps)
		}
	}
	// Two failure groups allow two replicas.
	f := r5FS()
	f.Disks = slices.Clone(f.Disks)
	f.Disks = append(f.Disks, NSD{Name: "a2_md01", Usage: MetadataOnly, FailureGroup: 2, Pool: SystemPool},
		NSD{Name: "a2_d01", Usage: DataOnly, FailureGroup: 2, Pool: "data"})
	f.MetaRepl, f.MaxMeta, f.DataRepl, f.MaxData = 2, 2, 2, 2
	if ps := f.Validate(); len(ps) != 0 {
		t.Errorf("two failure groups: %v", ps)
	}
}

// TestSubblocks: R5's 8M data blocks with a 2M metadataOnly system pool
// give 256 subblocks of 32 KiB (mmcrfs --metadata-block-size 2M); 8M
// alone gives 5.x's 512 of 16 KiB.
func TestSubblocks(t *testing.T) {
	f := r5FS()
	if n, sub, err := f.Subblocks(); err != nil || n != 512 || sub != 16<<10 {
		t.Errorf("8M alone: %d x %d %v", n, sub, err)
	}
	f.MetaBlockSize = "2M"
	if ps := f.Validate(); len(ps) != 0 {
		t.Fatalf("R5 with 2M metadata blocks: %v", ps)
	}
	if n, sub, err := f.Subblocks(); err != nil || n != 256 || sub != 32<<10 {
		t.Errorf("8M with 2M metadata: %d x %d %v", n, sub, err)
	}
	if got := strings.Join(f.MmcrfsArgv("/s"), " "); !strings.HasSuffix(got, "-A yes --metadata-block-size 2M") {
		t.Errorf("mmcrfs = %s", got)
	}
	f.MetaBlockSize = "8M" // the same size: no flag
	if got := strings.Join(f.MmcrfsArgv("/s"), " "); strings.Contains(got, "metadata-block-size") {
		t.Errorf("mmcrfs = %s", got)
	}
	// mmlsfs -Y prints one row per pool kind; drift checks the system one.
	attrs, err := ParseFSAttrs("mmlsfs::HEADER:version:reserved:reserved:deviceName:fieldName:data:remarks:\n" +
		"mmlsfs::0:1:::fs1:blockSize:2097152:system pool:\nmmlsfs::0:1:::fs1:blockSize:8388608:other pools:\n")
	if err != nil || attrs["blockSize"] != "8388608" || attrs["blockSize/system pool"] != "2097152" {
		t.Fatalf("attrs %v %v", attrs, err)
	}
	f.MetaBlockSize = "2M"
	seen := seenFS(f)
	seen.Attrs["blockSize/system pool"] = "2097152"
	if d := f.FSDrift(seen); len(d) != 0 {
		t.Errorf("drift: %v", d)
	}
	seen.Attrs["blockSize/system pool"] = "8388608"
	if d := f.FSDrift(seen); d["mmlsfs:blockSize/system pool"] == "" {
		t.Errorf("a system pool of 8M blocks is not drift: %v", d)
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int64{"8M": 8 << 20, "16G": 16 << 30, "512K": 512 << 10, "262144": 262144} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%s = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "8MB", "-1M", "x"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if FormatSize(8<<20) != "8M" || FormatSize(16<<30) != "16G" || FormatSize(1000) != "1000" {
		t.Error("FormatSize")
	}
}
