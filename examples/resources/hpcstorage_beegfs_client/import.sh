# <host>/beegfs-client. The settings applied are read back from the node's
# record of the last apply; the first plan after import only sets
# conn_auth_secret_hash (the node cannot give the secret back).
terraform import 'hpcstorage_beegfs_client.gpu["dgx01"]' dgx01/beegfs-client
