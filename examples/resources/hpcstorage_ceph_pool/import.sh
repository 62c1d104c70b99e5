# A pool is imported by its admin host and name (ADMIN_HOST/NAME). Its size,
# min_size, autoscale mode, pg_num (autoscaler off) and application are read
# back with `ceph osd pool ls detail`; raw_capacity_bytes, which Ceph does
# not keep, shows in the next plan as an in-place update when configured.
terraform import hpcstorage_ceph_pool.rbd mon1/rbd
