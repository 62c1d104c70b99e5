# R1 (BeeGFS high capacity) against the lab: `hpcstorage-lab up --design r1
# --dir DIR --clients 2` writes lab.auto.tfvars.json (the variable lab) and
# lab.env (the passwords); link the first here and load the second into the
# environment (examples/demo.sh does), then `terraform apply`.

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
  server  = { for name, n in var.lab.nodes : name => { name = name, host = n.host, bmc = n.bmc } if n.role != "client" }
  clients = [for name in sort(keys(var.lab.nodes)) : { name = name, host = var.lab.nodes[name].host } if var.lab.nodes[name].role == "client"]
}

module "r1" {
  source = "../modules/beegfs-high-capacity"

  management_server = local.server["mgmt"]
  metadata_servers  = [local.server["meta1"], local.server["meta2"]]
  storage_servers   = [local.server["stor1"], local.server["stor2"]]
  metadata_array    = "me4024-1"
  storage_arrays    = ["me4084-1", "me4084-2", "me4084-3", "me4084-4"]
  drive_size_bytes  = var.drive_size_bytes
  clients           = local.clients
  client_count      = var.client_count
  # The lab writes a random secret file; or set conn_auth_secret instead.
  conn_auth_secret_file = var.lab.beegfs_conn_auth_file
  # HA (default): a pacemaker cluster per pair (beegfs-meta, beegfs-storage).
  ha                    = var.ha
  corosync_authkey_file = var.lab.corosync_authkey_file
  standby               = var.standby
  bios_attributes       = var.bios_attributes
  storage_settings      = var.storage_settings
  # BeeGFS 8 (beegfs_version = "8", with ha = false): license and TLS files.
  beegfs_version       = var.beegfs_version
  beegfs_license_file  = var.beegfs_license_file
  beegfs_tls_cert_file = var.beegfs_tls_cert_file
  beegfs_tls_key_file  = var.beegfs_tls_key_file
  beegfs_tls_disable   = var.beegfs_tls_disable
}

output "standby_moves" {
  description = "Groups that run away from their preferred server because it is in standby (group => server)."
  value       = module.r1.ha_standby_moves
}

output "beegfs_groups" {
  description = "Where each BeeGFS group runs."
  value       = join("\n", [for g in sort(keys(module.r1.beegfs_groups)) : format("  %-16s on %s", g, module.r1.beegfs_groups[g])])
}

output "targets" {
  value = module.r1.targets
}

output "services" {
  value = module.r1.services
}

output "mount_points" {
  value = module.r1.mount_points
}

output "drawer_diagrams" {
  value = module.r1.drawer_diagrams
}

output "raw_capacity_tb" {
  value = module.r1.raw_capacity_bytes / 1e12
}

output "all_drawers" {
  description = "Every array's drawers, disk groups and spares."
  value       = join("\n", [for a in sort(keys(module.r1.drawer_diagrams)) : "${a}:\n${module.r1.drawer_diagrams[a]}"])
}

output "bmc_summary" {
  description = "Each server as its BMC reports it after the apply."
  value = join("\n", [for k in sort(keys(module.r1.servers)) :
  format("  %-6s %-16s %-8s power %s, %d CPUs, %d GiB", k, module.r1.servers[k].model, module.r1.servers[k].serial, module.r1.servers[k].power_state, module.r1.servers[k].cpu_count, module.r1.servers[k].memory_gib)])
}

output "storage_drawers" {
  description = "Drawers of the first ME4084."
  value       = module.r1.drawer_diagrams["me4084-1"]
}

output "first_targets" {
  description = "The first metadata and storage targets: node, mount point and the mkfs run."
  value = join("\n", [for k in ["mdt01", "st01"] :
  "${k}: ${module.r1.targets[k].fstype} on ${module.r1.targets[k].mount_point}\n  ${module.r1.targets[k].mkfs}"])
}
