output "mgmtd_host" {
  description = "Management host name (with HA: the management group's floating IP), for the other blocks and the clients."
  value       = local.mgmtd
}

output "targets" {
  description = "The block's targets: node, device, mount point, file system."
  value = var.ha ? merge([for s in local.ha_services : { for t in s.targets : trimprefix(t.mount_point, "/data/") => {
    host        = var.servers[index(local.ha_names, s.preferred_node)].host, device = "/dev/disk/by-id/wwn-0x${lower(trimprefix(t.wwn, "0x"))}",
    mount_point = t.mount_point, fstype = s.kind == "storage" ? "xfs" : "ext4"
    } }]...) : { for k, t in merge(hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_target.st, { for i, t in hpcstorage_beegfs_target.mgmt : "mgmt" => t }) : k => {
    host = t.host, device = t.device, mount_point = t.mount_point, fstype = t.fstype
  } }
}

output "services" {
  description = "systemd units per server (with HA: the units of the groups that prefer it)."
  value = var.ha ? { for srv in var.servers : srv.name => [for s in local.ha_services : hpcstorage_beegfs_ha_services.this[srv.name].units[s.name] if s.preferred_node == srv.name] } : { for s in var.servers : s.name => concat(
    try(hpcstorage_beegfs_metadata.this[s.name].services, []),
    try([hpcstorage_beegfs_storage.this[s.name].service], []),
    local.with_mgmt && s.name == var.servers[0].name ? ["beegfs-mgmtd"] : [],
  ) }
}

output "storage_target_ids" {
  description = "Storage target IDs per server."
  value = var.ha ? { for s in local.ha_services : s.preferred_node => [for t in s.storage_targets : t.id] if s.kind == "storage" } : {
  for k, s in hpcstorage_beegfs_storage.this : k => [for t in s.targets : t.id] }
}

output "array_diagram" {
  description = "The carved array's bays by disk group (null without array)."
  value       = one(data.hpcstorage_array_layout.array[*].diagram)
}

output "array_volumes" {
  description = "The carved array's volumes: disk group, size, LUN and WWN (empty without array)."
  value = { for k, v in hpcstorage_volume.array : k => {
    disk_group = v.disk_group, capacity_bytes = v.capacity_bytes, lun = v.host_mappings[0].lun, wwn = v.wwn, raid_level = v.raid_level
  } }
}

output "ha_groups" {
  description = "HA: the block's resource groups (for a file-system-wide hpcstorage_ha_cluster's groups)."
  value       = var.ha ? hpcstorage_beegfs_ha_services.this[var.servers[0].name].groups : []
}

output "ha_locations" {
  description = "HA: preferred and other server of each group (and -INFINITY outside the block)."
  value       = var.ha ? hpcstorage_beegfs_ha_services.this[var.servers[0].name].locations : []
}

output "ha_colocations" {
  description = "HA: groups that run together (mgmtd with the metadata target holding its store)."
  value       = var.ha ? hpcstorage_beegfs_ha_services.this[var.servers[0].name].colocations : []
}

output "ha_orders" {
  description = "HA: start orders of those groups."
  value       = var.ha ? hpcstorage_beegfs_ha_services.this[var.servers[0].name].orders : []
}

output "ha_placement" {
  description = "HA with the block's own cluster: where each group runs (group => server), read back from the cluster."
  value       = { for k, v in try(hpcstorage_ha_cluster.this[0].placement, {}) : k => v if contains([for g in(var.ha ? hpcstorage_beegfs_ha_services.this[var.servers[0].name].groups : []) : g.id], k) }
}

output "ha_standby_moves" {
  description = "HA: groups whose preferred server is in standby, and the server they run on instead (known at plan, so the plan shows what moves)."
  value = { for s in(var.ha ? local.ha_services : []) : s.name => [for x in var.servers : x.name if x.name != s.preferred_node][0]
  if contains(var.standby, s.preferred_node) }
}
