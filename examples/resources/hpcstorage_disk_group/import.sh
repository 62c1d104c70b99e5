# <endpoint>/<storage id>/<disk group id>
terraform import 'hpcstorage_disk_group.me4084_1["dg01"]' me4084-1/controller_a/dg01

# E-Series: <endpoint>/1/<volume group ref or name>
terraform import 'hpcstorage_disk_group.ef600_1["stor01"]' ef600-1/1/stor01
