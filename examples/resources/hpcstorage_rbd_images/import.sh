# The images of a pool are imported by admin host and pool (ADMIN_HOST/POOL):
# every image the pool holds, with its size (`rbd ls -l`). Features and
# clients are not read back: set in the configuration, they show in the next
# plan as an in-place update that runs no rbd command for them.
terraform import hpcstorage_rbd_images.this mon1/rbd
