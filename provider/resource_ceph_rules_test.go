package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
)

// cephRulesConfig is a small R4 cluster in the r4 lab: mon1 bootstraps,
// osd1 and osd2 hold the OSDs (two CRUSH failure domains of type host),
// pool tank of var.size and its images, and, with var.other_pool, a pool
// named other.
const cephRulesConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

provider "hpcstorage" {
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

variable "size" {
  type    = number
  default = 2
}

variable "pg_num" {
  type    = number
  default = null
}

variable "images" {
  type    = map(string)
  default = {}
}

variable "other_pool" {
  type    = bool
  default = false
}

variable "osd2_addr" {
  type    = string
  default = "10.40.0.12"
}

# osd2's address is known only at apply.
resource "terraform_data" "osd2_addr" {
  input = var.osd2_addr
}

locals {
  osds = { osd1 = "10.40.0.11", osd2 = terraform_data.osd2_addr.output }
}

data "hpcstorage_node_facts" "osd" {
  for_each = toset(keys(local.osds))
  host     = var.lab.nodes[each.key].host
}

resource "hpcstorage_ceph_cluster" "c" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  public_network = "10.40.0.0/24"
  mon_count      = 1
  mgr_count      = 1
  hosts = merge(
    { mon1 = { host = var.lab.nodes["mon1"].host, addr = "10.40.0.1", labels = ["mon", "mgr"] } },
    { for n, a in local.osds : n => { host = var.lab.nodes[n].host, addr = a, labels = ["osd"] } },
  )
}

resource "hpcstorage_ceph_osd_spec" "nvme" {
  admin_host      = hpcstorage_ceph_cluster.c.admin_host
  service_id      = "nvme"
  placement_label = "osd"
  hosts = { for n, f in data.hpcstorage_node_facts.osd : n => {
    devices = [for d in f.block_devices : {
      name = d.name, size_bytes = d.size_bytes, rotational = d.rotational, model = d.model, vendor = d.vendor
    }]
  } }
  data_devices = { model = "KCM6XRUL3T84", rotational = false }
}

resource "hpcstorage_ceph_pool" "tank" {
  admin_host = hpcstorage_ceph_cluster.c.admin_host
  name       = "tank"
  size       = var.size
  pg_num     = var.pg_num
  depends_on = [hpcstorage_ceph_osd_spec.nvme]
}

resource "hpcstorage_rbd_images" "tank" {
  admin_host = hpcstorage_ceph_cluster.c.admin_host
  pool       = hpcstorage_ceph_pool.tank.name
  images     = { for n, s in var.images : n => { size = s } }
}

variable "second_set" {
  type    = bool
  default = false
}

resource "hpcstorage_rbd_images" "second" {
  count      = var.second_set ? 1 : 0
  admin_host = hpcstorage_ceph_cluster.c.admin_host
  pool       = hpcstorage_ceph_pool.tank.name
  images     = { b = { size = "1G" } }
}

resource "hpcstorage_ceph_pool" "other" {
  count      = var.other_pool ? 1 : 0
  admin_host = hpcstorage_ceph_cluster.c.admin_host
  name       = "other"
  size       = 2
}
`

// wantErr fails unless err holds every part (whitespace folded).
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one with %q", what, parts)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	for _, p := range parts {
		if !strings.Contains(msg, strings.Join(strings.Fields(p), " ")) {
			t.Errorf("%s: error lacks %q:\n%s", what, p, err)
		}
	}
}

// TestR4PlacementAndTakeoverInLab runs Ceph's placement rules and the
// takeover checks against a cluster in the lab: a pool of size 3 over two
// hosts is refused before its first command when the OSDs come in the same
// apply, and at plan once they exist; an image or a pool that someone else
// made is refused at plan, and, when it appears between plan and apply,
// before the apply's first write (the image is not grown); import adopts
// them.
func TestR4PlacementAndTakeoverInLab(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a Ceph cluster in the lab")
	}
	t.Parallel()
	r := newR4LabWith(t, 1, cephRulesConfig)
	ctx := context.Background()
	ra := tfexec.Reattach(r.ri)

	// osd2's address, unknown at plan, is osd1's: refused before cephadm
	// bootstrap runs.
	err := r.tf.Apply(ctx, ra, tfexec.Var("osd2_addr=10.40.0.11"))
	wantErr(t, "apply with osd2 on osd1's address", err, `hosts["osd2"].addr`, "10.40.0.11 is also host osd1's address")
	if _, err := os.Stat(filepath.Join(r.roots["mon1"], "etc/ceph/ceph.client.admin.keyring")); err == nil {
		t.Fatal("cephadm bootstrap ran although a host's address was refused")
	}

	// The OSDs are made in this apply: the pool's size is checked against
	// them before the pool is created.
	err = r.tf.Apply(ctx, ra, tfexec.Var("size=3"))
	wantErr(t, "apply with size 3 over two hosts", err, "hpcstorage_ceph_pool.tank", "size 3 needs 3 CRUSH failure domains of type host",
		"the cluster has 2 (osd1, osd2)")
	if out := r.ceph("mon1", "ceph", "osd", "pool", "ls"); strings.Contains(out, "tank") {
		t.Fatalf("the refused pool was created: %s", out)
	}
	if osds := r.osdsByHost(); len(osds["osd1"]) != 22 || len(osds["osd2"]) != 22 {
		t.Fatalf("OSDs: %v", osds)
	}
	// Now the cluster can say at plan.
	_, err = r.tf.Plan(ctx, ra, tfexec.Var("size=3"))
	wantErr(t, "plan with size 3 over two hosts", err, "with hpcstorage_ceph_pool.tank", "size 3 needs 3 CRUSH failure domains")
	_, err = r.tf.Plan(ctx, ra, tfexec.Var("size=1"))
	wantErr(t, "plan with size 1", err, "Ceph refuses size 1")

	if err := r.tf.Apply(ctx, ra, tfexec.Var(`images={a="1G"}`)); err != nil {
		t.Fatalf("apply with size 2: %v", err)
	}

	// More placement groups than the monitors allow for 44 OSDs.
	_, err = r.tf.Plan(ctx, ra, tfexec.Var(`images={a="1G"}`), tfexec.Var("pg_num=8192"))
	wantErr(t, "plan with pg_num 8192", err, "pg_num", "pg_num 8192 at size 2 would make the cluster's pools hold",
		"above the 11000 Ceph allows (mon_max_pg_per_osd 250 × 44 OSDs)")

	// Someone else's image and pool.
	r.ceph("mon1", "rbd", "create", "tank/theirs", "--size", "1024")
	r.ceph("mon1", "ceph", "osd", "pool", "create", "other")
	_, err = r.tf.Plan(ctx, ra, tfexec.Var(`images={a="1G", theirs="2G"}`))
	wantErr(t, "plan naming someone else's image", err, `images["theirs"]`, "Image Exists In The Pool",
		"Pool tank already holds an image theirs (1073741824 bytes) that this provider did not create")
	_, err = r.tf.Plan(ctx, ra, tfexec.Var(`images={a="1G"}`), tfexec.Var("other_pool=true"))
	wantErr(t, "plan naming someone else's pool", err, "with hpcstorage_ceph_pool.other[0]", "Pool Exists",
		"Pool other already exists in the cluster and was not created by this provider")

	// A second set on the pool of the first.
	_, err = r.tf.Plan(ctx, ra, tfexec.Var(`images={a="1G"}`), tfexec.Var("second_set=true"))
	wantErr(t, "plan of a second image set on one pool", err, "with hpcstorage_rbd_images.second[0]", "Pool Has An Image Set",
		"already holds images another hpcstorage_rbd_images made (a)")

	// An image that appears between plan and apply: refused before the
	// apply's first write, and left as it was.
	planFile := filepath.Join(r.cfg, "later.plan")
	if _, err := r.tf.Plan(ctx, ra, tfexec.Var(`images={a="1G", later="4G"}`), tfexec.Out(planFile)); err != nil {
		t.Fatal(err)
	}
	r.ceph("mon1", "rbd", "create", "tank/later", "--size", "2048")
	err = r.tf.Apply(ctx, ra, tfexec.DirOrPlan(planFile))
	wantErr(t, "apply of a plan made before the image appeared", err, `images["later"]`, "Image Exists In The Pool")
	var info struct {
		Size int64 `json:"size"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "rbd", "info", "tank/later", "--format", "json")), &info); err != nil || info.Size != 2<<30 {
		t.Fatalf("someone else's image after the refused apply: %+v %v", info, err)
	}
	if changes, err := r.plan(tfexec.Var(`images={a="1G"}`)); err != nil || len(changes) != 0 {
		t.Fatalf("plan after the refused apply: %v %v", changes, err)
	}

	// Adopting is an import: then the set may name them.
	if err := r.tf.StateRm(ctx, "hpcstorage_rbd_images.tank"); err != nil {
		t.Fatal(err)
	}
	admin := r.node("mon1").Addr
	if err := r.tf.Import(ctx, "hpcstorage_rbd_images.tank", admin+"/tank", ra, tfexec.Var(`images={a="1G"}`)); err != nil {
		t.Fatalf("import: %v", err)
	}
	all := tfexec.Var(`images={a="1G", theirs="1G", later="2G"}`)
	if changes, err := r.plan(all); err != nil || len(changes) != 0 {
		t.Fatalf("plan after import: %v %v", changes, err)
	}

	// The OSD spec is imported from the record its apply left on mon1:
	// the next plan is empty.
	if err := r.tf.StateRm(ctx, "hpcstorage_ceph_osd_spec.nvme"); err != nil {
		t.Fatal(err)
	}
	if err := r.tf.Import(ctx, "hpcstorage_ceph_osd_spec.nvme", admin+"/nvme", ra, all); err != nil {
		t.Fatalf("import of the OSD spec: %v", err)
	}
	if changes, err := r.plan(all); err != nil || len(changes) != 0 {
		t.Fatalf("plan after importing the OSD spec: %v %v", changes, err)
	}

	// Destroy: the set deletes its images; the pool still holds one made
	// by hand, so its destroy is refused, naming delete_with_images, and
	// the pool, that image and the OSD spec stay.
	r.ceph("mon1", "rbd", "create", "tank/stray", "--size", "1024")
	err = r.tf.Destroy(ctx, ra, all)
	wantErr(t, "destroy with an image made by hand", err, "Pool Holds Images", "delete_with_images", "stray")
	if out := r.ceph("mon1", "rbd", "ls", "tank"); strings.Fields(out)[0] != "stray" || len(strings.Fields(out)) != 1 {
		t.Fatalf("images after the refused destroy: %q", out)
	}
	spec := filepath.Join(r.roots["mon1"], strings.TrimPrefix(ceph.SpecPath("osd.nvme"), "/"))
	if _, err := os.Stat(spec); err != nil {
		t.Fatalf("the OSD spec went before the pool that depends on it: %v", err)
	}
	// Once it is gone, destroy goes through: the pool is deleted, the OSD
	// spec's file removed with its OSDs kept, cephadm's key taken off the
	// hosts and the cluster kept.
	r.ceph("mon1", "rbd", "rm", "tank/stray")
	if err := r.tf.Destroy(ctx, ra, all); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if out := r.ceph("mon1", "ceph", "osd", "pool", "ls"); strings.Contains(out, "tank") {
		t.Errorf("pool tank left after destroy: %s", out)
	}
	if _, err := os.Stat(spec); err == nil {
		t.Error("destroy left the OSD spec's file")
	}
	if osds := r.osdsByHost(); len(osds["osd1"]) != 22 || len(osds["osd2"]) != 22 {
		t.Errorf("destroy must keep the OSDs: %v", osds)
	}
	pub := strings.TrimSpace(r.read("mon1", "etc/ceph/ceph.pub"))
	if strings.Contains(r.read("osd1", "root/.ssh/authorized_keys"), pub) {
		t.Error("cephadm's key still authorised on osd1 after destroy")
	}
	if strings.TrimSpace(r.ceph("mon1", "ceph", "fsid")) == "" {
		t.Error("destroy removed the cluster")
	}
}
