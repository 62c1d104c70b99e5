package provider

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

// gpfsWholeConfig is one of each Spectrum Scale resource on one ME4084
// volume mapped to both NSD servers: the cluster (with a gateway), the
// NSD set, a file system on it, and the gateways exporting it over NFS;
// fs_delete and nsd_delete are the file system's and the NSDs'
// delete_on_destroy.
const gpfsWholeConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "fs_delete" {
  type    = bool
  default = false
}

variable "nsd_delete" {
  type    = bool
  default = false
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
  host_mappings      = [{ host = "nsd1", lun = 1 }, { host = "nsd2", lun = 1 }]
}

resource "hpcstorage_gpfs_cluster" "c" {
  host   = var.lab.nodes["nsd1"].host
  name   = "r5"
  nodes  = { nsd1 = ["quorum", "manager", "nsd_server"], nsd2 = ["quorum", "manager", "nsd_server"], mgmt = ["quorum"], gw1 = ["gateway"] }
  config = { all = { cesSharedRoot = "/gpfs/fs1/.ces" } }
}

resource "hpcstorage_gpfs_nsds" "t" {
  cluster_nodes     = hpcstorage_gpfs_cluster.c.node_names
  host              = var.lab.nodes["nsd1"].host
  name              = "t"
  server_hosts      = { nsd1 = var.lab.nodes["nsd1"].host, nsd2 = var.lab.nodes["nsd2"].host }
  nsds              = [{ name = "t_d01", wwn = hpcstorage_volume.v.wwn, servers = ["nsd1", "nsd2"], usage = "dataAndMetadata", pool = "system" }]
  delete_on_destroy = var.nsd_delete
}

resource "hpcstorage_gpfs_filesystem" "fs" {
  host              = var.lab.nodes["nsd1"].host
  device            = "fs1"
  mount_point       = "/gpfs/fs1"
  block_size        = "1M"
  delete_on_destroy = var.fs_delete
  disks = [for n in hpcstorage_gpfs_nsds.t.nsds : {
    nsd = n.name, usage = n.usage, failure_group = n.failure_group, pool = n.pool
  }]
}

resource "hpcstorage_gpfs_gateways" "gw" {
  host       = var.lab.nodes["nsd1"].host
  name       = "r5"
  filesystem = hpcstorage_gpfs_filesystem.fs.id
  nodes      = ["gw1"]
  services   = ["NFS"]
  exports    = [{ path = "/gpfs/fs1", clients = [{ spec = "10.20.0.0/16", options = "Access_Type=RW,Squash=root_squash" }] }]
}
`

// gpfsFiles lists what the resources wrote under the admin node's GPFS
// folder (stanzas, node files, policies), relative to it.
func (r *r5Lab) gpfsFiles(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(r.root(t, "nsd1"), strings.TrimPrefix(gpfsDir, "/"))
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "/once/") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// stateAddrs lists the resources in the state.
func (r *r5Lab) stateAddrs(t *testing.T) []string {
	t.Helper()
	st, err := r.tf.Show(context.Background(), tfexec.Reattach(r.ri))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if st.Values != nil && st.Values.RootModule != nil {
		for _, res := range st.Values.RootModule.Resources {
			out = append(out, res.Address)
		}
	}
	return out
}

// mmFails runs a query expected to fail (the object is gone).
func (r *r5Lab) mmFails(t *testing.T, node string, argv ...string) bool {
	t.Helper()
	root, err := fsroot.Open(r.root(t, node))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, code, _ := (runner.Sim{Root: root}).Query(context.Background(), argv...)
	return code != 0
}

// TestGpfsDestroyKeeps (issue 32): destroy of the whole configuration
// with the defaults keeps what holds data or serves clients, as the
// resources document: the cluster, the NSD, the file system (mounted),
// the CES node, its NFS service and export; only the files the resources
// wrote on the admin node go, and no mm command that removes anything
// runs. A new apply then adopts what is there: nothing is created twice,
// and the next plan is empty.
func TestGpfsDestroyKeeps(t *testing.T) {
	if testing.Short() {
		t.Skip("applies and destroys the Spectrum Scale resources in the R5 lab")
	}
	t.Parallel()
	r := upR5(t, gpfsWholeConfig)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if files := r.gpfsFiles(t); len(files) == 0 {
		t.Fatal("the apply wrote no file under " + gpfsDir)
	}
	if err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if files := r.gpfsFiles(t); len(files) != 0 {
		t.Errorf("files left on the admin node after destroy: %v", files)
	}
	cl, err := gpfs.ParseCluster(r.mm(t, "nsd1", true, "mmlscluster", "-Y"))
	if err != nil || cl.Name == "" || !slices.Contains(cl.CESNodes, "gw1") {
		t.Errorf("cluster after destroy: %+v %v", cl, err)
	}
	if nsds, err := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y")); err != nil || nsds["t_d01"].FileSystem != "fs1" {
		t.Errorf("NSD after destroy: %v %v", nsds, err)
	}
	if mounted, err := gpfs.ParseMounted(r.mm(t, "nsd1", true, "mmlsmount", "fs1", "-Y")); err != nil || !mounted {
		t.Errorf("fs1 not mounted after destroy (%v)", err)
	}
	if svc, err := gpfs.ParseCESServices(r.mm(t, "gw1", true, "mmces", "service", "list", "-Y")); err != nil || !slices.Contains(svc, "NFS") {
		t.Errorf("CES services after destroy: %v %v", svc, err)
	}
	if ex, err := gpfs.ParseExports(r.mm(t, "gw1", true, "mmnfs", "export", "list", "-Y")); err != nil || len(ex) != 1 {
		t.Errorf("NFS exports after destroy: %v %v", ex, err)
	}
	for _, tool := range []string{"mmdelfs", "mmumount", "mmdelnsd", "mmdelnode", "mmshutdown"} {
		if got := r.mmLog(t, "nsd1", tool); len(got) != 0 {
			t.Errorf("destroy ran %s: %v", tool, got)
		}
	}
	// The gateways' record is gone with them: nothing to import by name.
	r.writeImport(t, `
import {
  to = hpcstorage_gpfs_gateways.gw
  id = "${var.lab.nodes["nsd1"].host}/r5"
}
`)
	if _, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri)); err == nil {
		t.Error("import of the destroyed gateways found a record")
	}
	if err := os.Remove(filepath.Join(r.tf.WorkingDir(), "import.tf")); err != nil {
		t.Fatal(err)
	}

	// Applied again: the kept objects are adopted, none made twice.
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply after destroy: %v", err)
	}
	for _, tool := range []string{"mmcrcluster", "mmcrnsd", "mmcrfs"} {
		if got := r.mmLog(t, "nsd1", tool); len(got) != 1 {
			t.Errorf("%s ran %d times: %v", tool, len(got), got)
		}
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri)); err != nil || changes {
		t.Errorf("plan after the second apply: changes %v, err %v", changes, err)
	}
}

// TestGpfsDestroyDeletes (issue 32): with the file system kept but the
// NSDs' delete_on_destroy set, destroy refuses the NSDs, before any
// mmdelnsd, naming the file system that holds them (the NSD stays in the
// state); with the file system's delete_on_destroy too, destroy unmounts
// and deletes the file system, deletes the NSD (mmlsnsd lists none, its
// volume is free: a new NSD can be made on it without wipe) and the state
// is empty.
func TestGpfsDestroyDeletes(t *testing.T) {
	if testing.Short() {
		t.Skip("applies and destroys the Spectrum Scale resources in the R5 lab")
	}
	t.Parallel()
	r := upR5(t, gpfsWholeConfig)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd_delete=true")); err != nil {
		t.Fatalf("apply: %v", err)
	}
	err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd_delete=true"))
	msg := strings.Join(strings.Fields(strings.ReplaceAll(errString(err), "│", "")), " ")
	if err == nil || !strings.Contains(msg, "NSDs In Use") || !strings.Contains(msg, "NSD t_d01 belongs to file system fs1") ||
		!strings.Contains(msg, "delete_on_destroy") {
		t.Fatalf("destroy of NSDs a kept file system holds: %v", err)
	}
	if got := r.mmLog(t, "nsd1", "mmdelnsd"); len(got) != 0 {
		t.Errorf("mmdelnsd ran: %v", got)
	}
	if list := r.stateAddrs(t); !slices.Contains(list, "hpcstorage_gpfs_nsds.t") {
		t.Errorf("state after the refused destroy: %v", list)
	}

	// The file system was dropped from the state (kept on the cluster):
	// remove it by hand as an administrator would, then destroy again.
	r.mm(t, "nsd1", false, "mmumount", "fs1", "-a")
	r.mm(t, "nsd1", false, "mmdelfs", "fs1")
	if err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd_delete=true")); err != nil {
		t.Fatalf("destroy once the file system is gone: %v", err)
	}
	if nsds, _ := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y")); len(nsds) != 0 {
		t.Errorf("NSDs after destroy: %v", nsds)
	}
	if got := r.mmLog(t, "nsd1", "mmdelnsd"); len(got) != 1 || got[0][1] != "t_d01" {
		t.Errorf("mmdelnsd runs: %v", got)
	}

	// Both delete_on_destroy: one destroy takes the file system and the NSD.
	both := []tfexec.ApplyOption{tfexec.Reattach(r.ri), tfexec.Var("nsd_delete=true"), tfexec.Var("fs_delete=true")}
	if err := r.tf.Apply(ctx, both...); err != nil {
		t.Fatalf("apply again: %v", err)
	}
	if runs := r.mmLog(t, "nsd1", "mmcrnsd"); len(runs) != 2 || strings.Join(runs[1][len(runs[1])-2:], " ") != "-v yes" {
		t.Errorf("mmcrnsd runs: %v (the deleted NSD's volume is reused without wipe)", runs)
	}
	if err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd_delete=true"), tfexec.Var("fs_delete=true")); err != nil {
		t.Fatalf("destroy with both: %v", err)
	}
	if !r.mmFails(t, "nsd1", "mmlsfs", "fs1", "-Y") {
		t.Error("fs1 still exists after destroy")
	}
	if nsds, _ := gpfs.ParseNSDs(r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y")); len(nsds) != 0 {
		t.Errorf("NSDs after destroy: %v", nsds)
	}
	if list := r.stateAddrs(t); len(list) != 0 {
		t.Errorf("state after destroy: %v", list)
	}
}
