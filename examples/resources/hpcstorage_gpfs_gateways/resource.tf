# The file system exported over NFS (and SMB enabled) from the CES
# gateways, read-write for the campus network, read-only elsewhere.
resource "hpcstorage_gpfs_gateways" "r5" {
  host       = "nsd1"
  name       = "r5"
  filesystem = "fs1" # hpcstorage_gpfs_filesystem.fs1.id
  nodes      = ["gw1", "gw2"]
  services   = ["NFS", "SMB"]
  exports = [{
    path = "/gpfs/fs1"
    clients = [
      { spec = "10.20.0.0/16", options = "Access_Type=RW,Squash=root_squash" },
      { spec = "*", options = "Access_Type=RO" },
    ]
  }]
}
