# One BeeGFS building block (R3, NetApp 2024): two servers sharing their
# volumes; the profile decides which services the block runs. Private to
# beegfs-building-block, which calls it once per block of its list.

locals {
  with_mgmt = var.profile == "base"
  with_meta = var.profile != "storage"
  # With HA, services reach mgmtd on its floating IP (the base block's).
  mgmtd   = var.mgmtd_host != null ? var.mgmtd_host : (var.ha ? cidrhost(var.ha_floating_network, var.block * 32 + 1) : var.servers[0].name)
  letters = "abcdefghijklmnopqrstuvwxyz"

  mdts = { for i, v in(local.with_meta ? local.metadata_volumes : []) : format("b%02d-mdt%02d", var.block, i + 1) => merge(v, {
    index = i
    # position of this MDT among its server's MDTs
    slot = length([for j, w in local.metadata_volumes : j if w.server == v.server && j < i])
  }) }
  per_server = { for s in [0, 1] : s => length([for v in local.metadata_volumes : v if v.server == s]) }
  sts        = { for i, v in local.storage_volumes : format("b%02d-st%02d", var.block, i + 1) => merge(v, { index = i }) }
}

check "inputs" {
  assert {
    condition     = !local.with_meta || length(local.metadata_volumes) > 0
    error_message = "Profile ${var.profile} runs metadata services: give metadata_volumes, or an array to carve."
  }
  assert {
    condition     = length(local.storage_volumes) > 0
    error_message = "Every block serves storage targets: give storage_volumes, or an array to carve."
  }
  assert {
    condition     = var.array == null || (length(var.metadata_volumes) == 0 && length(var.storage_volumes) == 0 && var.management_volume == null)
    error_message = "With array set the module carves the volumes itself: leave metadata_volumes, storage_volumes and management_volume unset."
  }
  assert {
    condition     = !var.ha || local.with_mgmt || var.mgmtd_host != null
    error_message = "With HA, blocks other than base reach mgmtd on the base block's floating IP: set mgmtd_host to the base block's mgmtd_host output."
  }
  assert {
    condition     = local.with_mgmt || var.mgmtd_host != null
    error_message = "Only the base block runs the management service: set mgmtd_host to the base block's first server."
  }
  assert {
    condition     = (var.conn_auth_secret == null) != (var.conn_auth_secret_file == null)
    error_message = "Set exactly one of conn_auth_secret and conn_auth_secret_file."
  }
}

# Without HA: each server formats, mounts and serves its own volumes.
resource "hpcstorage_beegfs_target" "mgmt" {
  count       = !var.ha && local.with_mgmt && local.management_volume != null ? 1 : 0
  host        = var.servers[local.management_volume.server].host
  wwn         = local.management_volume.wwn
  kind        = "management"
  mount_point = format("/data/b%02d-mgmt", var.block)
}

resource "hpcstorage_beegfs_target" "mdt" {
  for_each    = var.ha ? {} : local.mdts
  host        = var.servers[each.value.server].host
  wwn         = each.value.wwn
  kind        = "metadata"
  mount_point = "/data/${each.key}"
}

resource "hpcstorage_beegfs_target" "st" {
  for_each           = var.ha ? {} : local.sts
  host               = var.servers[each.value.server].host
  wwn                = each.value.wwn
  kind               = "storage"
  mount_point        = "/data/${each.key}"
  segment_size_bytes = each.value.segment_size_bytes
  data_drives        = each.value.data_drives
}

resource "hpcstorage_beegfs_management" "this" {
  count = !var.ha && local.with_mgmt ? 1 : 0
  host  = var.servers[0].host
  directory = (local.management_volume != null ? "${hpcstorage_beegfs_target.mgmt[0].mount_point}/mgmtd" :
  "${values(hpcstorage_beegfs_target.mdt)[0].mount_point}/mgmtd")
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
}

resource "hpcstorage_beegfs_metadata" "this" {
  for_each              = !var.ha && local.with_meta ? { for i, s in var.servers : s.name => i if local.per_server[i] > 0 } : {}
  host                  = var.servers[each.value].host
  mgmtd_host            = local.mgmtd
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  instances = [for k, m in local.mdts : {
    name      = format("b%02d-meta%s-numa%d-%d", var.block, upper(substr(local.letters, each.value, 1)), m.slot % var.numa_zones, floor(m.slot / var.numa_zones) + 1)
    directory = "${hpcstorage_beegfs_target.mdt[k].mount_point}/meta"
    node_id   = var.block * 100 + m.index + 1
    port      = 8005 + 10 * m.slot
    numa_zone = m.slot % var.numa_zones
  } if m.server == each.value]
  depends_on = [hpcstorage_beegfs_management.this]
}

resource "hpcstorage_beegfs_storage" "this" {
  for_each              = var.ha ? {} : { for i, s in var.servers : s.name => i if length([for v in local.storage_volumes : v if v.server == i]) > 0 }
  host                  = var.servers[each.value].host
  mgmtd_host            = local.mgmtd
  node_id               = var.block * 100 + each.value + 1
  numa_zone             = each.value % var.numa_zones
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  targets = [for k, t in local.sts : {
    id        = var.block * 1000 + t.index + 1
    directory = "${hpcstorage_beegfs_target.st[k].mount_point}/storage"
  } if t.server == each.value]
  depends_on = [hpcstorage_beegfs_management.this]
}
