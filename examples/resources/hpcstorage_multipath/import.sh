# <host>/multipath (the resource's id): the node's record of the last
# apply gives the attributes back.
terraform import 'hpcstorage_multipath.nfs["nfs1"]' nfs1/multipath
