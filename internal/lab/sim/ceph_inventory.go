package sim

// The device inventory cephadm keeps per host (`ceph orch device ls`),
// from what ceph-volume inventory finds in the host's root: every disk
// under /sys/block with ceph-volume's sys_api fields, its availability and
// the reasons it is rejected, in ceph-volume's words:
//   - "Insufficient space (<5GB)": smaller than 5 GB;
//   - "Has partitions": a partition table or a partition mounted or in fstab;
//   - "locked": opened exclusively elsewhere (mounted, or held by an OSD);
//   - "Has a FileSystem": a file-system signature on the whole device;
//   - "LVM detected": an LVM physical volume; a device holding an OSD also
//     shows "Insufficient space (<10 extents) on vgs" (its VG is full);
//   - "removable", "read-only".
// cephadm stores the reasons sorted (Device.from_json), so they are here.
// Sources: ceph/deployment/inventory.py (python3-ceph-common 16.2.15) for
// the report fields, ceph-volume's util/device.py and util/disk.py for
// sys_api and the reasons, doc/ceph-volume/inventory.rst for an example.

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// cephDevice is one device as Ceph reports it (Device.to_json).
type cephDevice struct {
	CephDevice        *bool          `json:"ceph_device"`
	RejectedReasons   []string       `json:"rejected_reasons"`
	Available         bool           `json:"available"`
	Path              string         `json:"path"`
	SysAPI            cephSysAPI     `json:"sys_api"`
	Created           string         `json:"created"`
	LVs               []cephLV       `json:"lvs"`
	HumanReadableType string         `json:"human_readable_type"`
	DeviceID          string         `json:"device_id"`
	LSMData           map[string]any `json:"lsm_data"`
}

// cephSysAPI is ceph-volume's sys_api (util/disk.py get_devices).
type cephSysAPI struct {
	Removable         string         `json:"removable"`
	RO                string         `json:"ro"`
	Vendor            string         `json:"vendor"`
	Model             string         `json:"model"`
	Rev               string         `json:"rev"`
	SASAddress        string         `json:"sas_address"`
	SASDeviceHandle   string         `json:"sas_device_handle"`
	SupportDiscard    string         `json:"support_discard"`
	Rotational        string         `json:"rotational"`
	NRRequests        string         `json:"nr_requests"`
	SchedulerMode     string         `json:"scheduler_mode"`
	Partitions        map[string]any `json:"partitions"`
	Sectors           int            `json:"sectors"`
	SectorSize        string         `json:"sectorsize"`
	Size              float64        `json:"size"`
	HumanReadableSize string         `json:"human_readable_size"`
	Path              string         `json:"path"`
	Locked            int            `json:"locked"`
}

// cephLV is one logical volume ceph-volume found on a device.
type cephLV struct {
	BlockUUID       string `json:"block_uuid"`
	ClusterFSID     string `json:"cluster_fsid"`
	ClusterName     string `json:"cluster_name"`
	Name            string `json:"name"`
	OSDFSID         string `json:"osd_fsid"`
	OSDID           string `json:"osd_id"`
	OSDSpecAffinity string `json:"osdspec_affinity"`
	Type            string `json:"type"`
}

// humanReadableSize is ceph-volume's disk.human_readable_size: binary
// steps, decimal-looking unit names, two decimals ("3.49 TB" for 3.84e12).
func humanReadableSize(b float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	i := 0
	for b > 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", b, units[i])
}

// inventory lists host's devices, sorted by path as ceph-volume's
// Devices are.
func (c *cephCluster) inventory(host string, r *fsroot.Root) []cephDevice {
	ents, err := r.ReadDir("/sys/block")
	if err != nil {
		return []cephDevice{}
	}
	read := func(p string) string {
		b, err := r.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	procMounts := read("/proc/mounts")
	mounts := procMounts + "\n" + read("/etc/fstab")
	out := []cephDevice{}
	for _, ent := range ents {
		name := ent.Name()
		if virtualDevice(name) {
			continue
		}
		b := "/sys/block/" + name + "/"
		sectors, _ := strconv.Atoi(read(b + "size"))
		size := float64(sectors) * 512
		d := cephDevice{Path: "/dev/" + name, Created: cephTime(c.now()), LVs: []cephLV{}, LSMData: map[string]any{},
			RejectedReasons: []string{}}
		d.SysAPI = cephSysAPI{Removable: or0(read(b + "removable")), RO: or0(read(b + "ro")), Vendor: read(b + "device/vendor"),
			Model: read(b + "device/model"), Rotational: or0(read(b + "queue/rotational")), NRRequests: read(b + "queue/nr_requests"),
			SchedulerMode: selectedScheduler(read(b + "queue/scheduler")), Partitions: map[string]any{}, Sectors: sectors,
			SectorSize: read(b + "queue/logical_block_size"), Size: size, HumanReadableSize: humanReadableSize(size), Path: d.Path,
			SupportDiscard: "512"}
		if d.SysAPI.Rotational == "1" {
			d.SysAPI.SupportDiscard = "0"
			d.HumanReadableType = "hdd"
		} else {
			d.HumanReadableType = "ssd"
		}
		serial := read(b + "device/serial")
		d.DeviceID = strings.ReplaceAll(strings.TrimSpace(d.SysAPI.Vendor+" "+d.SysAPI.Model), " ", "_")
		if serial != "" {
			d.DeviceID += "_" + serial
		}
		reasons := map[string]bool{}
		if d.SysAPI.Removable == "1" {
			reasons["removable"] = true
		}
		if d.SysAPI.RO == "1" {
			reasons["read-only"] = true
		}
		if size < 5e9 {
			reasons["Insufficient space (<5GB)"] = true
		}
		parts := partitionsOf(name, mounts)
		for _, p := range parts {
			d.SysAPI.Partitions[p] = map[string]any{"start": "2048", "sectors": "", "sectorsize": 512, "size": "", "human_readable_size": "", "holders": []string{}}
		}
		sig := strings.TrimSpace(string(readRoot(r, SigDir+"/"+name)))
		if len(parts) > 0 || sig == "gpt" || sig == "dos" {
			reasons["Has partitions"] = true
		}
		if mountedDev(name, procMounts) {
			reasons["locked"] = true
		}
		for _, o := range c.st.OSDs {
			if o.Host == host && o.Device == d.Path {
				d.LVs = append(d.LVs, cephLV{BlockUUID: o.Block, ClusterFSID: c.st.FSID, ClusterName: "ceph",
					Name: "osd-block-" + o.UUID, OSDFSID: o.UUID, OSDID: strconv.Itoa(o.ID), OSDSpecAffinity: o.Service, Type: "block"})
			}
			if o.Host == host && o.DBDevice == d.Path {
				d.LVs = append(d.LVs, cephLV{BlockUUID: o.Block, ClusterFSID: c.st.FSID, ClusterName: "ceph",
					Name: "osd-db-" + o.UUID, OSDFSID: o.UUID, OSDID: strconv.Itoa(o.ID), OSDSpecAffinity: o.Service, Type: "db"})
			}
		}
		switch {
		case len(d.LVs) > 0:
			t := true
			d.CephDevice = &t
			reasons["LVM detected"] = true
			reasons["locked"] = true
			reasons["Insufficient space (<10 extents) on vgs"] = true
		case sig == "LVM2_member":
			reasons["LVM detected"] = true
		case sig != "" && sig != "gpt" && sig != "dos":
			reasons["Has a FileSystem"] = true
		}
		if d.SysAPI.Locked = 0; reasons["locked"] {
			d.SysAPI.Locked = 1
		}
		for k := range reasons {
			d.RejectedReasons = append(d.RejectedReasons, k)
		}
		slices.Sort(d.RejectedReasons)
		d.Available = len(d.RejectedReasons) == 0
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b cephDevice) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (c *cephCluster) now() time.Time { return time.Now() }

func or0(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func readRoot(r *fsroot.Root, p string) []byte {
	b, _ := r.ReadFile(p)
	return b
}

func virtualDevice(name string) bool {
	for _, v := range []string{"loop*", "ram*", "zram*", "sr*", "fd*", "rbd*", "dm-*", "md*", "nbd*"} {
		if ok, _ := path.Match(v, name); ok {
			return true
		}
	}
	return false
}

func selectedScheduler(s string) string {
	if i := strings.Index(s, "["); i >= 0 {
		if j := strings.Index(s[i:], "]"); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// partitionsOf lists name's partitions that the mount table or fstab
// name (sda2, nvme0n1p2).
func partitionsOf(name, mounts string) []string {
	var out []string
	for _, l := range splitLines(mounts) {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		dev := strings.TrimPrefix(f[0], "/dev/")
		rest, ok := strings.CutPrefix(dev, name)
		if !ok || rest == "" {
			continue
		}
		rest = strings.TrimPrefix(rest, "p")
		if _, err := strconv.Atoi(rest); err == nil && !slices.Contains(out, dev) {
			out = append(out, dev)
		}
	}
	slices.Sort(out)
	return out
}

// mountedDev reports whether name or one of its partitions is mounted
// (an exclusive open of the device would fail).
func mountedDev(name, procMounts string) bool {
	for _, l := range splitLines(procMounts) {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.HasPrefix(f[0], "/dev/") {
			continue
		}
		dev := strings.TrimPrefix(f[0], "/dev/")
		if dev == name {
			return true
		}
		if rest, ok := strings.CutPrefix(dev, name); ok {
			if _, err := strconv.Atoi(strings.TrimPrefix(rest, "p")); err == nil {
				return true
			}
		}
	}
	return false
}
