# R5's file system: 8 MiB blocks, scatter allocation, metadata in system,
# data in the data pool (hence the placement policy). Adding NSDs to disks
# later grows it in place with one mmadddisk.
resource "hpcstorage_gpfs_filesystem" "fs1" {
  host           = "nsd1"
  device         = "fs1"
  mount_point    = "/gpfs/fs1"
  block_size     = "8M"
  allocation     = "scatter"
  max_block_size = "8M" # hpcstorage_gpfs_cluster.r5.max_block_size
  disks = [
    { nsd = "md1_01", usage = "metadataOnly", failure_group = 1, pool = "system" },
    { nsd = "a1_d01", usage = "dataOnly", failure_group = 1, pool = "data" },
  ]
  pools            = [{ name = "data", block_size = "8M", layout_map = "scatter" }]
  placement_policy = "RULE 'default' SET POOL 'data'\n"
}

output "mmcrfs" {
  value = join(" ", hpcstorage_gpfs_filesystem.fs1.mmcrfs_command)
}
