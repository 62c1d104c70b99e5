# HA (ha = true, the default): the block's two servers run every BeeGFS
# service of the block under pacemaker, as NetApp's BeeGFS HA role does:
# one resource group per service (floating IP, target mounts, the service),
# preferring the server its volume alternates to; either server runs all of
# them when the other fails or is in standby. hpcstorage_beegfs_ha_services
# puts the configs of every instance on both servers (units disabled: the
# cluster starts them) and formats and initialises each target once on its
# preferred server. The groups go into the block's own hpcstorage_ha_cluster
# (ha_cluster.create), or, with create = false, into one cluster for the
# whole file system built by the caller from the ha_* outputs.

locals {
  # Floating IPs: 32 per block in ha_floating_network; mgmtd .1, metadata
  # instances from .2, storage services from .16.
  ha_base      = var.block * 32
  ha_prefix    = split("/", var.ha_floating_network)[1]
  ha_ip        = { for k, i in { mgmt = 1 } : k => "${cidrhost(var.ha_floating_network, local.ha_base + i)}/${local.ha_prefix}" }
  ha_names     = [for s in var.servers : s.name]
  ha_meta_name = { for k, m in local.mdts : k => format("b%02d-meta%s-numa%d-%d", var.block, upper(substr(local.letters, m.server, 1)), m.slot % var.numa_zones, floor(m.slot / var.numa_zones) + 1) }

  ha_services = concat(
    local.with_mgmt ? [{
      kind           = "management"
      name           = format("b%02d-mgmt", var.block)
      floating_ip    = local.ha_ip.mgmt
      interface      = var.ha_interface
      preferred_node = var.servers[0].name
      with           = local.management_volume == null ? local.ha_meta_name[keys(local.mdts)[0]] : null
      directory      = local.management_volume != null ? format("/data/b%02d-mgmt/mgmtd", var.block) : "/data/${keys(local.mdts)[0]}/mgmtd"
      node_id        = null
      port           = null
      numa_zone      = null
      targets = local.management_volume == null ? [] : [{
        wwn                = local.management_volume.wwn, mount_point = format("/data/b%02d-mgmt", var.block), mapped_to = local.ha_names,
        segment_size_bytes = null, data_drives = null
      }]
      storage_targets = []
    }] : [],
    [for k, m in local.mdts : {
      kind            = "metadata"
      name            = local.ha_meta_name[k]
      floating_ip     = "${cidrhost(var.ha_floating_network, local.ha_base + 2 + m.index)}/${local.ha_prefix}"
      interface       = var.ha_interface
      preferred_node  = var.servers[m.server].name
      with            = null
      directory       = "/data/${k}/meta"
      node_id         = var.block * 100 + m.index + 1
      port            = 8005 + 10 * m.slot
      numa_zone       = m.slot % var.numa_zones
      targets         = [{ wwn = m.wwn, mount_point = "/data/${k}", mapped_to = local.ha_names, segment_size_bytes = null, data_drives = null }]
      storage_targets = []
    }],
    [for i, s in var.servers : {
      kind           = "storage"
      name           = format("b%02d-stor%s", var.block, upper(substr(local.letters, i, 1)))
      floating_ip    = "${cidrhost(var.ha_floating_network, local.ha_base + 16 + i)}/${local.ha_prefix}"
      interface      = var.ha_interface
      preferred_node = s.name
      with           = null
      directory      = null
      node_id        = var.block * 100 + i + 1
      port           = 8003 + 10 * i
      numa_zone      = i % var.numa_zones
      targets = [for k, t in local.sts : {
        wwn = t.wwn, mount_point = "/data/${k}", mapped_to = local.ha_names, segment_size_bytes = t.segment_size_bytes, data_drives = t.data_drives
      } if t.server == i]
      storage_targets = [for k, t in local.sts : { id = var.block * 1000 + t.index + 1, directory = "/data/${k}/storage", pool = 1 } if t.server == i]
    } if length([for t in local.sts : t if t.server == i]) > 0],
  )
}

resource "hpcstorage_beegfs_ha_services" "this" {
  for_each              = var.ha ? { for i, s in var.servers : s.name => s } : {}
  host                  = each.value.host
  node                  = each.key
  nodes                 = local.ha_names
  cluster_nodes         = var.ha_cluster.nodes
  mgmtd_ip              = local.with_mgmt ? null : var.mgmtd_host
  services              = local.ha_services
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
}

# The block's own cluster (ha_cluster.create): its two servers, fenced
# through their BMCs.
resource "hpcstorage_ha_cluster" "this" {
  count        = var.ha && var.ha_cluster.create ? 1 : 0
  name         = format("beegfs-b%02d", var.block)
  two_node     = true
  authkey_file = var.ha_cluster.authkey_file
  # "3" on Pacemaker 3 nodes (RHEL 10).
  pacemaker_version = var.ha_cluster.pacemaker_version
  networks          = var.ha_cluster.network == null ? null : [var.ha_cluster.network]
  nodes = { for i, s in var.servers : s.name => {
    host    = s.host
    addrs   = [s.cluster_addr]
    standby = contains(var.standby, s.name)
    fence   = { endpoint = s.bmc, systems_uri = s.systems_uri }
  } }
  groups      = hpcstorage_beegfs_ha_services.this[var.servers[0].name].groups
  locations   = hpcstorage_beegfs_ha_services.this[var.servers[0].name].locations
  colocations = hpcstorage_beegfs_ha_services.this[var.servers[0].name].colocations
  orders      = hpcstorage_beegfs_ha_services.this[var.servers[0].name].orders
  depends_on  = [hpcstorage_beegfs_ha_services.this]
}
