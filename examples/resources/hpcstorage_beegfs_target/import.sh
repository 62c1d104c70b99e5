# <host>/<wwn> (NAA hex, the resource's id). Nothing is formatted or
# remounted: the node's record of the last apply gives the attributes back.
terraform import hpcstorage_beegfs_target.st01 stor1/600c0ff000f8a2b1c3d4e5f601000000
