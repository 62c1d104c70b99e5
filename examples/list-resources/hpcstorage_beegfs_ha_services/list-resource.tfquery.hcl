# The BeeGFS HA service sets of one building block's file nodes.
list "hpcstorage_beegfs_ha_services" "bb1" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["bb1-node1", "bb1-node2"]
  }
}
