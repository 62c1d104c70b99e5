package lab

// R2 runs its NFS service under pacemaker (hpcstorage_ha_cluster): the lab
// writes it a corosync authkey too (ha.go).
func init() { haDesigns["r2"] = true }
