package sim

import (
	"path"
	"strings"
)

// BeeGFS's client service mounts what /etc/beegfs/beegfs-mounts.conf
// lists ("<mount point> <client config>" per line), creating the mount
// point, and unmounts it when stopped: the simulated start and stop of
// beegfs-client.service do the same in /proc/mounts, so a benchmark (or
// anything else) finds the file system mounted on a lab client.

const beegfsMountsConf = "/etc/beegfs/beegfs-mounts.conf"

func (e *Env) beegfsClientMounts(active bool) error {
	conf, err := e.read(beegfsMountsConf)
	if err != nil {
		return err
	}
	want := map[string]string{}
	var order []string
	for _, l := range splitLines(string(conf)) {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || !strings.HasPrefix(f[0], "/") {
			continue
		}
		mp := path.Clean(f[0])
		if _, dup := want[mp]; !dup {
			order = append(order, mp)
		}
		want[mp] = f[1]
	}
	data, err := e.read("/proc/mounts")
	if err != nil {
		return err
	}
	var lines []string
	mounted := map[string]bool{}
	for _, l := range splitLines(string(data)) {
		f := strings.Fields(l)
		if len(f) >= 3 && f[2] == "beegfs" {
			if !active {
				continue // stop unmounts every BeeGFS mount of the client
			}
			mounted[f[1]] = true
		}
		lines = append(lines, l)
	}
	if active {
		for _, mp := range order {
			if mounted[mp] {
				continue
			}
			if _, err := e.Root.MkdirAll(mp, 0o755); err != nil {
				return err
			}
			lines = append(lines, "beegfs_nodev "+mp+" beegfs rw,relatime,cfgFile="+want[mp]+",_netdev 0 0")
		}
	}
	if err := e.write("/proc/mounts", joinLines(lines)); err != nil {
		return err
	}
	// A mounted client registers at the management service.
	return e.registerClient(active && len(order) > 0)
}
