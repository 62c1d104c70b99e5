# The beegfs-storage services of both R1 storage servers.
list "hpcstorage_beegfs_storage" "storage" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["stor1", "stor2"]
  }
}
