# R5's cluster: the NSD pair and the management node are quorum nodes (an
# odd count), the gateways CES nodes; maxblocksize 8M cluster-wide (set
# with the daemons down, before any file system), pagepool 16G on the NSD
# servers. The mm commands run on nsd1.
resource "hpcstorage_gpfs_cluster" "r5" {
  host = "nsd1"
  name = "r5.hpc.example"
  nodes = {
    nsd1 = ["quorum", "manager", "nsd_server"]
    nsd2 = ["quorum", "manager", "nsd_server"]
    mgmt = ["quorum"]
    gw1  = ["gateway"]
    gw2  = ["gateway"]
  }
  node_classes = { nsdServers = ["nsd1", "nsd2"] }
  config = {
    all        = { maxblocksize = "8M", cesSharedRoot = "/gpfs/fs1/.ces" }
    nsdServers = { pagepool = "16G", workerThreads = "1024" }
  }
}

output "max_block_size" {
  value = hpcstorage_gpfs_cluster.r5.max_block_size
}
