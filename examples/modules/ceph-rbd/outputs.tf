output "fsid" {
  description = "The cluster's fsid."
  value       = hpcstorage_ceph_cluster.this.fsid
}

output "mons" {
  description = "Monitor names."
  value       = hpcstorage_ceph_cluster.this.mons
}

output "osd_devices" {
  description = "OSD node to the NVMe devices that became OSDs."
  value       = hpcstorage_ceph_osd_spec.nvme.osd_devices
}

output "osd_count" {
  description = "OSD daemons (R4: 88)."
  value       = hpcstorage_ceph_osd_spec.nvme.osd_count
}

output "pool_capacity_bytes" {
  description = "What the pool holds at its replication."
  value       = hpcstorage_ceph_pool.rbd.capacity_bytes
}

output "mapped" {
  description = "Client to its mapped images (POOL/IMAGE to /dev/rbdN)."
  value       = { for c, r in hpcstorage_rbd_client.this : c => r.mapped }
}
