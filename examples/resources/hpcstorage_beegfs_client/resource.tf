# R3: clients reading training data again and again use the Linux page
# cache (native); R1's client tuning is the default.
resource "hpcstorage_beegfs_client" "gpu" {
  for_each              = toset(["dgx01", "dgx02"])
  host                  = each.key
  mgmtd_host            = "meta1"
  mount_point           = "/mnt/beegfs"
  cache_type            = "native"
  conn_auth_secret_file = "~/.beegfs/connauth"
}
