# R4: 200 images of 100 GB, 20 per client, as one set.
resource "hpcstorage_rbd_images" "r4" {
  admin_host          = "mon1"
  pool                = "rbd"
  pool_capacity_bytes = 168960000000000 # hpcstorage_ceph_pool.rbd.capacity_bytes
  images = merge([for c in range(1, 11) : {
    for i in range(1, 21) : format("client%02d-img%02d", c, i) => { size = "100G", client = format("client%02d", c) }
  }]...)
}
