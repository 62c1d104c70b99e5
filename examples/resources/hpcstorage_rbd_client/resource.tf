# One R4 client mapping its 20 images.
resource "hpcstorage_rbd_client" "client01" {
  host          = "client01"
  admin_host    = "mon1"
  name          = "client01"
  pool          = "rbd"
  images        = [for i in range(1, 21) : format("client01-img%02d", i)]
  image_clients = { for i in range(1, 21) : format("client01-img%02d", i) => "client01" } # hpcstorage_rbd_images.r4.clients
  fsid          = "8f3c9a52-5d1e-11ef-9b7a-525400a1b2c3"                                  # hpcstorage_ceph_cluster.r4.fsid
  mon_hosts     = ["10.40.0.1", "10.40.0.2", "10.40.0.3"]                                 # hpcstorage_ceph_cluster.r4.mon_hosts
}
