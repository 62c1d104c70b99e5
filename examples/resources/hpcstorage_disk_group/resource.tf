# R1 storage array: the drives of one ME4084 as 8 linear RAID6 (8+2) disk
# groups, planned by hpcstorage_array_layout from what the array reports.
data "hpcstorage_drives" "me4084_1" {
  endpoint = "me4084-1"
}

data "hpcstorage_array_layout" "me4084_1" {
  drives = [for d in data.hpcstorage_drives.me4084_1.drives : {
    id             = d.id
    media_type     = d.media_type
    capacity_bytes = d.capacity_bytes
    drawer         = d.drawer
    slot           = d.slot
  }]
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

# A single group can also let the provider pick free drives.
resource "hpcstorage_disk_group" "scratch" {
  endpoint    = "me4024-1"
  name        = "scratch"
  raid_level  = "RAID10"
  drive_count = 4
  media_type  = "SSD"
}

# An E-Series endpoint (api = "santricity"): an R3 building block's EF600
# as NetApp lays it out for BeeGFS, or a Dynamic Disk Pool.
data "hpcstorage_array_layout" "ef600_1" {
  endpoint              = "ef600-1"
  beegfs_building_block = "base"
}

resource "hpcstorage_disk_group" "ef600_1" {
  for_each = { for g in data.hpcstorage_array_layout.ef600_1.disk_groups : g.name => g }

  endpoint   = "ef600-1"
  name       = each.key # E-Series: at most 30 letters, digits, _ and -
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids # tray.slot: 99.0 ...
}

resource "hpcstorage_disk_group" "ddp" {
  endpoint    = "ef600-2"
  name        = "pool1"
  raid_level  = "DDP" # E-Series only, 11 drives or more
  drive_count = 12
}
