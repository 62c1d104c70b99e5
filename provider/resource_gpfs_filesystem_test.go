package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// gpfsDestroyConfig is one NSD (data and metadata, in system) on one
// ME4084 volume and, with fs = true, a file system on it that its destroy
// deletes.
const gpfsDestroyConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "fs" {
  type    = bool
  default = true
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
  host  = var.lab.nodes["nsd1"].host
  name  = "r5"
  nodes = { nsd1 = ["quorum", "manager", "nsd_server"], nsd2 = ["quorum", "manager", "nsd_server"], mgmt = ["quorum"] }
}

resource "hpcstorage_gpfs_nsds" "t" {
  cluster_nodes = hpcstorage_gpfs_cluster.c.node_names
  host          = var.lab.nodes["nsd1"].host
  name          = "t"
  server_hosts  = { nsd1 = var.lab.nodes["nsd1"].host, nsd2 = var.lab.nodes["nsd2"].host }
  nsds          = [{ name = "t_d01", wwn = hpcstorage_volume.v.wwn, servers = ["nsd1", "nsd2"], usage = "dataAndMetadata", pool = "system" }]
}

resource "hpcstorage_gpfs_filesystem" "fs" {
  count             = var.fs ? 1 : 0
  host              = var.lab.nodes["nsd1"].host
  device            = "fs1"
  mount_point       = "/gpfs/fs1"
  block_size        = "1M"
  delete_on_destroy = true
  disks = [for n in hpcstorage_gpfs_nsds.t.nsds : {
    nsd = n.name, usage = n.usage, failure_group = n.failure_group, pool = n.pool
  }]
}
`

// TestGpfsFilesystemDestroy: with delete_on_destroy, destroy unmounts the
// mounted file system everywhere and deletes it (its NSD is free again),
// and the plan after it is empty.
func TestGpfsFilesystemDestroy(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a file system in the R5 lab")
	}
	t.Parallel()
	r := upR5(t, gpfsDestroyConfig)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if out := r.mm(t, "nsd1", true, "mmlsmount", "fs1", "-Y"); !strings.Contains(out, ":nsd2:") {
		t.Fatalf("fs1 not mounted on nsd2 after apply:\n%s", out)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("fs=false")); err != nil {
		t.Fatalf("apply that destroys the file system: %v", err)
	}
	root, err := fsroot.Open(r.root(t, "nsd1"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if out, code, _ := (runner.Sim{Root: root}).Query(ctx, "mmlsfs", "fs1", "-Y"); code == 0 {
		t.Errorf("mmlsfs fs1 after destroy: exit 0\n%s", out)
	}
	if nsd := r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y"); !strings.Contains(nsd, "t_d01") || strings.Contains(nsd, ":fs1:") {
		t.Errorf("the NSD should stay, free:\n%s", nsd)
	}
	var ran []string
	for _, tool := range []string{"mmumount", "mmdelfs"} {
		for _, argv := range r.mmLog(t, "nsd1", tool) {
			ran = append(ran, strings.Join(argv[1:], " "))
		}
	}
	if !slices.Equal(ran, []string{"fs1 -a", "fs1"}) {
		t.Errorf("destroy ran mmumount, mmdelfs with %q, want once each", ran)
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("fs=false")); err != nil || changes {
		t.Errorf("plan after destroy: changes %v, err %v", changes, err)
	}
}
