# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

resource "hpcstorage_beegfs_target" "st" {
  for_each = var.storage_wwns

  host               = "stor1"
  wwn                = each.value
  kind               = "storage"
  mount_point        = "/data/${each.key}"
  segment_size_bytes = 524288
  data_drives        = 8
}

variable "storage_wwns" {
  description = "WWN of the volume of each storage target (hpcstorage_volume.wwn), by target name (st01 .. st16)."
  type        = map(string)
}

resource "hpcstorage_beegfs_management" "mgmtd" {
  host                  = "meta1"
  directory             = "/data/mdt01/mgmtd"
  conn_auth_secret_file = "~/.beegfs/connauth"
}
