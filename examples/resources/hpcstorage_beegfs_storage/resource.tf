# R1: one beegfs-storage instance per storage server with 16 targets
# (two ME4084s x 8 RAID6 volumes), R1 tuning plus one local change.
resource "hpcstorage_beegfs_storage" "stor1" {
  host                  = "stor1"
  mgmtd_host            = "meta1"
  node_id               = 1
  numa_zone             = 0
  conn_auth_secret_file = "~/.beegfs/connauth"

  targets = [for i in range(16) : {
    id        = 101 + i
    directory = format("/data/st%02d/storage", i + 1)
  }]

  settings = {
    tuneNumWorkers = "24"
  }

  depends_on = [hpcstorage_beegfs_target.st, hpcstorage_beegfs_management.mgmtd]
}
