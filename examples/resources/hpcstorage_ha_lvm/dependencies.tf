# What resource.tf refers to, so that this folder is a configuration of its
# own (terraform validate, terraform plan against your endpoints).

resource "hpcstorage_multipath" "nfs" {
  for_each = toset(["nfs1", "nfs2"])

  host    = each.key
  volumes = { for i in range(1, 9) : "nfs_vol${i}" => format("600c0ff0001234560000000000%06d", i) }
}
