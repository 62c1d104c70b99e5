# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

# R2: the ME4084 carved 8 x RAID6 (8+2) with 512 KiB segments, each volume
# mapped to both NFS servers.
resource "hpcstorage_volume" "nfs" {
  count              = 8
  endpoint           = "me4084-1"
  disk_group         = "dg0${count.index + 1}"
  name               = "nfs_vol${count.index + 1}"
  segment_size_bytes = 524288
  host_mappings      = [{ host = "nfs1", lun = count.index + 1 }, { host = "nfs2", lun = count.index + 1 }]
}
