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

# BeeGFS 8: the TOML service, its SQLite store created once (or imported
# from the 7.x store in the folder), with the license and TLS material you
# supply (files read where Terraform runs; never generated).
resource "hpcstorage_beegfs_management" "mgmtd8" {
  host             = "meta2"
  version          = "8"
  directory        = "/data/mdt01/mgmtd"
  conn_auth_secret = var.beegfs_secret
  license_file     = "license.pem"
  tls_cert_file    = "cert.pem"
  tls_key_file     = "key.pem"
  settings         = { "quota-enable" = "true" }
}
