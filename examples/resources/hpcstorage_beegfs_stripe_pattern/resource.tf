# The R1 benchmarks' pattern: 1 MiB chunks on one target per file.
resource "hpcstorage_beegfs_stripe_pattern" "bench" {
  host             = "client01"
  path             = "bench"
  chunk_size_bytes = 1048576
  num_targets      = 1
}

# R3's single-client tests: 8 targets per file.
resource "hpcstorage_beegfs_stripe_pattern" "wide" {
  host             = "client01"
  path             = "wide"
  chunk_size_bytes = 1048576
  num_targets      = 8
}

# BeeGFS 8: beegfs entry set, verified with /etc/beegfs/cert.pem on the
# client (hpcstorage_beegfs_client's tls_cert_pem).
resource "hpcstorage_beegfs_stripe_pattern" "bench8" {
  host             = "client02"
  version          = "8"
  path             = "bench"
  chunk_size_bytes = 1048576
  num_targets      = 4
}
