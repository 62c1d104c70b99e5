# Your own root module, as CI runs it against the lab: the BIOS profile of
# every server and the kernel tuning of the storage servers. On real hardware
# the same module gets a lab-shaped object with your endpoints and nodes (or
# declare your own variables and keep only the provider block as it is).

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

variable "lab" {
  description = "Endpoints and nodes (hpcstorage-lab up writes it to lab.auto.tfvars.json); only the fields used here are declared."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      role = string
      host = string
      bmc  = string
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
  })
}

# Passwords come from the environment (HPCSTORAGE_<ENDPOINT>_PASSWORD: the
# lab's lab.env, or your CI's secrets), never from a variable.
provider "hpcstorage" {
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
  bmcs    = toset([for n in var.lab.nodes : n.bmc if n.bmc != ""])
  storage = { for name, n in var.lab.nodes : name => n.host if n.role == "storage" }
}

resource "hpcstorage_server" "all" {
  for_each = local.bmcs

  endpoint    = each.key
  power_state = "On"
  bios_attributes = {
    SysProfile = "PerfOptimized"
  }
}

data "hpcstorage_tuning_profile" "storage" {
  name = "beegfs-storage"
}

resource "hpcstorage_node_config" "storage" {
  for_each = local.storage

  host         = each.value
  owner        = "ci-storage-tuning"
  sysctl       = data.hpcstorage_tuning_profile.storage.sysctl
  thp          = data.hpcstorage_tuning_profile.storage.thp
  block_queues = data.hpcstorage_tuning_profile.storage.block_queues

  depends_on = [hpcstorage_server.all]
}

output "servers" {
  value = { for k, s in hpcstorage_server.all : k => s.model }
}
