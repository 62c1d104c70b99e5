# <host>/beegfs-mon. The settings applied are read back from the node's
# record of the last apply; the first plan after import only sets the
# secrets' hashes (the node cannot give the secrets back).
terraform import hpcstorage_beegfs_monitor.mon mgmt/beegfs-mon
