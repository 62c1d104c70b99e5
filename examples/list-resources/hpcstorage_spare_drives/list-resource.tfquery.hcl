# The global spares of the R1 metadata array (no result when it has none).
list "hpcstorage_spare_drives" "me4024" {
  provider         = hpcstorage
  include_resource = true
  config {
    endpoint = "me4024-1"
  }
}
