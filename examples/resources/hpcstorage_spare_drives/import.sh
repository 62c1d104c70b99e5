# <endpoint>/<storage id>: adopts every global spare of the array
terraform import hpcstorage_spare_drives.me4084_1 me4084-1/controller_a

# E-Series: <endpoint>/1
terraform import hpcstorage_spare_drives.ef600_2 ef600-2/1
