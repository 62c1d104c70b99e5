# One volume per disk group using all its space, 512 KiB segments, mapped to
# both storage servers of the HA pair with the same LUN (R1, R5).
resource "hpcstorage_volume" "me4084_1" {
  for_each = hpcstorage_disk_group.me4084_1

  endpoint           = "me4084-1"
  disk_group         = each.value.name
  name               = "st-${each.key}"
  segment_size_bytes = 524288

  host_mappings = [
    { host = "stor1", lun = index(keys(hpcstorage_disk_group.me4084_1), each.key) + 1 },
    { host = "stor2", lun = index(keys(hpcstorage_disk_group.me4084_1), each.key) + 1 },
  ]
}

# The WWN is how a node finds the block device: /dev/disk/by-id/wwn-0x<wwn>.
output "storage_targets" {
  value = { for k, v in hpcstorage_volume.me4084_1 : k => v.wwn }
}

# E-Series: the building block's volumes, each mapped to both file nodes
# under one LUN (SANtricity maps a volume once, here to a host group the
# provider makes for the two hosts).
resource "hpcstorage_volume" "ef600_1" {
  for_each = { for i, v in data.hpcstorage_array_layout.ef600_1.volumes : v.name => merge(v, { lun = i + 1 }) }

  endpoint           = "ef600-1"
  disk_group         = hpcstorage_disk_group.ef600_1[each.value.disk_group].name
  name               = each.key
  capacity_bytes     = each.value.capacity_bytes
  segment_size_bytes = each.value.segment_size_bytes
  host_mappings      = [for h in ["bb1-node1", "bb1-node2"] : { host = h, lun = each.value.lun }]
}
