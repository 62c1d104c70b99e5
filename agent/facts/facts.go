// Package facts gathers what a node is made of, from its root: CPUs, NUMA
// nodes, memory, disks, NICs, kernel, OS, packages and mounts.
package facts

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/items"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// Gather reads the facts of root. Missing sources leave fields empty; only
// unreadable ones (permissions, I/O) are errors.
func Gather(ctx context.Context, root *fsroot.Root, run runner.Runner) (protocol.Facts, error) {
	f := protocol.Facts{APIVersion: protocol.APIVersion, NUMANodes: []protocol.NUMANode{},
		BlockDevices: []protocol.BlockDevice{}, NICs: []protocol.NIC{}, Packages: []protocol.Package{}}
	f.Hostname = firstLine(root, "/proc/sys/kernel/hostname")
	if f.Hostname == "" {
		f.Hostname = firstLine(root, "/etc/hostname")
	}
	f.KernelRelease = firstLine(root, "/proc/sys/kernel/osrelease")
	f.OS = osRelease(root)
	cpus(root, &f)
	f.MemoryBytes = memTotal(root)
	disks, err := items.ListDisks(root)
	if err != nil {
		return f, err
	}
	for _, d := range disks {
		scheds := d.Schedulers
		if scheds == nil {
			scheds = []string{}
		}
		f.BlockDevices = append(f.BlockDevices, protocol.BlockDevice{Name: d.Name, SizeBytes: d.SizeBytes,
			Rotational: d.Rotational, WWN: d.WWN(), WWID: d.WWID, Model: d.Model, Vendor: d.Vendor,
			Schedulers: scheds, Scheduler: d.Scheduler, FSType: signature(ctx, run, d.Name)})
	}
	nics, err := nics(root)
	if err != nil {
		return f, err
	}
	f.NICs = nics
	mgr, pkgs, err := items.InstalledPackages(ctx, root, run)
	if err != nil {
		return f, err
	}
	f.PackageManager = mgr
	if pkgs != nil {
		f.Packages = pkgs
	}
	f.Mounts = mounts(root)
	return f, nil
}

// mounts reads /proc/mounts (octal escapes such as \040 for a space
// decoded), so callers can tell which file system holds a path.
func mounts(root *fsroot.Root) []protocol.MountEntry {
	b, err := root.ReadFile("/proc/mounts")
	if err != nil {
		return nil
	}
	var out []protocol.MountEntry
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		e := protocol.MountEntry{Device: unescapeMount(f[0]), Path: unescapeMount(f[1]), FSType: f[2]}
		if len(f) > 3 {
			e.Options = f[3]
		}
		out = append(out, e)
	}
	return out
}

func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func firstLine(root *fsroot.Root, p string) string {
	b, err := root.ReadFile(p)
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(l)
}

func osRelease(root *fsroot.Root) protocol.OSRelease {
	b, err := root.ReadFile("/etc/os-release")
	if err != nil {
		if b, err = root.ReadFile("/usr/lib/os-release"); err != nil {
			return protocol.OSRelease{}
		}
	}
	return protocol.ParseOSRelease(b)
}

// ParseCPUList expands a kernel cpu list ("0-3,8,10-11").
func ParseCPUList(s string) []int {
	out := []int{}
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				continue
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out
}

func cpus(root *fsroot.Root, f *protocol.Facts) {
	if b, err := root.ReadFile("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "processor":
				f.CPUs++
			case "model name":
				if f.CPUModel == "" {
					f.CPUModel = strings.TrimSpace(v)
				}
			}
		}
	}
	if f.CPUs == 0 {
		f.CPUs = len(ParseCPUList(firstLine(root, "/sys/devices/system/cpu/online")))
	}
	ents, err := root.ReadDir("/sys/devices/system/node")
	if err != nil {
		return
	}
	for _, e := range ents {
		n, ok := strings.CutPrefix(e.Name(), "node")
		if !ok {
			continue
		}
		id, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		list := firstLine(root, "/sys/devices/system/node/"+e.Name()+"/cpulist")
		f.NUMANodes = append(f.NUMANodes, protocol.NUMANode{ID: id, CPUList: list, CPUs: ParseCPUList(list)})
	}
	// Sort by id (ReadDir sorts by name: node10 before node2).
	for i := 1; i < len(f.NUMANodes); i++ {
		for j := i; j > 0 && f.NUMANodes[j].ID < f.NUMANodes[j-1].ID; j-- {
			f.NUMANodes[j], f.NUMANodes[j-1] = f.NUMANodes[j-1], f.NUMANodes[j]
		}
	}
}

func memTotal(root *fsroot.Root) int64 {
	b, err := root.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				kb, _ := strconv.ParseInt(fields[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func nics(root *fsroot.Root) ([]protocol.NIC, error) {
	ents, err := root.ReadDir("/sys/class/net")
	if errors.Is(err, fs.ErrNotExist) {
		return []protocol.NIC{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []protocol.NIC{}
	for _, e := range ents {
		d := "/sys/class/net/" + e.Name() + "/"
		if ok, _ := root.Exists(d + "type"); !ok {
			continue // bonding_masters and other plain files
		}
		n := protocol.NIC{Name: e.Name(), MAC: firstLine(root, d+"address")}
		n.MTU, _ = strconv.Atoi(firstLine(root, d+"mtu"))
		switch t := firstLine(root, d+"type"); t {
		case "1":
			n.Type = "ethernet"
		case "32":
			n.Type = "infiniband"
		case "772":
			n.Type = "loopback"
		default:
			n.Type = "other:" + t
		}
		out = append(out, n)
	}
	return out, nil
}

// signature asks blkid for the device's signature type: TYPE (a file
// system, LVM or RAID member), else PTTYPE (a partition table). Under a fake
// root the runner asks the root's simulator, if any. Errors (no blkid,
// no permission) leave it empty.
func signature(ctx context.Context, run runner.Runner, name string) string {
	if run == nil {
		return ""
	}
	out, code, err := run.Query(ctx, "blkid", "-p", "-o", "export", "/dev/"+name)
	if err != nil || code != 0 {
		return ""
	}
	var typ, pt string
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(l), "=")
		switch k {
		case "TYPE":
			typ = v
		case "PTTYPE":
			pt = v
		}
	}
	if typ != "" {
		return typ
	}
	return pt
}
