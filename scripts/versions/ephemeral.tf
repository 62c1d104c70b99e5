# scripts/versions.sh: ephemeral and write-only values on each CLI. The BMC
# password comes from an ephemeral variable (not the environment) and
# BeeGFS's conn_auth_secret is write-only; neither may reach the state or a
# saved plan.
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "lab" {
  type = any
}

variable "bmc_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "beegfs_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

provider "hpcstorage" {
  endpoints = {
    "mgmt-bmc" = {
      url            = var.lab.endpoints["mgmt-bmc"].url
      username       = var.lab.endpoints["mgmt-bmc"].username
      password       = var.bmc_password
      ca_certificate = var.lab.ca_certificate
    }
  }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

data "hpcstorage_server" "mgmt" {
  endpoint = "mgmt-bmc"
}

resource "hpcstorage_beegfs_management" "mgmtd" {
  host             = var.lab.nodes["mgmt"].host
  directory        = "/data/mgmtd"
  conn_auth_secret = var.beegfs_secret
}

output "model" {
  value = data.hpcstorage_server.mgmt.model
}
