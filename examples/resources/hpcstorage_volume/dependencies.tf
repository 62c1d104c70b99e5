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
