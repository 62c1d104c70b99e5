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
