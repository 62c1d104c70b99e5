# The HA-LVM volume groups of both R2 NFS servers.
list "hpcstorage_ha_lvm" "nfs" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["nfs1", "nfs2"]
  }
}
