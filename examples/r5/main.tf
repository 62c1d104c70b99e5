# R5 (Spectrum Scale with capacity expansion) against the lab:
# `hpcstorage-lab up --design r5 --dir DIR` writes lab.auto.tfvars.json (the
# variable lab) and lab.env (the passwords); link the first here and load
# the second into the environment (`make demo DESIGN=r5` does), then
# `terraform apply`. Expand in place with `-var me484_count=2` or
# `-var array_count=4`: the plan only adds, and the file system grows with
# one mmadddisk.

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
  node = { for name, n in var.lab.nodes : name => { name = name, host = n.host, bmc = n.bmc } }
}

module "r5" {
  source = "../modules/spectrum-scale"

  nsd_servers       = [local.node["nsd1"], local.node["nsd2"]]
  gateways          = [local.node["gw1"], local.node["gw2"]]
  management_server = local.node["mgmt"]
  arrays            = ["me4084-1", "me4084-2", "me4084-3", "me4084-4"]
  array_count       = var.array_count
  me484_count       = var.me484_count
  gpfs_version      = var.gpfs_version
  bios_attributes   = var.bios_attributes
  metadata          = "base"
  # Where clients outside the fabric mount fs1 (NFS and SMB share "fs1").
  ces_addresses = ["10.10.0.201", "10.10.0.202"]
}

output "nsds" {
  value = module.r5.nsds
}

output "mmcrfs_command" {
  value = join(" ", module.r5.mmcrfs_command)
}

output "subblocks" {
  value = "${module.r5.subblocks.per_block} x ${module.r5.subblocks.bytes / 1024} KiB"
}

output "added_disks" {
  value = module.r5.added_disks
}

output "data_luns" {
  value = module.r5.data_luns
}

output "bmc_summary" {
  description = "Each server as its BMC reports it after the apply."
  value = join("\n", [for k in sort(keys(module.r5.servers)) :
  format("  %-6s %-16s %-8s power %s, %d CPUs, %d GiB", k, module.r5.servers[k].model, module.r5.servers[k].serial, module.r5.servers[k].power_state, module.r5.servers[k].cpu_count, module.r5.servers[k].memory_gib)])
}
