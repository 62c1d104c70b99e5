# R4: Ceph on all-flash servers. A cephadm cluster (monitors and managers on
# the mon nodes), one OSD spec taking every KIOXIA CM6 NVMe of the OSD
# nodes (checked at plan against their devices), a replicated RBD pool, the
# images (one set: one request per refresh and apply) and the clients, each
# mapping its own images.

locals {
  first_mon = sort(keys(var.mons))[0]
  images = merge([for c in sort(keys(var.clients)) : {
    for i in range(1, var.images_per_client + 1) : format("%s-img%02d", c, i) => { size = var.image_size, client = c }
  }]...)
}

data "hpcstorage_node_facts" "osd" {
  for_each = var.osd_nodes
  host     = each.value.host
}

# The OSD hosts with a BMC: one failure domain (CRUSH failure domain host).
# A later change that reboots them (a BIOS value) sets noout on one host,
# reboots it, waits until its OSDs are up and every PG is active+clean,
# clears noout, then the next; refused while a pool could not keep min_size
# replicas on the other hosts. Cluster commands run on the first monitor
# (it holds the admin keyring); the servers do not depend on the cluster,
# so a bare-metal apply powers them on first.
resource "hpcstorage_server" "osd" {
  for_each        = { for n, o in var.osd_nodes : n => o if o.bmc != null && o.bmc != "" }
  endpoint        = each.value.bmc
  power_state     = "On"
  bios_attributes = length(var.bios_attributes) > 0 ? var.bios_attributes : null
  failure_domain = {
    name       = var.cluster_name
    kind       = "ceph"
    host       = each.value.host
    node       = each.key
    admin_host = var.mons[local.first_mon].host
    timeout    = var.maintenance_timeout
  }
}

resource "hpcstorage_ceph_cluster" "this" {
  bootstrap_host  = local.first_mon
  mon_ip          = var.mons[local.first_mon].addr
  public_network  = var.public_network
  cluster_network = var.cluster_network
  hosts = merge(
    { for n, m in var.mons : n => { host = m.host, addr = m.addr, labels = ["mon", "mgr"] } },
    { for n, o in var.osd_nodes : n => { host = o.host, addr = o.addr, labels = ["osd"] } },
  )
  mon_count    = length(var.mons)
  mgr_count    = min(2, length(var.mons))
  release      = var.release
  ceph_version = var.ceph_version
}

resource "hpcstorage_ceph_osd_spec" "nvme" {
  admin_host      = hpcstorage_ceph_cluster.this.admin_host
  service_id      = "nvme"
  placement_label = "osd"
  release         = hpcstorage_ceph_cluster.this.release
  hosts = { for n, f in data.hpcstorage_node_facts.osd : n => {
    devices = [for d in f.block_devices : {
      name = d.name, size_bytes = d.size_bytes, rotational = d.rotational, model = d.model, vendor = d.vendor
    }]
  } }
  data_devices = {
    model      = var.osd_model
    rotational = false
  }
  osds_per_device = var.osds_per_device
}

resource "hpcstorage_ceph_pool" "rbd" {
  admin_host         = hpcstorage_ceph_cluster.this.admin_host
  name               = var.pool
  size               = var.pool_size
  raw_capacity_bytes = hpcstorage_ceph_osd_spec.nvme.raw_bytes
}

resource "hpcstorage_rbd_images" "this" {
  admin_host          = hpcstorage_ceph_cluster.this.admin_host
  pool                = hpcstorage_ceph_pool.rbd.name
  pool_capacity_bytes = hpcstorage_ceph_pool.rbd.capacity_bytes
  images              = local.images
}

resource "hpcstorage_rbd_client" "this" {
  for_each      = var.clients
  host          = each.value.host
  admin_host    = hpcstorage_ceph_cluster.this.admin_host
  name          = each.key
  pool          = hpcstorage_ceph_pool.rbd.name
  images        = sort([for name, img in local.images : name if img.client == each.key])
  image_clients = hpcstorage_rbd_images.this.clients
  fsid          = hpcstorage_ceph_cluster.this.fsid
  mon_hosts     = hpcstorage_ceph_cluster.this.mon_hosts
}
