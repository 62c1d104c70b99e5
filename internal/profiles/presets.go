package profiles

import "github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"

var (
	yes = true
	no  = false
)

// BeeGFS server settings shared by metadata and storage servers: R1 tunes
// both alike; the network keys are the NetApp collection's "required"
// ones for multi-rail (several IPoIB ports per node) service nodes.
func beegfsServerSysctl() []Setting {
	return []Setting{
		{"sysctl:vm.dirty_background_ratio", "5", "R1", "the BeeGFS guide agrees; the NetApp collection's code uses 1 (see conflict dirty-ratios)"},
		{"sysctl:vm.dirty_ratio", "20", "R1", "the BeeGFS guide agrees; the NetApp collection's code uses 75 (see conflict dirty-ratios)"},
		{"sysctl:vm.min_free_kbytes", "262144", "R1", "same in the NetApp collection and the BeeGFS guide"},
		{"sysctl:vm.vfs_cache_pressure", "50", "R1", "same in the NetApp collection and the BeeGFS guide"},
		{"sysctl:vm.zone_reclaim_mode", "1", "beegfs", "also the NetApp collection; Ceph uses 0 (see conflict zone-reclaim)"},
		{"sysctl:net.ipv4.conf.all.rp_filter", "1", "netapp", "required on BeeGFS HA service nodes with several IPoIB ports"},
		{"sysctl:net.ipv4.conf.all.arp_filter", "1", "netapp", "each port answers ARP for its own address only (multi-rail)"},
		{"sysctl:net.ipv4.conf.all.arp_announce", "2", "netapp", "multi-rail"},
		{"sysctl:net.ipv4.conf.all.arp_ignore", "2", "netapp", "multi-rail"},
		{"sysctl:net.ipv4.neigh.default.gc_thresh1", "256", "netapp", ""},
		{"sysctl:net.ipv4.neigh.default.gc_thresh2", "1024", "netapp", ""},
		{"sysctl:net.ipv4.neigh.default.gc_thresh3", "2048", "netapp", ""},
		{"thp:enabled", "never", "R1", "R1 disables THP on servers; the BeeGFS guide says always (see conflict thp)"},
		{"thp:defrag", "never", "R1", "see conflict thp"},
	}
}

var presets = []Preset{
	{
		Name:    "beegfs-storage",
		Version: 1,
		Summary: "BeeGFS storage server (beegfs-storage) with HDD RAID6 targets, as in R1's storage servers and R3's building blocks.",
		Designs: []string{"R1", "R3"},
		Match:   protocol.DiskMatch{Name: "sd*", Rotational: &yes},
		Conf:    "/etc/beegfs/beegfs-storage.conf",
		Settings: append(beegfsServerSysctl(),
			Setting{"block_queue:scheduler", "mq-deadline", "R1", "R1 says deadline: its name on blk-mq kernels (see conflict scheduler-names)"},
			Setting{"block_queue:nr_requests", "2048", "R1", "BeeGFS guide 4096, NetApp 1024 (see conflict nr-requests)"},
			Setting{"block_queue:read_ahead_kb", "4096", "R1", "same in the NetApp collection and the BeeGFS guide"},
			Setting{"conf:connMaxInternodeNum", "64", "R1", "NetApp 128; package default 12"},
			Setting{"conf:tuneNumWorkers", "12", "R1", "NetApp 14; package default 12"},
			Setting{"conf:tuneUsePerTargetWorkers", "true", "R1", ""},
			Setting{"conf:tuneBindToNumaZone", "0", "R1", "pins the daemon to NUMA zone 0; use one instance per zone on multi-instance servers"},
			Setting{"conf:tuneFileReadAheadSize", "2m", "R1", ""},
		),
		Conflicts: []string{"thp", "dirty-ratios", "zone-reclaim", "nr-requests", "scheduler-names"},
	},
	{
		Name:    "beegfs-metadata",
		Version: 1,
		Summary: "BeeGFS metadata server (beegfs-meta) with SSD RAID1 targets, as in R1's metadata servers and R3's building blocks.",
		Designs: []string{"R1", "R3"},
		Match:   protocol.DiskMatch{Name: "sd*", Rotational: &no},
		Conf:    "/etc/beegfs/beegfs-meta.conf",
		Settings: append(beegfsServerSysctl(),
			Setting{"block_queue:scheduler", "mq-deadline", "beegfs", "the guide's deadline, by its blk-mq name (see conflict scheduler-names)"},
			Setting{"block_queue:nr_requests", "128", "beegfs", "metadata I/O is small and latency bound"},
			Setting{"block_queue:read_ahead_kb", "128", "beegfs", ""},
			Setting{"block_queue:max_sectors_kb", "256", "beegfs", ""},
			Setting{"conf:connMaxInternodeNum", "64", "R1", "NetApp 128; package default 12"},
			Setting{"conf:tuneNumWorkers", "12", "R1", "NetApp 0 (= 2 x cores)"},
		),
		Conflicts: []string{"thp", "dirty-ratios", "zone-reclaim", "scheduler-names"},
	},
	{
		Name:    "beegfs-client",
		Version: 1,
		Summary: "BeeGFS client (kernel module, beegfs-client service), as in R1's and R3's compute and DGX nodes.",
		Designs: []string{"R1", "R3"},
		Conf:    "/etc/beegfs/beegfs-client.conf",
		Settings: []Setting{
			{"udev_rule:70-hpcstorage-beegfs-bdi", `ACTION=="add", SUBSYSTEM=="bdi", KERNEL=="beegfs-*", ATTR{read_ahead_kb}="4096"`, "netapp",
				"read-ahead of 4 MiB on the BeeGFS backing device, set as each mount appears"},
			{"conf:connMaxInternodeNum", "24", "R1", "package default 12"},
			{"conf:connBufSize", "720896", "R1", ""},
			{"conf:tuneFileCacheType", "buffered", "R3", "the default; native uses the page cache, so re-reads (deep-learning epochs) come from memory"},
		},
		Conflicts: []string{"thp"},
	},
	{
		Name:    "nfs-server",
		Version: 1,
		Summary: "NFS server of an active-passive HA pair on HDD RAID6 volumes, as in R2. The package floors are the versions R2 " +
			"names as broken on RHEL 7 (the agent refuses to tune a node below them, before changing anything).",
		Designs:     []string{"R2"},
		Match:       protocol.DiskMatch{Name: "sd*", Rotational: &yes},
		Conf:        "/etc/nfs.conf.d/hpcstorage-nfsd.conf",
		ConfSection: "nfsd",
		Settings: []Setting{
			{"package:kernel", "3.10.0-957.5.1.el7", "R2", "3.10.0-957.el7 hangs NFS shares (kworker at 100 % CPU). An el7 floor: on nodes of another release (el9, Debian) the agent says it is not checked"},
			{"package:resource-agents", "4.1.1-12.el7_6.4", "R2", "older: nfs-idmapd fails to start, so the nfsserver cluster resource fails"},
			{"package:lvm2", "2.02.180-10.el7_6.2", "R2", "older: corrupts the first 128 KiB of a physical volume's allocatable space"},
			{"block_queue:scheduler", "mq-deadline", "R2", "R2 says deadline: its name on blk-mq kernels (see conflict scheduler-names)"},
			{"conf:threads", "256", "R2", "no studied automation sets it; the default is 8. Written as an nfs.conf drop-in"},
		},
		Conflicts: []string{"scheduler-names"},
	},
	{
		Name:    "gpfs-nsd-server",
		Version: 1,
		Summary: "IBM Storage Scale (GPFS) NSD server on RAID6 8+2 LUNs with 512 KiB segments, as in R5. The file system " +
			"settings are listed as cluster settings: they go to mmchconfig and mmcrfs, not to the node.",
		Designs: []string{"R5"},
		Match:   protocol.DiskMatch{Name: "sd*", Rotational: &yes},
		Settings: []Setting{
			{"sysctl:net.ipv4.conf.all.arp_filter", "1", "scale", "the only kernel setting the IBM roles touch"},
			{"block_queue:max_sectors_kb", "4096", "derived",
				"a RAID6 8+2 stripe of 512 KiB segments is 4 MiB (R5): requests that size reach the array as full-stripe writes"},
			{"cluster:maxblocksize", "8M", "R5", "raise it before creating the file system (error 6027-1084); needs a daemon restart"},
			{"cluster:blockSize", "8M", "R5", "mmcrfs -B; 256 sub-blocks of 32 KiB"},
			{"cluster:pagepool", "16G", "R5", "benchmarks use files at least twice this size"},
			{"cluster:blockAllocationType", "scatter", "R5", "mmcrfs -j scatter: performance stays flat as the file system fills"},
		},
	},
	{
		Name:    "ceph-osd",
		Version: 1,
		Summary: "Ceph OSD node with NVMe BlueStore OSDs, as in R4 (RHCS 4.2, 22 NVMe per node). THP stays as the kernel has it " +
			"(BlueStore uses it).",
		Designs: []string{"R4"},
		Match:   protocol.DiskMatch{Name: "nvme*"},
		Settings: []Setting{
			{"sysctl:fs.aio-max-nr", "2097152", "cephadm", "ceph-ansible 1048576 (see conflict aio-max-nr)"},
			{"sysctl:kernel.pid_max", "4194304", "cephadm", ""},
			{"sysctl:fs.file-max", "26234859", "cephans", ""},
			{"sysctl:vm.swappiness", "10", "cephans", ""},
			{"sysctl:vm.zone_reclaim_mode", "0", "cephans", "BeeGFS uses 1 (see conflict zone-reclaim)"},
			{"sysctl:vm.min_free_kbytes", "4194303", "cephans", "ceph-ansible sets it on nodes with at least 48 GiB of RAM; drop it on smaller ones"},
			{"block_queue:scheduler", "none", "netapp", "NVMe needs no I/O scheduler (the NetApp NVMe default; R4's OSDs are all NVMe)"},
			{"service:chronyd", "started", "cephadm", "cephadm's host check requires an active time-sync unit (on Debian and Ubuntu the unit is `chrony`: drop this setting and list `chrony` in the resource's services)"},
		},
		Conflicts: []string{"thp", "zone-reclaim", "aio-max-nr"},
	},
	{
		Name:    "ceph-mon",
		Version: 1,
		Summary: "Ceph monitor node, as in R4's three monitors. Neither cephadm nor ceph-ansible tunes a monitor's kernel; " +
			"monitors need agreeing clocks.",
		Designs: []string{"R4"},
		Settings: []Setting{
			{"service:chronyd", "started", "cephadm", "monitors refuse to form a quorum with skewed clocks; cephadm's host check requires time sync"},
		},
	},
}
