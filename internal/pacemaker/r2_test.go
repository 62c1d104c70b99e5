package pacemaker

// r2 is the R2 cluster the tests check: two R740s fenced through their
// iDRACs, the NFS group preferring nfs1.
func r2() Cluster {
	g, err := r2Group().Group()
	if err != nil {
		panic(err)
	}
	return Cluster{
		Name:      "nss",
		TwoNode:   true,
		Transport: "knet",
		Networks:  []string{"10.10.1.0/24"},
		Nodes: []Node{
			{Name: "nfs1", ID: 1, Addrs: []string{"10.10.1.11"}},
			{Name: "nfs2", ID: 2, Addrs: []string{"10.10.1.12"}},
		},
		Fencing: []FenceDevice{
			RedfishFence(RedfishBMC{Node: "nfs1", Address: "10.10.0.11:443", SystemsURI: "/redfish/v1/Systems/System.Embedded.1", Username: "root", Insecure: true}),
			RedfishFence(RedfishBMC{Node: "nfs2", Address: "10.10.0.12:443", SystemsURI: "/redfish/v1/Systems/System.Embedded.1", Username: "root", Insecure: true}),
		},
		Groups:    []Group{g},
		Locations: []Location{{ID: "prefer-nfsgroup-nfs1", Rsc: "nfsgroup", Node: "nfs1", Score: "100"}},
	}
}

func r2Group() NFSGroup {
	return NFSGroup{
		ID: "nfsgroup", VolumeGroup: "vg_nfs", LogicalVolume: "lv_nfs", MountPoint: "/mnt/nfs", FSType: "xfs",
		MountOptions: "noatime,nodiratime",
		Exports: []Export{
			{Directory: "/mnt/nfs/export", ClientSpec: "10.10.0.0/16", Options: "rw,sync,no_root_squash", FSID: 1},
			{Directory: "/mnt/nfs/scratch", ClientSpec: "10.20.0.0/16", Options: "rw,async", FSID: 2},
		},
		FloatingIP: "10.10.0.100", CIDRNetmask: 16,
	}
}
