# A BIOS update for both R740s of an R2 pair, one server at a time, each in
# standby for its reboot; a server already at 2.12.2 is left alone:
# terraform apply -invoke=action.hpcstorage_firmware_update.bios
action "hpcstorage_firmware_update" "bios" {
  config {
    servers = [for n in ["nfs1", "nfs2"] : {
      endpoint       = "${n}-bmc"
      failure_domain = { name = "nfsha", kind = "pacemaker", host = "${n}.example.com", node = n }
    }]
    firmware = [{
      component = "BIOS"
      version   = "2.12.2"
      image_uri = "https://repo.example.com/dell/BIOS_2.12.2.EXE"
      models    = ["PowerEdge R740"]
    }]
  }
}
