# The multipath configuration of both R2 NFS servers.
list "hpcstorage_multipath" "nfs" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["nfs1", "nfs2"]
  }
}
