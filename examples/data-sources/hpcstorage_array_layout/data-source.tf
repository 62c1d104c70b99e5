# R1 storage array: an ME4084 of 12 TB NL-SAS drives as 8 linear RAID6 (8+2)
# disk groups, one per 10 drives, the 4 drives left over as global spares.
data "hpcstorage_array_layout" "storage" {
  model                = "ME4084"
  drive_capacity_bytes = 12000000000000
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}

# R1 metadata array: an ME4024 of 24 SSDs as 12 RAID1 pairs (one per MDT).
data "hpcstorage_array_layout" "metadata" {
  model = "ME4024"
  policy = {
    raid_level  = "RAID1"
    name_prefix = "mdt"
  }
}

# Or plan over the drives the array reports, straight from its endpoint...
data "hpcstorage_array_layout" "me4084_2" {
  endpoint = "me4084-2"
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}

# ... or through data.hpcstorage_drives, to filter or reorder them first.
data "hpcstorage_array_layout" "live" {
  drives = [for d in data.hpcstorage_drives.me4084.drives : {
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

output "storage_drawers" {
  value = data.hpcstorage_array_layout.storage.diagram
}
