package protocol

import (
	"strconv"
	"strings"
)

// Facts is what `hpcstorage-agent facts` prints.
type Facts struct {
	APIVersion    string        `json:"apiVersion"`
	Hostname      string        `json:"hostname"`
	KernelRelease string        `json:"kernel_release"`
	OS            OSRelease     `json:"os"`
	CPUs          int           `json:"cpus"`
	CPUModel      string        `json:"cpu_model,omitempty"`
	NUMANodes     []NUMANode    `json:"numa_nodes"`
	MemoryBytes   int64         `json:"memory_bytes"`
	BlockDevices  []BlockDevice `json:"block_devices"`
	NICs          []NIC         `json:"nics"`
	Packages      []Package     `json:"packages"`
	// PackageManager is "rpm", "dpkg" or "" when none was found.
	PackageManager string `json:"package_manager"`
	// Mounts is /proc/mounts, in mount order (optional: older agents
	// leave it out).
	Mounts []MountEntry `json:"mounts,omitempty"`
}

// MountEntry is one line of /proc/mounts.
type MountEntry struct {
	Device  string `json:"device"`
	Path    string `json:"path"`
	FSType  string `json:"fstype"`
	Options string `json:"options,omitempty"`
}

// OSRelease is the subset of /etc/os-release the provider uses.
type OSRelease struct {
	ID         string `json:"id"`
	VersionID  string `json:"version_id"`
	PrettyName string `json:"pretty_name"`
	IDLike     string `json:"id_like,omitempty"`
	// PlatformID is "platform:el9" on RHEL 8 and later and their rebuilds.
	PlatformID string `json:"platform_id,omitempty"`
}

// ParseOSRelease reads an os-release file (os-release(5)).
func ParseOSRelease(b []byte) OSRelease {
	var o OSRelease
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, "'")
		}
		switch k {
		case "ID":
			o.ID = v
		case "VERSION_ID":
			o.VersionID = v
		case "PRETTY_NAME":
			o.PrettyName = v
		case "ID_LIKE":
			o.IDLike = v
		case "PLATFORM_ID":
			o.PlatformID = v
		}
	}
	return o
}

// Platform is the node's distribution release as rpm's dist tag names it
// ("el7", "el9"): PLATFORM_ID where the release has one, else the major
// VERSION_ID of a Red Hat family release (RHEL 7 has no PLATFORM_ID); ""
// for other distributions.
func (o OSRelease) Platform() string {
	if p, ok := strings.CutPrefix(o.PlatformID, "platform:"); ok && p != "" {
		return p
	}
	family := " " + o.ID + " " + o.IDLike + " "
	for _, id := range []string{" rhel ", " centos ", " rocky ", " almalinux "} {
		if strings.Contains(family, id) {
			major, _, _ := strings.Cut(o.VersionID, ".")
			if major != "" {
				return "el" + major
			}
		}
	}
	return ""
}

// NUMANode is one NUMA zone and its CPUs.
type NUMANode struct {
	ID      int    `json:"id"`
	CPUList string `json:"cpulist"` // kernel format, e.g. "0-19"
	CPUs    []int  `json:"cpus"`
}

// BlockDevice is a disk under /sys/block.
type BlockDevice struct {
	Name       string   `json:"name"`
	SizeBytes  int64    `json:"size_bytes"`
	Rotational bool     `json:"rotational"`
	WWN        string   `json:"wwn,omitempty"` // "0x600c0ff0..." for NAA ids
	WWID       string   `json:"wwid,omitempty"`
	Model      string   `json:"model,omitempty"`
	Vendor     string   `json:"vendor,omitempty"`
	Schedulers []string `json:"schedulers"`
	Scheduler  string   `json:"scheduler"`
	// FSType is the signature blkid finds on the whole device (`blkid -p`):
	// a file system or volume type (xfs, ext4, LVM2_member,
	// linux_raid_member) or, on a partitioned disk, the partition table
	// (gpt, dos). "" when blank or unreadable.
	FSType string `json:"fstype,omitempty"`
}

// NIC is a network interface.
type NIC struct {
	Name string `json:"name"`
	MAC  string `json:"mac"`
	MTU  int    `json:"mtu"`
	Type string `json:"type"` // "infiniband", "ethernet", "loopback" or "other:<n>"
}

// Package is an installed package.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// VersionInfo is what `hpcstorage-agent version` prints.
type VersionInfo struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	GOOS    string `json:"goos"`
	GOARCH  string `json:"goarch"`
}
