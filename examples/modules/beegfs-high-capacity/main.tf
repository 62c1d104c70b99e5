# BeeGFS high capacity (R1, Dell 2020): 2 metadata servers on one ME4024
# (12 RAID1 metadata targets, 6 beegfs-meta instances per server, bound to
# NUMA zones), 2 storage servers on four ME4084s (32 RAID6 8+2 storage
# targets, 16 per server), beegfs-mgmtd on metadata target 1, clients.

check "secret" {
  assert {
    condition     = (var.conn_auth_secret == null) != (var.conn_auth_secret_file == null)
    error_message = "Set exactly one of conn_auth_secret and conn_auth_secret_file."
  }
}

locals {
  v8      = var.beegfs_version == "8"
  clients = var.client_count == null ? var.clients : slice(var.clients, 0, min(var.client_count, length(var.clients)))
  # With HA, services and clients reach mgmtd on its floating IP.
  mgmtd     = var.ha ? cidrhost(var.ha_floating_network, 1) : var.metadata_servers[0].name
  meta_host = { for s in var.metadata_servers : s.name => s.host }
  stor_host = { for s in var.storage_servers : s.name => s.host }
  bmcs = { for s in concat(var.metadata_servers, var.storage_servers, var.management_server == null ? [] : [var.management_server]) :
  s.name => s.bmc if s.bmc != null }
}

# Servers: powered on (inventory in the outputs). With HA each metadata
# and storage server is a member of its pacemaker cluster's failure
# domain: a change that reboots them (BIOS, firmware) takes one member of
# a cluster at a time, in standby while it is away, its peer watching.
resource "hpcstorage_server" "this" {
  for_each        = local.bmcs
  endpoint        = each.value
  power_state     = "On"
  bios_attributes = var.bios_attributes
  firmware        = length(var.firmware) > 0 ? var.firmware : null
  failure_domain = contains(keys(local.ha_domain), each.key) ? {
    name       = local.ha_domain[each.key].cluster
    kind       = "pacemaker"
    host       = local.ha_hosts[each.key]
    node       = each.key
    admin_host = local.ha_hosts[local.ha_domain[each.key].peer]
    timeout    = var.maintenance_timeout
  } : null
}

# --- Metadata array: every SSD pair a RAID1 disk group and one volume, -----
# --- mapped to both metadata servers. ---------------------------------------

# The layouts read the arrays' drives themselves (endpoint): no
# data.hpcstorage_drives list passed through the module, which would cost
# every plan some 800 values per ME4084 to read, convert and compare.
data "hpcstorage_array_layout" "metadata" {
  endpoint = var.metadata_array
  policy   = { raid_level = "RAID1", name_prefix = "mdt" }
}

locals {
  mdt_groups = { for i, g in data.hpcstorage_array_layout.metadata.disk_groups : format("mdt%02d", i + 1) => merge(g, { index = i }) }
  # MDTs are split evenly over the metadata servers, then over NUMA zones.
  mdts_per_server = ceil(length(local.mdt_groups) / length(var.metadata_servers))
  mdts_per_zone   = ceil(local.mdts_per_server / var.numa_zones)
  mdts = { for k, g in local.mdt_groups : k => {
    index  = g.index
    server = var.metadata_servers[floor(g.index / local.mdts_per_server)].name
    slot   = g.index % local.mdts_per_server
  } }
}

resource "hpcstorage_disk_group" "metadata" {
  for_each   = local.mdt_groups
  endpoint   = var.metadata_array
  name       = each.value.name
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}

resource "hpcstorage_volume" "mdt" {
  for_each           = hpcstorage_disk_group.metadata
  endpoint           = var.metadata_array
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 131072
  host_mappings      = [for s in var.metadata_servers : { host = s.name, lun = local.mdts[each.key].index + 1 }]
}

# --- Storage arrays: 8 RAID6 8+2 groups each, leftovers as global spares. --

data "hpcstorage_array_layout" "storage" {
  for_each = toset(var.storage_arrays)
  endpoint = each.key
  policy   = { raid_level = "RAID6", drives_per_group = 10 }
}

locals {
  st_list = flatten([for ai, a in var.storage_arrays : [
    for gi, g in data.hpcstorage_array_layout.storage[a].disk_groups : {
      array = a, group = g, lun = gi + 1, index = ai * length(data.hpcstorage_array_layout.storage[a].disk_groups) + gi
    }
  ]])
  sts_per_server = ceil(length(local.st_list) / length(var.storage_servers))
  sts = { for t in local.st_list : format("st%02d", t.index + 1) => merge(t, {
    server = var.storage_servers[floor(t.index / local.sts_per_server)].name
  }) }
}

resource "hpcstorage_disk_group" "storage" {
  for_each   = local.sts
  endpoint   = each.value.array
  name       = each.value.group.name
  raid_level = each.value.group.raid_level
  drive_ids  = each.value.group.drive_ids

  lifecycle {
    precondition {
      condition     = each.value.group.capacity_bytes == 0 || each.value.group.capacity_bytes == 8 * var.drive_size_bytes
      error_message = "Disk group ${each.value.group.name} of ${each.value.array} holds ${each.value.group.capacity_bytes} bytes, not 8 drives of drive_size_bytes = ${var.drive_size_bytes}: is it the right array?"
    }
  }
}

resource "hpcstorage_spare_drives" "storage" {
  for_each  = toset(var.storage_arrays)
  endpoint  = each.key
  drive_ids = data.hpcstorage_array_layout.storage[each.key].spare_drive_ids
}

resource "hpcstorage_volume" "st" {
  for_each           = hpcstorage_disk_group.storage
  endpoint           = each.value.endpoint
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 524288
  host_mappings      = [for s in var.storage_servers : { host = s.name, lun = local.sts[each.key].lun }]
}

# --- Node tuning (R1 paper, section "Tuning"). -----------------------------

data "hpcstorage_tuning_profile" "metadata" {
  name = "beegfs-metadata"
}

data "hpcstorage_tuning_profile" "storage" {
  name = "beegfs-storage"
}

resource "hpcstorage_node_config" "metadata" {
  for_each     = var.tune_nodes ? local.meta_host : {}
  host         = each.value
  owner        = "r1-metadata-tuning"
  sysctl       = data.hpcstorage_tuning_profile.metadata.sysctl
  thp          = data.hpcstorage_tuning_profile.metadata.thp
  block_queues = data.hpcstorage_tuning_profile.metadata.block_queues
  # Tune once the array volumes are there (on a real node the agent's udev
  # rule also catches volumes mapped later).
  depends_on = [hpcstorage_volume.mdt]
}

resource "hpcstorage_node_config" "storage" {
  for_each     = var.tune_nodes ? local.stor_host : {}
  host         = each.value
  owner        = "r1-storage-tuning"
  sysctl       = data.hpcstorage_tuning_profile.storage.sysctl
  thp          = data.hpcstorage_tuning_profile.storage.thp
  block_queues = data.hpcstorage_tuning_profile.storage.block_queues
  depends_on   = [hpcstorage_volume.st]
}

# --- BeeGFS targets: ext4 MDTs, xfs storage targets aligned to the stripe. -

# Without HA each server formats, mounts and serves its own targets (with
# HA, ha.tf).
resource "hpcstorage_beegfs_target" "mdt" {
  for_each    = var.ha ? {} : hpcstorage_volume.mdt
  host        = local.meta_host[local.mdts[each.key].server]
  wwn         = each.value.wwn
  kind        = "metadata"
  mount_point = "/data/${each.key}"
}

resource "hpcstorage_beegfs_target" "st" {
  for_each           = var.ha ? {} : hpcstorage_volume.st
  host               = local.stor_host[local.sts[each.key].server]
  wwn                = each.value.wwn
  kind               = "storage"
  mount_point        = "/data/${each.key}"
  segment_size_bytes = each.value.segment_size_bytes
  data_drives        = length(local.sts[each.key].group.drive_ids) - 2
}

# --- Services. ----------------------------------------------------------------

# R1 initialises the management store in a mgmtd folder of metadata target 1.
resource "hpcstorage_beegfs_management" "this" {
  count                 = var.ha ? 0 : 1
  host                  = hpcstorage_beegfs_target.mdt["mdt01"].host
  directory             = "${hpcstorage_beegfs_target.mdt["mdt01"].mount_point}/mgmtd"
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  version               = var.beegfs_version
  # BeeGFS 8: license and TLS material (supplied, never generated).
  license_pem   = local.v8 ? var.beegfs_license_pem : null
  license_file  = local.v8 ? var.beegfs_license_file : null
  tls_disable   = local.v8 ? var.beegfs_tls_disable : null
  tls_cert_pem  = local.v8 ? var.beegfs_tls_cert_pem : null
  tls_cert_file = local.v8 ? var.beegfs_tls_cert_file : null
  tls_key_pem   = local.v8 ? var.beegfs_tls_key_pem : null
  tls_key_file  = local.v8 ? var.beegfs_tls_key_file : null
}

# One beegfs-meta instance per MDT: metaA-numa0-1 ... (server letter, NUMA
# zone, index in the zone), each on its own port.
resource "hpcstorage_beegfs_metadata" "this" {
  for_each              = var.ha ? {} : local.meta_host
  host                  = each.value
  mgmtd_host            = local.mgmtd
  version               = var.beegfs_version
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  instances = [for k, m in local.mdts : {
    name      = format("meta%s-numa%d-%d", upper(substr("abcdefghijklmnopqrstuvwxyz", index(var.metadata_servers[*].name, each.key), 1)), floor(m.slot / local.mdts_per_zone), m.slot % local.mdts_per_zone + 1)
    directory = "${hpcstorage_beegfs_target.mdt[k].mount_point}/meta"
    node_id   = m.index + 1
    port      = 8005 + 10 * m.slot
    numa_zone = floor(m.slot / local.mdts_per_zone)
  } if m.server == each.key]
  depends_on = [hpcstorage_beegfs_management.this]
}

# One beegfs-storage instance per server with its targets.
resource "hpcstorage_beegfs_storage" "this" {
  for_each              = var.ha ? {} : local.stor_host
  host                  = each.value
  mgmtd_host            = local.mgmtd
  node_id               = index(var.storage_servers[*].name, each.key) + 1
  version               = var.beegfs_version
  numa_zone             = 0
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  targets = [for k, t in local.sts : {
    id        = 101 + t.index
    directory = "${hpcstorage_beegfs_target.st[k].mount_point}/storage"
  } if t.server == each.key]
  settings   = var.storage_settings
  depends_on = [hpcstorage_beegfs_management.this]
}

# beegfs-mon on the management server: statistics of mgmtd, meta and
# storage into InfluxDB for the BeeGFS Grafana dashboards (InfluxDB itself
# is not installed here; by default it runs beside beegfs-mon).
resource "hpcstorage_beegfs_monitor" "this" {
  count                  = var.management_server == null ? 0 : 1
  host                   = var.management_server.host
  mgmtd_host             = local.mgmtd
  version                = var.beegfs_version
  influxdb_host          = var.influxdb_host
  influxdb_port          = var.influxdb_port
  influxdb_database      = var.influxdb_database
  influxdb_username      = var.influxdb_username
  influxdb_password      = var.influxdb_password
  influxdb_password_file = var.influxdb_password_file
  conn_auth_secret       = var.conn_auth_secret
  conn_auth_secret_file  = var.conn_auth_secret_file
  depends_on             = [hpcstorage_beegfs_management.this, hpcstorage_ha_cluster.this]
}

resource "hpcstorage_beegfs_client" "this" {
  for_each    = { for c in local.clients : c.name => c.host }
  host        = each.value
  mgmtd_host  = local.mgmtd
  mount_point = var.mount_point
  version     = var.beegfs_version
  # BeeGFS 8: the certificate the beegfs command (stripe patterns) checks.
  tls_cert_pem = local.v8 && var.beegfs_tls_cert_pem == null && var.beegfs_tls_cert_file != null ? file(var.beegfs_tls_cert_file) : (local.v8 ? var.beegfs_tls_cert_pem : null)
  # A client of an HA file system keeps its files when a service moves.
  settings              = var.ha ? { sysSessionChecksEnabled = "false" } : null
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  depends_on            = [hpcstorage_beegfs_metadata.this, hpcstorage_beegfs_storage.this, hpcstorage_ha_cluster.this]
}

resource "hpcstorage_beegfs_stripe_pattern" "this" {
  for_each         = length(local.clients) > 0 ? var.stripe_patterns : {}
  host             = hpcstorage_beegfs_client.this[local.clients[0].name].host
  mount_point      = hpcstorage_beegfs_client.this[local.clients[0].name].mount_point
  path             = each.key
  chunk_size_bytes = each.value.chunk_size_bytes
  num_targets      = each.value.num_targets
  pool             = each.value.pool
  version          = var.beegfs_version
  tls_disable      = local.v8 ? var.beegfs_tls_disable : null
}
