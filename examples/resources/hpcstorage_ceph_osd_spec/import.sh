# An OSD spec is imported by its admin host and service_id
# (ADMIN_HOST/SERVICE_ID). It adopts what this provider applied: the
# configuration is read back from the record each apply leaves on the admin
# host, and the OSDs from `ceph orch device ls`.
terraform import hpcstorage_ceph_osd_spec.nvme mon1/nvme
