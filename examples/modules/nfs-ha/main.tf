# NFS storage, high availability (R2, Dell NSS 7.4-HA): two R740 NFS
# servers in an active-passive pacemaker/corosync pair, both cabled twice
# (two SAS paths) to one ME4084 carved into 8 RAID6 8+2 volumes and 4
# global spares. Each volume is multipathed on both servers; one HA-LVM
# volume group (system ID) holds one logical volume striped over the 8,
# with XFS aligned to it. The cluster runs R2's group on one server at a
# time: LVM-activate, Filesystem, nfsserver (its state on the file system),
# one exportfs per export, the floating IP, nfsnotify. Each server is fenced
# through its BMC (fence_redfish).

locals {
  names   = [for s in var.servers : s.name]
  by_name = { for s in var.servers : s.name => s }
  first   = var.servers[0].name
  group   = "nfsgroup"
}

# Servers: powered on with the HPC BIOS profile (inventory in the outputs).
# Both are one failure domain: a later change that reboots them (a BIOS
# value) puts one in standby, reboots it, brings it back, then the other,
# so the NFS service only ever fails over.
resource "hpcstorage_server" "this" {
  for_each        = local.by_name
  endpoint        = each.value.bmc
  power_state     = "On"
  bios_attributes = var.bios_attributes
  firmware        = length(var.firmware) > 0 ? var.firmware : null
  # Cluster commands go through the other server, which stays up while
  # this one reboots (and can tell whether an interrupted run left it out).
  failure_domain = {
    name       = var.cluster_name
    kind       = "pacemaker"
    host       = each.value.host
    node       = each.key
    admin_host = [for s in var.servers : s.host if s.name != each.key][0]
    timeout    = var.maintenance_timeout
  }
}

# --- The ME4084: 8 RAID6 8+2 groups, the 4 drives left as global spares, ---
# --- one volume per group mapped to both servers under the same LUN. ------

data "hpcstorage_drives" "array" {
  endpoint = var.array
}

data "hpcstorage_array_layout" "array" {
  drives = [for d in data.hpcstorage_drives.array.drives : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  }]
  policy = { raid_level = "RAID6", drives_per_group = 10, group_count = 8, name_prefix = "nfsdg" }
}

locals {
  groups = { for i, g in data.hpcstorage_array_layout.array.disk_groups : format("nfs_vol%d", i + 1) => merge(g, { lun = i + 1 }) }
}

resource "hpcstorage_disk_group" "this" {
  for_each   = local.groups
  endpoint   = var.array
  name       = each.value.name
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}

resource "hpcstorage_spare_drives" "this" {
  endpoint  = var.array
  drive_ids = data.hpcstorage_array_layout.array.spare_drive_ids
}

resource "hpcstorage_volume" "this" {
  for_each           = hpcstorage_disk_group.this
  endpoint           = var.array
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = var.segment_size_bytes
  host_mappings      = [for s in var.servers : { host = s.name, lun = local.groups[each.key].lun }]
}

# --- Both servers: tuning, multipath, HA-LVM, the NFS server. -------------

data "hpcstorage_tuning_profile" "nfs" {
  name = "nfs-server"
}

resource "hpcstorage_node_config" "this" {
  for_each       = var.tune_nodes ? local.by_name : {}
  host           = each.value.host
  owner          = "r2-nfs-tuning"
  package_floors = data.hpcstorage_tuning_profile.nfs.package_floors
  block_queues   = data.hpcstorage_tuning_profile.nfs.block_queues
  depends_on     = [hpcstorage_volume.this]
}

resource "hpcstorage_multipath" "this" {
  for_each = local.by_name
  host     = each.value.host
  volumes  = { for name, v in hpcstorage_volume.this : name => v.wwn }
}

# Created once from the first server, never activated outside the cluster.
resource "hpcstorage_ha_lvm" "this" {
  for_each           = hpcstorage_multipath.this
  host               = each.value.host
  volume_group       = var.volume_group
  logical_volume     = var.logical_volume
  devices            = [for k in sort(keys(each.value.devices)) : each.value.devices[k]]
  segment_size_bytes = var.segment_size_bytes
  data_drives        = 8
  create             = each.key == local.first
}

# nfsd reads its settings when the cluster starts it: a later change (the
# thread count) lands on one server at a time while it is in standby, and
# the failback starts the NFS group there again with the new settings.
resource "hpcstorage_nfs_server" "this" {
  for_each     = local.by_name
  host         = each.value.host
  threads      = var.nfsd_threads
  idmap_domain = var.idmap_domain
  failure_domain = {
    name       = var.cluster_name
    kind       = "pacemaker"
    node       = each.key
    admin_host = [for s in var.servers : s.host if s.name != each.key][0]
    timeout    = var.maintenance_timeout
  }
}

# --- The cluster. ------------------------------------------------------------

locals {
  ocf = "heartbeat"
  members = concat(
    [
      { id = "${local.group}-lvm", type = "LVM-activate", params = { vgname = var.volume_group, vg_access_mode = "system_id" } },
      { id = "${local.group}-fs", type = "Filesystem", params = {
        device    = hpcstorage_ha_lvm.this[local.first].device_path
        directory = var.mount_point
        fstype    = "xfs"
        options   = var.mount_options
      } },
      # nfsnotify, once the IP is up, tells the clients to reclaim locks.
      { id = "${local.group}-server", type = "nfsserver", params = {
        nfs_shared_infodir = "${var.mount_point}/nfsinfo"
        nfs_ip             = var.floating_ip.ip
        nfs_no_notify      = "true"
      } },
    ],
    [for i, e in var.exports : {
      id     = "${local.group}-export-${i + 1}"
      type   = "exportfs"
      params = { directory = e.directory, clientspec = e.client_spec, options = e.options, fsid = tostring(e.fsid) }
    }],
    [
      { id = "${local.group}-ip", type = "IPaddr2", params = merge(
        { ip = var.floating_ip.ip, cidr_netmask = tostring(var.floating_ip.cidr_netmask) },
        var.floating_ip.nic == null ? {} : { nic = var.floating_ip.nic },
      ) },
      { id = "${local.group}-notify", type = "nfsnotify", params = { source_host = var.floating_ip.ip } },
    ],
  )
}

resource "hpcstorage_ha_cluster" "this" {
  name      = var.cluster_name
  transport = var.transport
  # "3" on Pacemaker 3 nodes (RHEL 10).
  pacemaker_version = var.pacemaker_version
  two_node          = true
  networks          = [var.cluster_network]
  authkey_file      = var.authkey_file

  nodes = { for s in var.servers : s.name => {
    host    = s.host
    addrs   = [s.ring_addr]
    standby = contains(var.standby, s.name)
    fence = {
      endpoint    = s.bmc
      systems_uri = "/redfish/v1/Systems/${hpcstorage_server.this[s.name].system_id}"
      params      = s.name == local.first ? { pcmk_delay_base = var.fence_delay } : {}
    }
  } }

  properties        = { "no-quorum-policy" = "ignore" }
  resource_defaults = { "resource-stickiness" = "100" }
  groups            = [{ id = local.group, members = [for m in local.members : merge(m, { provider = local.ocf })] }]
  locations         = [{ id = "${local.group}-prefers-${local.first}", rsc = local.group, node = local.first, score = "100" }]

  # The file system exists and NFS is configured (disabled at boot) on both
  # servers before the cluster starts the group.
  depends_on = [hpcstorage_ha_lvm.this, hpcstorage_nfs_server.this]
}
