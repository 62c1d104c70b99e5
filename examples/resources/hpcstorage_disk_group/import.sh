# <endpoint>/<storage id>/<disk group id>
terraform import 'hpcstorage_disk_group.me4084_1["dg01"]' me4084-1/controller_a/dg01
