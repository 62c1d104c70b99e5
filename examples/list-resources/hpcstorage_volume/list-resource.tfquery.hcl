# The volumes of the R1 metadata array, with their host mappings.
list "hpcstorage_volume" "me4024" {
  provider         = hpcstorage
  include_resource = true
  config {
    endpoint = "me4024-1"
  }
}
