# R3 (BeeGFS on NetApp building blocks) against the lab: `hpcstorage-lab up
# --design r3 --dir DIR` writes lab.auto.tfvars.json; copy or link it here
# (`make demo DESIGN=r3` does), then `terraform apply`. Each block's EF600
# is carved, its volumes mapped to the block's two file nodes, and the
# BeeGFS targets and services built on them.

terraform {
  required_version = ">= 1.5"
  required_providers {
    hpcstorage = {
      source = "hpcstorage/hpcstorage"
    }
  }
}

provider "hpcstorage" {
  endpoints = var.endpoints
  ssh = {
    user              = var.ssh_user
    private_key_file  = var.ssh_private_key_file
    known_hosts_files = [var.ssh_known_hosts_file]
  }
}

locals {
  # One base block (management, metadata, storage), then one of each other
  # profile; block N is bbN-node1/2 with the array ef600-N.
  profiles = { 1 = "base", 2 = "metadata_storage", 3 = "storage" }
  blocks = { for b, p in local.profiles : b => {
    profile = p
    array   = "ef600-${b}"
    servers = [for n in [1, 2] : { name = "bb${b}-node${n}", host = var.servers["bb${b}-node${n}"].host }]
  } }
}

module "base" {
  source                = "../modules/beegfs-building-block"
  profile               = local.blocks[1].profile
  block                 = 1
  servers               = local.blocks[1].servers
  array                 = local.blocks[1].array
  conn_auth_secret_file = var.beegfs_conn_auth_file
}

module "block" {
  source                = "../modules/beegfs-building-block"
  for_each              = { for b, x in local.blocks : b => x if b != "1" }
  profile               = each.value.profile
  block                 = tonumber(each.key)
  servers               = each.value.servers
  array                 = each.value.array
  mgmtd_host            = module.base.mgmtd_host
  conn_auth_secret_file = var.beegfs_conn_auth_file
}

output "array_diagrams" {
  description = "Each block's EF600, bays by disk group."
  value       = merge({ "ef600-1" = module.base.array_diagram }, { for b, m in module.block : "ef600-${b}" => m.array_diagram })
}

output "array_layout" {
  description = "The arrays as carved: diagrams and volumes, for the demo."
  value = join("\n", [for name, m in merge({ "1" = module.base }, module.block) : join("\n", concat(
    ["ef600-${name} (block ${name}, ${local.blocks[name].profile})", m.array_diagram],
    [for v, x in m.array_volumes : format("  %-11s %-7s %-6s %8.2f TB  LUN %-2d wwn %s", v, x.disk_group, x.raid_level, x.capacity_bytes / 1e12, x.lun, x.wwn)],
  ))])
}

output "targets" {
  value = merge(module.base.targets, [for m in values(module.block) : m.targets]...)
}

output "services" {
  value = merge(module.base.services, [for m in values(module.block) : m.services]...)
}

output "storage_target_ids" {
  value = merge(module.base.storage_target_ids, [for m in values(module.block) : m.storage_target_ids]...)
}
