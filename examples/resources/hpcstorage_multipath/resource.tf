# R2: both NFS servers see every volume through two SAS paths; one alias
# per volume WWN, so each appears as /dev/mapper/nfs_volN on both.
resource "hpcstorage_multipath" "nfs" {
  for_each = toset(["nfs1", "nfs2"])

  host    = each.key
  volumes = { for v in hpcstorage_volume.nfs : v.name => v.wwn }
}

output "devices" {
  value = hpcstorage_multipath.nfs["nfs1"].devices
}
