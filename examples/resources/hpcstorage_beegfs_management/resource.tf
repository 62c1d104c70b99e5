# R1: the management store lives in a folder of metadata target 1.
resource "hpcstorage_beegfs_management" "mgmtd" {
  host             = "meta1"
  directory        = "${hpcstorage_beegfs_target.mdt01.mount_point}/mgmtd"
  conn_auth_secret = var.beegfs_secret # write-only: never stored in state
}

variable "beegfs_secret" {
  type      = string
  sensitive = true
  ephemeral = true # Terraform 1.10+: in no plan file or state
}
