package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// cephBadInputBase: an OSD node of R4 (22 CM6 NVMe and a boot SSD) as
// hpcstorage_node_facts would give it, and nodes nothing can reach: a plan
// that got as far as a node would fail on the connection, not on the input.
const cephBadInputBase = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

provider "hpcstorage" {}

locals {
  r4_node = { devices = concat(
    [{ name = "sda", size_bytes = 480103981056, rotational = false, model = "SAMSUNG MZ7L3480", vendor = "ATA" }],
    [for i in range(22) : { name = "nvme${i}n1", size_bytes = 3840000000000, rotational = false, model = "KCM6XRUL3T84", vendor = "" }],
  ) }
}
`

// TestCephBadInputAtPlan: each bad input fails the plan naming its
// attribute, before any node is contacted.
func TestCephBadInputAtPlan(t *testing.T) {
	tfPath := terraformCLI(t)
	cases := []struct {
		name, hcl string
		want      []string
	}{
		{"spec selecting nothing", `
resource "hpcstorage_ceph_osd_spec" "x" {
  admin_host      = "127.0.0.1:1"
  service_id      = "nvme"
  placement_label = "osd"
  hosts           = { osd1 = local.r4_node, osd2 = local.r4_node }
  data_devices    = { model = "KCM7XRUL7T68" }
}`, []string{"OSD Spec Selects No Device", "data_devices", "host osd1", "host osd2", "/dev/nvme0n1 (KCM6XRUL3T84, 3.49 TB"}},
		{"inverted size range", `
resource "hpcstorage_ceph_osd_spec" "x" {
  admin_host      = "127.0.0.1:1"
  service_id      = "nvme"
  placement_label = "osd"
  hosts           = { osd1 = local.r4_node }
  data_devices    = { size = "4TB:3TB" }
}`, []string{"data_devices.size", "inverted size range", "no device can match"}},
		{"tentacle below the CVE-2025-30156 fix", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  release        = "tentacle"
  ceph_version   = "20.2.3"
  mon_count      = 1
  mgr_count      = 1
  hosts          = { mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] } }
}`, []string{"with hpcstorage_ceph_cluster.x", "ceph_version", "20.2.3 is older than 20.2.4", "CVE-2025-30156"}},
		{"pool size 0", `
resource "hpcstorage_ceph_pool" "x" {
  admin_host = "127.0.0.1:1"
  name       = "rbd"
  size       = 0
}`, []string{`with hpcstorage_ceph_pool.x`, "size", "between 1 and 10"}},
		{"pool size 11", `
resource "hpcstorage_ceph_pool" "x" {
  admin_host = "127.0.0.1:1"
  name       = "rbd"
  size       = 11
}`, []string{"size", "between 1 and 10"}},
		{"image larger than the pool", `
resource "hpcstorage_rbd_images" "x" {
  admin_host          = "127.0.0.1:1"
  pool                = "rbd"
  pool_capacity_bytes = 1000000000000
  images = {
    ok  = { size = "100G" }
    big = { size = "1T" }
  }
}`, []string{"Image Larger Than The Pool", `images["big"].size`, "Image big is 1099511627776 bytes"}},
		{"client mapping another client's image", `
resource "hpcstorage_rbd_client" "x" {
  host          = "127.0.0.1:1"
  admin_host    = "127.0.0.1:1"
  name          = "client01"
  pool          = "rbd"
  images        = ["client01-img01", "client02-img01"]
  image_clients = { "client01-img01" = "client01", "client02-img01" = "client02" }
  fsid          = "8f3c9a52-5d1e-11ef-9b7a-525400a1b2c3"
  mon_hosts     = ["10.40.0.1"]
}`, []string{"Image Of Another Client", "images[1]", "given to client client02, not client01"}},
		// Placement rules across the cluster: host identity and addressing.
		{"two hosts with one address", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  public_network = "10.40.0.0/24"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    osd1 = { host = "127.0.0.1:2", addr = "10.40.0.1", labels = ["osd"] }
  }
}`, []string{`hosts["osd1"].addr`, "10.40.0.1 is also host mon1's address"}},
		{"host outside the public network", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  public_network = "10.40.0.0/24"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    osd1 = { host = "127.0.0.1:2", addr = "10.41.0.11", labels = ["osd"] }
  }
}`, []string{`hosts["osd1"].addr`, "10.41.0.11 is outside public_network 10.40.0.0/24"}},
		{"two hosts on one machine", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    osd1 = { host = "127.0.0.1:1", addr = "10.40.0.11", labels = ["osd"] }
  }
}`, []string{`hosts["osd1"].host`, "127.0.0.1:1 is also host mon1's"}},
		{"mon_ip is not the bootstrap host's address", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.2"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    mon2 = { host = "127.0.0.1:2", addr = "10.40.0.2", labels = ["mon"] }
  }
}`, []string{"mon_ip", "10.40.0.2 is not host mon1's address 10.40.0.1"}},
		{"host names differing in case", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    OSD1 = { host = "127.0.0.1:2", addr = "10.40.0.11", labels = ["osd"] }
    osd1 = { host = "127.0.0.1:3", addr = "10.40.0.12", labels = ["osd"] }
  }
}`, []string{`hosts["osd1"]`, "host OSD1 and host osd1 differ only in case"}},
		{"a duplicate address while another host's is unknown", `
resource "terraform_data" "later" {
  input = "10.40.0.13"
}
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  mon_count      = 1
  mgr_count      = 1
  hosts = {
    mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] }
    osd1 = { host = "127.0.0.1:2", addr = terraform_data.later.output, labels = ["osd"] }
    osd2 = { host = "127.0.0.1:3", addr = "10.40.0.1", labels = ["osd"] }
  }
}`, []string{`hosts["osd2"].addr`, "also host mon1's address"}},
		{"too few monitor hosts", `
resource "hpcstorage_ceph_cluster" "x" {
  bootstrap_host = "mon1"
  mon_ip         = "10.40.0.1"
  hosts          = { mon1 = { host = "127.0.0.1:1", addr = "10.40.0.1", labels = ["mon", "mgr"] } }
}`, []string{"mon_count", "mon_count is 3 but only 1 hosts carry the label \"mon\""}},
		// Pool sizes Ceph refuses or could never place.
		{"pool size 1", `
resource "hpcstorage_ceph_pool" "x" {
  admin_host = "127.0.0.1:1"
  name       = "rbd"
  size       = 1
}`, []string{"with hpcstorage_ceph_pool.x", "size", "Ceph refuses size 1"}},
		{"pool min_size above size", `
resource "hpcstorage_ceph_pool" "x" {
  admin_host = "127.0.0.1:1"
  name       = "rbd"
  size       = 2
  min_size   = 3
}`, []string{"min_size", "min_size 3 is above size 2"}},
		// Names, checked while other values wait for the apply.
		{"image name with a slash, a size unknown", `
resource "terraform_data" "later" {
  input = "100G"
}
resource "hpcstorage_rbd_images" "x" {
  admin_host = "127.0.0.1:1"
  pool       = "rbd"
  images = {
    "ok"         = { size = terraform_data.later.output }
    "team/img01" = { size = "1G" }
  }
}`, []string{`images["team/img01"]`, "want letters, digits"}},
		{"client image names while the cluster is unknown", `
resource "terraform_data" "cluster" {
  input = "8f3c9a52-5d1e-11ef-9b7a-525400a1b2c3"
}
resource "hpcstorage_rbd_client" "x" {
  host       = "127.0.0.1:1"
  admin_host = "127.0.0.1:1"
  name       = "client01"
  pool       = "rbd"
  images     = ["client01-img01", "-bad"]
  fsid       = terraform_data.cluster.output
  mon_hosts  = ["10.40.0.1"]
}`, []string{"images[1]", `"-bad": want letters`}},
		{"osd spec while the hosts' devices are unknown", `
resource "terraform_data" "facts" {
  input = local.r4_node.devices
}
resource "hpcstorage_ceph_osd_spec" "x" {
  admin_host      = "127.0.0.1:1"
  service_id      = "nvme"
  placement_hosts = ["osd1", "osd1"]
  hosts           = { osd1 = { devices = terraform_data.facts.output } }
  data_devices    = { all = true, model = "KCM6" }
}`, []string{"placement_hosts", "data_devices.all", "all and other filters are mutually exclusive"}},
	}
	ri := serveAs(t, "registry.terraform.io/hpcstorage/hpcstorage", nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cephBadInputBase+c.hcl), 0o644); err != nil {
				t.Fatal(err)
			}
			tf, err := tfexec.NewTerraform(dir, tfPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "empty.tfrc"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": filepath.Join(dir, "empty.tfrc")})
			ctx := context.Background()
			if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
				t.Fatal(err)
			}
			_, err = tf.Plan(ctx, tfexec.Reattach(ri))
			if err == nil {
				t.Fatal("plan succeeded")
			}
			msg := strings.Join(strings.Fields(err.Error()), " ")
			for _, w := range c.want {
				if !strings.Contains(msg, strings.Join(strings.Fields(w), " ")) {
					t.Errorf("plan error lacks %q:\n%s", w, err)
				}
			}
			if strings.Contains(msg, "Node Unreachable") || strings.Contains(msg, "connection refused") {
				t.Errorf("the plan reached for a node:\n%s", err)
			}
		})
	}
}
