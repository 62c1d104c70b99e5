# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

data "hpcstorage_array_layout" "me4084_1" {
  model                = "ME4084"
  drive_capacity_bytes = 12000000000000
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}

resource "hpcstorage_disk_group" "me4084_1" {
  for_each = { for g in data.hpcstorage_array_layout.me4084_1.disk_groups : g.name => g }

  endpoint   = "me4084-1"
  name       = each.key
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}

# The E-Series volumes' groups: an R3 base building block's EF600 as NetApp
# lays it out (resource.tf maps the layout's volumes to both file nodes).
data "hpcstorage_array_layout" "ef600_1" {
  endpoint              = "ef600-1"
  beegfs_building_block = "base"
}

resource "hpcstorage_disk_group" "ef600_1" {
  for_each = { for g in data.hpcstorage_array_layout.ef600_1.disk_groups : g.name => g }

  endpoint   = "ef600-1"
  name       = each.key
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}
