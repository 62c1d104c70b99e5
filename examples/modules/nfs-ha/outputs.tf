output "servers" {
  description = "Each server as its BMC reports it after the apply."
  value = { for k, s in hpcstorage_server.this : k => {
    model     = s.model, serial = s.serial_number, power_state = s.power_state, cpu_count = s.cpu_count, memory_gib = s.memory_gib
    system_id = s.system_id
  } }
}

output "drawer_diagram" {
  description = "The ME4084's drawers: disk group per bay, S for the global spares."
  value       = data.hpcstorage_array_layout.array.diagram
}

output "volumes" {
  description = "Volumes by name: WWN, LUN and the multipath device on the servers."
  value = { for k, v in hpcstorage_volume.this : k => {
    wwn = v.wwn, lun = local.groups[k].lun, device = hpcstorage_multipath.this[local.first].devices[k]
  } }
}

output "logical_volume" {
  description = "The striped logical volume (the Filesystem resource's device) and the mkfs run once."
  value = {
    device      = hpcstorage_ha_lvm.this[local.first].device_path
    stripe_size = hpcstorage_ha_lvm.this[local.first].stripe_size_bytes
    mkfs        = join(" ", hpcstorage_ha_lvm.this[local.first].mkfs_command)
  }
}

output "cluster_resources" {
  description = "The cluster's group members in start order, each with its agent."
  value       = [for m in local.members : "${m.id} (ocf:${local.ocf}:${m.type})"]
}

output "placement" {
  description = "Where each cluster resource runs (\"\" when stopped), read back from crm_mon."
  value       = hpcstorage_ha_cluster.this.placement
}

output "active_server" {
  description = "The server the NFS service runs on."
  value       = hpcstorage_ha_cluster.this.placement[local.group]
}

output "running_threads" {
  description = "nfsd threads running on each server (0 on the passive one)."
  value       = { for k, v in hpcstorage_nfs_server.this : k => v.running_threads }
}
