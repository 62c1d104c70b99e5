# A cluster is imported by its bootstrap monitor's SSH address and its fsid
# (ADMIN_HOST/FSID). Import adopts what this provider applied: every apply
# also records the configuration on the admin node
# (/var/lib/hpcstorage/resources/ceph-cluster.json) and import reads it back;
# the monitors, fsid and cephadm's key are read from the cluster.
terraform import hpcstorage_ceph_cluster.r4 10.40.0.1:22/2f1c6e9a-5b1e-4d0a-9d2c-7a3b8e4f6a10
