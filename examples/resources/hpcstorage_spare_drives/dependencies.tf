# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

data "hpcstorage_array_layout" "me4084_1" {
  endpoint = "me4084-1"
  policy = {
    raid_level       = "RAID6"
    drives_per_group = 10
  }
}
