output "targets" {
  description = "Every target: node, device, mount point, file system and the mkfs command it was formatted with."
  value = var.ha ? merge([for p in values(local.ha_pairs) : merge([for sv in p.services : { for t in sv.targets : trimprefix(t.mount_point, "/data/") => {
    host        = local.ha_hosts[sv.preferred_node]
    device      = "/dev/disk/by-id/wwn-0x${lower(trimprefix(t.wwn, "0x"))}"
    mount_point = t.mount_point
    fstype      = sv.kind == "storage" ? "xfs" : "ext4"
    mkfs        = "(formatted once on ${sv.preferred_node}, mounted by the cluster)"
    } }]...)]...) : { for k, t in merge(hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_target.st) : k => {
    host        = t.host
    device      = t.device
    mount_point = t.mount_point
    fstype      = t.fstype
    mkfs        = join(" ", t.mkfs_command)
  } }
}

output "services" {
  description = "systemd units per node."
  value = merge(
    { for k, m in hpcstorage_beegfs_metadata.this : k => concat(m.services, k == local.mgmtd ? hpcstorage_beegfs_management.this[*].service : []) },
    { for n, p in(var.ha ? local.ha_node_pair : {}) : n => [for sv in local.ha_pairs[p].services : hpcstorage_beegfs_ha_services.this[n].units[sv.name] if sv.preferred_node == n] },
    { for k, s in hpcstorage_beegfs_storage.this : k => [s.service] },
    { for k, c in hpcstorage_beegfs_client.this : k => c.services },
    { for m in hpcstorage_beegfs_monitor.this : var.management_server.name => [m.service] },
  )
}

output "mount_points" {
  description = "Client mount points."
  value       = { for k, c in hpcstorage_beegfs_client.this : k => c.mount_point }
}

output "storage_target_ids" {
  description = "BeeGFS storage target IDs per storage server."
  value = var.ha ? { for sv in local.ha_stor_services : sv.preferred_node => [for t in sv.storage_targets : t.id] } : {
  for k, s in hpcstorage_beegfs_storage.this : k => [for t in s.targets : t.id] }
}

output "drawer_diagrams" {
  description = "Which drive is in which disk group, drawer by drawer (S: global spare)."
  value = merge({ (var.metadata_array) = data.hpcstorage_array_layout.metadata.diagram },
  { for a, l in data.hpcstorage_array_layout.storage : a => l.diagram })
}

output "raw_capacity_bytes" {
  description = "Raw capacity of the storage arrays' drives."
  value       = sum([for a, l in data.hpcstorage_array_layout.storage : l.raw_capacity_bytes])
}

output "servers" {
  description = "Each server with a BMC, as the BMC reports it: model, serial number, power state, CPUs and memory."
  value = { for k, s in hpcstorage_server.this : k => {
    model       = s.model
    serial      = s.serial_number
    power_state = s.power_state
    cpu_count   = s.cpu_count
    memory_gib  = s.memory_gib
  } }
}

output "beegfs_groups" {
  description = "HA: where each BeeGFS group runs (group => server), read back from the cluster(s); empty without HA."
  value       = merge([for c in values(hpcstorage_ha_cluster.this) : { for g, n in c.placement : g => n if contains(flatten([for p in values(local.ha_pairs) : [for sv in p.services : sv.name]]), g) }]...)
}

output "ha_standby_moves" {
  description = "HA: groups whose preferred server is in standby, and the server of the pair they run on instead (known at plan, so the plan shows what moves)."
  value = { for sv in(var.ha ? concat(local.ha_meta_services, local.ha_stor_services) : []) :
    sv.name => [for n in local.ha_pairs[local.ha_node_pair[sv.preferred_node]].nodes : n if n != sv.preferred_node][0]
  if contains(var.standby, sv.preferred_node) }
}

output "client_settings" {
  description = "What a client of this file system needs when it is configured elsewhere (another state): mgmtd's address, the mount point and the client settings the module gives its own clients."
  value = {
    mgmtd_host  = local.mgmtd
    mount_point = var.mount_point
    settings    = var.ha ? { sysSessionChecksEnabled = "false" } : null
  }
}
