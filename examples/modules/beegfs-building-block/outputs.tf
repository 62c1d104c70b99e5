output "mgmtd_host" {
  description = "Management host name, for the other blocks and the clients."
  value       = local.mgmtd
}

output "targets" {
  description = "The block's targets: node, device, mount point, file system."
  value = { for k, t in merge(hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_target.st, { for i, t in hpcstorage_beegfs_target.mgmt : "mgmt" => t }) : k => {
    host = t.host, device = t.device, mount_point = t.mount_point, fstype = t.fstype
  } }
}

output "services" {
  description = "systemd units per server."
  value = { for s in var.servers : s.name => concat(
    try(hpcstorage_beegfs_metadata.this[s.name].services, []),
    try([hpcstorage_beegfs_storage.this[s.name].service], []),
    local.with_mgmt && s.name == var.servers[0].name ? ["beegfs-mgmtd"] : [],
  ) }
}

output "storage_target_ids" {
  description = "Storage target IDs per server."
  value       = { for k, s in hpcstorage_beegfs_storage.this : k => [for t in s.targets : t.id] }
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
