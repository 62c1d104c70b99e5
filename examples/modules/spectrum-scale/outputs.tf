output "nsds" {
  description = "NSD stanzas, servers in their alternating order."
  value       = hpcstorage_gpfs_nsds.this.stanzas
}

output "mmcrfs_command" {
  description = "The mmcrfs argv the file system was created with."
  value       = hpcstorage_gpfs_filesystem.this.mmcrfs_command
}

output "subblocks" {
  description = "Subblocks per block and the data pools' subblock size in bytes, as mmlsfs reports them."
  value       = { per_block = hpcstorage_gpfs_filesystem.this.subblocks_per_block, bytes = hpcstorage_gpfs_filesystem.this.subblock_bytes }
}

output "added_disks" {
  description = "NSDs of the latest capacity expansion (one mmadddisk)."
  value       = hpcstorage_gpfs_filesystem.this.added_disks
}

output "data_luns" {
  description = "Data LUNs by name: array, LUN number, failure group."
  value       = { for k, v in local.data_luns : k => { array = v.array, lun = v.lun, failure_group = v.failure_group } }
}

output "metadata_luns" {
  description = "Metadata LUNs by name: array, LUN number, failure group."
  value       = { for k, v in local.metadata_luns : k => { array = v.array, lun = v.lun, failure_group = v.failure_group } }
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
