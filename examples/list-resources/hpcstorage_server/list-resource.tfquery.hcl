# The computer systems behind meta1's BMC.
list "hpcstorage_server" "meta1" {
  provider         = hpcstorage
  include_resource = true
  config {
    endpoint = "meta1-bmc"
  }
}
