package items

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// A check run writes nothing, so without help every item would be planned
// against the node as it was before the run, and a unit written by one item
// would be "not found" for the next. The overlay holds what the steps
// planned so far would have written (files, folders, removals); every read
// items do while planning goes through view, which answers from the overlay
// first and from the root otherwise. When applying, the overlay stays empty
// and view reads the root alone.

// overlay is the pending state of a check run, by cleaned absolute path.
type overlay struct {
	paths map[string]pendingPath
}

type pendingPath struct {
	removed  bool
	dir      bool
	opaque   bool // made by a command: a file or a folder, content unknown
	content  []byte
	mode     fs.FileMode
	uid, gid int
}

// Reader is the read side of a root that planning uses: *fsroot.Root, or
// an Env's view of it with the check run's pending writes.
type Reader interface {
	ReadFile(p string) ([]byte, error)
	Exists(p string) (bool, error)
	ReadDir(p string) ([]fs.DirEntry, error)
	Resolve(p string) (string, error)
	IsHost() bool
}

var (
	_ Reader = (*fsroot.Root)(nil)
	_ Reader = view{}
)

// view is the root as the items planned so far would have left it.
type view struct {
	root *fsroot.Root
	o    *overlay
}

// fs is the one place items read the node through while planning.
func (env *Env) fs() view { return view{root: env.Root, o: env.pending} }

// IsHost reports whether the root is the machine's own "/".
func (v view) IsHost() bool { return v.root.IsHost() }

// entry returns the pending state of p, or of the file a symbolic link at
// p leads to (writes are recorded there, as WriteAtomic writes them).
func (v view) entry(p string) (pendingPath, bool) {
	if e, ok := v.own(p); ok || v.o == nil || len(v.o.paths) == 0 {
		return e, ok
	}
	if t, err := v.root.Resolve(p); err == nil && t != path.Clean(p) {
		return v.own(t)
	}
	return pendingPath{}, false
}

// own returns the pending state of the path p itself: its entry, or
// "removed" when a folder above it is pending removal or as a file.
func (v view) own(p string) (pendingPath, bool) {
	if v.o == nil || len(v.o.paths) == 0 {
		return pendingPath{}, false
	}
	p = path.Clean(p)
	if e, ok := v.o.paths[p]; ok {
		return e, true
	}
	for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
		if e, ok := v.o.paths[d]; ok {
			if e.removed || !e.dir && !e.opaque {
				return pendingPath{removed: true}, true
			}
			break
		}
	}
	return pendingPath{}, false
}

// onHost reports whether p is on the root itself (a link counts, even a
// dangling one), whatever the overlay says.
func (v view) onHost(p string) (bool, error) {
	_, err := v.root.Lstat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, nil
	}
	return false, err
}

func notExist(op, p string) error {
	return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
}

// ReadFile reads a file.
func (v view) ReadFile(p string) ([]byte, error) {
	if e, ok := v.entry(p); ok {
		switch {
		case e.removed:
			return nil, notExist("read", p)
		case e.dir:
			return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
		}
		return slices.Clone(e.content), nil
	}
	return v.root.ReadFile(p)
}

// Exists reports whether p exists (following links).
func (v view) Exists(p string) (bool, error) {
	if e, ok := v.entry(p); ok {
		return !e.removed, nil
	}
	return v.root.Exists(p)
}

// Resolve follows a final symbolic link. Pending entries are recorded at
// resolved paths, so a path with an entry is its own target.
func (v view) Resolve(p string) (string, error) {
	if _, ok := v.own(p); ok {
		return path.Clean(p), nil
	}
	return v.root.Resolve(p)
}

// ReadDir lists a folder, the root's entries merged with pending ones.
func (v view) ReadDir(p string) ([]fs.DirEntry, error) {
	e, pend := v.entry(p)
	switch {
	case pend && e.removed:
		return nil, notExist("open", p)
	case pend && !e.dir && !e.opaque:
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: syscall.ENOTDIR}
	}
	ents, err := v.root.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) && pend {
		ents, err = nil, nil
	}
	if err != nil || v.o == nil {
		return ents, err
	}
	dir := path.Clean(p)
	for k, pe := range v.o.paths {
		if path.Dir(k) != dir || k == dir {
			continue
		}
		name := path.Base(k)
		ents = slices.DeleteFunc(ents, func(d fs.DirEntry) bool { return d.Name() == name })
		if !pe.removed {
			ents = append(ents, pendingEntry{name: name, p: pe})
		}
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// fileInfo is readFileInfo through the overlay.
func (v view) fileInfo(p string) (fileInfo, error) {
	if e, ok := v.entry(p); ok {
		switch {
		case e.removed:
			return fileInfo{}, nil
		case e.dir:
			return fileInfo{}, fmt.Errorf("%s: not a regular file", p)
		}
		return fileInfo{exists: true, content: slices.Clone(e.content), mode: e.mode, uid: e.uid, gid: e.gid}, nil
	}
	return readFileInfo(v.root, p)
}

// pendingEntry is a pending path as a directory entry.
type pendingEntry struct {
	name string
	p    pendingPath
}

func (e pendingEntry) Name() string { return e.name }
func (e pendingEntry) IsDir() bool  { return e.p.dir }
func (e pendingEntry) Type() fs.FileMode {
	if e.p.dir {
		return fs.ModeDir
	}
	return 0
}
func (e pendingEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e pendingEntry) Size() int64                { return int64(len(e.p.content)) }
func (e pendingEntry) ModTime() time.Time         { return time.Time{} }
func (e pendingEntry) Sys() any                   { return nil }
func (e pendingEntry) Mode() fs.FileMode {
	if e.p.dir {
		return fs.ModeDir | 0o755
	}
	return e.p.mode
}

// The would* methods record what a step would leave behind. Engine calls
// them (through Plan.RecordPending) in check mode only, in spec order.

func (env *Env) set(p string, e pendingPath) {
	if env.pending == nil {
		env.pending = &overlay{paths: map[string]pendingPath{}}
	}
	env.pending.paths[path.Clean(p)] = e
}

// wouldMkdirAll records p and its missing parents as folders.
func (env *Env) wouldMkdirAll(p string) {
	for d := path.Clean(p); d != "/" && d != "."; d = path.Dir(d) {
		if ok, err := env.fs().Exists(d); err == nil && ok {
			return
		}
		env.set(d, pendingPath{dir: true})
	}
}

// wouldWrite records a whole file (at the end of a final link, as
// WriteAtomic writes it); a negative uid or gid is the agent's own, as
// WriteAtomic leaves it.
func (env *Env) wouldWrite(p string, content []byte, mode fs.FileMode, uid, gid int) {
	if t, err := env.fs().Resolve(p); err == nil {
		p = t
	}
	if uid < 0 {
		uid = os.Geteuid()
	}
	if gid < 0 {
		gid = os.Getegid()
	}
	env.wouldMkdirAll(path.Dir(p))
	env.set(p, pendingPath{content: slices.Clone(content), mode: mode, uid: uid, gid: gid})
}

// wouldCreate records a path a command creates: present, a file or a
// folder, content unknown (empty, as a fake root's simulation leaves it).
func (env *Env) wouldCreate(p string) {
	if ok, err := env.fs().Exists(p); err == nil && ok {
		return
	}
	env.wouldMkdirAll(path.Dir(p))
	env.set(p, pendingPath{opaque: true, mode: 0o644, uid: os.Geteuid(), gid: os.Getegid()})
}

// wouldRemove records a removal (of a file, or of an empty folder).
func (env *Env) wouldRemove(p string) {
	p = path.Clean(p)
	if env.pending != nil {
		for k := range env.pending.paths {
			if strings.HasPrefix(k, p+"/") {
				delete(env.pending.paths, k)
			}
		}
	}
	env.set(p, pendingPath{removed: true})
}

// RecordPending records what the plan's steps would do, so that items
// planned after it in the same check run see the node as apply would have
// left it.
func (p Plan) RecordPending() {
	for _, s := range p.Steps {
		if s.Would != nil {
			s.Would()
		}
	}
}
