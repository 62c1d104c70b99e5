# The beegfs-meta instances of both R1 metadata servers.
list "hpcstorage_beegfs_metadata" "meta" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["meta1", "meta2"]
  }
}
