# R4 (Ceph all-flash RBD) against the lab: `hpcstorage-lab up --design r4
# --clients 10 --dir DIR` writes lab.auto.tfvars.json (the variable lab);
# link it here (`make demo DESIGN=r4` does), then `terraform apply`. The
# cluster is bootstrapped on mon1, 88 OSDs are made from the four OSD
# nodes' KIOXIA NVMe, and the ten clients map 20 images each.

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source = "hpcstorage/hpcstorage"
      # Patch releases only: before 1.0 a minor release may change attributes
      # (CHANGELOG.md says what to edit).
      version = "~> 0.1.0"
    }
  }
}

provider "hpcstorage" {
  # Passwords: HPCSTORAGE_<ENDPOINT>_PASSWORD from the environment.
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

locals {
  # The lab's nodes have no real network: the addresses cephadm and the
  # clients use are given here (10.40.0.0/24 public, 10.41.0.0/24 cluster).
  mons = { for i in [1, 2, 3] : "mon${i}" => { host = var.lab.nodes["mon${i}"].host, addr = "10.40.0.${i}" } }
  osds = { for i in range(1, var.osd_nodes + 1) : "osd${i}" => {
    host = var.lab.nodes["osd${i}"].host, addr = "10.40.0.${10 + i}", bmc = var.lab.nodes["osd${i}"].bmc
  } }
  clients = { for name, n in var.lab.nodes : name => { host = n.host } if startswith(name, "client") }
}

module "ceph" {
  source          = "../modules/ceph-rbd"
  mons            = local.mons
  osd_nodes       = local.osds
  clients         = local.clients
  public_network  = "10.40.0.0/24"
  cluster_network = "10.41.0.0/24"
  pool_size       = 2
  release         = var.release
  bios_attributes = var.bios_attributes
}

output "fsid" {
  value = module.ceph.fsid
}

output "osd_count" {
  value = module.ceph.osd_count
}

output "mapped" {
  value = module.ceph.mapped
}
