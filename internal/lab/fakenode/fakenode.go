// Package fakenode lays out a fake Linux node root in a folder: the parts of
// /proc, /sys, /etc, /dev and /var that hpcstorage-agent reads and writes.
// The agent tests, the lab's SSH nodes and `hpcstorage-lab seed-node` use it,
// so the same agent code runs against a real "/" and against a test folder.
package fakenode

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// Profile names a kind of node.
type Profile string

// The node kinds of the reference designs.
const (
	Storage  Profile = "storage"
	Metadata Profile = "metadata"
	Client   Profile = "client"
)

// Profiles lists every profile, in a stable order.
func Profiles() []Profile { return []Profile{Storage, Metadata, Client} }

// ErrUnknownProfile is returned for a profile name that is not in Profiles.
var ErrUnknownProfile = errors.New("unknown node profile")

// ErrBadDisk is returned by AddBlockDevice for an invalid Disk.
var ErrBadDisk = errors.New("invalid block device")

// ParseProfile checks a profile name.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, 0, 3)
	for _, p := range Profiles() {
		names = append(names, string(p))
	}
	return "", fmt.Errorf("%w %q (want one of %s)", ErrUnknownProfile, s, strings.Join(names, ", "))
}

// Options tune a seeded node. The zero value is valid.
type Options struct {
	// Hostname defaults to "<profile>01".
	Hostname string
	// Disks are added after the profile's own system disk (see AddBlockDevice).
	Disks []Disk
	// Simulator is the lab's simulator program (internal/lab/sim) to
	// install in the root, so the agent's commands take effect there.
	// Empty installs none: the agent then records its commands only.
	Simulator string
	// SharedDir is the folder the simulators of one lab's nodes share for
	// cluster-wide state (sim.SharedLink); empty keeps it per node.
	SharedDir string
	// Release is the distribution of a Red Hat family profile: "" is the
	// profile's RHEL 8.4, ReleaseRocky9 Rocky Linux 9.4 with el9 packages.
	Release string
}

// Releases a Red Hat family profile can take (Options.Release).
const ReleaseRocky9 = "rocky9"

const rocky9OSRelease = `NAME="Rocky Linux"
VERSION="9.4 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"
`

// el9Packages are the versions Rocky 9.4 ships of the packages the
// profiles hold (BeeGFS 7.2 has no el9 build: 7.4 does).
var el9Packages = map[string]string{
	"kernel": "0:5.14.0-427.13.1.el9_4", "lvm2": "9:2.03.23-2.el9", "device-mapper-multipath": "0:0.8.7-27.el9",
	"pacemaker": "0:2.1.7-5.el9_4", "corosync": "0:3.1.8-1.el9", "resource-agents": "0:4.10.0-52.el9_4",
	"tuned": "0:2.22.1-1.el9", "systemd": "0:252-32.el9_4", "xfsprogs": "0:6.3.0-1.el9", "rdma-core": "0:48.0-1.el9",
	"nfs-utils": "1:2.5.4-25.el9",
}

// release turns a Red Hat family node into release r.
func (n *node) release(r string) error {
	switch {
	case r == "":
		return nil
	case r != ReleaseRocky9:
		return fmt.Errorf("release %q: want %q or empty", r, ReleaseRocky9)
	case !n.rpm:
		return fmt.Errorf("release %q: the profile is not of the Red Hat family", r)
	}
	n.osRelease, n.kernel = rocky9OSRelease, "5.14.0-427.13.1.el9_4.x86_64"
	pkgs := make([][2]string, 0, len(n.packages))
	for _, p := range n.packages {
		switch v, ok := el9Packages[p[0]]; {
		case ok:
			p[1] = v
		case strings.HasPrefix(p[0], "beegfs") || p[0] == "libbeegfs-ib":
			p[1] = "0:7.4.4-el9"
		}
		pkgs = append(pkgs, p)
	}
	n.packages = pkgs
	return nil
}

// Disk is a block device to "cable" to a node.
type Disk struct {
	Name       string // kernel name, e.g. "sdb"
	SizeBytes  int64
	Rotational bool
	WWN        string // NAA identifier in hex, with or without "0x" (e.g. 600c0ff000...); "eui.<hex>" for an NVMe namespace
	Serial     string // device/serial (NVMe controllers show it there), empty for none
	Model      string // e.g. "ME4084"
	Vendor     string // e.g. "DellEMC"
	// FSType is a signature the disk already carries (xfs, ext4, gpt...),
	// recorded where the simulated blkid reads it (SimBlkidDir/<name>).
	// Empty leaves any recorded one alone.
	FSType string
}

// SimBlkidDir is the root-relative folder of the simulated signatures:
// one file per kernel device name holding the blkid TYPE (sim.SigDir).
const SimBlkidDir = ".hpcstorage-sim/data/blkid"

var diskName = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)
var hexWWN = regexp.MustCompile(`^[0-9a-f]{16,32}$`)

// node holds everything a profile decides.
type node struct {
	hostname   string
	cpus       int
	numaNodes  int
	cpuModel   string
	memKB      int64
	osRelease  string
	kernel     string
	rpm        bool
	packages   [][2]string // name, version (epoch:version-release for rpm, dpkg version otherwise)
	units      []string    // installed systemd unit files
	active     []string    // units enabled and running at boot
	modules    []string    // loaded kernel modules
	systemDisk Disk
	nics       []nic
	tuned      string // active tuned profile, "" for none
	beegfsConf []string
}

type nic struct {
	name string
	ib   bool
	mtu  int
}

// beegfsServerUnits are on every server profile: converged building blocks
// (R3) install all BeeGFS server packages, and any server may be given any
// role. BeeGFS 7.x packages ship a template unit for each server service,
// beegfs-mgmtd@.service included (ThinkParQ/beegfs beegfs.spec;
// beegfs.HAService.Unit).
var beegfsServerUnits = []string{"beegfs-mgmtd.service", "beegfs-mgmtd@.service", "beegfs-meta.service", "beegfs-meta@.service",
	"beegfs-storage.service", "beegfs-storage@.service"}

func profileNode(p Profile, hostname string) node {
	rhelPkgs := [][2]string{
		{"kernel", "0:4.18.0-305.3.1.el8"},
		{"lvm2", "8:2.03.11-5.el8"},
		{"resource-agents", "0:4.1.1-90.el8"},
		{"tuned", "0:2.15.0-2.el8"},
		{"systemd", "0:239-45.el8"},
		{"xfsprogs", "0:5.0.0-8.el8"},
		{"rdma-core", "0:32.0-4.el8"},
	}
	n := node{
		hostname:  hostname,
		cpus:      40,
		numaNodes: 2,
		cpuModel:  "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz",
		memKB:     384 * 1024 * 1024,
		osRelease: rhelOSRelease,
		kernel:    "4.18.0-305.3.1.el8.x86_64",
		rpm:       true,
		units:     []string{"sshd.service", "tuned.service", "chronyd.service", "systemd-udevd.service"},
		active:    []string{"sshd.service", "tuned.service", "chronyd.service", "systemd-udevd.service"},
		modules:   []string{"xfs", "mpt3sas", "raid_class", "scsi_transport_sas", "mlx5_ib", "ib_uverbs", "ib_core", "mlx5_core", "mlxfw"},
		systemDisk: Disk{Name: "sda", SizeBytes: 480 * 1000 * 1000 * 1000, Rotational: false,
			WWN: "5000c500a1b2c3d4", Model: "DELLBOSS VD", Vendor: "DELL"},
		nics:  []nic{{"eno1", false, 1500}, {"eno2", false, 1500}, {"ib0", true, 2044}},
		tuned: "throughput-performance",
	}
	switch p {
	case Storage:
		n.packages = append(rhelPkgs, [][2]string{
			{"beegfs-storage", "0:7.2-el8"}, {"beegfs-utils", "0:7.2-el8"}, {"libbeegfs-ib", "0:7.2-el8"}}...)
		n.units = append(n.units, beegfsServerUnits...)
		n.beegfsConf = []string{"beegfs-storage.conf"}
	case Metadata:
		n.packages = append(rhelPkgs, [][2]string{
			{"beegfs-meta", "0:7.2-el8"}, {"beegfs-mgmtd", "0:7.2-el8"}, {"beegfs-mon", "0:7.2-el8"}, {"beegfs-utils", "0:7.2-el8"},
			{"libbeegfs-ib", "0:7.2-el8"}}...)
		// The lab seeds management servers (R1: beegfs-mon) with this
		// profile too.
		n.units = append(n.units, beegfsServerUnits...)
		n.units = append(n.units, "beegfs-mon.service")
		n.beegfsConf = []string{"beegfs-meta.conf", "beegfs-mgmtd.conf", "beegfs-mon.conf"}
	case Client:
		n.cpus, n.numaNodes = 64, 2
		n.cpuModel = "AMD EPYC 7543 32-Core Processor"
		n.memKB = 512 * 1024 * 1024
		n.osRelease = ubuntuOSRelease
		n.kernel = "5.15.0-91-generic"
		n.rpm = false
		n.packages = [][2]string{
			{"linux-image-5.15.0-91-generic", "5.15.0-91.101"},
			{"lvm2", "2.03.11-2.1ubuntu4"},
			{"systemd", "249.11-0ubuntu3.11"},
			{"rdma-core", "39.0-1"},
			{"beegfs-client", "7.2"},
			{"beegfs-helperd", "7.2"},
			{"beegfs-utils", "7.2"},
		}
		// rbdmap.service: ceph-common's unit, for the R4 RBD clients.
		n.units = []string{"ssh.service", "systemd-udevd.service", "chrony.service",
			"beegfs-client.service", "beegfs-helperd.service", "rbdmap.service"}
		n.active = []string{"ssh.service", "systemd-udevd.service", "chrony.service"}
		n.modules = []string{"mlx5_ib", "ib_uverbs", "ib_core", "mlx5_core", "mlxfw", "nvme", "nvme_core"}
		n.systemDisk = Disk{Name: "nvme0n1", SizeBytes: 960 * 1000 * 1000 * 1000, Rotational: false,
			WWN: "eui3634473052a00b5", Model: "Dell Ent NVMe v2 AGN RI U.2 960GB"}
		n.tuned = ""
		n.beegfsConf = []string{"beegfs-client.conf", "beegfs-helperd.conf"}
	}
	return n
}

// Seed lays out a fresh node root of the given profile in dir (created if
// missing). Existing files in dir are overwritten.
func Seed(dir string, p Profile) error { return SeedWith(dir, p, Options{}) }

// SeedWith is Seed with options.
func SeedWith(dir string, p Profile, o Options) error {
	if _, err := ParseProfile(string(p)); err != nil {
		return err
	}
	if o.Hostname == "" {
		o.Hostname = string(p) + "01"
	}
	n := profileNode(p, o.Hostname)
	if err := n.release(o.Release); err != nil {
		return err
	}
	w := &writer{root: dir}
	w.procSys(n)
	w.cpus(n)
	w.memory(n)
	w.thp()
	w.nics(n)
	w.etc(n)
	w.packages(n)
	w.systemd(n)
	w.proc(n)
	w.kernelModules(n)
	w.beegfs(n)
	if w.err != nil {
		return w.err
	}
	if o.Simulator != "" {
		if err := sim.Install(dir, o.Simulator); err != nil {
			return err
		}
	}
	if o.SharedDir != "" {
		if err := sim.LinkShared(dir, o.SharedDir); err != nil {
			return err
		}
		if err := sim.RegisterNode(o.SharedDir, o.Hostname, dir); err != nil {
			return err
		}
	}
	disk := n.systemDisk
	if strings.HasPrefix(disk.WWN, "eui") {
		// NVMe: no NAA WWN, keep the EUI as the wwid.
		if err := addBlock(dir, disk, "eui."+strings.TrimPrefix(disk.WWN, "eui")); err != nil {
			return err
		}
	} else if err := AddBlockDevice(dir, disk); err != nil {
		return err
	}
	for _, d := range o.Disks {
		if err := AddBlockDevice(dir, d); err != nil {
			return err
		}
	}
	return nil
}

// ArrayVolumes returns n disks that look like ME4084 RAID6 volumes (sdb,
// sdc, ...), rotational, 80 TB, with WWNs derived from the hostname so
// every node of a lab gets different ones.
func ArrayVolumes(hostname string, n int) []Disk {
	out := make([]Disk, 0, n)
	for i := range n {
		sum := sha256.Sum256([]byte(hostname + "/" + strconv.Itoa(i)))
		out = append(out, Disk{
			Name:       sdName(i + 1),
			SizeBytes:  80 * 1000 * 1000 * 1000 * 1000,
			Rotational: true,
			WWN:        "600c0ff000" + hex.EncodeToString(sum[:11]),
			Model:      "ME4084",
			Vendor:     "DellEMC",
		})
	}
	return out
}

// sdName is the kernel's name for the k-th SCSI disk (0 = sda, 26 = sdaa).
func sdName(k int) string {
	if k < 26 {
		return "sd" + string(rune('a'+k))
	}
	return "sd" + string(rune('a'+k/26-1)) + string(rune('a'+k%26))
}

// AddBlockDevice cables a disk to the node: sys/block/<name> with its queue
// and device attributes, dev/<name>, and dev/disk/by-id/wwn-0x<wwn>.
func AddBlockDevice(dir string, d Disk) error {
	if eui, ok := strings.CutPrefix(strings.ToLower(d.WWN), "eui."); ok {
		// NVMe: the kernel shows the namespace's EUI-64 as its wwid.
		if !hexWWN.MatchString(eui) {
			return fmt.Errorf("%w %q: eui %q: want 16 to 32 hex digits", ErrBadDisk, d.Name, d.WWN)
		}
		return addBlock(dir, d, "eui."+eui)
	}
	wwn := strings.ToLower(strings.TrimPrefix(strings.ToLower(d.WWN), "0x"))
	if !hexWWN.MatchString(wwn) {
		return fmt.Errorf("%w %q: wwn %q: want 16 to 32 hex digits", ErrBadDisk, d.Name, d.WWN)
	}
	return addBlock(dir, d, "naa."+wwn)
}

// RemoveBlockDevice unplugs a disk: its sys/block entry, dev node and
// dev/disk/by-id links. A missing disk is not an error.
func RemoveBlockDevice(dir, name string) error {
	if !diskName.MatchString(name) {
		return fmt.Errorf("%w: name %q: want a kernel device name like sdb", ErrBadDisk, name)
	}
	byID := filepath.Join(dir, "dev", "disk", "by-id")
	ents, err := os.ReadDir(byID)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("unplug %s: %w", name, err)
	}
	for _, e := range ents {
		p := filepath.Join(byID, e.Name())
		if target, err := os.Readlink(p); err == nil && filepath.Base(target) == name {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("unplug %s: %w", name, err)
			}
		}
	}
	for _, p := range []string{filepath.Join(dir, "sys", "block", name), filepath.Join(dir, "dev", name), filepath.Join(dir, SimBlkidDir, name)} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("unplug %s: %w", name, err)
		}
	}
	return nil
}

func addBlock(dir string, d Disk, wwid string) error {
	if !diskName.MatchString(d.Name) {
		return fmt.Errorf("%w: name %q: want a kernel device name like sdb", ErrBadDisk, d.Name)
	}
	if d.SizeBytes <= 0 {
		return fmt.Errorf("%w %q: size must be positive", ErrBadDisk, d.Name)
	}
	w := &writer{root: dir}
	b := "sys/block/" + d.Name
	rot := "0"
	if d.Rotational {
		rot = "1"
	}
	w.file(b+"/size", strconv.FormatInt(d.SizeBytes/512, 10))
	w.file(b+"/ro", "0")
	w.file(b+"/removable", "0")
	w.file(b+"/dev", "8:"+strconv.Itoa(16*len(d.Name)))
	w.file(b+"/queue/scheduler", "[mq-deadline] kyber bfq none")
	w.file(b+"/queue/nr_requests", "256")
	w.file(b+"/queue/read_ahead_kb", "128")
	w.file(b+"/queue/max_sectors_kb", "1280")
	w.file(b+"/queue/max_hw_sectors_kb", "32767")
	w.file(b+"/queue/rotational", rot)
	w.file(b+"/queue/logical_block_size", "512")
	w.file(b+"/queue/physical_block_size", "4096")
	w.file(b+"/device/wwid", wwid)
	w.file(b+"/device/model", d.Model)
	w.file(b+"/device/vendor", d.Vendor)
	if d.Serial != "" {
		w.file(b+"/device/serial", d.Serial)
	}
	w.file("dev/"+d.Name, "")
	if strings.HasPrefix(wwid, "naa.") {
		w.symlink("dev/disk/by-id/wwn-0x"+strings.TrimPrefix(wwid, "naa."), "../../"+d.Name)
	}
	if d.FSType != "" {
		if strings.ContainsAny(d.FSType, "/ \t\n") {
			return fmt.Errorf("%w %q: fstype %q", ErrBadDisk, d.Name, d.FSType)
		}
		w.file(SimBlkidDir+"/"+d.Name, d.FSType)
	}
	return w.err
}

// writer writes files under root and keeps the first error.
type writer struct {
	root string
	err  error
}

func (w *writer) file(rel, content string) {
	w.fileMode(rel, content, 0o644)
}

func (w *writer) fileMode(rel, content string, mode os.FileMode) {
	if w.err != nil {
		return
	}
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
		return
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
		return
	}
	if err := os.Chmod(p, mode); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
	}
}

func (w *writer) dir(rel string) {
	if w.err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Join(w.root, filepath.FromSlash(rel)), 0o755); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
	}
}

func (w *writer) symlink(rel, target string) {
	if w.err != nil {
		return
	}
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
		return
	}
	_ = os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		w.err = fmt.Errorf("seed %s: %w", rel, err)
	}
}

// defaultSysctls are the kernel parameters the designs touch, with the
// values a RHEL 8 host running tuned's throughput-performance shows.
var defaultSysctls = [][2]string{
	{"vm.dirty_ratio", "40"},
	{"vm.dirty_background_ratio", "10"},
	{"vm.dirty_expire_centisecs", "3000"},
	{"vm.dirty_writeback_centisecs", "500"},
	{"vm.min_free_kbytes", "90112"},
	{"vm.vfs_cache_pressure", "100"},
	{"vm.swappiness", "10"},
	{"vm.zone_reclaim_mode", "0"},
	{"vm.max_map_count", "65530"},
	{"vm.nr_hugepages", "0"},
	{"vm.overcommit_memory", "0"},
	{"vm.drop_caches", "0"},
	{"kernel.numa_balancing", "1"},
	{"kernel.pid_max", "4194304"},
	{"kernel.sched_migration_cost_ns", "500000"},
	{"kernel.sched_min_granularity_ns", "10000000"},
	{"kernel.sched_wakeup_granularity_ns", "15000000"},
	{"fs.file-max", "39253033"},
	{"fs.leases-enable", "1"},
	{"fs.aio-max-nr", "65536"},
	{"net.core.rmem_max", "212992"},
	{"net.core.wmem_max", "212992"},
	{"net.core.rmem_default", "212992"},
	{"net.core.wmem_default", "212992"},
	{"net.core.netdev_max_backlog", "1000"},
	{"net.core.somaxconn", "128"},
	{"net.core.optmem_max", "20480"},
	{"net.ipv4.tcp_rmem", "4096\t131072\t6291456"},
	{"net.ipv4.tcp_wmem", "4096\t16384\t4194304"},
	{"net.ipv4.tcp_mem", "4591050\t6121402\t9182100"},
	{"net.ipv4.tcp_timestamps", "1"},
	{"net.ipv4.tcp_sack", "1"},
	{"net.ipv4.tcp_window_scaling", "1"},
	{"net.ipv4.tcp_low_latency", "0"},
	{"net.ipv4.tcp_adv_win_scale", "1"},
	{"net.ipv4.tcp_no_metrics_save", "0"},
	{"net.ipv4.neigh.default.gc_thresh1", "128"},
	{"net.ipv4.neigh.default.gc_thresh2", "512"},
	{"net.ipv4.neigh.default.gc_thresh3", "1024"},
	{"net.ipv4.ip_local_port_range", "32768\t60999"},
	{"net.ipv4.conf.all.arp_ignore", "0"},
	{"net.ipv4.conf.all.arp_announce", "0"},
	{"net.ipv4.conf.all.rp_filter", "1"},
	{"net.ipv4.conf.all.arp_filter", "0"},
}

func (w *writer) procSys(n node) {
	for _, kv := range defaultSysctls {
		w.file("proc/sys/"+strings.ReplaceAll(kv[0], ".", "/"), kv[1])
	}
	w.file("proc/sys/kernel/osrelease", n.kernel)
	w.file("proc/sys/kernel/hostname", n.hostname)
}

func (w *writer) cpus(n node) {
	var b strings.Builder
	perNode := n.cpus / n.numaNodes
	for i := range n.cpus {
		fmt.Fprintf(&b, "processor\t: %d\nvendor_id\t: %s\nmodel name\t: %s\nphysical id\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\n\n",
			i, vendorOf(n.cpuModel), n.cpuModel, i/perNode, i%perNode, perNode)
	}
	w.file("proc/cpuinfo", b.String())
	last := strconv.Itoa(n.cpus - 1)
	w.file("sys/devices/system/cpu/online", "0-"+last)
	w.file("sys/devices/system/cpu/possible", "0-"+last)
	w.file("sys/devices/system/cpu/present", "0-"+last)
	for i := range n.cpus {
		w.file(fmt.Sprintf("sys/devices/system/cpu/cpu%d/online", i), "1")
	}
	w.file("sys/devices/system/node/online", fmt.Sprintf("0-%d", n.numaNodes-1))
	for z := range n.numaNodes {
		d := fmt.Sprintf("sys/devices/system/node/node%d/", z)
		w.file(d+"cpulist", fmt.Sprintf("%d-%d", z*perNode, (z+1)*perNode-1))
		w.file(d+"meminfo", fmt.Sprintf("Node %d MemTotal:       %d kB\n", z, n.memKB/int64(n.numaNodes)))
	}
}

func vendorOf(model string) string {
	if strings.HasPrefix(model, "AMD") {
		return "AuthenticAMD"
	}
	return "GenuineIntel"
}

func (w *writer) memory(n node) {
	w.file("proc/meminfo", fmt.Sprintf(`MemTotal:       %d kB
MemFree:        %d kB
MemAvailable:   %d kB
Buffers:            4096 kB
Cached:          1048576 kB
SwapTotal:             0 kB
SwapFree:              0 kB
HugePages_Total:       0
HugePages_Free:        0
Hugepagesize:       2048 kB
`, n.memKB, n.memKB*9/10, n.memKB*19/20))
}

func (w *writer) thp() {
	w.file("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never")
	w.file("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never")
	w.file("sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1")
}

func (w *writer) nics(n node) {
	for i, c := range n.nics {
		sum := sha256.Sum256([]byte(n.hostname + c.name))
		d := "sys/class/net/" + c.name + "/"
		if c.ib {
			// 20-byte IPoIB hardware address: QPN then the port GID.
			addr := "80:00:02:08:fe:80:00:00:00:00:00:00:" + colonHex(sum[:8])
			w.file(d+"address", addr)
			w.file(d+"type", "32")
		} else {
			mac := append([]byte{0x24, 0x6e, 0x96}, sum[:3]...)
			w.file(d+"address", colonHex(mac))
			w.file(d+"type", "1")
		}
		w.file(d+"mtu", strconv.Itoa(c.mtu))
		w.file(d+"operstate", "up")
		w.file(d+"ifindex", strconv.Itoa(i+2))
	}
	w.file("sys/class/net/lo/address", "00:00:00:00:00:00")
	w.file("sys/class/net/lo/type", "772")
	w.file("sys/class/net/lo/mtu", "65536")
	w.file("sys/class/net/lo/operstate", "unknown")
	w.file("sys/class/net/lo/ifindex", "1")
}

func colonHex(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, ":")
}

const rhelOSRelease = `NAME="Red Hat Enterprise Linux"
VERSION="8.4 (Ootpa)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="8.4"
PLATFORM_ID="platform:el8"
PRETTY_NAME="Red Hat Enterprise Linux 8.4 (Ootpa)"
`

const ubuntuOSRelease = `PRETTY_NAME="Ubuntu 22.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.3 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
`

func (w *writer) etc(n node) {
	w.file("etc/os-release", n.osRelease)
	w.file("etc/hostname", n.hostname)
	w.file("etc/hosts", "127.0.0.1   localhost localhost.localdomain\n::1         localhost localhost.localdomain\n")
	w.file("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nbin:x:1:1:bin:/bin:/sbin/nologin\ndaemon:x:2:2:daemon:/sbin:/sbin/nologin\nnobody:x:65534:65534:Kernel Overflow User:/:/sbin/nologin\n")
	w.file("etc/group", "root:x:0:\nbin:x:1:\ndaemon:x:2:\nnobody:x:65534:\n")
	rootDev := "/dev/sda2"
	if n.systemDisk.Name != "sda" {
		rootDev = "/dev/" + n.systemDisk.Name + "p2"
	}
	w.file("etc/fstab", "# /etc/fstab\n"+rootDev+"  /  xfs  defaults  0 0\n")
	w.file("etc/sysctl.conf", "# sysctl settings are defined through files in\n# /usr/lib/sysctl.d/, /run/sysctl.d/, and /etc/sysctl.d/.\n")
	w.symlink("etc/sysctl.d/99-sysctl.conf", "../sysctl.conf")
	w.file("usr/lib/sysctl.d/10-default-yama-scope.conf", "kernel.yama.ptrace_scope = 0\n")
	w.file("usr/lib/sysctl.d/50-default.conf", "kernel.sysrq = 16\nnet.ipv4.conf.all.rp_filter = 1\n")
	for _, d := range []string{"etc/udev/rules.d", "etc/modprobe.d", "etc/modules-load.d", "etc/tmpfiles.d",
		"etc/systemd/system", "run", "tmp", "var/lib"} {
		w.dir(d)
	}
	w.file("etc/modprobe.d/blacklist.conf", "# vendor blacklist\nblacklist floppy\n")
	if n.tuned != "" {
		w.file("etc/tuned/active_profile", n.tuned)
		w.file("etc/tuned/profile_mode", "manual")
		w.file("usr/lib/tuned/throughput-performance/tuned.conf", `#
# tuned configuration
#

[main]
summary=Broadly applicable tuning that provides excellent performance across a variety of common server workloads

[cpu]
governor=performance
energy_perf_bias=performance
min_perf_pct=100

[disk]
readahead=>4096

[sysctl]
kernel.sched_min_granularity_ns = 10000000
kernel.sched_wakeup_granularity_ns = 15000000
vm.dirty_ratio = 40
vm.dirty_background_ratio = 10
vm.swappiness=10
`)
	}
}

func (w *writer) packages(n node) {
	if n.rpm {
		var b strings.Builder
		b.WriteString("# hpcstorage fake rpm database: name<TAB>epoch:version-release<TAB>arch\n")
		for _, p := range n.packages {
			fmt.Fprintf(&b, "%s\t%s\tx86_64\n", p[0], p[1])
		}
		w.file(RPMDBPath, b.String())
		return
	}
	var b strings.Builder
	for i, p := range n.packages {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Package: %s\nStatus: install ok installed\nPriority: optional\nArchitecture: amd64\nVersion: %s\nDescription: %s\n",
			p[0], p[1], p[0])
	}
	w.file("var/lib/dpkg/status", b.String())
}

// RPMDBPath is the root-relative path of the rpm database stand-in: one
// package per line, "name<TAB>[epoch:]version-release<TAB>arch".
const RPMDBPath = "var/lib/rpm/hpcstorage-fake-rpmdb.txt"

// SimSystemdPath is the root-relative path of the simulated systemd unit
// state (sim.SystemdPath).
const SimSystemdPath = "run/hpcstorage-sim/systemd.json"

func (w *writer) systemd(n node) {
	unitDir := "usr/lib/systemd/system/"
	if !n.rpm {
		unitDir = "lib/systemd/system/"
	}
	for _, u := range n.units {
		desc := strings.TrimSuffix(u, ".service")
		w.file(unitDir+u, fmt.Sprintf("[Unit]\nDescription=%s\n\n[Service]\nExecStart=/usr/sbin/%s\n\n[Install]\nWantedBy=multi-user.target\n",
			desc, strings.TrimSuffix(desc, "@")))
	}
	// Simulated unit state, in the simulators' format (sim.Systemd), and
	// the manager's load of the unit files at boot.
	units := map[string]sim.Unit{}
	for _, u := range n.active {
		units[u] = sim.Unit{Enabled: true, Active: true}
	}
	data, err := json.MarshalIndent(sim.Systemd{Units: units}, "", "  ")
	if err != nil {
		w.err = err
		return
	}
	w.file(SimSystemdPath, string(data))
	w.file(strings.TrimPrefix(sim.ReloadStamp, "/"), "")
}

func (w *writer) proc(n node) {
	var mods strings.Builder
	for i, m := range n.modules {
		fmt.Fprintf(&mods, "%s %d 0 - Live 0xffffffffc0%06x\n", m, 16384*(i+1), i*4096)
	}
	w.file("proc/modules", mods.String())
	rootDev := "/dev/sda2"
	if n.systemDisk.Name != "sda" {
		rootDev = "/dev/" + n.systemDisk.Name + "p2"
	}
	mounts := "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n" +
		"proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n" +
		"tmpfs /run tmpfs rw,nosuid,nodev,mode=755 0 0\n" +
		rootDev + " / xfs rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota 0 0\n"
	w.file("proc/mounts", mounts)
	w.file("proc/uptime", "12345.67 456789.01")
	// What a power cycle comes back to (sim.PowerOff).
	boot := strings.TrimPrefix(sim.BootDir, "/") + "/"
	w.file(boot+"proc-modules", mods.String())
	w.file(boot+"proc-mounts", mounts)
}

// kernelModules lays out lib/modules/<release>: modules.dep with the
// modules the designs load (so the simulated modprobe finds them and
// refuses others) and modules.builtin.
func (w *writer) kernelModules(n node) {
	dir := "lib/modules/" + n.kernel + "/"
	ext := ".ko.xz"
	if !n.rpm {
		ext = ".ko"
	}
	var dep strings.Builder
	for _, m := range designModules {
		fmt.Fprintf(&dep, "%s%s:\n", m, ext)
	}
	w.file(dir+"modules.dep", dep.String())
	w.file(dir+"modules.builtin", "kernel/drivers/block/loop.ko\nkernel/fs/nls/nls_base.ko\n")
}

// designModules are the kernel modules of the reference designs' nodes
// (module path in the kernel tree): storage and RDMA drivers, the file
// systems, multipath, NFS, BeeGFS's client module (built by
// beegfs-client; R3's converged servers are clients too), and the Lustre
// client's LNet modules (kmod-lustre-client, on sites that mount both).
var designModules = []string{
	"kernel/fs/xfs/xfs", "kernel/fs/ext4/ext4", "kernel/fs/jbd2/jbd2", "kernel/fs/mbcache", "kernel/lib/libcrc32c",
	"kernel/fs/nfsd/nfsd", "kernel/fs/nfs/nfs", "kernel/fs/nfs/nfsv4", "kernel/fs/lockd/lockd", "kernel/net/sunrpc/sunrpc",
	"kernel/fs/ceph/ceph", "kernel/net/ceph/libceph", "kernel/drivers/block/rbd", "kernel/fs/overlayfs/overlay",
	"kernel/drivers/md/dm-mod", "kernel/drivers/md/dm-multipath", "kernel/drivers/md/dm-round-robin",
	"kernel/drivers/md/dm-service-time", "kernel/drivers/scsi/device_handler/scsi_dh_alua", "kernel/drivers/md/raid456",
	"kernel/drivers/scsi/mpt3sas/mpt3sas", "kernel/drivers/scsi/raid_class", "kernel/drivers/scsi/scsi_transport_sas",
	"kernel/drivers/scsi/sg", "kernel/drivers/scsi/sd_mod", "kernel/drivers/nvme/host/nvme", "kernel/drivers/nvme/host/nvme-core",
	"kernel/drivers/nvme/host/nvme-rdma", "kernel/drivers/nvme/host/nvme-fabrics",
	"kernel/drivers/infiniband/core/ib_core", "kernel/drivers/infiniband/core/ib_uverbs", "kernel/drivers/infiniband/core/ib_umad",
	"kernel/drivers/infiniband/core/ib_cm", "kernel/drivers/infiniband/core/iw_cm", "kernel/drivers/infiniband/core/rdma_cm",
	"kernel/drivers/infiniband/core/rdma_ucm", "kernel/drivers/infiniband/ulp/ipoib/ib_ipoib",
	"kernel/drivers/infiniband/ulp/srp/ib_srp", "kernel/drivers/infiniband/ulp/iser/ib_iser",
	"kernel/drivers/infiniband/hw/mlx5/mlx5_ib", "kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core",
	"kernel/drivers/net/ethernet/mellanox/mlxfw/mlxfw", "kernel/drivers/net/bonding/bonding", "kernel/net/8021q/8021q",
	"kernel/net/ipv4/tcp_bbr", "kernel/drivers/watchdog/softdog", "kernel/drivers/ipmi/ipmi_devintf", "kernel/drivers/ipmi/ipmi_si",
	"updates/fs/beegfs_autobuild/beegfs",
	"extra/lustre/net/lnet", "extra/lustre/net/ko2iblnd", "extra/lustre/net/ksocklnd", "extra/lustre/fs/lustre",
}

// beegfs writes the package-shipped BeeGFS config files (short versions of
// the 7.2 defaults: comments and key = value lines).
func (w *writer) beegfs(n node) {
	for _, name := range n.beegfsConf {
		var b strings.Builder
		fmt.Fprintf(&b, "# This is a config file for BeeGFS (%s).\n# http://www.beegfs.io\n\n", strings.TrimSuffix(name, ".conf"))
		b.WriteString("# --- [Table of Contents] ---\n#\n# 1) Settings\n# 2) Command Line Arguments\n# 3) Basic Settings Documentation\n\n")
		b.WriteString("#\n# --- Section 1.1: [Basic Settings] ---\n#\n\n")
		for _, kv := range beegfsDefaults[name] {
			fmt.Fprintf(&b, "%-29s = %s\n", kv[0], kv[1])
		}
		w.file("etc/beegfs/"+name, b.String())
		if name == "beegfs-mon.conf" {
			// The package's InfluxDB login file (dbAuthFile), empty.
			w.fileMode("etc/beegfs/beegfs-mon.auth", "# InfluxDB credentials of beegfs-mon.\n\nusername =\npassword =\n", 0o600)
		}
	}
}

var beegfsDefaults = map[string][][2]string{
	"beegfs-storage.conf": {
		{"sysMgmtdHost", ""}, {"storeStorageDirectory", ""}, {"storeAllowFirstRunInit", "true"},
		{"connStoragePortTCP", "8003"}, {"connStoragePortUDP", "8003"}, {"connMaxInternodeNum", "12"},
		{"connInterfacesFile", ""}, {"tuneNumWorkers", "12"}, {"tuneUsePerTargetWorkers", "true"},
		{"tuneUsePerUserMsgQueues", "false"}, {"tuneBindToNumaZone", ""}, {"tuneFileReadAheadSize", "0m"},
		{"tuneFileReadAheadTriggerSize", "4m"}, {"tuneFileReadSize", "32k"}, {"tuneFileWriteSize", "64k"},
		{"tuneWorkerBufSize", "4m"}, {"logLevel", "3"},
	},
	"beegfs-meta.conf": {
		{"sysMgmtdHost", ""}, {"storeMetaDirectory", ""}, {"storeAllowFirstRunInit", "true"},
		{"connMetaPortTCP", "8005"}, {"connMetaPortUDP", "8005"}, {"connMaxInternodeNum", "32"},
		{"tuneNumWorkers", "0"}, {"tuneUsePerUserMsgQueues", "false"}, {"tuneTargetChooser", "randomized"},
		{"tuneBindToNumaZone", ""}, {"logLevel", "3"},
	},
	"beegfs-mgmtd.conf": {
		{"storeMgmtdDirectory", ""}, {"storeAllowFirstRunInit", "true"}, {"connMgmtdPortTCP", "8008"},
		{"connMgmtdPortUDP", "8008"}, {"logLevel", "2"},
	},
	"beegfs-mon.conf": {
		{"sysMgmtdHost", ""}, {"dbType", "influxdb"}, {"dbHostName", "localhost"}, {"dbHostPort", "8086"}, {"dbAuthFile", ""},
		{"dbDatabase", "beegfs_mon"}, {"dbSetRetentionPolicy", "true"}, {"dbRetentionDuration", "1d"},
		{"collectClientOpsByNode", "true"}, {"collectClientOpsByUser", "true"}, {"statsRequestIntervalSecs", "5"},
		{"connMgmtdPortTCP", "8008"}, {"connMgmtdPortUDP", "8008"}, {"connAuthFile", ""}, {"logLevel", "3"},
	},
	"beegfs-client.conf": {
		{"sysMgmtdHost", ""}, {"connClientPortUDP", "8004"}, {"connMaxInternodeNum", "12"},
		{"connBufSize", "0"}, {"connRDMABufSize", "8192"}, {"connRDMABufNum", "70"},
		{"tuneFileCacheType", "buffered"}, {"sysSessionChecksEnabled", "true"}, {"logLevel", "3"},
	},
	"beegfs-helperd.conf": {
		{"connHelperdPortTCP", "8006"}, {"connDisableAuthentication", "false"}, {"tuneNumWorkers", "2"},
		{"logLevel", "2"},
	},
}
