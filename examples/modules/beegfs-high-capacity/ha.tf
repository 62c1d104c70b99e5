# HA (ha = true, the default): R1's two pairs run their BeeGFS services
# under pacemaker. The metadata pair runs mgmtd (its store in a folder of
# metadata target 1, so its group runs with, and after, that target's
# instance) and the 12 metadata instances; the storage pair one storage
# service per server over its 16 targets. Each group prefers the server its
# targets were given to (server A's instances prefer A) and moves to the
# other server of its pair when that one fails (fenced through its BMC) or
# is in standby. hpcstorage_beegfs_ha_services puts every instance's config
# on both servers of its pair (units disabled: the cluster starts them) and
# formats and initialises each target once on its preferred server.
#
# ha_clusters = "pair": one two-node cluster per pair (what Dell's guide
# builds); "file_system": one cluster of the four servers, each pair's
# groups kept on that pair (NetApp's role builds one cluster per file
# system).

locals {
  ha_prefix  = split("/", var.ha_floating_network)[1]
  ha_ip      = { for k, i in { mgmt = 1 } : k => cidrhost(var.ha_floating_network, i) }
  meta_names = [for s in var.metadata_servers : s.name]
  stor_names = [for s in var.storage_servers : s.name]
  meta_name  = { for k, m in local.mdts : k => format("meta%s-numa%d-%d", upper(substr("abcdefghijklmnopqrstuvwxyz", index(local.meta_names, m.server), 1)), floor(m.slot / local.mdts_per_zone), m.slot % local.mdts_per_zone + 1) }

  ha_meta_services = concat([{
    kind           = "management", name = "mgmt", floating_ip = "${local.ha_ip.mgmt}/${local.ha_prefix}", interface = var.ha_interface
    preferred_node = local.mdts["mdt01"].server, with = local.meta_name["mdt01"], directory = "/data/mdt01/mgmtd"
    node_id        = null, port = null, numa_zone = null, targets = [], storage_targets = []
    }], [for k, m in local.mdts : {
    kind      = "metadata", name = local.meta_name[k], floating_ip = "${cidrhost(var.ha_floating_network, 2 + m.index)}/${local.ha_prefix}"
    interface = var.ha_interface, preferred_node = m.server, with = null, directory = "/data/${k}/meta"
    node_id   = m.index + 1, port = 8005 + 10 * m.slot, numa_zone = floor(m.slot / local.mdts_per_zone)
    targets = [{ wwn = hpcstorage_volume.mdt[k].wwn, mount_point = "/data/${k}", mapped_to = [for h in hpcstorage_volume.mdt[k].host_mappings : h.host],
    segment_size_bytes = null, data_drives = null }]
    storage_targets = []
  }])
  ha_stor_services = [for i, s in var.storage_servers : {
    kind      = "storage", name = s.name, floating_ip = "${cidrhost(var.ha_floating_network, 32 + i)}/${local.ha_prefix}"
    interface = var.ha_interface, preferred_node = s.name, with = null, directory = null
    node_id   = i + 1, port = 8003, numa_zone = 0
    targets = [for k, t in local.sts : { wwn = hpcstorage_volume.st[k].wwn, mount_point = "/data/${k}",
      mapped_to = [for h in hpcstorage_volume.st[k].host_mappings : h.host],
    segment_size_bytes = hpcstorage_volume.st[k].segment_size_bytes, data_drives = length(t.group.drive_ids) - 2 } if t.server == s.name]
    storage_targets = [for k, t in local.sts : { id = 101 + t.index, directory = "/data/${k}/storage", pool = 1 } if t.server == s.name]
  }]
  ha_pairs = {
    metadata = { nodes = local.meta_names, services = local.ha_meta_services }
    storage  = { nodes = local.stor_names, services = local.ha_stor_services }
  }
  ha_all_nodes = concat(local.meta_names, local.stor_names)
  ha_node_pair = merge({ for n in local.meta_names : n => "metadata" }, { for n in local.stor_names : n => "storage" })
  ha_hosts     = merge(local.meta_host, local.stor_host)
  ha_servers   = { for s in concat(var.metadata_servers, var.storage_servers) : s.name => s }
  # Cluster name => its nodes, by ha_clusters.
  ha_clusters = var.ha_clusters == "pair" ? { "beegfs-meta" = local.meta_names, "beegfs-storage" = local.stor_names } : { beegfs = local.ha_all_nodes }
  # Each HA server's failure domain (its cluster) and a peer in it.
  ha_domain = var.ha ? merge([for c, nodes in local.ha_clusters : { for n in nodes : n => { cluster = c, peer = [for p in nodes : p if p != n][0] } }]...) : {}
}

check "ha" {
  assert {
    condition     = !var.ha || (length(var.metadata_servers) == 2 && length(var.storage_servers) == 2)
    error_message = "HA runs R1's services on two pairs: give two metadata and two storage servers (or set ha = false)."
  }
  assert {
    condition     = !var.ha || length([for s in concat(var.metadata_servers, var.storage_servers) : s if s.bmc == null]) == 0
    error_message = "HA fences servers through their BMCs: give every metadata and storage server its bmc."
  }
}

resource "hpcstorage_beegfs_ha_services" "this" {
  for_each              = var.ha ? local.ha_node_pair : {}
  host                  = local.ha_hosts[each.key]
  node                  = each.key
  nodes                 = local.ha_pairs[each.value].nodes
  cluster_nodes         = var.ha_clusters == "pair" ? null : local.ha_all_nodes
  mgmtd_ip              = each.value == "storage" ? local.ha_ip.mgmt : null
  services              = [for sv in local.ha_pairs[each.value].services : merge(sv, { settings = sv.kind == "storage" ? var.storage_settings : null })]
  conn_auth_secret      = var.conn_auth_secret
  conn_auth_secret_file = var.conn_auth_secret_file
  # The services read their files when the cluster starts them: a later
  # change (storage_settings) lands on one server of a cluster at a time,
  # in standby, and the failback starts its services with it.
  failure_domain = {
    name       = local.ha_domain[each.key].cluster
    kind       = "pacemaker"
    node       = each.key
    admin_host = local.ha_hosts[local.ha_domain[each.key].peer]
    timeout    = var.maintenance_timeout
  }
}

resource "hpcstorage_ha_cluster" "this" {
  for_each     = var.ha ? local.ha_clusters : {}
  name         = each.key
  two_node     = length(each.value) == 2
  authkey_file = var.corosync_authkey_file
  # "3" on Pacemaker 3 nodes (RHEL 10).
  pacemaker_version = var.pacemaker_version
  networks          = [var.ha_cluster_network]
  nodes = { for n in each.value : n => {
    host    = local.ha_hosts[n]
    addrs   = [cidrhost(var.ha_cluster_network, index(local.ha_all_nodes, n) + 1)]
    standby = contains(var.standby, n)
    fence = {
      endpoint    = local.ha_servers[n].bmc
      systems_uri = "/redfish/v1/Systems/${hpcstorage_server.this[n].system_id}"
    }
  } }
  groups      = flatten([for p in distinct([for n in each.value : local.ha_node_pair[n]]) : hpcstorage_beegfs_ha_services.this[local.ha_pairs[p].nodes[0]].groups])
  locations   = flatten([for p in distinct([for n in each.value : local.ha_node_pair[n]]) : hpcstorage_beegfs_ha_services.this[local.ha_pairs[p].nodes[0]].locations])
  colocations = flatten([for p in distinct([for n in each.value : local.ha_node_pair[n]]) : hpcstorage_beegfs_ha_services.this[local.ha_pairs[p].nodes[0]].colocations])
  orders      = flatten([for p in distinct([for n in each.value : local.ha_node_pair[n]]) : hpcstorage_beegfs_ha_services.this[local.ha_pairs[p].nodes[0]].orders])
  depends_on  = [hpcstorage_beegfs_ha_services.this]
}
