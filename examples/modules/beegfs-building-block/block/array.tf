# The block's E-Series array (var.array): carved as NetApp lays out a
# building block's EF600 for the profile, every volume mapped to both
# servers under its own LUN; the targets are built on these volumes.

data "hpcstorage_array_layout" "array" {
  count                 = var.array != null ? 1 : 0
  endpoint              = var.array
  beegfs_building_block = var.profile
}

locals {
  # Empty without an array (count 0).
  layout_groups  = flatten(data.hpcstorage_array_layout.array[*].disk_groups)
  layout_volumes = flatten(data.hpcstorage_array_layout.array[*].volumes)
  groups         = { for g in local.layout_groups : g.name => g }
  array_vols     = { for i, v in local.layout_volumes : v.name => merge(v, { lun = i + 1 }) }
  by_service     = { for s in ["management", "metadata", "storage"] : s => [for v in local.layout_volumes : v.name if v.service == s] }

  # Volumes alternate between the two servers; each server sees all of them
  # (the other takes over its targets on failover).
  metadata_volumes = var.array == null ? var.metadata_volumes : [for i, n in local.by_service.metadata : {
    wwn = hpcstorage_volume.array[n].wwn, server = i % 2
  }]
  storage_volumes = var.array == null ? var.storage_volumes : [for i, n in local.by_service.storage : {
    wwn                = hpcstorage_volume.array[n].wwn
    server             = i % 2
    segment_size_bytes = local.array_vols[n].segment_size_bytes
    data_drives        = length(local.groups[local.array_vols[n].disk_group].drive_ids) - 2 # RAID6
  }]
  management_volume = var.array == null ? var.management_volume : (length(local.by_service.management) == 0 ? null : {
    wwn = hpcstorage_volume.array[local.by_service.management[0]].wwn, server = 0
  })
}

resource "hpcstorage_disk_group" "array" {
  for_each   = local.groups
  endpoint   = var.array
  name       = each.key
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}

resource "hpcstorage_volume" "array" {
  for_each           = local.array_vols
  endpoint           = var.array
  disk_group         = hpcstorage_disk_group.array[each.value.disk_group].name
  name               = each.key
  capacity_bytes     = each.value.capacity_bytes > 0 ? each.value.capacity_bytes : null
  segment_size_bytes = each.value.segment_size_bytes
  host_mappings      = [for s in var.servers : { host = s.name, lun = each.value.lun }]
}
