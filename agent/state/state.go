// Package state keeps what the agent must remember between runs, under the
// root's var/lib/hpcstorage-agent/: per owner, the keys it claims, the
// original of every key at its first change (so remove can put it back),
// and service restarts that are owed. It also holds the per-root run lock.
package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Paths inside the root.
const (
	Dir       = "/" + protocol.StateDir
	OwnersDir = Dir + "/owners"
	LockPath  = Dir + "/lock"
)

// Errors.
var (
	ErrLocked   = errors.New("another hpcstorage-agent run holds the lock")
	ErrClaimed  = errors.New("key is managed by another owner")
	ErrBadState = errors.New("unreadable state file")
)

// Kinds of original.
const (
	KindFile   = "file"   // a regular file: content, mode, uid, gid, or absence
	KindDir    = "dir"    // a folder the agent created
	KindKernel = "kernel" // a proc/sys or sysfs value
	KindUnit   = "unit"   // a systemd unit's enabled/active/masked state
	KindModule = "module" // whether a kernel module was loaded
	KindMount  = "mount"  // whether a path was mounted
	KindFstab  = "fstab"  // one mount point's line in etc/fstab (Value), or its absence
)

// Original is a key's value before the agent first changed it.
type Original struct {
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	Path    string `json:"path,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
	Content []byte `json:"content,omitempty"`
	Mode    uint32 `json:"mode,omitempty"`
	UID     int    `json:"uid,omitempty"`
	GID     int    `json:"gid,omitempty"`
	// Value: the selected kernel value (what a real host gets written back),
	// or for units "enabled=true active=false masked=false", modules and
	// mounts "loaded"/"absent", "mounted"/"absent".
	Value string `json:"value,omitempty"`
	Seq   int    `json:"seq"`
	// Sensitive: never show Content in a diff.
	Sensitive bool `json:"sensitive,omitempty"`
}

// Owner is one owner's state file.
type Owner struct {
	Owner     string               `json:"owner"`
	Claims    []string             `json:"claims"`
	Originals map[string]*Original `json:"originals"`
	Pending   []string             `json:"pending_restarts"`
	NextSeq   int                  `json:"next_seq"`
}

// Record stores o as the original of its key unless one is already kept.
// It reports whether it stored it.
func (o *Owner) Record(orig Original) bool {
	if _, ok := o.Originals[orig.Key]; ok {
		return false
	}
	orig.Seq = o.NextSeq
	o.NextSeq++
	o.Originals[orig.Key] = &orig
	return true
}

// Claim adds keys to the owner's claims.
func (o *Owner) Claim(keys ...string) bool {
	changed := false
	for _, k := range keys {
		if !slices.Contains(o.Claims, k) {
			o.Claims = append(o.Claims, k)
			changed = true
		}
	}
	if changed {
		slices.Sort(o.Claims)
	}
	return changed
}

// AddPending adds owed restarts; it reports whether anything was new.
func (o *Owner) AddPending(units ...string) bool {
	changed := false
	for _, u := range units {
		if !slices.Contains(o.Pending, u) {
			o.Pending = append(o.Pending, u)
			changed = true
		}
	}
	return changed
}

// DonePending removes a restart from the owed list.
func (o *Owner) DonePending(unit string) {
	o.Pending = slices.DeleteFunc(o.Pending, func(s string) bool { return s == unit })
}

// Ordered returns the originals newest first (the order to restore them).
func (o *Owner) Ordered() []*Original {
	out := make([]*Original, 0, len(o.Originals))
	for _, v := range o.Originals {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *Original) int { return b.Seq - a.Seq })
	return out
}

// Store is every owner's state of one root.
type Store struct {
	root   *fsroot.Root
	owners map[string]*Owner
}

// Load reads all owner files (a missing state folder is an empty store).
func Load(root *fsroot.Root) (*Store, error) {
	s := &Store{root: root, owners: map[string]*Owner{}}
	ents, err := root.ReadDir(OwnersDir)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		data, err := root.ReadFile(OwnersDir + "/" + name)
		if err != nil {
			return nil, err
		}
		var o Owner
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrBadState, root.HostPath(OwnersDir+"/"+name), err)
		}
		if o.Originals == nil {
			o.Originals = map[string]*Original{}
		}
		s.owners[o.Owner] = &o
	}
	return s, nil
}

// Owner returns the owner's state, empty when it has none yet.
func (s *Store) Owner(name string) *Owner {
	if o, ok := s.owners[name]; ok {
		return o
	}
	o := &Owner{Owner: name, Claims: []string{}, Originals: map[string]*Original{}, Pending: []string{}}
	s.owners[name] = o
	return o
}

// Has reports whether the owner has a state file.
func (s *Store) Has(name string) bool {
	o, ok := s.owners[name]
	return ok && (len(o.Claims) > 0 || len(o.Originals) > 0 || len(o.Pending) > 0)
}

// CheckClaims returns an error naming the first other owner that claims
// one of keys.
func (s *Store) CheckClaims(owner string, keys []string) error {
	names := make([]string, 0, len(s.owners))
	for n := range s.owners {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, k := range keys {
		for _, n := range names {
			if n != owner && slices.Contains(s.owners[n].Claims, k) {
				return fmt.Errorf("%w: %s is claimed by owner %q (run `hpcstorage-agent remove --owner %s` first, or manage it there)",
					ErrClaimed, k, n, n)
			}
		}
	}
	return nil
}

// Save writes the owner's file atomically.
func (s *Store) Save(owner string) error {
	o := s.Owner(owner)
	if _, err := s.root.MkdirAll(OwnersDir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(o, "", " ")
	if err != nil {
		return err
	}
	return s.root.WriteAtomic(OwnersDir+"/"+owner+".json", append(data, '\n'),
		fsroot.WriteOpts{Mode: 0o600, UID: -1, GID: -1})
}

// Delete removes the owner's file.
func (s *Store) Delete(owner string) error {
	delete(s.owners, owner)
	err := s.root.Remove(OwnersDir + "/" + owner + ".json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Lock is a held run lock.
type Lock struct{ f *os.File }

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		_ = l.f.Close()
	}
}

// Acquire takes the root's run lock, waiting up to timeout. With shared
// (check mode) it takes a shared lock only if the lock file already exists,
// so a check run creates nothing.
func Acquire(ctx context.Context, root *fsroot.Root, timeout time.Duration, shared bool) (*Lock, error) {
	var f *os.File
	var err error
	if shared {
		f, err = root.OpenFile(LockPath, os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return &Lock{}, nil
		}
	} else {
		if _, err = root.MkdirAll(Dir, 0o700); err != nil {
			return nil, err
		}
		f, err = root.OpenFile(LockPath, os.O_RDWR|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	deadline := time.Now().Add(timeout)
	wait := 5 * time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", root.HostPath(LockPath), err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w on %s (waited %s; raise --lock-timeout or wait for the other run)",
				ErrLocked, root.HostPath(LockPath), timeout)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 200*time.Millisecond)
	}
}
