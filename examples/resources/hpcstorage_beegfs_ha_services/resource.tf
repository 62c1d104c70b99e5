# A storage pair (two servers sharing their volumes), one resource per
# server: each runs one storage service, preferring its own server, that
# fails over to the other. The groups go into the pair's cluster.
locals {
  pair = ["stor1", "stor2"]
  services = [for i, s in local.pair : {
    kind           = "storage"
    name           = s
    floating_ip    = "10.100.0.${32 + i}/24"
    interface      = "ib0"
    preferred_node = s
    node_id        = i + 1
    targets = [{
      wwn                = i == 0 ? "600c0ff0001234560000000001000000" : "600c0ff0001234560000000002000000"
      mount_point        = "/data/st0${i + 1}"
      segment_size_bytes = 524288
      data_drives        = 8
      mapped_to          = local.pair
    }]
    storage_targets = [{ id = 101 + i, directory = "/data/st0${i + 1}/storage" }]
  }]
}

resource "hpcstorage_beegfs_ha_services" "storage" {
  for_each              = toset(local.pair)
  host                  = each.key
  node                  = each.key
  nodes                 = local.pair
  mgmtd_ip              = "10.100.0.1"
  services              = local.services
  conn_auth_secret_file = "beegfs.secret"
}

resource "hpcstorage_ha_cluster" "storage" {
  name         = "beegfs-storage"
  two_node     = true
  authkey_file = "corosync.authkey"
  nodes = { for i, s in local.pair : s => {
    host  = s
    addrs = ["10.10.0.${3 + i}"]
    fence = { endpoint = "${s}-bmc", systems_uri = "/redfish/v1/Systems/System.Embedded.1" }
  } }
  groups    = hpcstorage_beegfs_ha_services.storage["stor1"].groups
  locations = hpcstorage_beegfs_ha_services.storage["stor1"].locations
}
