# The R2 NFS server's firmware, with the floors checked at every plan: the
# R2 paper asks for a BIOS that supports Cascade Lake before the CPUs move
# to it (take the version from the model's BIOS release notes).
data "hpcstorage_firmware_inventory" "nfs1" {
  endpoint = "nfs1-bmc"
  floors = [
    { component = "BIOS", min_version = "2.12.2", reason = "R2: update the BIOS before moving to Cascade Lake CPUs" },
    { component = "BMC", min_version = "4.40.00.00" },
  ]
}

output "nfs1_firmware" {
  value = { for c in data.hpcstorage_firmware_inventory.nfs1.components : c.name => c.version }
}
