# The R1 paper's validation runs (presets r1-seq and r1-random) once the
# design is up, on every configured client, in the `bench` directory the
# module creates with the paper's stripe pattern (1 MiB chunks, 1 target).
# Off by default: set validation (make demo does, with fio at lab sizes).
# Without overrides the runs are the paper's: IOzone, 1 to 64 threads and
# 8 TB for the sequential run; they take hours on real hardware.

variable "validation" {
  description = "Run the R1 validation benchmarks (null: none). report_dir receives r1-seq.svg/.md and r1-random.svg/.md; the other fields override the presets (null: the paper's)."
  type = object({
    report_dir      = string
    tool            = optional(string)       # the presets': iozone; the lab runs fio for real
    seq_threads     = optional(list(number)) # the paper's: 1 to 64 doubling
    random_threads  = optional(list(number)) # the paper's: 16 to 512 doubling
    file_size_bytes = optional(number)       # per thread
    iodepth         = optional(number)
  })
  default = null
}

locals {
  validation_clients = { for c in local.clients : c.name => c.host if contains(keys(module.r1.mount_points), c.name) }
  validation = var.validation == null ? {} : {
    "r1-seq"    = var.validation.seq_threads
    "r1-random" = var.validation.random_threads
  }
}

resource "hpcstorage_benchmark" "r1" {
  for_each = local.validation

  preset          = each.key
  tool            = var.validation.tool
  clients         = values(local.validation_clients)
  directory       = "${module.r1.mount_points[keys(local.validation_clients)[0]]}/bench"
  threads         = each.value
  file_size_bytes = var.validation.file_size_bytes
  iodepth         = var.validation.iodepth
  # The stripe pattern made bench from the first client; every client of
  # the shared namespace sees it, and mkdir -p keeps it as it is.
  create_directory = true
  report_path      = "${var.validation.report_dir}/${each.key}.svg"
  depends_on       = [module.r1]
}

output "validation_report" {
  description = "Each validation run's table (measured peak beside the paper's figure, with the ratio) and its chart."
  value = join("\n", [for k in sort(keys(hpcstorage_benchmark.r1)) :
  "${hpcstorage_benchmark.r1[k].report_table}\nchart: ${hpcstorage_benchmark.r1[k].report_path}\n"])
}
