# The disk groups of the R1 metadata array.
list "hpcstorage_disk_group" "me4024" {
  provider         = hpcstorage
  include_resource = true
  config {
    endpoint = "me4024-1"
  }
}
