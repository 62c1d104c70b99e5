# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

resource "hpcstorage_beegfs_target" "mdt" {
  for_each = var.metadata_wwns

  host        = "meta1"
  wwn         = each.value
  kind        = "metadata"
  mount_point = "/data/${each.key}"
}

variable "metadata_wwns" {
  description = "WWN of the volume of each metadata target (hpcstorage_volume.wwn), by target name (mdt01 .. mdt06)."
  type        = map(string)
}

resource "hpcstorage_beegfs_management" "mgmtd" {
  host                  = "meta1"
  directory             = "/data/mdt01/mgmtd"
  conn_auth_secret_file = "~/.beegfs/connauth"
}
