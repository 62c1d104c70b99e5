# R4: cephadm bootstrap on mon1, monitors and managers on the mon nodes,
# four OSD nodes labelled for the OSD spec.
resource "hpcstorage_ceph_cluster" "r4" {
  bootstrap_host  = "mon1"
  mon_ip          = "10.40.0.1"
  public_network  = "10.40.0.0/24"
  cluster_network = "10.41.0.0/24"
  hosts = merge(
    { for i in [1, 2, 3] : "mon${i}" => { host = "mon${i}", addr = "10.40.0.${i}", labels = ["mon", "mgr"] } },
    { for i in [1, 2, 3, 4] : "osd${i}" => { host = "osd${i}", addr = "10.40.0.${10 + i}", labels = ["osd"] } },
  )
  mon_count = 3
  mgr_count = 2
}
