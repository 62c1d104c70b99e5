# An R1 storage target: the RAID6 8+2 volume (512 KiB segment) found on
# stor1 by its WWN, formatted xfs with su=512k,sw=8 and mounted.
resource "hpcstorage_beegfs_target" "st01" {
  host               = "stor1"
  wwn                = hpcstorage_volume.st01.wwn
  kind               = "storage"
  mount_point        = "/data/st01"
  segment_size_bytes = hpcstorage_volume.st01.segment_size_bytes
  data_drives        = 8
}

# An R1 metadata target: ext4 with BeeGFS's inode layout. A device with an
# old file system is refused unless wipe = true.
resource "hpcstorage_beegfs_target" "mdt01" {
  host        = "meta1"
  wwn         = hpcstorage_volume.mdt01.wwn
  kind        = "metadata"
  mount_point = "/data/mdt01"
}

output "st01_mkfs" {
  value = join(" ", hpcstorage_beegfs_target.st01.mkfs_command)
}
