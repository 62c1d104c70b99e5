package sim

import (
	"path"
	"strings"
)

// modprobe follows kmod's modprobe(8): a module is found through
// lib/modules/<release>/modules.dep (or is built in, modules.builtin) of
// the running kernel (the root's proc/sys/kernel/osrelease); one that is
// in neither is refused with "Module X not found in directory ...", exit
// 1. Loading adds it to proc/modules (dependencies are not modelled);
// -r removes it, and refuses one that is not loaded ("Module X is not in
// kernel."). Names compare with "-" and "_" alike, as the kernel does.

func modprobe(e *Env, args []string) int {
	remove := false
	var name string
	for _, a := range args {
		switch {
		case a == "-r" || a == "--remove":
			remove = true
		case strings.HasPrefix(a, "-"):
		case name == "":
			name = a
		}
		// Words after the name are module parameters.
	}
	if name == "" {
		return e.fail(1, "FATAL: Module name is missing")
	}
	name = strings.ReplaceAll(name, "-", "_")
	release, err := e.read("/proc/sys/kernel/osrelease")
	if err != nil {
		return e.fail(1, "FATAL: %v", err)
	}
	dir := "/lib/modules/" + strings.TrimSpace(string(release))
	builtin, known, err := e.moduleIndex(dir, name)
	if err != nil {
		return e.fail(1, "FATAL: %v", err)
	}
	if !known {
		return e.fail(1, "FATAL: Module %s not found in directory %s", name, dir)
	}
	if builtin {
		if remove {
			return e.fail(1, "FATAL: Module %s is builtin.", name)
		}
		return 0
	}
	data, err := e.read("/proc/modules")
	if err != nil {
		return e.fail(1, "FATAL: %v", err)
	}
	lines := splitLines(string(data))
	idx := -1
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			idx = i
		}
	}
	switch {
	case remove && idx < 0:
		return e.fail(1, "FATAL: Module %s is not in kernel.", name)
	case remove:
		lines = append(lines[:idx], lines[idx+1:]...)
	case idx >= 0:
		return 0 // already loaded: nothing to do, as modprobe
	default:
		lines = append(lines, name+" 16384 0 - Live 0x0000000000000000")
	}
	if err := e.write("/proc/modules", joinLines(lines)); err != nil {
		return e.fail(1, "FATAL: %v", err)
	}
	return 0
}

// moduleIndex looks name up in dir's modules.builtin and modules.dep.
func (e *Env) moduleIndex(dir, name string) (builtin, known bool, err error) {
	for _, f := range []string{"modules.builtin", "modules.dep"} {
		data, err := e.read(dir + "/" + f)
		if err != nil {
			return false, false, err
		}
		for _, l := range splitLines(string(data)) {
			p, _, _ := strings.Cut(l, ":")
			if moduleOf(p) == name {
				return f == "modules.builtin", true, nil
			}
		}
	}
	return false, false, nil
}

// moduleOf is the module name of a modules.dep path:
// kernel/drivers/infiniband/ulp/ipoib/ib_ipoib.ko.xz -> ib_ipoib.
func moduleOf(p string) string {
	b := path.Base(strings.TrimSpace(p))
	if i := strings.Index(b, ".ko"); i > 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}
