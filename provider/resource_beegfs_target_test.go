package provider

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// r1Lab is the R1 design in the lab with its volumes carved and mapped as
// the paper says: 12 RAID1 MDTs on the ME4024 (both metadata servers see
// all), 8 RAID6 8+2 volumes with a 512 KiB segment on each ME4084 (both
// storage servers see all).
type r1Lab struct {
	*lab.Lab
	dir  string
	mdts []string // WWNs, MDT 1..12
	sts  []string // WWNs, ST 1..32 (array-major)
}

func startR1Lab(t *testing.T, clients int) *r1Lab {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Clients: clients, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	for i := 0; i < 12; i++ {
		w, err := l.ProvisionVolume(lab.VolumeRequest{Array: "me4024-1", Pool: fmt.Sprintf("mdt%02d", i+1), RAID: "RAID1",
			Drives: []string{fmt.Sprintf("0.%d", 2*i), fmt.Sprintf("0.%d", 2*i+1)}, Volume: fmt.Sprintf("mdt%02d", i+1),
			SegmentBytes: 128 << 10, Hosts: []string{"meta1", "meta2"}, LUN: i + 1})
		if err != nil {
			t.Fatal(err)
		}
		r.mdts = append(r.mdts, w)
	}
	for a := 1; a <= 4; a++ {
		for g := 0; g < 8; g++ {
			var drives []string
			for d := 0; d < 10; d++ {
				drives = append(drives, fmt.Sprintf("0.%d", 10*g+d))
			}
			w, err := l.ProvisionVolume(lab.VolumeRequest{Array: fmt.Sprintf("me4084-%d", a), Pool: fmt.Sprintf("dg%02d", g+1), RAID: "RAID6",
				Drives: drives, Volume: fmt.Sprintf("st%02d", g+1), SegmentBytes: 512 << 10, Hosts: []string{"stor1", "stor2"}, LUN: g + 1})
			if err != nil {
				t.Fatal(err)
			}
			r.sts = append(r.sts, w)
		}
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Fatalf("cabling: %v", errs)
	}
	return r
}

func (r *r1Lab) node(name string) lab.NodeInfo {
	for _, n := range r.State.Nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

func (r *r1Lab) providerBlock() string {
	return fmt.Sprintf(`
provider "hpcstorage" {
  ssh = {
    private_key_file  = %q
    known_hosts_files = [%q]
  }
}
`, filepath.Join(r.dir, lab.KeyFile), filepath.Join(r.dir, lab.KnownHostsFile))
}

const testSecret = "r1-lab-connauth-secret-0123456789"

// r1BeegfsConfig is what the R1 module renders, written out: 12 MDTs and
// 12 metadata instances (6 per server, 3 per NUMA zone), mgmtd on MDT 1,
// 32 storage targets served 16 per storage server, clients, and the
// benchmarks' stripe pattern.
func (r *r1Lab) r1BeegfsConfig(clients int) string {
	type tgt struct {
		Host, WWN, Mount string
	}
	type inst struct {
		Name, Dir string
		ID, Port  int
		Zone      int
	}
	var mdts, sts []tgt
	metaHosts := []string{r.node("meta1").Host, r.node("meta2").Host}
	storHosts := []string{r.node("stor1").Host, r.node("stor2").Host}
	meta := make([][]inst, 2)
	for i, w := range r.mdts {
		server := i / 6 // MDT 1-6 on meta1, 7-12 on meta2
		k := fmt.Sprintf("mdt%02d", i+1)
		mdts = append(mdts, tgt{metaHosts[server], w, "/data/" + k})
		j := i % 6
		meta[server] = append(meta[server], inst{fmt.Sprintf("meta%c-numa%d-%d", 'A'+server, j/3, j%3+1), "/data/" + k + "/meta", i + 1, 8005 + 10*j, j / 3})
	}
	stor := make([][]map[string]any, 2)
	for i, w := range r.sts {
		server := i / 16
		k := fmt.Sprintf("st%02d", i+1)
		sts = append(sts, tgt{storHosts[server], w, "/data/" + k})
		stor[server] = append(stor[server], map[string]any{"id": 101 + i, "directory": "/data/" + k + "/storage"})
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var b strings.Builder
	b.WriteString(r.providerBlock())
	// count, not for_each: the test framework's state shim only knows
	// numeric indexes.
	fmt.Fprintf(&b, `
variable "secret" {
  type      = string
  sensitive = true
  default   = %q
}

locals {
  mdts       = jsondecode(%q)
  sts        = jsondecode(%q)
  meta       = jsondecode(%q)
  stor       = jsondecode(%q)
  meta_hosts = jsondecode(%q)
  stor_hosts = jsondecode(%q)
  mgmtd      = "meta1"
}

resource "hpcstorage_beegfs_target" "mdt" {
  count       = length(local.mdts)
  host        = local.mdts[count.index].Host
  wwn         = local.mdts[count.index].WWN
  kind        = "metadata"
  mount_point = local.mdts[count.index].Mount
}

resource "hpcstorage_beegfs_target" "st" {
  count        = length(local.sts)
  host         = local.sts[count.index].Host
  wwn          = local.sts[count.index].WWN
  kind         = "storage"
  mount_point  = local.sts[count.index].Mount
  segment_size_bytes = 524288
  data_drives  = 8
}

resource "hpcstorage_beegfs_management" "mgmtd" {
  host             = hpcstorage_beegfs_target.mdt[0].host
  directory        = "${hpcstorage_beegfs_target.mdt[0].mount_point}/mgmtd"
  conn_auth_secret = var.secret
}

resource "hpcstorage_beegfs_metadata" "meta" {
  count            = 2
  host             = local.meta_hosts[count.index]
  mgmtd_host       = local.mgmtd
  conn_auth_secret = var.secret
  instances = [for i in local.meta[count.index] : {
    name = i.Name, directory = i.Dir, node_id = i.ID, port = i.Port, numa_zone = i.Zone
  }]
  depends_on = [hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_management.mgmtd]
}

resource "hpcstorage_beegfs_storage" "stor" {
  count            = 2
  host             = local.stor_hosts[count.index]
  mgmtd_host       = local.mgmtd
  node_id          = count.index + 1
  numa_zone        = 0
  targets          = local.stor[count.index]
  conn_auth_secret = var.secret
  depends_on       = [hpcstorage_beegfs_target.st, hpcstorage_beegfs_management.mgmtd]
}
`, testSecret, js(mdts), js(sts), js(meta), js(stor), js(metaHosts), js(storHosts))
	for i := 1; i <= clients; i++ {
		fmt.Fprintf(&b, `
resource "hpcstorage_beegfs_client" "c%[1]d" {
  host             = %[2]q
  beegfs_version   = %[3]d
  mgmtd_host       = local.mgmtd
  conn_auth_secret = var.secret
  depends_on       = [hpcstorage_beegfs_metadata.meta, hpcstorage_beegfs_storage.stor]
}
`, i, r.node(fmt.Sprintf("client%02d", i)).Host, 6+i) // client01: 7.x, client02: 8.x
	}
	if clients > 0 {
		fmt.Fprintf(&b, `
resource "hpcstorage_beegfs_stripe_pattern" "bench" {
  host        = hpcstorage_beegfs_client.c1.host
  path        = "bench"
  chunk_size_bytes  = 1048576
  num_targets = 1
}
`)
	}
	return b.String()
}

// commands returns the argv the agent recorded on a node.
func (r *r1Lab) commands(t *testing.T, node string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(r.node(node).Root, "var/lib/hpcstorage-agent/commands.log"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e struct {
			Argv []string `json:"argv"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Argv)
	}
	return out
}

func (r *r1Lab) read(t *testing.T, node, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.node(node).Root, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keptOnDestroy are the paths destroy leaves by design: agent state,
// format markers, what the setup steps wrote on the targets (data) and in
// the mounted BeeGFS (mnt: the stripe pattern folders the setpattern step
// makes under /mnt/beegfs), the simulated file-system signatures and stripe patterns (data too);
// and the lab's simulator programs, which no run changes.
var keptOnDestroy = regexp.MustCompile(`^(var/lib/hpcstorage-agent|var/lib/hpcstorage|data|mnt|\.hpcstorage-sim/(data|bin))(/|$)`)

func (r *r1Lab) tree(t *testing.T, node string) map[string]string {
	t.Helper()
	root := r.node(node).Root
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if keptOnDestroy.MatchString(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := sha256.New()
		fmt.Fprintf(h, "%v|", info.Mode())
		if info.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			h.Write([]byte(l))
		} else if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBeegfsR1EndToEnd applies the whole R1 file system to the lab.
func TestBeegfsR1EndToEnd(t *testing.T) {
	t.Parallel()
	r := startR1Lab(t, 2)
	nodes := []string{"meta1", "meta2", "stor1", "stor2", "client01", "client02"}
	before := map[string]map[string]string{}
	for _, n := range nodes {
		before[n] = r.tree(t, n)
	}
	conf := r.r1BeegfsConfig(2)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{{
			Config: conf,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hpcstorage_beegfs_target.st[0]", tfjsonpath.New("mkfs_command"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("mkfs.xfs"), knownvalue.StringExact("-q"), knownvalue.StringExact("-d"), knownvalue.StringExact("su=512k,sw=8"),
					knownvalue.StringExact("-l"), knownvalue.StringExact("version=2,su=256k"), knownvalue.StringExact("-i"), knownvalue.StringExact("size=512"),
					knownvalue.StringExact("/dev/disk/by-id/wwn-0x" + r.sts[0]),
				})),
				statecheck.ExpectKnownValue("hpcstorage_beegfs_management.mgmtd", tfjsonpath.New("conn_auth_secret_hash"),
					knownvalue.StringRegexp(regexp.MustCompile(`^scrypt:[0-9a-f]{64}$`))),
				statecheck.ExpectKnownValue("hpcstorage_beegfs_client.c1", tfjsonpath.New("services"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("beegfs-helperd"), knownvalue.StringExact("beegfs-client")})),
				stateCheck(func(s *tfjson.State) error { return r.checkR1(t, s) }),
			},
		}},
	})
	// After destroy (legacy CheckDestroy cannot shim for_each keys).
	for _, n := range nodes {
		if err := sameTree(before[n], r.tree(t, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	// Data stays: the format markers are still there.
	if m, _ := filepath.Glob(filepath.Join(r.node("stor1").Root, "var/lib/hpcstorage/beegfs/formatted/wwn-0x*")); len(m) != 16 {
		t.Errorf("stor1 has %d format markers after destroy, want its 16 (destroy never wipes)", len(m))
	}
}

// stateCheck runs f on the state.
type stateCheck func(*tfjson.State) error

func (f stateCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f(req.State)
}

func (r *r1Lab) checkR1(t *testing.T, s *tfjson.State) error {
	// The secret never reaches state in clear.
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if strings.Contains(string(b), testSecret) {
		return fmt.Errorf("the state holds the secret in clear")
	}
	// Formats: every volume of a server exactly once, with its geometry.
	mkfs := map[string][]string{}
	for _, n := range []string{"meta1", "meta2", "stor1", "stor2"} {
		for _, argv := range r.commands(t, n) {
			if m := lab.MkfsArgv(argv); m != nil {
				mkfs[n] = append(mkfs[n], strings.Join(m, " "))
			}
		}
	}
	if len(mkfs["meta1"]) != 6 || len(mkfs["meta2"]) != 6 || len(mkfs["stor1"]) != 16 || len(mkfs["stor2"]) != 16 {
		return fmt.Errorf("mkfs per node: meta1 %d meta2 %d stor1 %d stor2 %d, want 6 6 16 16", len(mkfs["meta1"]), len(mkfs["meta2"]),
			len(mkfs["stor1"]), len(mkfs["stor2"]))
	}
	if want := "mkfs.ext4 -q -i 2048 -I 512 -J size=400 -O dir_index,filetype /dev/disk/by-id/wwn-0x" + r.mdts[0]; mkfs["meta1"][0] != want && !contains(mkfs["meta1"], want) {
		return fmt.Errorf("meta1 formats %q, want %q among them", mkfs["meta1"], want)
	}
	for _, m := range append(mkfs["stor1"], mkfs["stor2"]...) {
		if !strings.HasPrefix(m, "mkfs.xfs -q -d su=512k,sw=8 -l version=2,su=256k -i size=512 /dev/disk/by-id/wwn-0x") {
			return fmt.Errorf("storage format %q", m)
		}
	}
	// Mounts: 32 xfs storage targets, 12 ext4 MDTs.
	count := func(node, fstype string) int {
		n := 0
		for _, line := range strings.Split(r.read(t, node, "proc/mounts"), "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[2] == fstype && strings.HasPrefix(f[1], "/data/") {
				n++
			}
		}
		return n
	}
	if a, b, c, d := count("meta1", "ext4"), count("meta2", "ext4"), count("stor1", "xfs"), count("stor2", "xfs"); a != 6 || b != 6 || c != 16 || d != 16 {
		return fmt.Errorf("mounted targets %d %d %d %d, want 6 6 16 16", a, b, c, d)
	}
	if fstab := r.read(t, "stor1", "etc/fstab"); !strings.Contains(fstab, "/data/st01 xfs noatime,nodiratime,logbufs=8,logbsize=256k,largeio,inode64,swalloc,allocsize=131072k,nofail") {
		return fmt.Errorf("stor1 fstab:\n%s", fstab)
	}
	// 12 metadata instances, 6 per server, bound to NUMA zones 0 and 1.
	var metas []string
	for _, n := range []string{"meta1", "meta2"} {
		var sd struct {
			Units map[string]struct{ Enabled, Active bool } `json:"units"`
		}
		if err := json.Unmarshal([]byte(r.read(t, n, "run/hpcstorage-sim/systemd.json")), &sd); err != nil {
			return err
		}
		for u, st := range sd.Units {
			if strings.HasPrefix(u, "beegfs-meta@") && st.Enabled && st.Active {
				metas = append(metas, u)
				name := strings.TrimSuffix(strings.TrimPrefix(u, "beegfs-meta@"), ".service")
				c := r.read(t, n, "etc/beegfs/"+name+".d/beegfs-meta.conf")
				zone := name[len("metaA-numa") : len("metaA-numa")+1]
				if !strings.Contains(c, "tuneBindToNumaZone            = "+zone+"\n") {
					return fmt.Errorf("%s %s not bound to zone %s:\n%s", n, name, zone, c)
				}
			}
		}
		if !strings.Contains(r.read(t, n, "proc/mounts"), "/data/mdt") {
			return fmt.Errorf("%s has no MDT mounted", n)
		}
	}
	sort.Strings(metas)
	if len(metas) != 12 || metas[0] != "beegfs-meta@metaA-numa0-1.service" || metas[11] != "beegfs-meta@metaB-numa1-3.service" {
		return fmt.Errorf("metadata instances %v", metas)
	}
	// 32 storage targets, 16 per server, in storeStorageDirectory.
	for _, n := range []string{"stor1", "stor2"} {
		c := r.read(t, n, "etc/beegfs/beegfs-storage.conf")
		m := regexp.MustCompile(`(?m)^storeStorageDirectory\s*=\s*(\S+)$`).FindStringSubmatch(c)
		if m == nil || len(strings.Split(m[1], ",")) != 16 {
			return fmt.Errorf("%s storeStorageDirectory: %v", n, m)
		}
		fi, err := os.Stat(filepath.Join(r.node(n).Root, "etc/beegfs/beegfs-storage.auth"))
		if err != nil || fi.Mode().Perm() != 0o400 {
			return fmt.Errorf("%s auth file %v %v", n, fi, err)
		}
	}
	// Clients: mounts conf, R1 client tuning, services.
	for _, n := range []string{"client01", "client02"} {
		if got := r.read(t, n, "etc/beegfs/beegfs-mounts.conf"); got != "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n" {
			return fmt.Errorf("%s mounts.conf %q", n, got)
		}
		c := r.read(t, n, "etc/beegfs/beegfs-client.conf")
		for _, want := range []string{"connMaxInternodeNum", "24", "connBufSize", "720896", "sysMgmtdHost", "meta1"} {
			if !strings.Contains(c, want) {
				return fmt.Errorf("%s client conf lacks %s:\n%s", n, want, c)
			}
		}
		sd := r.read(t, n, "run/hpcstorage-sim/systemd.json")
		if !strings.Contains(sd, "beegfs-client") || strings.Contains(sd, "beegfs-helperd") != (n == "client01") {
			return fmt.Errorf("%s units (helperd on 7.x only) %s", n, sd)
		}
	}
	var setpattern bool
	for _, argv := range r.commands(t, "client01") {
		setpattern = setpattern || strings.Contains(strings.Join(argv, " "), "beegfs-ctl --setpattern --chunksize=1m --numtargets=1 --storagepoolid=1 --mount=/mnt/beegfs /mnt/beegfs/bench")
	}
	if !setpattern {
		return fmt.Errorf("stripe pattern not set on client01")
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestBeegfsBadInput: each mistake fails the plan with a clear error on the
// attribute, and no node is touched.
func TestBeegfsBadInput(t *testing.T) {
	r := startR1Lab(t, 0)
	nodes := []string{"meta1", "stor1", "stor2"}
	before := map[string]map[string]string{}
	for _, n := range nodes {
		before[n] = r.tree(t, n)
	}
	p := r.providerBlock()
	stor1, stor2, meta1 := r.node("stor1").Host, r.node("stor2").Host, r.node("meta1").Host
	storage := func(name, host string, ids ...int) string {
		var tg []string
		for _, id := range ids {
			tg = append(tg, fmt.Sprintf(`{ id = %d, directory = "/data/st%02d/storage" }`, id, id))
		}
		return fmt.Sprintf(`
resource "hpcstorage_beegfs_storage" %q {
  host             = %q
  mgmtd_host       = "meta1"
  node_id          = %d
  targets          = [%s]
  conn_auth_secret = %q
}
`, name, host, len(name), strings.Join(tg, ", "), testSecret)
	}
	target := func(name, host, wwn, mount string) string {
		return fmt.Sprintf(`
resource "hpcstorage_beegfs_target" %q {
  host         = %q
  wwn          = %q
  kind         = "storage"
  mount_point  = %q
  segment_size_bytes = 524288
  data_drives  = 8
}
`, name, host, wwn, mount)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{ // a storage volume is not mapped to the metadata server
				Config:      p + target("t", meta1, r.sts[0], "/data/st01"),
				ExpectError: regexp.MustCompile(`(?s)Attribute wwn.*wwn-0x` + r.sts[0] + `.*mapped`),
			},
			{ // duplicate target ids in one storage server
				Config:      p + storage("a", stor1, 101, 102, 101),
				ExpectError: regexp.MustCompile(`(?s)Attribute targets\[2\]\.id.*duplicate\s+target\s+id`),
			},
			{ // the same target id on two storage servers
				Config:      p + storage("a", stor1, 101, 102) + storage("bb", stor2, 102, 103),
				ExpectError: regexp.MustCompile(`(?s)BeeGFS ID Used Twice.*storage\s+target\s+id\s+102`),
			},
			{ // one device, two targets
				Config:      p + target("t1", stor1, r.sts[0], "/data/st01") + target("t2", stor1, r.sts[0], "/data/st99"),
				ExpectError: regexp.MustCompile(`(?s)Target Used Twice.*device:` + r.sts[0]),
			},
			{ // storage geometry missing
				Config: p + `
resource "hpcstorage_beegfs_target" "t" {
  host        = "` + stor1 + `"
  wwn         = "` + r.sts[0] + `"
  kind        = "storage"
  mount_point = "/data/st01"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Attribute segment_size_bytes.*Storage\s+targets\s+need\s+segment_size_bytes`),
			},
			{ // a secret too short
				Config:      p + strings.Replace(storage("a", stor1, 101), testSecret, "short", 1),
				ExpectError: regexp.MustCompile(`(?s)conn_auth_secret.*at\s+least\s+16`),
			},
		},
	})
	for _, n := range nodes {
		if err := sameTree(before[n], r.tree(t, n)); err != nil {
			t.Errorf("%s touched by failed plans: %v", n, err)
		}
		if cmds := r.commands(t, n); len(cmds) > 0 {
			t.Errorf("%s ran commands: %v", n, cmds)
		}
	}
}

// TestBeegfsDrift: a config key changed by hand shows in the plan and the
// next apply puts it back.
func TestBeegfsDrift(t *testing.T) {
	r := startR1Lab(t, 0)
	conf := r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_target" "st" {
  count        = 2
  host         = %[1]q
  wwn          = ["%[2]s", "%[3]s"][count.index]
  kind         = "storage"
  mount_point  = "/data/st0${count.index + 1}"
  segment_size_bytes = 524288
  data_drives  = 8
}

resource "hpcstorage_beegfs_storage" "s" {
  host             = %[1]q
  mgmtd_host       = "meta1"
  node_id          = 1
  targets          = [for t in hpcstorage_beegfs_target.st : { id = 100 + tonumber(substr(t.mount_point, -1, 1)), directory = "${t.mount_point}/storage" }]
  settings         = { tuneNumWorkers = "24" }
  conn_auth_secret = %[4]q
}
`, r.node("stor1").Host, r.sts[0], r.sts[1], testSecret)
	cfg := "etc/beegfs/beegfs-storage.conf"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_beegfs_storage.s", tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
			},
			{
				PreConfig: func() {
					c := r.read(t, "stor1", cfg)
					p := filepath.Join(r.node("stor1").Root, cfg)
					if err := os.WriteFile(p, []byte(regexp.MustCompile(`(?m)^tuneNumWorkers\s*=.*$`).ReplaceAllString(c, "tuneNumWorkers = 4")), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_beegfs_storage.s", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("hpcstorage_beegfs_target.st[0]", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if c := r.read(t, "stor1", cfg); !regexp.MustCompile(`(?m)^tuneNumWorkers\s*=\s*24$`).MatchString(c) {
						return fmt.Errorf("hand change not put back:\n%s", c)
					}
					return nil
				})},
			},
			{
				// A new secret: the plan sees it (the node's auth file does
				// not hold it, so the hash is computed and differs).
				Config: strings.Replace(conf, testSecret, newSecret, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_beegfs_storage.s", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("hpcstorage_beegfs_storage.s", tfjsonpath.New("conn_auth_secret_hash"), knownvalue.StringExact(secret.Hash(newSecret))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_beegfs_storage.s", tfjsonpath.New("conn_auth_secret_hash"), knownvalue.StringExact(secret.Hash(newSecret))),
				},
			},
		},
	})
}

// newSecret replaces testSecret in the secret-change step.
const newSecret = "r1-lab-connauth-secret-rotated-42"

func TestBeegfsErrorPath(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want string
	}{
		{"targets[3].id 101: duplicate target id (also targets[0])", `targets[3].id`},
		{"instances[0].port 80: want 1024 to 65535", `instances[0].port`},
		{"settings key \"bad key\": want a BeeGFS option name", `settings`},
		{"conn_auth_secret: at least 16 characters", `conn_auth_secret`},
		{"something else", `targets`},
	} {
		err := fmt.Errorf("%w: %s", beegfs.ErrInvalid, c.msg)
		if got := errorPath(err, "targets", "instances", "settings", "conn_auth_secret").String(); got != c.want {
			t.Errorf("%q: path %s, want %s", c.msg, got, c.want)
		}
	}
}

// TestBeegfsTargetSignature: a volume that already holds a file system
// fails the plan on wipe (nothing applied); wipe = true formats it; and a
// device this provider formatted is never refused (nor formatted again).
func TestBeegfsTargetSignature(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	var drives []string
	for d := 0; d < 10; d++ {
		drives = append(drives, fmt.Sprintf("0.%d", d))
	}
	wwn, err := l.ProvisionVolume(lab.VolumeRequest{Array: "me4084-1", Pool: "dg01", RAID: "RAID6", Drives: drives, Volume: "used",
		SegmentBytes: 512 << 10, Hosts: []string{"stor1"}, LUN: 1, FSType: "xfs"})
	if err != nil {
		t.Fatal(err)
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	before := r.tree(t, "stor1")
	conf := func(wipe string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_target" "st" {
  host         = %q
  wwn          = %q
  kind         = "storage"
  mount_point  = "/data/st01"
  segment_size_bytes = 524288
  data_drives  = 8
  %s
}
`, r.node("stor1").Host, wwn, wipe)
	}
	formats := func() []string {
		var out []string
		for _, argv := range r.commands(t, "stor1") {
			if m := lab.MkfsArgv(argv); m != nil {
				out = append(out, strings.Join(m, " "))
			}
		}
		return out
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      conf(""),
				ExpectError: regexp.MustCompile(`(?s)Device Already Has A Signature.*Attribute wipe.*wwn-0x` + wwn + `.*already\s+holds\s+a\s+xfs\s+signature.*wipe\s+=\s+true`),
			},
			{
				PreConfig: func() {
					if err := sameTree(before, r.tree(t, "stor1")); err != nil {
						t.Errorf("the refused plan touched stor1: %v", err)
					}
					if cmds := r.commands(t, "stor1"); len(cmds) > 0 {
						t.Errorf("the refused plan ran commands: %q", cmds)
					}
				},
				Config: conf("wipe = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if f := formats(); len(f) != 1 || !strings.HasPrefix(f[0], "mkfs.xfs -q -d su=512k,sw=8 ") {
						return fmt.Errorf("formats %q, want one mkfs.xfs", f)
					}
					if !strings.Contains(r.read(t, "stor1", "proc/mounts"), " /data/st01 xfs ") {
						return fmt.Errorf("not mounted:\n%s", r.read(t, "stor1", "proc/mounts"))
					}
					return nil
				})},
			},
			{
				// wipe off again replaces the resource: the device now holds
				// the xfs this provider made (its marker says so), so the
				// plan passes and nothing is formatted again.
				Config: conf("wipe = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("hpcstorage_beegfs_target.st", plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if f := formats(); len(f) != 1 {
						return fmt.Errorf("formats %q, want still one", f)
					}
					return nil
				})},
			},
		},
	})
}
