package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// A lab node's power cycle, as the mock BMC drives it: PowerOff loses
// what a real node keeps in memory and in /run, Boot does what systemd
// does at start-up. Enablement and masks survive (a real node keeps them
// as links under /etc); signatures and stripe patterns (DataDir) are on
// disk and survive.

// BootDir holds the seeded node's kernel tables at boot (proc-modules:
// the drivers its hardware loads; proc-mounts: what is mounted before
// fstab), written by fakenode.
const BootDir = "/.hpcstorage-sim/boot"

// powerHooks act for a unit running at power off (on false: the node
// vanished) or started at boot (on true).
var powerHooks = map[string]func(e *Env, st *Systemd, on bool) error{}

// Shutdown is a clean power off (a graceful shutdown or restart asked of
// the OS through the BMC): systemd stops the services first, pacemaker
// before corosync, so a cluster member leaves its cluster instead of
// failing and being fenced; then the node powers off as PowerOff.
func Shutdown(dir string) error {
	root, err := fsroot.Open(dir)
	if err != nil {
		return err
	}
	e := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
	st, err := e.loadUnits()
	if err != nil {
		root.Close()
		return err
	}
	var names []string
	for n, u := range st.Units {
		if unitHooks[n] != nil && u.Active {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == pacemakerUnit:
			return -1
		case b == pacemakerUnit:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		if err := unitHooks[n](e, &st, false); err != nil {
			root.Close()
			return fmt.Errorf("shutdown: stop %s: %w", n, err)
		}
		u := st.Units[n]
		u.Active = false
		st.Units[n] = u
	}
	err = e.saveUnits(st)
	root.Close()
	if err != nil {
		return err
	}
	return PowerOff(dir)
}

// PowerOff clears the node root dir's volatile state: services stop,
// modules unload and file systems unmount back to the boot tables.
func PowerOff(dir string) error {
	root, err := fsroot.Open(dir)
	if err != nil {
		return err
	}
	e := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
	st, err := e.loadUnits()
	if err != nil {
		root.Close()
		return err
	}
	// Services that others see go away without a goodbye (a cluster
	// member fails: its peers fence it).
	for n, u := range st.Units {
		if h := powerHooks[n]; h != nil && u.Active {
			if err := h(e, &st, false); err != nil {
				root.Close()
				return fmt.Errorf("power off: %s: %w", n, err)
			}
		}
	}
	root.Close()
	for n, u := range st.Units {
		u.Active = false
		if u == (Unit{}) {
			delete(st.Units, n)
		} else {
			st.Units[n] = u
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(RunDir, "/")))); err != nil {
		return fmt.Errorf("power off: %w", err)
	}
	if root, err = fsroot.Open(dir); err != nil {
		return err
	}
	defer root.Close()
	e.Root = root
	if err := e.saveUnits(st); err != nil {
		return err
	}
	for _, f := range []string{"modules", "mounts"} {
		data, err := e.read(BootDir + "/proc-" + f)
		if err != nil {
			return err
		}
		if data == nil {
			continue // not seeded by fakenode: leave the table alone
		}
		if err := e.write("/proc/"+f, data); err != nil {
			return err
		}
	}
	return nil
}

// Boot starts the node root dir as systemd would after PowerOff: the
// modules named in etc/modules-load.d, the fstab file systems (those that
// cannot mount are skipped, as with nofail), every enabled unit; and the
// unit files count as freshly loaded.
func Boot(dir string) error {
	root, err := fsroot.Open(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	e := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
	ents, err := root.ReadDir("/etc/modules-load.d")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, ent := range ents {
		data, _ := e.read("/etc/modules-load.d/" + ent.Name())
		for _, l := range splitLines(string(data)) {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, ";") {
				Run(e, []string{"modprobe", l})
			}
		}
	}
	fstab, err := e.read("/etc/fstab")
	if err != nil {
		return err
	}
	for _, l := range splitLines(string(fstab)) {
		f := strings.Fields(l)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") || f[1] == "/" || f[2] == "swap" || hasOpt(f[3], "noauto") {
			continue
		}
		Run(e, []string{"mount", "-t", f[2], "-o", f[3], f[0], f[1]})
	}
	st, err := e.loadUnits()
	if err != nil {
		return err
	}
	for n, u := range st.Units {
		u.Active = u.Enabled && !u.Masked
		st.Units[n] = u
	}
	for n, u := range st.Units {
		if h := powerHooks[n]; h != nil && u.Active {
			if err := h(e, &st, true); err != nil {
				// The unit fails to start, as systemd would leave it.
				u.Active = false
				st.Units[n] = u
			}
		}
	}
	if err := e.saveUnits(st); err != nil {
		return err
	}
	if st.Units["beegfs-client.service"].Active {
		if err := e.beegfsClientMounts(true); err != nil {
			return err
		}
	}
	return e.touchReload()
}

func hasOpt(opts, o string) bool {
	for _, x := range strings.Split(opts, ",") {
		if x == o {
			return true
		}
	}
	return false
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
