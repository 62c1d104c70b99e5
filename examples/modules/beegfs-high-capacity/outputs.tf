output "targets" {
  description = "Every target: node, device, mount point, file system and the mkfs command it was formatted with."
  value = { for k, t in merge(hpcstorage_beegfs_target.mdt, hpcstorage_beegfs_target.st) : k => {
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
    { for k, m in hpcstorage_beegfs_metadata.this : k => concat(m.services, k == local.mgmtd ? [hpcstorage_beegfs_management.this.service] : []) },
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
  value       = { for k, s in hpcstorage_beegfs_storage.this : k => [for t in s.targets : t.id] }
}

output "drawer_diagrams" {
  description = "Which drive is in which disk group, drawer by drawer (S: global spare)."
  value = merge({ (var.metadata_array) = data.hpcstorage_array_layout.metadata.diagram },
  { for a, l in data.hpcstorage_array_layout.storage : a => l.diagram })
}

output "raw_capacity_bytes" {
  description = "Raw capacity of the storage arrays' drives."
  value       = sum([for a, d in data.hpcstorage_drives.storage : sum([for x in d.drives : x.capacity_bytes])])
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
