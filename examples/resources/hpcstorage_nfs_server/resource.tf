# R2: 256 nfsd threads and the NFSv4 id domain on both servers; NFS stays
# disabled at boot, the cluster starts it on the active node.
resource "hpcstorage_nfs_server" "nfs" {
  for_each = toset(["nfs1", "nfs2"])

  host         = each.key
  threads      = 256
  idmap_domain = "hpc.example.com"
}

output "running_threads" {
  value = { for k, v in hpcstorage_nfs_server.nfs : k => v.running_threads }
}
