# R2 (NFS storage, high availability) against the lab: `hpcstorage-lab up
# --design r2 --dir DIR` writes lab.auto.tfvars.json (the variable lab) and
# lab.env (the passwords); link the first here and load the second into the
# environment (`make demo DESIGN=r2` does), then `terraform apply`. The
# ME4084 is carved and mapped to both NFS servers, multipath, HA-LVM, XFS
# and the NFS server are set up on both, and the pacemaker pair runs the
# NFS group on nfs1, fenced through the BMCs.

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source = "hpcstorage/hpcstorage"
      # Patch releases only: before 1.0 a minor release may change attributes
      # (CHANGELOG.md says what to edit).
      version = "~> 0.1.0"
    }
  }
}

provider "hpcstorage" {
  # Passwords: HPCSTORAGE_<ENDPOINT>_PASSWORD from the environment; the
  # fence devices take their BMC password from the same place.
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

module "r2" {
  source = "../modules/nfs-ha"

  servers = [for i, name in ["nfs1", "nfs2"] : {
    name      = name
    host      = var.lab.nodes[name].host
    bmc       = var.lab.nodes[name].bmc
    ring_addr = cidrhost(var.cluster_network, 11 + i)
  }]
  array           = "me4084-1"
  cluster_network = var.cluster_network
  authkey_file    = var.lab.corosync_authkey_file
  idmap_domain    = var.idmap_domain
  floating_ip     = { ip = "10.10.0.100", cidr_netmask = 16 }
  exports = [
    { directory = "/mnt/nfs/home", client_spec = "10.10.0.0/16", fsid = 1 },
    { directory = "/mnt/nfs/scratch", client_spec = "10.10.0.0/16", options = "rw,async,no_root_squash", fsid = 2 },
  ]
  standby           = var.standby
  bios_attributes   = var.bios_attributes
  firmware          = var.firmware
  pacemaker_version = var.pacemaker_version
}

output "servers" {
  value = module.r2.servers
}

output "drawer_diagram" {
  value = module.r2.drawer_diagram
}

output "volumes" {
  value = module.r2.volumes
}

output "logical_volume" {
  value = module.r2.logical_volume
}

output "placement" {
  value = module.r2.placement
}

output "cluster_summary" {
  description = "The NFS group's resources in start order and where each runs."
  value = join("\n", concat(
    ["NFS service on ${module.r2.active_server}:"],
    [for r in module.r2.cluster_resources : format("  %-44s %s", r, module.r2.placement[split(" ", r)[0]])],
    [for k in sort(keys(module.r2.placement)) : format("  %-44s %s", "${k} (stonith:fence_redfish)", module.r2.placement[k]) if startswith(k, "fence-")],
  ))
}

output "bmc_summary" {
  description = "Each NFS server as its BMC reports it after the apply."
  value = join("\n", [for k in sort(keys(module.r2.servers)) :
    format("  %-5s %-16s %-8s power %s, %d CPUs, %d GiB", k, module.r2.servers[k].model, module.r2.servers[k].serial,
  module.r2.servers[k].power_state, module.r2.servers[k].cpu_count, module.r2.servers[k].memory_gib)])
}
