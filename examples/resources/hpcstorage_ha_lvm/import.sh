# <host>/ha-lvm-<volume group> (the resource's id). Import never creates or
# formats anything.
terraform import 'hpcstorage_ha_lvm.nfs["nfs1"]' nfs1/ha-lvm-vg_nfs
