# The provider needs no settings yet: BMC endpoints and SSH access come
# with the server, array and node resources.
provider "hpcstorage" {}
