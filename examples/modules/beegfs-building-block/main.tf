# BeeGFS building blocks (R3, NetApp 2024): a file system made of blocks of
# two servers sharing their volumes, scaled out by appending blocks to
# var.blocks. Each block is one instance of ./block keyed by its name: a
# new block only adds instances, so nothing of the existing blocks changes.
# The base block comes first (it runs mgmtd); the others take its mgmtd
# address, which also makes them wait for it on a first apply.

locals {
  numbered = { for i, b in var.blocks : b.name => merge(b, { number = i + 1 }) }
  base     = one([for b in var.blocks : b.name if b.profile == "base"])
}

module "base" {
  source   = "./block"
  for_each = { for k, b in local.numbered : k => b if b.profile == "base" }

  profile               = each.value.profile
  block                 = each.value.number
  servers               = each.value.servers
  array                 = each.value.array
  metadata_volumes      = each.value.array == null ? each.value.metadata_volumes : []
  storage_volumes       = each.value.array == null ? each.value.storage_volumes : []
  management_volume     = each.value.management_volume
  numa_zones            = var.numa_zones
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  ha                    = var.ha
  ha_floating_network   = var.ha_floating_network
  ha_interface          = var.ha_interface
  ha_cluster            = var.ha_cluster
  standby               = [for s in var.standby : s if contains([for x in each.value.servers : x.name], s)]
}

module "block" {
  source   = "./block"
  for_each = { for k, b in local.numbered : k => b if b.profile != "base" }

  profile               = each.value.profile
  block                 = each.value.number
  servers               = each.value.servers
  array                 = each.value.array
  metadata_volumes      = each.value.array == null ? each.value.metadata_volumes : []
  storage_volumes       = each.value.array == null ? each.value.storage_volumes : []
  management_volume     = null
  mgmtd_host            = module.base[local.base].mgmtd_host
  numa_zones            = var.numa_zones
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  ha                    = var.ha
  ha_floating_network   = var.ha_floating_network
  ha_interface          = var.ha_interface
  ha_cluster            = var.ha_cluster
  standby               = [for s in var.standby : s if contains([for x in each.value.servers : x.name], s)]
}

locals {
  all = merge(module.base, module.block)
}
