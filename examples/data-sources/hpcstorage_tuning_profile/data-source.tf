# R2: the NFS server preset (256 nfsd threads, mq-deadline, R2's package floors).
data "hpcstorage_tuning_profile" "nfs" {
  name = "nfs-server"
}

# A converged BeeGFS storage + Ceph OSD node: both presets set
# vm.zone_reclaim_mode (1 vs 0) and vm.min_free_kbytes, and only one
# owner may hold a key on a node: leave them to the BeeGFS preset.
data "hpcstorage_tuning_profile" "ceph" {
  name = "ceph-osd"
  overrides = {
    "sysctl:vm.zone_reclaim_mode" = ""
    "sysctl:vm.min_free_kbytes"   = ""
  }
}

output "nfs_settings" {
  value = data.hpcstorage_tuning_profile.nfs.settings
}
