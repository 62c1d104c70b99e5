# R3 (BeeGFS on NetApp building blocks) against the lab: `hpcstorage-lab up
# --design r3 --dir DIR` writes lab.auto.tfvars.json (the variable lab) and
# lab.env (the passwords); link the first here and load the second into the
# environment (`make demo DESIGN=r3` does), then `terraform apply`. Each
# block's EF600 is carved, its volumes mapped to the block's two file nodes,
# and the BeeGFS targets and services built on them.

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
    url      = ep.url
    username = ep.username
    api      = ep.api
    # Each EF600 has its own CA; the BMCs share the lab's.
    ca_certificate = ep.ca_certificate != null ? ep.ca_certificate : var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

locals {
  # The base block (management, metadata, storage), then the others
  # (var.blocks); block N is bbN-node1/2 with the array ef600-N.
  profiles = { for i, p in var.blocks : tostring(i + 1) => p }
  blocks = { for b, p in local.profiles : b => {
    profile = p
    array   = "ef600-${b}"
    servers = [for n in [1, 2] : { name = "bb${b}-node${n}", host = var.lab.nodes["bb${b}-node${n}"].host }]
  } }
}

# The blocks' file nodes: powered on through their BMCs (inventory in
# bmc_summary). Each block's two nodes are one failure domain, its
# pacemaker cluster: a change that reboots them (bios_attributes) takes one
# node of a block at a time, in standby while it is away; blocks go side by
# side.
locals {
  file_nodes = { for s in flatten([for b, x in local.blocks : [for i, n in x.servers : {
    name  = n.name
    block = tonumber(b)
    peer  = x.servers[1 - i].host
  }]]) : s.name => s }
}

resource "hpcstorage_server" "file_node" {
  for_each        = local.file_nodes
  endpoint        = var.lab.nodes[each.key].bmc
  power_state     = "On"
  bios_attributes = var.bios_attributes
  failure_domain = {
    name       = format("beegfs-b%02d", each.value.block)
    kind       = "pacemaker"
    host       = var.lab.nodes[each.key].host
    node       = each.key
    admin_host = each.value.peer
  }
}

# HA (default in the module): each block is a two-node pacemaker cluster
# (beegfs-b01...) fenced through its nodes' BMCs.
locals {
  ha_cluster = { authkey_file = var.lab.corosync_authkey_file, network = var.cluster_network }
  ha_servers = { for b, x in local.blocks : b => [for i, s in x.servers : merge(s, {
    bmc          = var.lab.nodes[s.name].bmc
    systems_uri  = "/redfish/v1/Systems/${hpcstorage_server.file_node[s.name].system_id}"
    cluster_addr = cidrhost(var.cluster_network, tonumber(b) * 2 + i - 1)
  })] }
}

# The whole file system: one module, one entry per block (keyed by its
# name, bb1...). Appending a block to var.blocks adds its servers, array
# volumes, targets, services, groups and cluster, and nothing else.
module "beegfs" {
  source = "../modules/beegfs-building-block"
  blocks = [for b, x in local.blocks : {
    name    = "bb${b}"
    profile = x.profile
    servers = local.ha_servers[b]
    array   = x.array
  }]
  ha_cluster            = local.ha_cluster
  standby               = var.standby
  conn_auth_secret_file = var.lab.beegfs_conn_auth_file
}

# The lab's clients (hpcstorage-lab up --clients N), if any, mount the file
# system (mgmtd on the base block's floating IP); the first one sets the
# stripe pattern of /data, a directory that exists from the first block on:
# adding blocks leaves it as it is (new targets join the pool it stripes
# over).
locals {
  clients = [for name in sort(keys(var.lab.nodes)) : { name = name, host = var.lab.nodes[name].host } if var.lab.nodes[name].role == "client"]
}

resource "hpcstorage_beegfs_client" "this" {
  for_each    = { for c in local.clients : c.name => c.host }
  host        = each.value
  mgmtd_host  = module.beegfs.mgmtd_host
  mount_point = "/mnt/beegfs"
  # A client of an HA file system keeps its files when a service moves.
  settings              = { sysSessionChecksEnabled = "false" }
  conn_auth_secret_file = var.lab.beegfs_conn_auth_file
  depends_on            = [module.beegfs]
}

resource "hpcstorage_beegfs_stripe_pattern" "data" {
  count            = length(local.clients) > 0 ? 1 : 0
  host             = hpcstorage_beegfs_client.this[local.clients[0].name].host
  mount_point      = hpcstorage_beegfs_client.this[local.clients[0].name].mount_point
  path             = "data"
  chunk_size_bytes = 1048576
  num_targets      = 4
}

output "beegfs_groups" {
  description = "Where each BeeGFS group runs (group => file node), read back from each block's cluster."
  value       = join("\n", [for g, n in module.beegfs.ha_placement : format("  %-20s on %s", g, n)])
}

output "standby_moves" {
  description = "Groups that run away from their preferred node because it is in standby (group => node)."
  value       = module.beegfs.ha_standby_moves
}

output "array_diagrams" {
  description = "Each block's EF600, bays by disk group."
  value       = { for k, d in module.beegfs.array_diagrams : module.beegfs.blocks[k].array => d }
}

output "array_layout" {
  description = "The arrays as carved: diagrams and volumes, for the demo."
  value = join("\n", [for name, b in module.beegfs.blocks : join("\n", concat(
    ["${b.array} (block ${b.number}, ${b.profile})", module.beegfs.array_diagrams[name]],
    [for v, x in module.beegfs.array_volumes[name] : format("  %-11s %-7s %-6s %8.2f TB  LUN %-2d wwn %s", v, x.disk_group, x.raid_level, x.capacity_bytes / 1e12, x.lun, x.wwn)],
  ))])
}

output "bmc_summary" {
  description = "Each file node as its BMC reports it after the apply."
  value = join("\n", [for k in sort(keys(hpcstorage_server.file_node)) :
    format("  %-9s %-18s %-8s power %s, %d CPUs, %d GiB", k, hpcstorage_server.file_node[k].model, hpcstorage_server.file_node[k].serial_number,
  hpcstorage_server.file_node[k].power_state, hpcstorage_server.file_node[k].cpu_count, hpcstorage_server.file_node[k].memory_gib)])
}

output "targets" {
  value = module.beegfs.targets
}

output "services" {
  value = module.beegfs.services
}

output "storage_target_ids" {
  value = module.beegfs.storage_target_ids
}
