package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// Every resource type has an identity whose attributes its state holds as
// strings, in the order of its import id.
func TestIdentityOfEveryResource(t *testing.T) {
	p := &hpcstorageProvider{}
	ctx := context.Background()
	for _, f := range p.Resources(ctx) {
		r := f()
		name := typeName(r)
		ir, ok := r.(fwresource.ResourceWithIdentity)
		if !ok {
			t.Errorf("%s: no identity", name)
			continue
		}
		var sr fwresource.SchemaResponse
		r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
		var isr fwresource.IdentitySchemaResponse
		ir.IdentitySchema(ctx, fwresource.IdentitySchemaRequest{}, &isr)
		if len(isr.IdentitySchema.Attributes) == 0 {
			t.Errorf("%s: empty identity schema", name)
		}
		for _, part := range identities[name] {
			from := part.from
			if from == idTail {
				from = "id"
			}
			a, ok := sr.Schema.Attributes[from]
			if !ok || a.GetType().TerraformType(ctx).String() != "tftypes.String" {
				t.Errorf("%s: identity attribute %s comes from %q, which is no string attribute of the state", name, part.name, from)
			}
		}
	}
}

// adoptCLI is Terraform v1.15.9 in a fresh folder with the provider served
// in this process for a mock lab: config is main.tf.
func adoptCLI(t *testing.T, config string, tfvars ...string) *pluginCLI {
	t.Helper()
	tf := terraformWithActions(t)
	ri := serveAs(t, "registry.terraform.io/hpcstorage/hpcstorage", nil)
	dir, work := workDir(t, config)
	for _, v := range tfvars {
		if err := os.Symlink(v, filepath.Join(work, filepath.Base(v))); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(dir, "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	reattach, err := json.Marshal(ri)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE="+rc,
		"TF_REATTACH_PROVIDERS="+string(reattach))
	c := &pluginCLI{t: t, tf: tf, dir: work, env: env}
	if out, code := c.run("init"); code != 0 {
		t.Fatalf("terraform init: exit %d\n%s", code, out)
	}
	return c
}

// requiredHpcstorage names the provider's source.
const requiredHpcstorage = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}
`

// carved is an R1 metadata array carved by hand before Terraform: one
// RAID1 disk group, one volume mapped to meta1 at LUN 1, a global spare.
type carved struct {
	pool   *redfish.StoragePool
	volume *redfish.Volume
}

func carveByHand(t *testing.T, lab *mockLab) carved {
	t.Helper()
	ep := lab.client(t, "me4024-1")
	ctx := context.Background()
	const sid = "controller_a"
	p, err := ep.CreatePool(ctx, sid, "mdt01", "RAID1", []string{"0.0", "0.1"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ep.CreateVolume(ctx, sid, p.ID, "mdt01", 100*gib, 131072)
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Map(ctx, sid, v, "meta1", 1); err != nil {
		t.Fatal(err)
	}
	d, err := ep.GetDrive(ctx, sid, "0.23")
	if err == nil {
		err = ep.SetHotspare(ctx, d, "Global")
	}
	if err != nil {
		t.Fatal(err)
	}
	return carved{pool: p, volume: v}
}

// rawRun runs terraform with args as given (query and state rm take no
// -input).
func rawRun(t *testing.T, c *pluginCLI, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(c.tf, args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("terraform %v: %v", args, err)
	}
	return string(out), 0
}

// queryToConfig runs terraform query -generate-config-out=adopt.tf on
// query (adopt.tfquery.hcl), whose output must name wants.
func queryToConfig(t *testing.T, cli *pluginCLI, query string, wants ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(cli.dir, "adopt.tfquery.hcl"), []byte(query), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := rawRun(t, cli, "query", "-no-color", "-generate-config-out=adopt.tf")
	if code != 0 {
		t.Fatalf("terraform query: exit %d\n%s", code, out)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("query output lacks %q:\n%s", want, out)
		}
	}
}

// noChanges runs a plan that must find nothing to do.
func noChanges(t *testing.T, c *pluginCLI) {
	t.Helper()
	if out, code := c.run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after adoption: exit %d, want 0 (no changes)\n%s", code, out)
	}
}

// TestImportByIdentity: import blocks naming objects by identity (no id
// strings) adopt a server and a hand-carved array with Terraform 1.15.9;
// the configuration Terraform generates for them plans with no changes.
func TestImportByIdentity(t *testing.T) {
	// Parallel: a lab of its own, the provider served in this process.
	t.Parallel()
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc", "me4024-1")
	c := carveByHand(t, lab)
	cli := adoptCLI(t, lab.providerBlock()+requiredHpcstorage+`
import {
  to       = hpcstorage_server.meta1
  identity = { endpoint = "meta1-bmc", system_id = "System.Embedded.1" }
}

import {
  to       = hpcstorage_disk_group.mdt01
  identity = { endpoint = "me4024-1", storage_id = "controller_a", pool_id = "`+c.pool.ID+`" }
}

import {
  to       = hpcstorage_volume.mdt01
  identity = { endpoint = "me4024-1", storage_id = "controller_a", volume_id = "`+c.volume.ID+`" }
}

import {
  to       = hpcstorage_spare_drives.me4024
  identity = { endpoint = "me4024-1", storage_id = "controller_a" }
}
`)
	if out, code := cli.run("plan", "-generate-config-out=generated.tf"); code != 0 {
		t.Fatalf("plan -generate-config-out: exit %d\n%s", code, out)
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "4 imported, 0 added, 0 changed, 0 destroyed") {
		gen, _ := os.ReadFile(filepath.Join(cli.dir, "generated.tf"))
		t.Fatalf("apply: exit %d\n%s\ngenerated.tf:\n%s", code, out, gen)
	}
	noChanges(t, cli)
	// The identity is in the state, as Terraform shows it.
	state, err := os.ReadFile(filepath.Join(cli.dir, "terraform.tfstate"))
	want := `"identity": {
            "endpoint": "me4024-1",
            "storage_id": "controller_a",
            "volume_id": "` + c.volume.ID + `"
          }`
	if err != nil || !strings.Contains(string(state), want) {
		t.Errorf("state lacks the volume's identity %s (%v):\n%s", want, err, state)
	}
}

// exampleQueries are the list-resource examples of types (the docs show
// them), which query the R1 lab's names.
func exampleQueries(t *testing.T, types ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	var b strings.Builder
	for _, typ := range types {
		q, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "examples", "list-resources", "hpcstorage_"+typ, "list-resource.tfquery.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(q)
	}
	return b.String()
}

// TestQueryAdoptsCarvedArray: terraform query (Terraform 1.15.9) on an
// R1 site carved by hand lists its server, disk group, volume and spares;
// the import blocks and configuration it generates apply as imports only,
// and the next plan is empty.
func TestQueryAdoptsCarvedArray(t *testing.T) {
	// Parallel: a lab of its own, the provider served in this process.
	t.Parallel()
	lab := startLab(t, "r1", redfishmock.Options{}, "meta1-bmc", "me4024-1")
	c := carveByHand(t, lab)
	cli := adoptCLI(t, lab.providerBlock()+requiredHpcstorage)
	queryToConfig(t, cli, exampleQueries(t, "server", "disk_group", "volume", "spare_drives"),
		"meta1-bmc: System.Embedded.1", "me4024-1: mdt01", "me4024-1: global spares")
	gen, err := os.ReadFile(filepath.Join(cli.dir, "adopt.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"import {", `volume_id  = "` + c.volume.ID + `"`, `pool_id    = "` + c.pool.ID + `"`} {
		if !strings.Contains(string(gen), want) {
			t.Errorf("adopt.tf lacks %q:\n%s", want, gen)
		}
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "4 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply: exit %d\n%s\nadopt.tf:\n%s", code, out, gen)
	}
	noChanges(t, cli)
}

// eseriesRefs maps the array's drives by location (99.3) to their refs.
func eseriesRefs(t *testing.T, c *santricity.Client) map[string]string {
	t.Helper()
	drives, err := c.Drives(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byLoc := map[string]string{}
	for _, d := range drives {
		byLoc[d.Location()] = d.ID
	}
	return byLoc
}

// TestQueryAdoptsESeries: the same on an E-Series array carved with
// SANtricity by hand (R3's EF600): a RAID6 volume group, a volume, a hot
// spare.
func TestQueryAdoptsESeries(t *testing.T) {
	// Parallel: a lab of its own, the provider served in this process.
	t.Parallel()
	srv := eseriesLab(t)
	c := eseriesClient(t, srv)
	ctx := context.Background()
	byLoc := eseriesRefs(t, c)
	var refs []string
	for i := 0; i < 10; i++ {
		refs = append(refs, byLoc[fmt.Sprintf("99.%d", i)])
	}
	g, err := c.CreateVolumeGroup(ctx, "stor01", santricity.RAID6, refs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "stor01_t1", VolumeGroupID: g.ID, CapacityBytes: 1 << 40, SegmentBytes: 512 << 10}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetHotSpares(ctx, []string{byLoc["99.23"]}, true); err != nil {
		t.Fatal(err)
	}
	cli := adoptCLI(t, eseriesProvider(srv)+requiredHpcstorage)
	queryToConfig(t, cli, strings.ReplaceAll(exampleQueries(t, "disk_group", "volume", "spare_drives"), "me4024-1", "ef600-1"),
		"ef600-1: stor01", "ef600-1: stor01_t1", "ef600-1: global spares")
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "3 imported, 0 added, 0 changed, 0 destroyed") {
		gen, _ := os.ReadFile(filepath.Join(cli.dir, "adopt.tf"))
		t.Fatalf("apply: exit %d\n%s\nadopt.tf:\n%s", code, out, gen)
	}
	noChanges(t, cli)
}

// A node resource imported with an import block naming it by identity
// ({ host, owner }) with Terraform 1.15.9: the plan is empty.
func TestNodeConfigImportByIdentity(t *testing.T) {
	t.Setenv("TF_ACC_TERRAFORM_PATH", terraformWithActions(t))
	l := startNodeLab(t, 1)
	cfg := l.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_node_config" "a" {
  host   = %q
  owner  = "imported"
  sysctl = { "vm.dirty_ratio" = "20" }
  files = {
    "/etc/beegfs/connInterfacesFile.conf" = { content = "ib0\n" }
  }
}
`, l.host(0))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity("hpcstorage_node_config.a", map[string]knownvalue.Check{
					"host": knownvalue.StringExact(l.host(0)), "owner": knownvalue.StringExact("imported")}),
			}},
			{
				Config:          cfg,
				ResourceName:    "hpcstorage_node_config.a",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}

// cephPoolConfig is a three-monitor R4 cluster and its pool on the lab.
const cephPoolConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "lab" {
  type = object({
    nodes = map(object({ host = string }))
    ssh   = object({ user = string, private_key_file = string, known_hosts_file = string })
  })
}

provider "hpcstorage" {
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

resource "hpcstorage_ceph_cluster" "r4" {
  bootstrap_host  = "mon1"
  mon_ip          = "10.40.0.1"
  public_network  = "10.40.0.0/24"
  cluster_network = "10.41.0.0/24"
  hosts = { for i in [1, 2, 3] : "mon${i}" => {
    host = var.lab.nodes["mon${i}"].host, addr = "10.40.0.${i}", labels = ["mon", "mgr"]
  } }
  mon_count = 3
  mgr_count = 2
}

resource "hpcstorage_ceph_pool" "rbd" {
  admin_host = hpcstorage_ceph_cluster.r4.admin_host
  name       = "rbd"
  size       = 2
}

resource "hpcstorage_rbd_images" "rbd" {
  admin_host = hpcstorage_ceph_cluster.r4.admin_host
  pool       = hpcstorage_ceph_pool.rbd.name
  images = {
    "vol01" = { size = "100G" }
    "vol02" = { size = "1536M" }
  }
}

resource "hpcstorage_rbd_client" "c1" {
  host       = var.lab.nodes["client01"].host
  admin_host = hpcstorage_ceph_cluster.r4.admin_host
  name       = "client01"
  pool       = hpcstorage_ceph_pool.rbd.name
  images     = ["vol01"]
  fsid       = hpcstorage_ceph_cluster.r4.fsid
  mon_hosts  = hpcstorage_ceph_cluster.r4.mon_hosts
}

output "fsid" {
  value = hpcstorage_ceph_cluster.r4.fsid
}
`

// A Ceph cluster, its pool, its images and a client mapping one, forgotten
// by the state, come back with import blocks naming them by identity
// (Terraform 1.15.9): the reads fill them from the cluster's and the
// client's records, ceph osd pool ls detail and rbd ls; the plan is empty.
func TestCephImportByIdentity(t *testing.T) {
	// Parallel: a lab of its own, the provider served in this process.
	t.Parallel()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r4", Dir: filepath.Join(dir, "lab"), Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cli := adoptCLI(t, cephPoolConfig, filepath.Join(dir, "lab", lab.TFVarsFile))
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	fsid, code := rawRun(t, cli, "output", "-raw", "fsid")
	if code != 0 {
		t.Fatalf("output fsid: exit %d\n%s", code, fsid)
	}
	if out, code := rawRun(t, cli, "state", "rm", "hpcstorage_ceph_cluster.r4", "hpcstorage_ceph_pool.rbd", "hpcstorage_rbd_images.rbd",
		"hpcstorage_rbd_client.c1"); code != 0 {
		t.Fatalf("state rm: exit %d\n%s", code, out)
	}
	host := func(name string) string {
		return l.State.Nodes[slices.IndexFunc(l.State.Nodes, func(n lab.NodeInfo) bool { return n.Name == name })].Host
	}
	admin := host("mon1")
	if err := os.WriteFile(filepath.Join(cli.dir, "import.tf"), []byte(`
import {
  to       = hpcstorage_ceph_cluster.r4
  identity = { admin_host = "`+admin+`", fsid = "`+fsid+`" }
}

import {
  to       = hpcstorage_ceph_pool.rbd
  identity = { admin_host = "`+admin+`", name = "rbd" }
}

import {
  to       = hpcstorage_rbd_images.rbd
  identity = { admin_host = "`+admin+`", pool = "rbd" }
}

import {
  to       = hpcstorage_rbd_client.c1
  identity = { host = "`+host("client01")+`", name = "client01" }
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "4 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply of the import: exit %d\n%s", code, out)
	}
	noChanges(t, cli)
}

// Identities whose attributes change in place are mutable (Terraform takes
// the new one); those of attributes that replace the resource are not.
func TestMutableIdentity(t *testing.T) {
	for _, tc := range []struct {
		r    fwresource.Resource
		want bool
	}{
		{NewCephPoolResource(), true}, {NewGpfsNSDsResource(), true}, // admin_host, the set's name change in place
		{NewVolumeResource(), false}, {NewServerResource(), false}, {NewNodeConfigResource(), false}, {NewHAClusterResource(), false},
	} {
		r, want := tc.r, tc.want
		if got := mutableIdentity(r, identities[typeName(r)]); got != want {
			t.Errorf("%s: mutable identity %v, want %v", typeName(r), got, want)
		}
	}
}

// An NSD set applied, forgotten by the state and imported by identity
// { host, name } with Terraform 1.15.9: the record the apply left on the
// admin node gives it back whole, the import changes nothing and no mm
// command runs.
func TestGpfsNSDsImportByIdentity(t *testing.T) {
	t.Setenv("TF_ACC_TERRAFORM_PATH", terraformWithActions(t))
	r := upR5(t, gpfsMappingConfig)
	ctx := context.Background()
	vars := []string{"nsd=true", "both=true"}
	apply := func() {
		t.Helper()
		opts := []tfexec.ApplyOption{tfexec.Reattach(r.ri)}
		for _, v := range vars {
			opts = append(opts, tfexec.Var(v))
		}
		if err := r.tf.Apply(ctx, opts...); err != nil {
			t.Fatalf("apply: %v", err)
		}
	}
	apply()
	if err := r.tf.StateRm(ctx, "hpcstorage_gpfs_nsds.t[0]"); err != nil {
		t.Fatal(err)
	}
	r.writeImport(t, `
import {
  to       = hpcstorage_gpfs_nsds.t[0]
  identity = { host = var.lab.nodes["nsd1"].host, name = "t" }
}
`)
	if got := r.importPlan(t, vars...)["hpcstorage_gpfs_nsds.t[0]"]; got != "import+no-op" {
		t.Fatalf("plan of the import: %q, want an import with no change", got)
	}
	before := len(r.mmLog(t, "nsd1", "mmcrnsd"))
	apply()
	if after := len(r.mmLog(t, "nsd1", "mmcrnsd")); after != before {
		t.Errorf("the import ran mmcrnsd")
	}
	opts := []tfexec.PlanOption{tfexec.Reattach(r.ri)}
	for _, v := range vars {
		opts = append(opts, tfexec.Var(v))
	}
	if changes, err := r.tf.Plan(ctx, opts...); err != nil || changes {
		t.Errorf("plan after the import: changes %v, err %v", changes, err)
	}
}
