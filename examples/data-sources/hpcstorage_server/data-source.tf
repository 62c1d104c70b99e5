data "hpcstorage_server" "mgmt" {
  endpoint = "mgmt-bmc"
}

output "mgmt_bios_profile" {
  value = data.hpcstorage_server.mgmt.bios_attributes["SysProfile"]
}
