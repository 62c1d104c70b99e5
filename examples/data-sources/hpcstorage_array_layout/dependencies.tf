# What data-source.tf refers to, so that this folder is a configuration of
# its own (terraform validate, terraform plan against your endpoints).

data "hpcstorage_drives" "me4084" {
  endpoint = "me4084-1"
}
