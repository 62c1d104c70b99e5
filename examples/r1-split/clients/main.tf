# R1 split into states, part 2: the clients, in a state of their own. It
# reads the file system's state (examples/r1-split/servers, applied first)
# with terraform_remote_state; a change to the clients plans and locks this
# state only, and its no-op plan refreshes no server, array or BMC.

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

# The clients have no BMC: the provider needs only SSH here.
provider "hpcstorage" {
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

# A local state file here; at a site, the servers' state backend (s3, gcs,
# azurerm, HCP Terraform's remote) with the same outputs.
data "terraform_remote_state" "servers" {
  backend = "local"
  config = {
    path = var.servers_state
  }
}

locals {
  fs      = data.terraform_remote_state.servers.outputs.beegfs_client
  clients = { for name, n in var.lab.nodes : name => n.host if n.role == "client" }
}

resource "hpcstorage_beegfs_client" "this" {
  for_each              = local.clients
  host                  = each.value
  mgmtd_host            = local.fs.mgmtd_host
  mount_point           = local.fs.mount_point
  settings              = local.fs.settings
  conn_auth_secret_file = local.fs.conn_auth_secret_file
}

output "mount_points" {
  value = { for k, c in hpcstorage_beegfs_client.this : k => c.mount_point }
}
