# The HPC BIOS profile of the R2 NFS servers (R740, iDRAC9): performance
# system profile, sub-NUMA clustering on, hyper-threading off, ADDDC off.
# Attribute names are the BMC's own; a typo fails `terraform plan`.
resource "hpcstorage_server" "nfs" {
  for_each = toset(["nfs1-bmc", "nfs2-bmc"])

  endpoint    = each.key
  power_state = "On"

  bios_attributes = {
    SysProfile     = "PerfOptimized"
    SubNumaCluster = "Enabled"
    LogicalProc    = "Disabled"
    AdddcSetting   = "Disabled"
  }
}

output "nfs_inventory" {
  value = {
    for k, s in hpcstorage_server.nfs : k => {
      model        = s.model
      serial       = s.serial_number
      cpus         = s.cpu_count
      numa_domains = s.numa_domains
      memory_gib   = s.memory_gib
      macs         = s.nic_macs
    }
  }
}
