# <host>/beegfs-mirror-<node_type>-<group_id>: the group's settings are read
# back from the node's record of the last apply.
terraform import hpcstorage_beegfs_mirror_group.st1 client01/beegfs-mirror-storage-1
