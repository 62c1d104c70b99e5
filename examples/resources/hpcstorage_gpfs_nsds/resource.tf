# Two ME4084 volumes as NSDs served by the NSD pair: the metadata LUN on
# SSD RAID1 and a data LUN on RAID6 8+2, found on both servers by WWN.
# Primaries alternate: the second NSD lists nsd2 first (see stanzas).
resource "hpcstorage_gpfs_nsds" "r5" {
  host          = "nsd1"
  name          = "r5"
  cluster_nodes = ["gw1", "gw2", "mgmt", "nsd1", "nsd2"] # hpcstorage_gpfs_cluster.r5.node_names
  server_hosts  = { nsd1 = "nsd1", nsd2 = "nsd2" }
  nsds = [
    { name = "md1_01", wwn = "600c0ff000d4e1c0a1b2c3d401000000", servers = ["nsd1", "nsd2"], usage = "metadataOnly", failure_group = 1, pool = "system" },
    { name = "a1_d01", wwn = "600c0ff000d4e1c0a1b2c3d402000000", servers = ["nsd1", "nsd2"], usage = "dataOnly", failure_group = 1, pool = "data" },
  ]
}

output "stanzas" {
  value = hpcstorage_gpfs_nsds.r5.stanzas
}
