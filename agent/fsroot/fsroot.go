// Package fsroot confines every file access of the agent to one root folder
// ("/" on a real node, a test folder otherwise). It is built on os.Root, so
// the kernel resolves each path component relative to the root's descriptor:
// ".." that climbs out and absolute symbolic links are refused at access
// time, not only when the spec is validated.
package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// ErrEscape is returned for a path (or a symbolic link on it) that would
// leave the root.
var ErrEscape = errors.New("path leaves the root")

// ErrNotAbs is returned for a spec path that is not absolute.
var ErrNotAbs = errors.New("path is not absolute")

// Root is an opened root folder.
type Root struct {
	dir string
	r   *os.Root

	// Opened folders, so reading proc/sys/vm/x does not walk proc, sys
	// and vm again for every key. Cleared on any removal.
	mu   sync.Mutex
	dirs map[string]*os.Root
}

// Open opens dir as a root. dir must be an existing folder.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("root %s: not a folder", abs)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	return &Root{dir: abs, r: r}, nil
}

// Close releases the root's descriptors.
func (r *Root) Close() error {
	r.forget()
	return r.r.Close()
}

func (r *Root) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.dirs {
		d.Close()
	}
	r.dirs = nil
}

// at returns the opened folder holding rp and rp's name in it. A folder
// handle is itself an os.Root, so access through it is confined to that
// folder; callers fall back to the whole root when a link climbs out of it
// (see retry).
func (r *Root) at(rp string) (*os.Root, string) {
	dir := path.Dir(rp)
	if dir == "." {
		return r.r, rp
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.dirs[dir]; ok {
		return d, path.Base(rp)
	}
	d, err := r.r.OpenRoot(dir)
	if err != nil {
		return r.r, rp
	}
	if r.dirs == nil {
		r.dirs = map[string]*os.Root{}
	}
	r.dirs[dir] = d
	return d, path.Base(rp)
}

// retry reports whether an access through a folder handle must be redone
// on the whole root: a relative link that leaves the folder but may stay
// inside the root (etc/sysctl.d/99-sysctl.conf -> ../sysctl.conf).
func retry(err error) bool {
	return err != nil && strings.Contains(err.Error(), "escapes")
}

// Dir is the absolute host path of the root.
func (r *Root) Dir() string { return r.dir }

// IsHost is true when the root is the machine's own "/": only then are
// commands executed and kernel files written in place.
func (r *Root) IsHost() bool { return r.dir == "/" }

// rel maps a spec path ("/etc/x") to a root-relative one ("etc/x").
func rel(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q: %w", p, ErrNotAbs)
	}
	c := path.Clean(p)
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", fmt.Errorf("%q: %w", p, ErrEscape)
		}
	}
	if c == "/" {
		return ".", nil
	}
	return strings.TrimPrefix(c, "/"), nil
}

// HostPath is where p lives on the machine, for messages.
func (r *Root) HostPath(p string) string {
	rp, err := rel(p)
	if err != nil {
		return p
	}
	return filepath.Join(r.dir, rp)
}

// wrap turns os.Root's escape errors into ErrEscape and keeps the others.
func wrap(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	msg := err.Error()
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	if strings.Contains(msg, "escapes") {
		return fmt.Errorf("%s %s: %w (a '..' or an absolute symbolic link on the path)", op, p, ErrEscape)
	}
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", op, p, pe.Err)
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

// ReadFile reads a file.
func (r *Root) ReadFile(p string) ([]byte, error) {
	rp, err := rel(p)
	if err != nil {
		return nil, err
	}
	d, name := r.at(rp)
	b, err := d.ReadFile(name)
	if retry(err) {
		b, err = r.r.ReadFile(rp)
	}
	return b, wrap("read", p, err)
}

// Stat follows symbolic links (within the root).
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	rp, err := rel(p)
	if err != nil {
		return nil, err
	}
	d, name := r.at(rp)
	st, err := d.Stat(name)
	if retry(err) {
		st, err = r.r.Stat(rp)
	}
	return st, wrap("stat", p, err)
}

// Lstat does not follow a final symbolic link.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	rp, err := rel(p)
	if err != nil {
		return nil, err
	}
	d, name := r.at(rp)
	st, err := d.Lstat(name)
	return st, wrap("lstat", p, err)
}

// Exists reports whether p exists (following links). Errors other than
// "not found" are returned.
func (r *Root) Exists(p string) (bool, error) {
	_, err := r.Stat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// ReadDir lists a folder, sorted by name.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	rp, err := rel(p)
	if err != nil {
		return nil, err
	}
	f, err := r.r.Open(rp)
	if err != nil {
		return nil, wrap("open", p, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, wrap("readdir", p, err)
	}
	sortEntries(ents)
	return ents, nil
}

func sortEntries(e []fs.DirEntry) {
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && e[j].Name() < e[j-1].Name(); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

// Resolve follows symbolic links on the final component of p (as a rename
// would replace the link, not its target) and returns the path they lead to.
// Links are resolved within the root; absolute ones and ones that climb out
// are ErrEscape.
func (r *Root) Resolve(p string) (string, error) {
	cur := p
	for range 40 {
		rp, err := rel(cur)
		if err != nil {
			return "", err
		}
		d, name := r.at(rp)
		st, err := d.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return cur, nil
		}
		if err != nil {
			return "", wrap("lstat", cur, err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return cur, nil
		}
		target, err := d.Readlink(name)
		if err != nil {
			return "", wrap("readlink", cur, err)
		}
		if strings.HasPrefix(target, "/") {
			return "", fmt.Errorf("%s -> %s: %w (absolute symbolic link)", cur, target, ErrEscape)
		}
		next := path.Join(path.Dir(cur), target)
		if climbs(path.Dir(cur), target) {
			return "", fmt.Errorf("%s -> %s: %w", cur, target, ErrEscape)
		}
		cur = next
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// climbs reports whether joining a relative link target to dir goes above "/".
func climbs(dir, target string) bool {
	depth := 0
	for _, el := range strings.Split(strings.Trim(dir, "/"), "/") {
		if el != "" {
			depth++
		}
	}
	for _, el := range strings.Split(target, "/") {
		switch el {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// CheckConfined reports an error when p, or a link on its way, leaves the
// root. A path that does not exist yet is fine. It reads only.
func (r *Root) CheckConfined(p string) error {
	if _, err := r.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return err
	}
	_, err := r.Resolve(p)
	return err
}

// MkdirAll creates p and missing parents with perm and returns the folders
// it created, outermost first (so a revert can remove them innermost first).
func (r *Root) MkdirAll(p string, perm fs.FileMode) ([]string, error) {
	if _, err := rel(p); err != nil {
		return nil, err
	}
	var missing []string
	for cur := path.Clean(p); cur != "/"; cur = path.Dir(cur) {
		ok, err := r.Exists(cur)
		if err != nil {
			return nil, err
		}
		if ok {
			break
		}
		missing = append(missing, cur)
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		rp, _ := rel(missing[i])
		if err := r.r.Mkdir(rp, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, wrap("mkdir", missing[i], err)
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// Remove deletes a file or an empty folder.
func (r *Root) Remove(p string) error {
	rp, err := rel(p)
	if err != nil {
		return err
	}
	r.forget()
	return wrap("remove", p, r.r.Remove(rp))
}

// Chmod changes a mode.
func (r *Root) Chmod(p string, mode fs.FileMode) error {
	rp, err := rel(p)
	if err != nil {
		return err
	}
	return wrap("chmod", p, r.r.Chmod(rp, mode))
}

// Chown changes owner and group (-1 keeps one).
func (r *Root) Chown(p string, uid, gid int) error {
	rp, err := rel(p)
	if err != nil {
		return err
	}
	return wrap("chown", p, r.r.Chown(rp, uid, gid))
}

// WriteOpts are the metadata of an atomic write. A negative UID or GID keeps
// the process's own.
type WriteOpts struct {
	Mode     fs.FileMode
	UID, GID int
}

// TempSuffix marks the agent's temporary files. The name is fixed per
// target, so a temp left by a killed run is reused (and renamed) by the
// next one instead of piling up.
const TempSuffix = ".hpcstorage-tmp"

// WriteAtomic replaces p (after following a final symbolic link) with data:
// temp file in the same folder, write, chmod/chown, fsync, rename, fsync of
// the folder. A crash at any moment leaves the old or the new file whole.
// The parent folder must exist.
func (r *Root) WriteAtomic(p string, data []byte, o WriteOpts) error {
	target, err := r.Resolve(p)
	if err != nil {
		return err
	}
	rp, err := rel(target)
	if err != nil {
		return err
	}
	d, name := r.at(rp)
	tmp := "." + name + TempSuffix
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return wrap("create temp for", p, err)
	}
	fail := func(op string, err error) error {
		f.Close()
		_ = d.Remove(tmp)
		return wrap(op, p, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Chmod(o.Mode.Perm() | o.Mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		return fail("chmod", err)
	}
	if o.UID >= 0 || o.GID >= 0 {
		// Only when the temp is not already owned right: an unprivileged
		// run on a fake root cannot chown, and need not.
		uid, gid := -1, -1
		if st, err := f.Stat(); err == nil {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok {
				uid, gid = int(sys.Uid), int(sys.Gid)
			}
		}
		if o.UID >= 0 && o.UID != uid || o.GID >= 0 && o.GID != gid {
			if err := f.Chown(o.UID, o.GID); err != nil {
				return fail("chown", err)
			}
		}
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Close(); err != nil {
		_ = d.Remove(tmp)
		return wrap("close", p, err)
	}
	if err := d.Rename(tmp, name); err != nil {
		_ = d.Remove(tmp)
		return wrap("rename", p, err)
	}
	// fsync the folder so the rename itself is durable.
	dir, err := d.Open(".")
	if err != nil {
		return wrap("open folder of", p, err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return wrap("fsync folder of", p, err)
	}
	return nil
}

// WriteKernel writes a value to a kernel file (proc/sys, sys/...). On the
// host it is written in place, as the kernel wants; in a fake root it is an
// atomic write, so fake roots obey the same never-torn rule as config files.
func (r *Root) WriteKernel(p string, data []byte) error {
	if !r.IsHost() {
		st, err := r.Stat(p)
		if err != nil {
			return err
		}
		return r.WriteAtomic(p, data, WriteOpts{Mode: st.Mode().Perm(), UID: -1, GID: -1})
	}
	rp, err := rel(p)
	if err != nil {
		return err
	}
	d, name := r.at(rp)
	f, err := d.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return wrap("open", p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return wrap("write", p, err)
	}
	return wrap("close", p, f.Close())
}

// OpenFile opens p with the given flags, confined to the root.
func (r *Root) OpenFile(p string, flag int, perm fs.FileMode) (*os.File, error) {
	rp, err := rel(p)
	if err != nil {
		return nil, err
	}
	d, name := r.at(rp)
	f, err := d.OpenFile(name, flag, perm)
	if retry(err) {
		f, err = r.r.OpenFile(rp, flag, perm)
	}
	return f, wrap("open", p, err)
}
