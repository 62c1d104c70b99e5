# The BeeGFS clients set up on two compute nodes.
list "hpcstorage_beegfs_client" "compute" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["client01", "client02"]
  }
}
