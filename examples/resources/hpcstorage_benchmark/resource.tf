# R1's validation, the paper's way: IOzone N-N, 1 MiB records, 1 to 64
# threads over the clients, caches dropped before every phase, 8 TB from 16
# threads on. The directory carries the benchmarks' stripe pattern.
resource "hpcstorage_benchmark" "r1_seq" {
  preset      = "r1-seq"
  clients     = ["client01", "client02", "client03", "client04", "client05", "client06", "client07", "client08"]
  directory   = "/mnt/beegfs/bench"
  report_path = "${abspath(path.root)}/reports/r1-seq.svg"
  # Run again after a tuning change.
  triggers = { tuning = "2020-06-r1" }
}

# The same phases with fio, smaller: a quick check after an upgrade.
resource "hpcstorage_benchmark" "r1_quick" {
  preset          = "r1-seq"
  tool            = "fio"
  clients         = ["client01", "client02"]
  directory       = "/mnt/beegfs/bench"
  threads         = [1, 2, 4, 8]
  file_size_bytes = 17179869184 # 16 GiB per thread
}

output "r1_seq_ratios" {
  # 1.0: where the paper is (read 23.7 GB/s, write 22.1 GB/s).
  value = hpcstorage_benchmark.r1_seq.ratios
}
