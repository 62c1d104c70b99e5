# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

resource "hpcstorage_volume" "st01" {
  endpoint           = "me4084-1"
  disk_group         = "dg01"
  name               = "st01"
  segment_size_bytes = 524288
  host_mappings      = [{ host = "stor1", lun = 1 }, { host = "stor2", lun = 1 }]
}

resource "hpcstorage_volume" "mdt01" {
  endpoint      = "me4024-1"
  disk_group    = "mdt01"
  name          = "mdt01"
  host_mappings = [{ host = "meta1", lun = 1 }, { host = "meta2", lun = 1 }]
}
