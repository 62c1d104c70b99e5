# The NFS server settings of both R2 NFS servers.
list "hpcstorage_nfs_server" "nfs" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["nfs1", "nfs2"]
  }
}
