# <host>/beegfs-ha: the services applied are read back from the node's
# record of the last apply.
terraform import 'hpcstorage_beegfs_ha_services.storage["stor1"]' stor1/beegfs-ha
