# The BeeGFS management service of an R1 site (on the first metadata server).
list "hpcstorage_beegfs_management" "meta" {
  provider         = hpcstorage
  include_resource = true
  config {
    hosts = ["meta1"]
  }
}
