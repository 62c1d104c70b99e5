package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// r5Lab is an R5 lab with examples/r5 copied next to it.
type r5Lab struct {
	*lab.Lab
	dir string
	tf  *tfexec.Terraform
	ri  tfexec.ReattachInfo
}

func (r *r5Lab) root(t *testing.T, node string) string {
	t.Helper()
	for _, n := range r.State.Nodes {
		if n.Name == node {
			return n.Root
		}
	}
	t.Fatalf("no lab node %s", node)
	return ""
}

// mm runs a simulated mm command on a lab node, as an administrator
// logged in on it would (a query returns its output).
func (r *r5Lab) mm(t *testing.T, node string, query bool, argv ...string) string {
	t.Helper()
	root, err := fsroot.Open(r.root(t, node))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s := runner.Sim{Root: root}
	if query {
		out, code, err := s.Query(context.Background(), argv...)
		if err != nil || code != 0 {
			t.Fatalf("%q on %s: exit %d %v\n%s", argv, node, code, err, out)
		}
		return out
	}
	if err := s.Run(context.Background(), argv...); err != nil {
		t.Fatal(err)
	}
	return ""
}

// mmLog lists the mm commands the agent ran on a node, in order.
func (r *r5Lab) mmLog(t *testing.T, node, tool string) [][]string {
	t.Helper()
	var out [][]string
	for _, argv := range r.ranOn(t, node) {
		if filepath.Base(argv[0]) == tool {
			out = append(out, argv)
		}
	}
	return out
}

// ranOn lists every command the agent ran on a node, in order; a Once
// step is the command its shell ran.
func (r *r5Lab) ranOn(t *testing.T, node string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(r.root(t, node), runner.LogPath))
	if os.IsNotExist(err) {
		return nil // no command ran on the node yet
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e runner.LogEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || len(e.Argv) == 0 {
			continue
		}
		if len(e.Argv) > 5 && filepath.Base(e.Argv[0]) == "sh" && (e.Argv[3] == "gpfs-once" || e.Argv[3] == "gpfs-pending") {
			e.Argv = e.Argv[5:] // a Once or pending step: the command the shell ran
		}
		out = append(out, e.Argv)
	}
	return out
}

// upR5 starts an R5 lab and a copy of examples/r5 for it; mainTF, when
// set, replaces the example's main.tf (the lab variable stays).
func upR5(t *testing.T, mainTF ...string) *r5Lab {
	t.Helper()
	return upR5Release(t, "", mainTF...)
}

// upR5Release is upR5 with the nodes' Storage Scale packages at release
// ("": the lab's default).
func upR5Release(t *testing.T, release string, mainTF ...string) *r5Lab {
	t.Helper()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	// Short power transitions: the day-2 roll reboots five servers in turn.
	l, err := lab.Up(lab.Config{Design: "r5", Dir: filepath.Join(dir, "lab"), Simulator: simtest.Binary(t), GPFSRelease: release, PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cfg := copyExample(t, dir, "r5", "modules/spectrum-scale")
	if len(mainTF) > 0 {
		if err := os.WriteFile(filepath.Join(cfg, "main.tf"), []byte(mainTF[0]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	if err := tf.Init(context.Background(), tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	return &r5Lab{Lab: l, dir: dir, tf: tf, ri: ri}
}

// planActions plans with vars and returns the actions by resource address.
func (r *r5Lab) planActions(t *testing.T, vars ...string) map[string]string {
	t.Helper()
	ctx := context.Background()
	planFile := filepath.Join(r.dir, "plan.out")
	opts := []tfexec.PlanOption{tfexec.Reattach(r.ri), tfexec.Out(planFile)}
	for _, v := range vars {
		opts = append(opts, tfexec.Var(v))
	}
	if _, err := r.tf.Plan(ctx, opts...); err != nil {
		t.Fatalf("plan %v: %v", vars, err)
	}
	p, err := r.tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(r.ri))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rc := range p.ResourceChanges {
		if a := rc.Change.Actions; !a.NoOp() && !a.Read() {
			out[rc.Address] = strings.Join(func() []string {
				var s []string
				for _, x := range a {
					s = append(s, string(x))
				}
				return s
			}(), "+")
		}
	}
	return out
}

// TestR5ModuleExample applies examples/r5 (the spectrum-scale module) with
// the real Terraform CLI to a fresh R5 lab, 2 ME4084s without their
// ME484s: NSDs with their usage and failure groups, the file system with
// -B 8M -j scatter and 2M metadata blocks (256 subblocks of 32 KiB, read
// back from mmlsfs -f -Y), pagepool 16G on the NSD servers; the second plan is
// empty. Then the capacity expansion (both ME484s): the plan only adds
// and updates in place, and the apply runs ONE mmadddisk with exactly the
// 16 new NSDs. A pagepool changed by hand shows as drift and the apply
// puts it back.
func TestR5ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the R5 design")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	r := upR5(t)
	ctx := context.Background()
	start := time.Now()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R5 apply (2 ME4084s): %s", time.Since(start).Round(time.Second))
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}

	nsds, err := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nsds) != 18 {
		t.Errorf("%d NSDs, want 16 data + 2 metadata: %v", len(nsds), nsds)
	}
	usage := r.disksByUsage(t)
	if want := map[string]int{"metadataOnly/system/fg1": 2, "dataOnly/data/fg1": 8, "dataOnly/data/fg2": 8}; !mapsEqual(usage, want) {
		t.Errorf("disks by usage/pool/failure group = %v, want %v", usage, want)
	}
	attrs, err := gpfs.ParseFSAttrs(r.mm(t, "nsd1", true, "mmlsfs", "fs1", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	if attrs["blockSize"] != "8388608" || attrs["blockAllocationType"] != "scatter" {
		t.Errorf("mmlsfs: block size %s, allocation %s", attrs["blockSize"], attrs["blockAllocationType"])
	}
	// The paper's 256 subblocks of 32 KiB: 8M data blocks, a 2M
	// metadataOnly system pool (mmlsfs -f has one row per pool kind).
	frag, err := gpfs.ParseFSAttrs(r.mm(t, "nsd1", true, "mmlsfs", "fs1", "-f", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	if frag["minFragmentSize/other pools"] != "32768" || frag["minFragmentSize/system pool"] != "8192" ||
		attrs["subblocksPerFullBlock"] != "256" || attrs["blockSize/system pool"] != "2097152" {
		t.Errorf("mmlsfs -f: %v; subblocks per block %s, system pool block size %s", frag,
			attrs["subblocksPerFullBlock"], attrs["blockSize/system pool"])
	}
	outs, err := r.tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(outs["subblocks"].Value); got != `"256 x 32 KiB"` {
		t.Errorf("subblocks output = %s, want 256 x 32 KiB", got)
	}
	// The gateways: CES addresses and the SMB export next to NFS.
	ips, err := gpfs.ParseCESAddresses(r.mm(t, "gw1", true, "mmces", "address", "list", "-Y"))
	if err != nil || !slices.Equal(ips, []string{"10.10.0.201", "10.10.0.202"}) {
		t.Errorf("CES addresses %v %v", ips, err)
	}
	shares, err := gpfs.ParseSMBExports(r.mm(t, "gw2", true, "mmsmb", "export", "list", "-Y", "--all"))
	if err != nil || len(shares) != 1 || shares[0].Name != "fs1" || shares[0].Path != "/gpfs/fs1" || shares[0].Options["browseable"] != "yes" {
		t.Errorf("SMB exports %v %v", shares, err)
	}
	conf, err := gpfs.ParseConfig(r.mm(t, "nsd2", true, "mmlsconfig", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := conf.Value("pagepool", "nsdServers"); !gpfs.SameValue("pagepool", "16G", v) {
		t.Errorf("pagepool on nsdServers = %q", v)
	}
	if v, _ := conf.Value("maxblocksize", gpfs.AllNodes); !gpfs.SameValue("maxblocksize", "8M", v) {
		t.Errorf("maxblocksize = %q", v)
	}
	if got := r.mmLog(t, "nsd1", "mmcrfs"); len(got) != 1 || !strings.Contains(strings.Join(got[0], " "), "-B 8M -j scatter -m 1 -M 2 -r 1 -R 2 -n 32 -T /gpfs/fs1 -A yes --metadata-block-size 2M") {
		t.Errorf("mmcrfs runs: %v", got)
	}

	// Capacity expansion: the ME484s of both arrays.
	actions := r.planActions(t, "me484_count=2")
	adds := 0
	for addr, a := range actions {
		switch {
		case a == "create":
			adds++
		case a == "update" && (strings.Contains(addr, "hpcstorage_gpfs_nsds") || strings.Contains(addr, "hpcstorage_gpfs_filesystem") ||
			strings.Contains(addr, "hpcstorage_spare_drives")):
		default:
			t.Errorf("expansion plan: %s %s (only creates and in-place updates of the NSDs, file system and spares expected)", a, addr)
		}
	}
	// 16 disk groups, 16 volumes, and the first array's spares (its ME484's
	// leftover HDDs: the ME4084's spare bays hold the metadata SSDs).
	if adds != 33 {
		t.Errorf("expansion plan creates %d resources, want 33: %v", adds, actions)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=2")); err != nil {
		t.Fatalf("expansion apply: %v", err)
	}
	runs := r.mmLog(t, "nsd1", "mmadddisk")
	if len(runs) != 1 {
		t.Fatalf("mmadddisk ran %d times, want once: %v", len(runs), runs)
	}
	stanza, err := os.ReadFile(filepath.Join(r.root(t, "nsd1"), "var/lib/hpcstorage/gpfs/fs-fs1/mmadddisk.stanza"))
	if err != nil {
		t.Fatal(err)
	}
	var added []string
	for _, line := range strings.Split(strings.TrimSpace(string(stanza)), "\n") {
		for _, f := range strings.Fields(line) {
			if n, ok := strings.CutPrefix(f, "nsd="); ok {
				added = append(added, n)
			}
		}
	}
	slices.Sort(added)
	var want []string
	for _, a := range []string{"a1_e", "a2_e"} {
		for i := 1; i <= 8; i++ {
			want = append(want, a+"0"+string(rune('0'+i)))
		}
	}
	if !slices.Equal(added, want) {
		t.Errorf("mmadddisk stanza NSDs = %v, want exactly the new %v", added, want)
	}
	if got := r.mmLog(t, "nsd1", "mmcrfs"); len(got) != 1 {
		t.Errorf("mmcrfs ran %d times after the expansion", len(got))
	}
	if disks, _ := gpfs.ParseDisks(r.mm(t, "nsd1", true, "mmlsdisk", "fs1", "-Y")); len(disks) != 34 {
		t.Errorf("file system has %d disks after the expansion, want 34", len(disks))
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=2")); err != nil || changes {
		t.Fatalf("plan after the expansion: changes %v, err %v", changes, err)
	}

	// pagepool changed by hand: drift on the cluster, put back by the apply.
	r.mm(t, "nsd1", false, "mmchconfig", "pagepool=8G", "-N", "nsdServers", "-i")
	actions = r.planActions(t, "me484_count=2")
	if len(actions) != 1 || actions["module.r5.hpcstorage_gpfs_cluster.this"] != "update" {
		t.Errorf("plan after mmchconfig by hand: %v, want one update of the cluster", actions)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=2")); err != nil {
		t.Fatalf("apply after drift: %v", err)
	}
	conf, _ = gpfs.ParseConfig(r.mm(t, "nsd2", true, "mmlsconfig", "-Y"))
	if v, _ := conf.Value("pagepool", "nsdServers"); !gpfs.SameValue("pagepool", "16G", v) {
		t.Errorf("pagepool on nsdServers after the apply = %q", v)
	}

	// The SMB export removed by hand: drift on the gateways, put back.
	r.mm(t, "gw1", false, "mmsmb", "export", "remove", "fs1")
	if actions = r.planActions(t, "me484_count=2"); len(actions) != 1 || actions["module.r5.hpcstorage_gpfs_gateways.this[0]"] != "update" {
		t.Errorf("plan after mmsmb export remove by hand: %v, want one update of the gateways", actions)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=2")); err != nil {
		t.Fatalf("apply after SMB drift: %v", err)
	}
	if shares, _ = gpfs.ParseSMBExports(r.mm(t, "gw2", true, "mmsmb", "export", "list", "-Y")); len(shares) != 1 {
		t.Errorf("SMB exports after the apply: %v", shares)
	}

	// Taking an ME484 out would remove NSDs from the file system: refused
	// at plan time unless allow_disk_removal.
	_, err = r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=1"))
	if msg := strings.Join(strings.Fields(fmt.Sprint(err)), " "); err == nil || !strings.Contains(msg, "Disk Removal Not Allowed") ||
		!strings.Contains(msg, "a2_e01") || !strings.Contains(msg, "allow_disk_removal = true") {
		t.Errorf("plan removing NSDs from the file system: %v", err)
	}

	// Day 2: a BIOS value rolls over the cluster one member at a time.
	r5RollingBIOSChange(t, r, "me484_count=2")

	// Destroy keeps the file system (no delete_on_destroy).
	if err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri), tfexec.Var("me484_count=2")); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if attrs, err = gpfs.ParseFSAttrs(r.mm(t, "nsd1", true, "mmlsfs", "fs1", "-Y")); err != nil || attrs["blockSize"] != "8388608" {
		t.Errorf("file system after destroy: %v %v", attrs, err)
	}
	if got := r.mmLog(t, "nsd1", "mmdelfs"); len(got) != 0 {
		t.Errorf("destroy ran mmdelfs: %v", got)
	}
}

// TestR5MetadataME4024: the module with the high-demand metadata module
// (metadata = "me4024": the ME4024's 24 SSDs as 12 RAID1 LUNs, metadata
// NSDs in failure group 101) on one ME4084, and rebalance_on_add: the
// expansion by the ME484 runs mmadddisk then mmrestripefs -b, once; a
// later apply without new disks does not restripe again.
func TestR5MetadataME4024(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the R5 design")
	}
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	main, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "examples", "r5", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(main), `metadata          = "base"`,
		`metadata          = "me4024"
  metadata_arrays   = ["me4024-1"]
  rebalance_on_add  = true`, 1)
	if cfg == string(main) {
		t.Fatal("examples/r5/main.tf no longer sets metadata = \"base\"")
	}
	r := upR5(t, cfg)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("array_count=1")); err != nil {
		t.Fatalf("apply: %v", err)
	}
	usage := r.disksByUsage(t)
	if want := map[string]int{"metadataOnly/system/fg101": 12, "dataOnly/data/fg1": 8}; !mapsEqual(usage, want) {
		t.Errorf("disks by usage/pool/failure group = %v, want %v", usage, want)
	}
	if got := r.mmLog(t, "nsd1", "mmrestripefs"); len(got) != 0 {
		t.Errorf("mmrestripefs ran at creation: %v", got)
	}

	// Import (id HOST/DEVICE): the file system forgotten by the state comes
	// back from mmlsfs, mmlsdisk and mmlspolicy as configured; only the
	// switch rebalance_on_add, which GPFS does not keep, is set by the plan.
	const fsAddr = "module.r5.hpcstorage_gpfs_filesystem.this"
	if err := r.tf.StateRm(ctx, fsAddr); err != nil {
		t.Fatal(err)
	}
	r.writeImport(t, `
import {
  to = module.r5.hpcstorage_gpfs_filesystem.this
  id = "${var.lab.nodes["nsd1"].host}/fs1"
}
`)
	actions, changed := r.importChanges(t, "array_count=1")
	if actions[fsAddr] != "import+update" || !slices.Equal(changed[fsAddr], []string{"rebalance_on_add"}) {
		t.Errorf("plan of the file system import: %s, changing %v; want an import setting only rebalance_on_add", actions[fsAddr], changed[fsAddr])
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("array_count=1")); err != nil {
		t.Fatalf("apply of the import: %v", err)
	}
	if err := os.Remove(filepath.Join(r.tf.WorkingDir(), "import.tf")); err != nil {
		t.Fatal(err)
	}
	if got := r.mmLog(t, "nsd1", "mmcrfs"); len(got) != 1 {
		t.Errorf("mmcrfs ran %d times", len(got))
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("array_count=1"), tfexec.Var("me484_count=1")); err != nil {
		t.Fatalf("expansion apply: %v", err)
	}
	if got := r.mmLog(t, "nsd1", "mmrestripefs"); len(got) != 1 || strings.Join(got[0][1:], " ") != "fs1 -b" {
		t.Errorf("mmrestripefs runs after the expansion: %v, want one mmrestripefs fs1 -b", got)
	}
	if got := r.mmLog(t, "nsd1", "mmadddisk"); len(got) != 1 {
		t.Errorf("mmadddisk runs: %v", got)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("array_count=1"), tfexec.Var("me484_count=1")); err != nil {
		t.Fatalf("second apply: %v", err)
	}
	if got := r.mmLog(t, "nsd1", "mmrestripefs"); len(got) != 1 {
		t.Errorf("mmrestripefs ran %d times after an apply without new disks", len(got))
	}
}

// disksByUsage counts fs1's disks (mmlsdisk -Y) by usage, pool and
// failure group: "dataOnly/data/fg1".
func (r *r5Lab) disksByUsage(t *testing.T) map[string]int {
	t.Helper()
	disks, err := gpfs.ParseDisks(r.mm(t, "nsd1", true, "mmlsdisk", "fs1", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	usage := map[string]int{}
	for _, d := range disks {
		usage[d.Usage()+"/"+d.Pool+"/fg"+d.FailureGroup]++
	}
	return usage
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// gpfsMappingConfig is one ME4084 volume mapped to nsd1 only (both: to
// nsd2 too), and, with nsd = true, an NSD served by nsd1 and nsd2 on it
// (usage dataOnly in pool data, or another usage in system).
const gpfsMappingConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "nsd" {
  type    = bool
  default = false
}

variable "both" {
  type    = bool
  default = false
}

variable "wipe" {
  type    = bool
  default = false
}

variable "usage" {
  type    = string
  default = "dataOnly"
}

output "wwn" {
  value = hpcstorage_volume.v.wwn
}

provider "hpcstorage" {
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    ca_certificate = var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

resource "hpcstorage_disk_group" "g" {
  endpoint   = "me4084-2"
  name       = "t_d01"
  raid_level = "RAID6"
  drive_ids  = [for i in range(10) : "0.${i}"]
}

resource "hpcstorage_volume" "v" {
  endpoint           = "me4084-2"
  disk_group         = hpcstorage_disk_group.g.name
  name               = "t_d01"
  segment_size_bytes = 524288
  host_mappings      = var.both ? [{ host = "nsd1", lun = 1 }, { host = "nsd2", lun = 1 }] : [{ host = "nsd1", lun = 1 }]
}

resource "hpcstorage_gpfs_cluster" "c" {
  count = var.nsd ? 1 : 0
  host  = var.lab.nodes["nsd1"].host
  name  = "r5"
  nodes = { nsd1 = ["quorum", "manager", "nsd_server"], nsd2 = ["quorum", "manager", "nsd_server"], mgmt = ["quorum"] }
}

resource "hpcstorage_gpfs_nsds" "t" {
  count         = var.nsd ? 1 : 0
  cluster_nodes = hpcstorage_gpfs_cluster.c[0].node_names
  host          = var.lab.nodes["nsd1"].host
  name         = "t"
  server_hosts = { nsd1 = var.lab.nodes["nsd1"].host, nsd2 = var.lab.nodes["nsd2"].host }
  nsds         = [{ name = "t_d01", wwn = hpcstorage_volume.v.wwn, servers = ["nsd1", "nsd2"], usage = var.usage, pool = var.usage == "dataOnly" ? "data" : "system" }]
  wipe         = var.wipe
}
`

// TestGpfsNSDNotMapped: an NSD whose volume one of its servers does not
// see fails the plan on its wwn, naming the server, before any mm command.
func TestGpfsNSDNotMapped(t *testing.T) {
	r := upR5(t, gpfsMappingConfig)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply of the volume: %v", err)
	}
	_, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd=true"))
	if err == nil {
		t.Fatal("the plan of an NSD served by a node that does not see its volume passed")
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	for _, want := range []string{"Volume Not Mapped To NSD Server", "nsds[0].wwn", "NSD t_d01: server nsd2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("plan error lacks %q:\n%s", want, msg)
		}
	}
	if runs := r.mmLog(t, "nsd1", "mmcrnsd"); len(runs) != 0 {
		t.Errorf("mmcrnsd ran: %v", runs)
	}
}

// gpfsNodesConfig is a cluster alone, its nodes given by the variable nodes.
const gpfsNodesConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "nodes" {
  type = map(list(string))
}

provider "hpcstorage" {
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

resource "hpcstorage_gpfs_cluster" "c" {
  host   = var.lab.nodes["nsd1"].host
  name   = "r5"
  nodes  = var.nodes
  config = { all = { maxblocksize = "8M" } }
}
`

// TestGpfsClusterNodes: nodes added to the configuration join with one
// mmaddnode (and their licence), nodes removed leave with mmshutdown and
// mmdelnode; an even number of quorum nodes is a warning, not an error.
func TestGpfsClusterNodes(t *testing.T) {
	r := upR5(t, gpfsNodesConfig)
	ctx := context.Background()
	first := `nodes={nsd1=["quorum","manager"],nsd2=["quorum","manager"],mgmt=["quorum"]}`
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(first)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	second := `nodes={nsd1=["quorum","manager"],nsd2=["quorum","manager"],gw1=["client"]}`
	warnings, err := r.planWarnings(t, second)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	joined := strings.Join(warnings, "\n")
	if !strings.Contains(joined, "2 quorum nodes: an odd number") || !strings.Contains(joined, "mmdelnode -N mgmt") {
		t.Errorf("plan warnings:\n%s", joined)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(second)); err != nil {
		t.Fatalf("apply with gw1 in and mgmt out: %v", err)
	}
	cl, err := gpfs.ParseCluster(r.mm(t, "nsd1", true, "mmlscluster", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range cl.Nodes {
		names = append(names, gpfs.ShortName(n.DaemonName))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"gw1", "nsd1", "nsd2"}) {
		t.Errorf("cluster nodes %v, want gw1 nsd1 nsd2", names)
	}
	if got := r.mmLog(t, "nsd1", "mmdelnode"); len(got) != 1 || strings.Join(got[0][1:], " ") != "-N mgmt" {
		t.Errorf("mmdelnode runs: %v", got)
	}
	if got := r.mmLog(t, "nsd1", "mmaddnode"); len(got) != 1 {
		t.Errorf("mmaddnode runs: %v", got)
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var(second)); err != nil || changes {
		t.Errorf("plan after the change: changes %v, err %v", changes, err)
	}
}

// TestGpfsNSDSignature: a volume that carries a file system fails the NSD
// plan on wipe; with wipe = true the NSD is created (mmcrnsd -v no).
func TestGpfsNSDSignature(t *testing.T) {
	r := upR5(t, gpfsMappingConfig)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("both=true")); err != nil {
		t.Fatalf("apply of the volume: %v", err)
	}
	out, err := r.tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wwn string
	if err := json.Unmarshal(out["wwn"].Value, &wwn); err != nil {
		t.Fatal(err)
	}
	// Someone made a file system on it by hand.
	r.mm(t, "nsd1", false, "mkfs.xfs", "-f", gpfs.WWNDevice(wwn))
	_, err = r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("both=true"), tfexec.Var("nsd=true"))
	msg := strings.Join(strings.Fields(fmt.Sprint(err)), " ")
	if err == nil || !strings.Contains(msg, "Volume Already Has A Signature") || !strings.Contains(msg, "Attribute wipe") ||
		!strings.Contains(msg, "xfs signature") {
		t.Fatalf("plan of an NSD on a volume with a file system: %v", err)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("both=true"), tfexec.Var("nsd=true"), tfexec.Var("wipe=true")); err != nil {
		t.Fatalf("apply with wipe: %v", err)
	}
	if runs := r.mmLog(t, "nsd1", "mmcrnsd"); len(runs) != 1 || strings.Join(runs[0][len(runs[0])-2:], " ") != "-v no" {
		t.Errorf("mmcrnsd runs: %v, want one with -v no", runs)
	}
	if nsds, _ := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y")); len(nsds) != 1 || nsds["t_d01"].Name == "" {
		t.Errorf("NSDs after the apply: %v", nsds)
	}
}

// gpfsTwinConfig adds to gpfsMappingConfig a second NSD set, present with
// twin, whose NSD u_d01 is on the same volume as t_d01; with pair, the
// first set names that volume twice (t_d01 and t_d02).
const gpfsTwinConfig = gpfsMappingConfig + `
variable "twin" {
  type    = bool
  default = false
}

variable "pair" {
  type    = bool
  default = false
}

resource "hpcstorage_gpfs_nsds" "u" {
  count         = var.twin ? 1 : 0
  cluster_nodes = hpcstorage_gpfs_cluster.c[0].node_names
  host          = var.lab.nodes["nsd1"].host
  name          = "u"
  server_hosts  = { nsd1 = var.lab.nodes["nsd1"].host, nsd2 = var.lab.nodes["nsd2"].host }
  nsds          = [{ name = "u_d01", wwn = hpcstorage_volume.v.wwn, servers = ["nsd1", "nsd2"], usage = "dataOnly", pool = "data" }]
}

resource "hpcstorage_gpfs_nsds" "p" {
  count         = var.pair ? 1 : 0
  cluster_nodes = hpcstorage_gpfs_cluster.c[0].node_names
  host          = var.lab.nodes["nsd1"].host
  name          = "p"
  nsds = [for n in ["p_d01", "p_d02"] : { name = n, wwn = hpcstorage_volume.v.wwn, servers = ["nsd1", "nsd2"], usage = "dataOnly", pool = "data" }]
}
`

// TestGpfsNSDVolumeTaken (issue 32, one volume per NSD): a second NSD set
// naming a volume that is already an NSD of the cluster fails the plan on
// its wwn, naming the NSD it is (mmlsnsd -X: the device each server sees
// it as); two NSDs on one volume created in the same apply (its WWN
// unknown at plan) fail the apply before its first mm command, so no NSD
// is half made.
func TestGpfsNSDVolumeTaken(t *testing.T) {
	r := upR5(t, gpfsTwinConfig)
	ctx := context.Background()
	vars := func(v ...string) []tfexec.PlanOption {
		opts := []tfexec.PlanOption{tfexec.Reattach(r.ri), tfexec.Var("both=true")}
		for _, x := range v {
			opts = append(opts, tfexec.Var(x))
		}
		return opts
	}
	// Two NSDs on the volume created in the same apply: its WWN is unknown
	// at plan, the apply refuses before mmcrnsd.
	err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("both=true"), tfexec.Var("nsd=true"), tfexec.Var("pair=true"))
	msg := strings.Join(strings.Fields(strings.ReplaceAll(errString(err), "│", "")), " ")
	if err == nil || !strings.Contains(msg, "nsds[1].wwn") || !strings.Contains(msg, "is already NSD p_d01 (nsds[0])") {
		t.Fatalf("apply of two NSDs on one new volume: %v", err)
	}
	// t_d01 (the other set, in parallel) may be made; p's never.
	if runs := r.mmLog(t, "nsd1", "mmcrnsd"); len(runs) > 1 {
		t.Fatalf("mmcrnsd ran %d times: %v", len(runs), runs)
	}
	if nsds, _ := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y")); nsds["p_d01"].Name != "" || nsds["p_d02"].Name != "" {
		t.Fatalf("NSDs of the refused set were made: %v", nsds)
	}
	// t_d01 made; u_d01 on the same volume is refused at plan.
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("both=true"), tfexec.Var("nsd=true")); err != nil {
		t.Fatalf("apply of t_d01: %v", err)
	}
	_, err = r.tf.Plan(ctx, vars("nsd=true", "twin=true")...)
	msg = strings.Join(strings.Fields(strings.ReplaceAll(errString(err), "│", "")), " ")
	for _, want := range []string{"Volume Already An NSD", "nsds[0].wwn", "is already NSD t_d01 (mmlsnsd -X)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("plan of a second NSD on t_d01's volume lacks %q:\n%s", want, msg)
		}
	}
	if runs := r.mmLog(t, "nsd1", "mmcrnsd"); len(runs) != 1 {
		t.Errorf("mmcrnsd runs: %v", runs)
	}
}
