# R4: every KIOXIA CM6 NVMe of the hosts labelled osd becomes an OSD; the
# plan shows which devices on each host, from the nodes' facts.
data "hpcstorage_node_facts" "osd" {
  for_each = toset(["osd1", "osd2", "osd3", "osd4"])
  host     = each.key
}

resource "hpcstorage_ceph_osd_spec" "nvme" {
  admin_host      = "mon1"
  service_id      = "nvme"
  placement_label = "osd"
  hosts = { for n, f in data.hpcstorage_node_facts.osd : n => {
    devices = [for d in f.block_devices : {
      name = d.name, size_bytes = d.size_bytes, rotational = d.rotational, model = d.model, vendor = d.vendor
    }]
  } }
  data_devices = {
    model      = "KCM6XRUL3T84"
    rotational = false
  }
}
