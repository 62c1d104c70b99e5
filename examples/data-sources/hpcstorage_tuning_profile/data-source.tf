# R2: the NFS server preset (256 nfsd threads, mq-deadline, R2's package floors).
data "hpcstorage_tuning_profile" "nfs" {
  name = "nfs-server"
}

# A converged BeeGFS storage + Ceph OSD node: both presets set
# vm.zone_reclaim_mode (1 vs 0); only one owner may hold the key.
data "hpcstorage_tuning_profile" "ceph" {
  name = "ceph-osd"
  overrides = {
    "sysctl:vm.zone_reclaim_mode" = "" # left to the BeeGFS preset
    "sysctl:vm.min_free_kbytes"   = "" # a node with less than 48 GiB of RAM
  }
}

output "nfs_settings" {
  value = data.hpcstorage_tuning_profile.nfs.settings
}
