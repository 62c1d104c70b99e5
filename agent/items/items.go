// Package items implements the agent's item types. Each type plans (reads
// only, returns the steps that would change the node and their diff) and the
// engine runs the steps. Every step carries the originals it would change,
// so the engine can record them before the first change.
package items

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/udiff"
)

// Errors items wrap.
var (
	ErrNotFound    = errors.New("not found")
	ErrUnsupported = errors.New("not supported by this node")
	ErrReadBack    = errors.New("value did not stick")
	ErrPreflight   = errors.New("preflight failed")
)

// Env is what items see of the world.
type Env struct {
	Root  *fsroot.Root
	Run   runner.Runner
	Owner string
	Spec  *protocol.Spec
	Check bool

	overrides  *sysctlOverrides  // lazily scanned sysctl.d and tuned files
	sharedDone map[string]string // generated shared files known converged this run -> claim key
	packages   *packageDB        // read once per run
	platform   *string           // the node's release, read once per run
	pending    *overlay          // check mode: what earlier steps would have written
}

// Step is one change. Do performs it; Origs are the values it overwrites.
// Would records in check mode what Do would leave for later items to read
// (nil when nothing later items read changes).
type Step struct {
	Origs []state.Original
	Diff  string
	Do    func(ctx context.Context) error
	Would func()
}

// Plan is an item's planned changes. Claims are every key the item manages,
// changed or not; Notify lists units to restart if the item changes.
type Plan struct {
	Claims   []string
	Steps    []Step
	Warnings []string
	Notify   []string
	// Starts lists units the plan starts from inactive: a unit started
	// after its last notifier changed already runs the new config, so the
	// engine does not restart it again.
	Starts []string
	// Output is what a read-only command printed (the result's output).
	Output string
}

// Changed reports whether the item would change anything.
func (p Plan) Changed() bool { return len(p.Steps) > 0 }

// Diff joins the steps' diffs.
func (p Plan) Diff() string {
	var b strings.Builder
	for _, s := range p.Steps {
		b.WriteString(s.Diff)
	}
	return b.String()
}

// Item is one spec item.
type Item interface {
	ID() string
	Plan(ctx context.Context, env *Env) (Plan, error)
}

// New builds the implementation of a (validated) spec item. The list is
// explicit: no registry.
func New(it protocol.Item) Item {
	id := it.ID()
	switch {
	case it.Sysctl != nil:
		return &sysctlItem{id: id, s: it.Sysctl}
	case it.File != nil:
		return &fileItem{id: id, f: it.File}
	case it.UdevRule != nil:
		return &udevItem{id: id, u: it.UdevRule}
	case it.BlockQueue != nil:
		return &blockQueueItem{id: id, b: it.BlockQueue}
	case it.THP != nil:
		return &thpItem{id: id, t: it.THP}
	case it.KernelModule != nil:
		return &moduleItem{id: id, m: it.KernelModule}
	case it.Service != nil:
		return &serviceItem{id: id, s: it.Service}
	case it.Mount != nil:
		return &mountItem{id: id, m: it.Mount}
	case it.Command != nil:
		return &commandItem{id: id, c: it.Command}
	case it.PackageVersion != nil:
		return &packageItem{id: id, p: it.PackageVersion}
	}
	return nil
}

// Paths returns the spec paths an item touches, for the up-front
// confinement check.
func Paths(it protocol.Item) []string {
	switch {
	case it.File != nil:
		return []string{it.File.Path}
	case it.Mount != nil:
		out := []string{it.Mount.Path}
		if strings.HasPrefix(it.Mount.Device, "/") {
			out = append(out, it.Mount.Device)
		}
		return out
	case it.Command != nil && it.Command.Creates != "":
		return []string{it.Command.Creates}
	}
	return nil
}

// fileInfo is the managed view of a file.
type fileInfo struct {
	exists   bool
	content  []byte
	mode     fs.FileMode
	uid, gid int
}

func readFileInfo(root *fsroot.Root, p string) (fileInfo, error) {
	// One open, then fstat and read: each path walk under os.Root costs a
	// few syscalls per component, and no-op runs are mostly reads.
	f, err := root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fileInfo{}, nil
	}
	if err != nil {
		return fileInfo{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileInfo{}, fmt.Errorf("stat %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return fileInfo{}, fmt.Errorf("%s: not a regular file", p)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fileInfo{}, fmt.Errorf("read %s: %w", p, err)
	}
	fi := fileInfo{exists: true, content: b, mode: st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), uid: -1, gid: -1}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fi.uid, fi.gid = int(sys.Uid), int(sys.Gid)
	}
	return fi, nil
}

// fileOriginal records a file as it is now.
func fileOriginal(key, p string, fi fileInfo) state.Original {
	if !fi.exists {
		return state.Original{Key: key, Kind: state.KindFile, Path: p, Absent: true}
	}
	return state.Original{Key: key, Kind: state.KindFile, Path: p, Content: fi.content, Mode: uint32(fi.mode),
		UID: fi.uid, GID: fi.gid}
}

// fileWant is the desired state of a managed file. Nil Content leaves the
// content alone; a negative Mode, UID or GID leaves that alone.
type fileWant struct {
	Content  []byte
	Mode     fs.FileMode
	HasMode  bool
	UID, GID int
}

// fileSteps plans a file: missing folders, then content/mode/owner. The
// returned key is the file's claim key (its path after links).
func fileSteps(env *Env, p string, w fileWant) (string, []Step, error) {
	target, err := env.fs().Resolve(p)
	if err != nil {
		return "", nil, err
	}
	key := "file:" + target
	fi, err := env.fs().fileInfo(target)
	if err != nil {
		return key, nil, err
	}
	var steps []Step
	if !fi.exists {
		if w.Content == nil {
			return key, nil, fmt.Errorf("%s: %w (set content to create it)", p, ErrNotFound)
		}
		dirs, err := missingDirs(env.fs(), target)
		if err != nil {
			return key, nil, err
		}
		if len(dirs) > 0 {
			var origs []state.Original
			for _, d := range dirs {
				origs = append(origs, state.Original{Key: "dir:" + d, Kind: state.KindDir, Path: d, Absent: true})
			}
			last := target[:strings.LastIndex(target, "/")]
			steps = append(steps, Step{Origs: origs, Diff: fmt.Sprintf("+folder %s\n", last),
				Do: func(context.Context) error {
					_, err := env.Root.MkdirAll(last, 0o755)
					return err
				},
				Would: func() { env.wouldMkdirAll(last) }})
		}
	}
	content := fi.content
	if w.Content != nil {
		content = w.Content
	}
	mode := fi.mode
	if w.HasMode {
		mode = w.Mode
	} else if !fi.exists {
		mode = 0o644
	}
	uid, gid := fi.uid, fi.gid
	if w.UID >= 0 {
		uid = w.UID
	}
	if w.GID >= 0 {
		gid = w.GID
	}
	var diff strings.Builder
	if !fi.exists || string(content) != string(fi.content) {
		diff.WriteString(udiff.Diff(p, fi.content, content))
	}
	if fi.exists && mode != fi.mode {
		fmt.Fprintf(&diff, "mode %s: %04o -> %04o\n", p, fi.mode, mode)
	}
	if fi.exists && (uid != fi.uid || gid != fi.gid) {
		fmt.Fprintf(&diff, "owner %s: %d:%d -> %d:%d\n", p, fi.uid, fi.gid, uid, gid)
	}
	if diff.Len() == 0 {
		return key, steps, nil
	}
	wantUID, wantGID := uid, gid
	if !fi.exists {
		wantUID, wantGID = w.UID, w.GID
	}
	steps = append(steps, Step{
		Origs: []state.Original{fileOriginal(key, target, fi)},
		Diff:  diff.String(),
		Do: func(context.Context) error {
			return env.Root.WriteAtomic(target, content, fsroot.WriteOpts{Mode: mode, UID: wantUID, GID: wantGID})
		},
		Would: func() { env.wouldWrite(target, content, mode, wantUID, wantGID) },
	})
	return key, steps, nil
}

// missingDirs lists the folders above p that do not exist, outermost first.
func missingDirs(root Reader, p string) ([]string, error) {
	var out []string
	for d := p[:strings.LastIndex(p, "/")]; d != "" && d != "/"; d = d[:strings.LastIndex(d, "/")] {
		ok, err := root.Exists(d)
		if err != nil {
			return nil, err
		}
		if ok {
			break
		}
		out = append([]string{d}, out...)
	}
	return out, nil
}

// readKernel reads a proc/sys or sysfs value without its final newline.
func readKernel(root Reader, p string) (string, error) {
	b, err := root.ReadFile(p)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// selected returns the bracketed choice of "a [b] c", or the plain value.
func selected(v string) string {
	if i := strings.IndexByte(v, '['); i >= 0 {
		if j := strings.IndexByte(v[i:], ']'); j > 0 {
			return v[i+1 : i+j]
		}
	}
	return strings.TrimSpace(v)
}

// choices returns the words of "a [b] c" without brackets.
func choices(v string) []string {
	f := strings.Fields(v)
	for i, w := range f {
		f[i] = strings.Trim(w, "[]")
	}
	return f
}

// kernelStep plans writing value to a kernel file. For bracketed files
// (choices) a fake root gets the brackets moved, as the kernel would show.
func kernelStep(env *Env, key, p, label, want string, bracketed bool) (*Step, error) {
	b, err := env.fs().ReadFile(p)
	if err != nil {
		return nil, err
	}
	raw := strings.TrimRight(string(b), "\n")
	cur := raw
	if bracketed {
		cur = selected(raw)
	}
	if normalize(cur) == normalize(want) {
		return nil, nil
	}
	orig := state.Original{Key: key, Kind: state.KindKernel, Path: p, Content: b, Value: cur}
	return &Step{
		Origs: []state.Original{orig},
		Diff:  udiff.Line(label, cur, want),
		Do: func(context.Context) error {
			return writeKernel(env.Root, p, want, bracketed)
		},
	}, nil
}

// writeKernel writes and reads back.
func writeKernel(root *fsroot.Root, p, want string, bracketed bool) error {
	data := want + "\n"
	if !root.IsHost() && bracketed {
		raw, err := readKernel(root, p)
		if err != nil {
			return err
		}
		if strings.Contains(raw, "[") {
			words := choices(raw)
			for i, w := range words {
				if w == want {
					words[i] = "[" + w + "]"
				}
			}
			data = strings.Join(words, " ") + "\n"
		}
	}
	if err := root.WriteKernel(p, []byte(data)); err != nil {
		return err
	}
	got, err := readKernel(root, p)
	if err != nil {
		return err
	}
	if bracketed {
		got = selected(got)
	}
	if normalize(got) != normalize(want) {
		return fmt.Errorf("%s: wrote %q, kernel shows %q: %w", p, want, got, ErrReadBack)
	}
	return nil
}

// normalize compares multi-field kernel values ("4096\t87380 6291456").
func normalize(v string) string { return strings.Join(strings.Fields(v), " ") }

// lookupID resolves a user or group name through the root's etc/passwd or
// etc/group; numbers pass through. "" is -1 (leave alone).
func lookupID(root Reader, name, db string) (int, error) {
	if name == "" {
		return -1, nil
	}
	if n, err := strconv.Atoi(name); err == nil {
		return n, nil
	}
	data, err := root.ReadFile("/etc/" + db)
	if err != nil {
		return -1, fmt.Errorf("look up %q: %w", name, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Split(l, ":")
		if len(f) >= 3 && f[0] == name {
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return -1, fmt.Errorf("/etc/%s: bad id for %q", db, name)
			}
			return n, nil
		}
	}
	return -1, fmt.Errorf("%q is not in /etc/%s under the root: %w", name, db, ErrNotFound)
}

// sharedFileSteps plans a file generated from several items of the spec
// (the sysctl drop-in, the block_queue udev rule). In check mode only the
// spec's first such item shows the file's diff. When applying, every item
// plans it: the first one that runs writes it and the rest find it done, so
// one failing item does not keep the file from being written.
func sharedFileSteps(env *Env, p string, render func(*protocol.Spec) []byte, first bool) (string, []Step, error) {
	if env.Check && !first {
		target, err := env.fs().Resolve(p)
		return "file:" + target, nil, err
	}
	if key, ok := env.sharedDone[p]; ok {
		return key, nil, nil
	}
	key, steps, err := fileSteps(env, p, fileWant{Content: render(env.Spec), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
	if err != nil {
		return key, nil, err
	}
	if env.sharedDone == nil {
		env.sharedDone = map[string]string{}
	}
	if len(steps) == 0 {
		env.sharedDone[p] = key
		return key, nil, nil
	}
	last := &steps[len(steps)-1]
	do := last.Do
	last.Do = func(ctx context.Context) error {
		if err := do(ctx); err != nil {
			return err
		}
		env.sharedDone[p] = key
		return nil
	}
	return key, steps, nil
}

// firstOfKind reports whether item id is the spec's first item of kind.
func firstOfKind(spec *protocol.Spec, kind, id string) bool {
	for _, it := range spec.Items {
		if it.Kind() == kind {
			return it.ID() == id
		}
	}
	return false
}
