package sim

// Cluster-wide state. A GPFS, Ceph or pacemaker cluster keeps one state
// that every member node sees (the CIB, the GPFS configuration, the Ceph
// maps); in the lab each node has its own root, so the nodes of one lab
// share a folder outside their roots, reached through a link in each root.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// SharedLink is the root-relative link to the lab-wide shared folder
// (fakenode.Options.SharedDir). A root without it keeps its "cluster"
// state to itself, under DataDir/shared: a cluster of one node.
const SharedLink = "/.hpcstorage-sim/shared"

// LinkShared points root's SharedLink at dir (created if missing).
func LinkShared(root, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shared state: %w", err)
	}
	link := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(SharedLink, "/")))
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("shared state: %w", err)
	}
	_ = os.Remove(link)
	if err := os.Symlink(dir, link); err != nil {
		return fmt.Errorf("shared state: %w", err)
	}
	return nil
}

// sharedPath is where Shared keeps name's state.
func (e *Env) sharedPath(name string) string {
	base := filepath.Join(e.Root.Dir(), filepath.FromSlash(strings.TrimPrefix(SharedLink, "/")))
	if _, err := os.Stat(base); err != nil {
		base = filepath.Join(e.Root.Dir(), filepath.FromSlash(strings.TrimPrefix(DataDir, "/")), "shared")
	}
	return filepath.Join(base, name)
}

// hasShared reports whether name's state exists: readers that find none
// leave the root untouched (a query must not create state).
func (e *Env) hasShared(name string) bool {
	_, err := os.Stat(e.sharedPath(name))
	return err == nil
}

// Shared returns the host folder of one cluster's state (name: "gpfs",
// "ceph", "pacemaker"...), created if missing, locked against the other
// nodes' simulators until unlock is called. The folder is outside the
// root on purpose, so it is used with the os package, not e.Root.
func (e *Env) Shared(name string) (dir string, unlock func(), err error) {
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return "", nil, fmt.Errorf("shared state: bad name %q", name)
	}
	dir = e.sharedPath(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("shared state: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", nil, fmt.Errorf("shared state: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return "", nil, fmt.Errorf("shared state: lock %s: %w", dir, err)
	}
	return dir, func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// NodesDir is the node registry in a lab's shared folder: one link per
// host name to that node's root, the lab's stand-in for a cluster tool's
// SSH to the other nodes (cephadm's inventory, GPFS's NSD servers).
const NodesDir = "nodes"

// RegisterNode records that host's root is dir in the lab's shared folder
// (replacing the link atomically, so a reader never finds none).
func RegisterNode(sharedDir, host, dir string) error {
	if host == "" || strings.ContainsAny(host, "/\\") || host == "." || host == ".." {
		return fmt.Errorf("node registry: bad host name %q", host)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("node registry: %w", err)
	}
	reg := filepath.Join(sharedDir, NodesDir)
	if err := os.MkdirAll(reg, 0o755); err != nil {
		return fmt.Errorf("node registry: %w", err)
	}
	link := filepath.Join(reg, host)
	if cur, err := os.Readlink(link); err == nil && cur == abs {
		return nil
	}
	tmp := link + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(abs, tmp); err != nil {
		return fmt.Errorf("node registry: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return fmt.Errorf("node registry: %w", err)
	}
	return nil
}

// hostname is the node's name as etc/hostname (or the kernel) says, in
// full: cephadm refuses a fully qualified one.
func (e *Env) hostname() string {
	b, _ := e.read("/etc/hostname")
	h := strings.TrimSpace(string(b))
	if h == "" {
		b, _ = e.read("/proc/sys/kernel/hostname")
		h = strings.TrimSpace(string(b))
	}
	return h
}

// shortHostname is the hostname without its domain (GPFS node names).
func (e *Env) shortHostname() string {
	h, _, _ := strings.Cut(e.hostname(), ".")
	return h
}
