# <endpoint>/<storage id>/<volume id>
terraform import 'hpcstorage_volume.me4084_1["dg01"]' me4084-1/controller_a/st-dg01

# A volume of a RAID controller in a server: <endpoint>/<volume @odata.id>
# (configure it with storage_id = "/redfish/v1/Systems/1/Storage/DE081000",
# disk_group = "" and the name the controller gave it).
terraform import hpcstorage_volume.boot bmc1/redfish/v1/Systems/1/Storage/DE081000/Volumes/1

# E-Series: <endpoint>/1/<volume ref or name>
terraform import 'hpcstorage_volume.ef600_1["stor_01_01"]' ef600-1/1/stor_01_01
