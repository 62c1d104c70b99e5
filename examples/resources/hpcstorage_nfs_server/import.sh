# <host>/nfs-server (the resource's id).
terraform import 'hpcstorage_nfs_server.nfs["nfs1"]' nfs1/nfs-server
