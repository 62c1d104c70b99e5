# R1 split into states, part 1: the file system (servers, arrays, BeeGFS
# services, HA) without clients. examples/r1-split/clients configures the
# clients in a state of their own, reading this state's outputs with
# terraform_remote_state. Apply this one first (docs: the scale guide).

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

provider "hpcstorage" {
  # Passwords: HPCSTORAGE_<ENDPOINT>_PASSWORD from the environment.
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    ca_certificate = var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

locals {
  server = { for name, n in var.lab.nodes : name => { name = name, host = n.host, bmc = n.bmc } if n.role != "client" }
}

module "r1" {
  source = "../../modules/beegfs-high-capacity"

  management_server     = local.server["mgmt"]
  metadata_servers      = [local.server["meta1"], local.server["meta2"]]
  storage_servers       = [local.server["stor1"], local.server["stor2"]]
  metadata_array        = "me4024-1"
  storage_arrays        = ["me4084-1", "me4084-2", "me4084-3", "me4084-4"]
  conn_auth_secret_file = var.lab.beegfs_conn_auth_file
  ha                    = var.ha
  corosync_authkey_file = var.lab.corosync_authkey_file
  # No clients here: they are the other state's.
  clients = []
}

# What the clients' state reads (terraform_remote_state): an interface
# between the two states, renamed in both or not at all.
output "beegfs_client" {
  value = merge(module.r1.client_settings, { conn_auth_secret_file = var.lab.beegfs_conn_auth_file })
}
