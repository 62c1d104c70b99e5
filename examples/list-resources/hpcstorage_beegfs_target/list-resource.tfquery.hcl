# Every BeeGFS target formatted and mounted on the R1 storage servers, by WWN.
list "hpcstorage_beegfs_target" "storage" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["stor1", "stor2"]
  }
}
