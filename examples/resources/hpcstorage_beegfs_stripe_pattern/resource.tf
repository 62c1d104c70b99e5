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
