# R2: HA-LVM with system ID access on both NFS servers; the volume group,
# one logical volume striped over the 8 volumes (4 MiB: 512 KiB x 8 data
# drives) and XFS aligned to it are created once, from nfs1, and left
# inactive for the cluster's LVM-activate. Destroy never removes them.
resource "hpcstorage_ha_lvm" "nfs" {
  for_each = hpcstorage_multipath.nfs

  host               = each.key
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = [for a in sort(keys(each.value.devices)) : each.value.devices[a]]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = each.key == "nfs1"
}

# The Filesystem resource's device in the cluster.
output "device" {
  value = hpcstorage_ha_lvm.nfs["nfs1"].device_path
}
