# IBM Spectrum Scale (PixStor) with capacity expansion (R5, Dell 2020): an
# NSD server pair on 1-4 ME4084 arrays, each optionally extended by an
# ME484; 8 RAID6 (8+2) data LUNs per enclosure with 512 KiB segments;
# metadata on SSD RAID1 LUNs (the base module's 4 SSDs, or ME4024s); one
# file system with 8 MiB blocks and scatter allocation; pagepool 16 GiB on
# the NSD servers; NFS/SMB gateways. Raising array_count or me484_count
# adds disk groups, volumes and NSDs and grows the file system in place.

locals {
  arrays  = var.array_count == null ? var.arrays : slice(var.arrays, 0, min(var.array_count, length(var.arrays)))
  servers = [for s in var.nsd_servers : s.name]
  hosts   = { for s in concat(var.nsd_servers, var.gateways, var.management_server == null ? [] : [var.management_server]) : s.name => s }
  admin   = var.admin_host != null ? var.admin_host : var.nsd_servers[0].host
  bmcs    = { for n, s in local.hosts : n => s.bmc if s.bmc != null }
  # Enclosures in use: the ME4084 (enclosure 0) of every array, its ME484
  # (enclosure 1) for the first me484_count.
  enclosures = merge(
    { for ai, a in local.arrays : "a${ai + 1}_d" => { array = a, index = ai, enclosure = 0, lun0 = 0 } },
    { for ai, a in local.arrays : "a${ai + 1}_e" => { array = a, index = ai, enclosure = 1, lun0 = 8 } if ai < var.me484_count },
  )
}

# Every server is a member of the GPFS cluster: one failure domain. A later
# change that reboots them (a BIOS value) shuts GPFS down on one member
# (mmshutdown), reboots it, starts it again and waits until it is active and
# the disks it serves are up, then the next; refused while the cluster
# would lose quorum or an NSD its last server.
resource "hpcstorage_server" "this" {
  for_each        = local.bmcs
  endpoint        = each.value
  power_state     = "On"
  bios_attributes = length(var.bios_attributes) > 0 ? var.bios_attributes : null
  failure_domain = {
    name = var.cluster_name
    kind = "gpfs"
    host = local.hosts[each.key].host
    node = each.key
    # Cluster commands go through an NSD server that stays up meanwhile.
    admin_host = [for s in var.nsd_servers : s.host if s.name != each.key][0]
    timeout    = var.maintenance_timeout
  }
}

# --- Data: 8 RAID6 8+2 disk groups per enclosure, leftovers as spares. -------

data "hpcstorage_drives" "array" {
  for_each = toset(local.arrays)
  endpoint = each.key
}

data "hpcstorage_array_layout" "data" {
  for_each = local.enclosures
  drives = [for d in data.hpcstorage_drives.array[each.value.array].drives : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  } if d.enclosure == each.value.enclosure && d.media_type == "HDD"]
  policy = { raid_level = "RAID6", drives_per_group = 10, group_count = 8, media_type = "HDD", name_prefix = each.key }
}

locals {
  data_luns = merge([for k, e in local.enclosures : {
    for gi, g in data.hpcstorage_array_layout.data[k].disk_groups : g.name => {
      array = e.array, group = g, lun = e.lun0 + gi + 1, failure_group = e.index + 1
    }
  }]...)
}

resource "hpcstorage_disk_group" "data" {
  for_each   = local.data_luns
  endpoint   = each.value.array
  name       = each.key
  raid_level = each.value.group.raid_level
  drive_ids  = each.value.group.drive_ids
}

locals {
  # The HDDs left over in each array's enclosures in use (none in the first
  # ME4084 of the base module: its 4 spare bays hold the metadata SSDs).
  spares = { for a in local.arrays : a => flatten([for k, e in local.enclosures : data.hpcstorage_array_layout.data[k].spare_drive_ids if e.array == a]) }
}

resource "hpcstorage_spare_drives" "array" {
  for_each  = { for a, ids in local.spares : a => ids if length(ids) > 0 }
  endpoint  = each.key
  drive_ids = each.value
}

resource "hpcstorage_volume" "data" {
  for_each           = hpcstorage_disk_group.data
  endpoint           = each.value.endpoint
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 524288
  host_mappings      = [for s in local.servers : { host = s, lun = local.data_luns[each.key].lun }]
}

# --- Metadata: SSD RAID1 LUNs. -------------------------------------------------

data "hpcstorage_array_layout" "metadata" {
  for_each = var.metadata == "base" ? { (local.arrays[0]) = 0 } : { for i, a in var.metadata_arrays : a => i }
  drives = [for d in(var.metadata == "base" ? data.hpcstorage_drives.array[each.key].drives : data.hpcstorage_drives.metadata[each.key].drives) : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  } if d.media_type == "SSD"]
  policy = { raid_level = "RAID1", media_type = "SSD", name_prefix = "md${each.value + 1}_", leftover_as_spares = false }
}

data "hpcstorage_drives" "metadata" {
  for_each = var.metadata == "me4024" ? toset(var.metadata_arrays) : toset([])
  endpoint = each.key
}

locals {
  metadata_luns = merge([for a, i in(var.metadata == "base" ? { (local.arrays[0]) = 0 } : { for i, a in var.metadata_arrays : a => i }) : {
    for gi, g in data.hpcstorage_array_layout.metadata[a].disk_groups : g.name => {
      array = a, group = g, lun = 17 + gi, failure_group = var.metadata == "base" ? 1 : 101 + i
    }
  }]...)
}

resource "hpcstorage_disk_group" "metadata" {
  for_each   = local.metadata_luns
  endpoint   = each.value.array
  name       = each.key
  raid_level = each.value.group.raid_level
  drive_ids  = each.value.group.drive_ids
}

resource "hpcstorage_volume" "metadata" {
  for_each           = hpcstorage_disk_group.metadata
  endpoint           = each.value.endpoint
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 131072
  host_mappings      = [for s in local.servers : { host = s, lun = local.metadata_luns[each.key].lun }]
}

# --- The cluster, its NSDs, the file system, the gateways. ---------------------

resource "hpcstorage_gpfs_cluster" "this" {
  host    = local.admin
  name    = var.cluster_name
  version = var.gpfs_version
  nodes = merge(
    { for s in var.nsd_servers : s.name => ["quorum", "manager", "nsd_server"] },
    { for g in var.gateways : g.name => ["gateway"] },
    var.management_server == null ? {} : { (var.management_server.name) = ["quorum"] },
  )
  node_classes = { nsdServers = local.servers }
  config = {
    all        = merge({ maxblocksize = var.block_size }, length(var.gateways) > 0 ? { cesSharedRoot = "${var.mount_point}/.ces" } : {})
    nsdServers = { pagepool = var.pagepool }
  }
  # A block_size above the running cluster's maxblocksize needs GPFS down
  # on every node: refused at plan unless the window is accepted here.
  allow_downtime = var.allow_downtime
  depends_on     = [hpcstorage_server.this]
}

resource "hpcstorage_gpfs_nsds" "this" {
  host          = local.admin
  name          = var.cluster_name
  cluster_nodes = hpcstorage_gpfs_cluster.this.node_names
  server_hosts  = { for s in var.nsd_servers : s.name => s.host }
  nsds = concat(
    [for k, v in hpcstorage_volume.metadata : {
      name = k, wwn = v.wwn, servers = local.servers, usage = "metadataOnly", failure_group = local.metadata_luns[k].failure_group, pool = "system"
    }],
    [for k, v in hpcstorage_volume.data : {
      name = k, wwn = v.wwn, servers = local.servers, usage = "dataOnly", failure_group = local.data_luns[k].failure_group, pool = "data"
    }],
  )
}

resource "hpcstorage_gpfs_filesystem" "this" {
  host                = local.admin
  version             = hpcstorage_gpfs_cluster.this.version
  device              = var.device
  mount_point         = var.mount_point
  block_size          = var.block_size
  metadata_block_size = var.metadata_block_size
  allocation          = "scatter"
  num_nodes           = var.num_nodes
  max_block_size      = hpcstorage_gpfs_cluster.this.max_block_size
  rebalance_on_add    = var.rebalance_on_add
  disks = [for n in hpcstorage_gpfs_nsds.this.nsds : {
    nsd = n.name, usage = n.usage, failure_group = n.failure_group, pool = n.pool
  }]
  pools            = [{ name = "data", block_size = var.block_size, layout_map = "scatter" }]
  placement_policy = "RULE 'default' SET POOL 'data'\n"
}

resource "hpcstorage_gpfs_gateways" "this" {
  count         = length(var.gateways) > 0 ? 1 : 0
  host          = local.admin
  name          = var.cluster_name
  filesystem    = hpcstorage_gpfs_filesystem.this.id
  nodes         = [for g in var.gateways : g.name]
  services      = ["NFS", "SMB"]
  exports       = [{ path = var.mount_point, clients = var.nfs_clients }]
  ces_addresses = var.ces_addresses
  smb_exports   = [{ name = var.device, path = var.mount_point, options = var.smb_options }]
}
