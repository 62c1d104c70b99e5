# <host>/beegfs-storage. The targets and settings applied are read back from
# the node's record of the last apply; the first plan after import only
# sets conn_auth_secret_hash (the node cannot give the secret back).
terraform import hpcstorage_beegfs_storage.stor1 stor1/beegfs-storage
