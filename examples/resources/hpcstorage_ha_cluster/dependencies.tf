# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

data "hpcstorage_server" "nfs1" {
  endpoint = "nfs1-bmc"
}

data "hpcstorage_server" "nfs2" {
  endpoint = "nfs2-bmc"
}
