# R1: six beegfs-meta instances on metadata server A, three per NUMA zone,
# one per metadata target.
resource "hpcstorage_beegfs_metadata" "meta1" {
  host                  = "meta1"
  mgmtd_host            = "meta1"
  conn_auth_secret_file = "~/.beegfs/connauth" # or conn_auth_secret (write-only)

  instances = [for i in range(6) : {
    name      = format("metaA-numa%d-%d", floor(i / 3), i % 3 + 1)
    directory = format("/data/mdt%02d/meta", i + 1)
    node_id   = i + 1
    port      = 8005 + 10 * i
    numa_zone = floor(i / 3)
  }]

  depends_on = [hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_management.mgmtd]
}
