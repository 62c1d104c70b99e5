# Storage servers that do not share storage: target 101 of stor1 mirrored
# on target 201 of stor2, both 8 TB volumes in the default pool. Mirroring
# halves the capacity of the targets it pairs.
resource "hpcstorage_beegfs_mirror_group" "st1" {
  host      = "client01"
  node_type = "storage"
  group_id  = 1
  primary   = { id = 101, size_bytes = 8000000000000, server = "stor1" }
  secondary = { id = 201, size_bytes = 8000000000000, server = "stor2" }
}

# Metadata nodes 1 and 2 as a group, and metadata mirroring turned on
# (refused at plan while any client is mounted).
resource "hpcstorage_beegfs_mirror_group" "md1" {
  host            = "mgmt"
  node_type       = "meta"
  group_id        = 1
  primary         = { id = 1, server = "meta1" }
  secondary       = { id = 2, server = "meta2" }
  mirror_metadata = true
}

# A directory whose files are striped over mirror groups.
resource "hpcstorage_beegfs_stripe_pattern" "mirrored" {
  host             = "client01"
  path             = "projects"
  chunk_size_bytes = 1048576
  num_targets      = 4
  buddy_mirror     = true
  depends_on       = [hpcstorage_beegfs_mirror_group.st1]
}
