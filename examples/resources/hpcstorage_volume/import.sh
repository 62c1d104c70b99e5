# <endpoint>/<storage id>/<volume id>
terraform import 'hpcstorage_volume.me4084_1["dg01"]' me4084-1/controller_a/st-dg01
