# A storage server's firmware, with the floors checked at every plan: the
# designs ask for a BIOS that supports the next CPU generation before the
# CPUs move to it (take the version from the model's BIOS release notes).
data "hpcstorage_firmware_inventory" "stor1" {
  endpoint = "stor1-bmc"
  floors = [
    { component = "BIOS", min_version = "2.10.0", reason = "update the BIOS before moving to the new CPU generation" },
    { component = "BMC", min_version = "4.40.00.00" },
  ]
}

output "stor1_firmware" {
  value = { for c in data.hpcstorage_firmware_inventory.stor1.components : c.name => c.version }
}
