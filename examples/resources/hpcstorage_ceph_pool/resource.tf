# R4: two replicas (min_size 1: the plan warns), autoscaled placement groups.
resource "hpcstorage_ceph_pool" "rbd" {
  admin_host         = "mon1"
  name               = "rbd"
  size               = 2
  raw_capacity_bytes = 88 * 3840000000000 # hpcstorage_ceph_osd_spec.nvme.raw_bytes
}
