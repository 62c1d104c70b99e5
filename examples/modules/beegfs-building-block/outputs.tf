output "mgmtd_host" {
  description = "Management host name (with HA: the management group's floating IP), for the clients."
  value       = module.base[local.base].mgmtd_host
}

output "targets" {
  description = "Every block's targets: node, device, mount point, file system."
  value       = merge([for b in values(local.all) : b.targets]...)
}

output "services" {
  description = "systemd units per server (with HA: the units of the groups that prefer it)."
  value       = merge([for b in values(local.all) : b.services]...)
}

output "storage_target_ids" {
  description = "Storage target IDs per server."
  value       = merge([for b in values(local.all) : b.storage_target_ids]...)
}

output "array_diagrams" {
  description = "Each carved array's bays by disk group, by block name (null without array)."
  value       = { for k, b in local.all : k => b.array_diagram }
}

output "array_volumes" {
  description = "Each carved array's volumes by block name: disk group, size, LUN and WWN."
  value       = { for k, b in local.all : k => b.array_volumes }
}

output "blocks" {
  description = "Each block by name: its number and profile."
  value       = { for k, b in local.numbered : k => { number = b.number, profile = b.profile, array = b.array } }
}

output "ha_groups" {
  description = "HA: the resource groups of every block (for a file-system-wide hpcstorage_ha_cluster's groups)."
  value       = flatten([for b in values(local.all) : b.ha_groups])
}

output "ha_locations" {
  description = "HA: preferred and other server of each group (and -INFINITY outside its block)."
  value       = flatten([for b in values(local.all) : b.ha_locations])
}

output "ha_colocations" {
  description = "HA: groups that run together (mgmtd with the metadata target holding its store)."
  value       = flatten([for b in values(local.all) : b.ha_colocations])
}

output "ha_orders" {
  description = "HA: start orders of those groups."
  value       = flatten([for b in values(local.all) : b.ha_orders])
}

output "ha_placement" {
  description = "HA with the blocks' own clusters: where each group runs (group => server), read back from the clusters."
  value       = merge([for b in values(local.all) : b.ha_placement]...)
}

output "ha_standby_moves" {
  description = "HA: groups whose preferred server is in standby, and the server they run on instead (known at plan)."
  value       = merge([for b in values(local.all) : b.ha_standby_moves]...)
}
