# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

resource "hpcstorage_beegfs_target" "mdt01" {
  host        = "meta1"
  wwn         = var.mdt01_wwn
  kind        = "metadata"
  mount_point = "/data/mdt01"
}

variable "mdt01_wwn" {
  description = "WWN of the volume of metadata target 1 (hpcstorage_volume.wwn)."
  type        = string
}
