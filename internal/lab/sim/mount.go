package sim

import (
	"strings"
)

// mount and umount follow mount(8)/umount(8) of util-linux (exit 32 =
// mount failure): mount refuses a block device that does not exist
// ("special device ... does not exist"), a mount point that does not
// exist, a device already mounted there, and a file-system type that does
// not match the device's signature (or a blank device: "wrong fs type,
// bad option, bad superblock"); without -t the type is the signature's.
// Devices that are not paths (nfs server:/export, beegfs_nodev, tmpfs)
// are not checked. `-o remount,...` changes a mounted point's options.
// umount refuses what is not mounted. The kernel's table is proc/mounts.

func mount(e *Env, args []string) int {
	var fstype, opts string
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-t" || a == "-o":
			if i+1 < len(args) {
				if a == "-t" {
					fstype = args[i+1]
				} else {
					opts = args[i+1]
				}
				i++
			}
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	data, err := e.read("/proc/mounts")
	if err != nil {
		return e.fail(32, "%v", err)
	}
	lines := splitLines(string(data))
	if strings.HasPrefix(opts, "remount") && len(pos) == 1 {
		found := false
		for i, l := range lines {
			f := strings.Fields(l)
			if len(f) >= 4 && f[1] == pos[0] {
				f[3] = strings.TrimPrefix(strings.TrimPrefix(opts, "remount"), ",")
				if f[3] == "" {
					f[3] = "rw"
				}
				lines[i] = strings.Join(f, " ")
				found = true
			}
		}
		if !found {
			return e.fail(32, "%s: mount point not mounted or bad option.", pos[0])
		}
		return e.save(lines)
	}
	if len(pos) != 2 {
		return e.fail(1, "bad usage: want DEVICE DIR, got %q", pos)
	}
	dev, dir := pos[0], pos[1]
	if strings.HasPrefix(dev, "/") {
		real, ok := e.device(dev)
		if !ok {
			return e.fail(32, "%s: special device %s does not exist.", dir, dev)
		}
		sig := e.signature(dev)
		if fstype == "" || fstype == "auto" {
			fstype = sig
		}
		if sig == "" || sig != fstype {
			return e.fail(32, "%s: wrong fs type, bad option, bad superblock on %s, missing codepage or helper program, or other error.", dir, dev)
		}
		dev = real
	}
	if st, err := e.Root.Stat(dir); err != nil || !st.IsDir() {
		return e.fail(32, "%s: mount point does not exist.", dir)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == dev && f[1] == dir {
			return e.fail(32, "%s: %s already mounted on %s.", dir, pos[0], dir)
		}
	}
	if opts == "" {
		opts = "rw"
	}
	lines = append(lines, strings.Join([]string{dev, dir, fstype, opts, "0", "0"}, " "))
	return e.save(lines)
}

func (e *Env) save(lines []string) int {
	if err := e.write("/proc/mounts", joinLines(lines)); err != nil {
		return e.fail(32, "%v", err)
	}
	return 0
}

func umount(e *Env, args []string) int {
	target := lastArg(args)
	if target == "" {
		return e.fail(1, "bad usage")
	}
	data, err := e.read("/proc/mounts")
	if err != nil {
		return e.fail(32, "%v", err)
	}
	lines := splitLines(string(data))
	if real, ok := e.device(target); ok && strings.HasPrefix(target, "/dev/") {
		target = real
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if f := strings.Fields(lines[i]); len(f) >= 2 && (f[1] == target || f[0] == target) {
			return e.save(append(lines[:i], lines[i+1:]...))
		}
	}
	return e.fail(32, "%s: not mounted.", target)
}
