package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// treeHash maps every path under dir (except skip prefixes) to its type,
// mode and content (or link target) digest.
func treeHash(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(sum[:8])
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "removed "+k)
		} else if v != w {
			out = append(out, fmt.Sprintf("changed %s: %s -> %s", k, v, w))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	slices.Sort(out)
	return out
}

func mustApply(t *testing.T, root *fsroot.Root, spec *protocol.Spec, opts Options) protocol.Result {
	t.Helper()
	res, err := Apply(context.Background(), root, spec, opts)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.Failed {
		for _, it := range res.Items {
			if it.Error != "" {
				t.Errorf("%s: %s", it.ID, it.Error)
			}
		}
		t.Fatalf("apply failed")
	}
	return res
}

func parse(t *testing.T, y string) *protocol.Spec {
	t.Helper()
	s, err := protocol.ParseSpec([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func commands(t *testing.T, root *fsroot.Root) []string {
	t.Helper()
	log, err := runner.ReadLog(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, argv := range log {
		out = append(out, strings.Join(argv, " "))
	}
	return out
}

func TestR1ApplyIsIdempotentAndRemovable(t *testing.T) {
	root := seededRoot(t)
	before := treeHash(t, root.Dir())
	spec := r1Spec(t)

	first := mustApply(t, root, spec, Options{Diff: true})
	if !first.Changed {
		t.Fatal("first apply changed nothing")
	}
	if got := readRoot(t, root, "/proc/sys/vm/dirty_ratio"); got != "20\n" {
		t.Errorf("vm.dirty_ratio = %q", got)
	}
	if got := readRoot(t, root, "/sys/block/sdb/queue/nr_requests"); got != "2048\n" {
		t.Errorf("sdb nr_requests = %q", got)
	}
	if got := readRoot(t, root, "/sys/block/sda/queue/nr_requests"); got != "256\n" {
		t.Errorf("system SSD sda was touched: nr_requests = %q", got)
	}
	if got := readRoot(t, root, "/sys/kernel/mm/transparent_hugepage/enabled"); got != "always madvise [never]\n" {
		t.Errorf("thp enabled = %q", got)
	}

	second := mustApply(t, root, spec, Options{Diff: true})
	if second.Changed {
		for _, it := range second.Items {
			if it.Changed {
				t.Errorf("second apply changed %s:\n%s", it.ID, it.Diff)
			}
		}
	}
	if len(second.Handlers) != 0 {
		t.Errorf("second apply ran handlers: %+v", second.Handlers)
	}

	rm, err := Remove(context.Background(), root, spec.Owner, Options{})
	if err != nil || rm.Failed {
		t.Fatalf("remove: %v %+v", err, rm)
	}
	after := treeHash(t, root.Dir(), protocol.StateDir)
	if d := diffTrees(before, after); len(d) > 0 {
		t.Errorf("apply+remove left the root different:\n%s", strings.Join(d, "\n"))
	}
}

func readRoot(t *testing.T, root *fsroot.Root, p string) string {
	t.Helper()
	b, err := root.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCheckWritesNothing(t *testing.T) {
	root := seededRoot(t)
	spec := r1Spec(t)
	for _, phase := range []string{"fresh", "applied"} {
		t.Run(phase, func(t *testing.T) {
			if phase == "applied" {
				// Also with state present and a notifier pending change.
				mustApply(t, root, spec, Options{})
				if err := os.WriteFile(filepath.Join(root.Dir(), "proc/sys/vm/dirty_ratio"), []byte("33\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := treeHash(t, root.Dir())
			res, err := Apply(context.Background(), root, spec, Options{Check: true, Diff: true})
			if err != nil || res.Failed {
				t.Fatalf("check: %v %+v", err, res)
			}
			if !res.Changed {
				t.Error("check reported no planned change")
			}
			if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
				t.Errorf("--check wrote:\n%s", strings.Join(d, "\n"))
			}
			rm, err := Remove(context.Background(), root, spec.Owner, Options{Check: true})
			if err != nil || rm.Failed {
				t.Fatalf("remove --check: %v", err)
			}
			if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
				t.Errorf("remove --check wrote:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

func TestInvalidSpecAppliesNothing(t *testing.T) {
	root := seededRoot(t)
	before := treeHash(t, root.Dir())
	// Decoded without validation, as a provider building specs in Go would.
	spec := &protocol.Spec{APIVersion: protocol.APIVersion, Owner: "bad", Items: []protocol.Item{
		{Sysctl: &protocol.Sysctl{Key: "vm.dirty_ratio", Value: "20"}},
		{Sysctl: &protocol.Sysctl{Key: "vm.dirty_ratio", Value: ""}},
		{File: &protocol.File{Path: "/etc/../../x", Content: ptr("x")}},
	}}
	_, err := Apply(context.Background(), root, spec, Options{})
	var serr *protocol.SpecError
	if !errors.As(err, &serr) || !errors.Is(err, protocol.ErrInvalidSpec) {
		t.Fatalf("err = %v, want a SpecError", err)
	}
	var paths []string
	for _, e := range serr.Errors {
		paths = append(paths, e.Path)
	}
	for _, want := range []string{"items[1].sysctl.value", "items[1].sysctl", "items[2].file.path"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no error at %s (got %q)", want, paths)
		}
	}
	if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
		t.Errorf("invalid spec wrote:\n%s", strings.Join(d, "\n"))
	}
}

func ptr[T any](v T) *T { return &v }

func TestEscapingSymlinksRejectedBeforeApply(t *testing.T) {
	tests := []struct {
		name   string
		link   string // created at etc/beegfs/evil
		target string
	}{
		{"absolute", "etc/beegfs/evil", "/etc/passwd"},
		{"climbing", "etc/beegfs/evil", "../../../../../../../../tmp/hpcstorage-escape"},
		{"folder", "etc/evil", "/tmp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := seededRoot(t)
			if err := os.Symlink(tt.target, filepath.Join(root.Dir(), tt.link)); err != nil {
				t.Fatal(err)
			}
			before := treeHash(t, root.Dir())
			spec := parse(t, fmt.Sprintf(`
apiVersion: hpcstorage/v1
owner: escape
items:
  - sysctl: {key: vm.dirty_ratio, value: 20}
  - file: {path: /%s/x.conf, content: "pwned\n"}
  - file: {path: /%s, content: "pwned\n"}
`, tt.link, tt.link))
			_, err := Apply(context.Background(), root, spec, Options{})
			if !errors.Is(err, protocol.ErrInvalidSpec) || !strings.Contains(err.Error(), "leaves the root") {
				t.Fatalf("err = %v, want the spec rejected for leaving the root", err)
			}
			if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
				t.Errorf("rejected spec wrote:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

func TestTwoOwnersCannotClaimOneKey(t *testing.T) {
	root := seededRoot(t)
	a := parse(t, "apiVersion: hpcstorage/v1\nowner: alpha\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 20}\n")
	b := parse(t, "apiVersion: hpcstorage/v1\nowner: beta\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 30}\n  - sysctl: {key: vm.swappiness, value: 1}\n")
	mustApply(t, root, a, Options{})
	res, err := Apply(context.Background(), root, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.ExitCode() != protocol.ExitItemFailed {
		t.Fatalf("second owner was not refused: %+v", res)
	}
	if e := res.Items[0].Error; !strings.Contains(e, `owner "alpha"`) || !strings.Contains(e, "sysctl:vm.dirty_ratio") {
		t.Errorf("error does not name the first owner and key: %q", e)
	}
	if res.Items[1].Error != "" || !res.Items[1].Changed {
		t.Errorf("independent item of the second owner: %+v", res.Items[1])
	}
	if got := readRoot(t, root, "/proc/sys/vm/dirty_ratio"); got != "20\n" {
		t.Errorf("second owner changed the first owner's key: %q", got)
	}
}

func TestLockContention(t *testing.T) {
	root := seededRoot(t)
	held, err := state.Acquire(context.Background(), root, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	spec := parse(t, "apiVersion: hpcstorage/v1\nowner: alpha\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 20}\n")
	start := time.Now()
	_, err = Apply(context.Background(), root, spec, Options{LockTimeout: 300 * time.Millisecond})
	if !errors.Is(err, state.ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("gave up after %s, before the timeout", waited)
	}
	if !strings.Contains(err.Error(), "lock-timeout") {
		t.Errorf("message does not say what to do: %v", err)
	}
	// Released: the waiting run goes through.
	done := make(chan error, 1)
	go func() {
		_, err := Apply(context.Background(), root, spec, Options{LockTimeout: 5 * time.Second})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	held.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("apply after release: %v", err)
	}
}

// The service comes first, so even the first run (which starts it) owes
// it a restart for the config changed after the start.
const notifySpec = `
apiVersion: hpcstorage/v1
owner: notify-test
items:
  - service: {name: beegfs-storage, enabled: true, state: started}
  - file: {path: /etc/beegfs/a.conf, content: "%s\n", notify: [beegfs-storage]}
  - file: {path: /etc/beegfs/b.conf, content: "%s\n", notify: [beegfs-storage]}
  - file: {path: /etc/beegfs/c.conf, content: "fixed\n"}
`

func restarts(t *testing.T, root *fsroot.Root) int {
	n := 0
	for _, c := range commands(t, root) {
		if c == "systemctl restart beegfs-storage.service" {
			n++
		}
	}
	return n
}

func TestNotifyRestartsOnceOnlyOnChange(t *testing.T) {
	root := seededRoot(t)
	res := mustApply(t, root, parse(t, fmt.Sprintf(notifySpec, "1", "1")), Options{})
	if len(res.Handlers) != 1 || res.Handlers[0].Action != "restarted" || restarts(t, root) != 1 {
		t.Fatalf("two changed notifiers: handlers %+v, %d restarts; want exactly one", res.Handlers, restarts(t, root))
	}
	res = mustApply(t, root, parse(t, fmt.Sprintf(notifySpec, "1", "1")), Options{})
	if len(res.Handlers) != 0 || restarts(t, root) != 1 {
		t.Fatalf("nothing changed but handlers ran: %+v", res.Handlers)
	}
	// Only the non-notifying file changes: no restart.
	spec := parse(t, strings.Replace(fmt.Sprintf(notifySpec, "1", "1"), "fixed", "other", 1))
	res = mustApply(t, root, spec, Options{})
	if !res.Changed || len(res.Handlers) != 0 || restarts(t, root) != 1 {
		t.Fatalf("a non-notifying change restarted: %+v", res.Handlers)
	}
	// One notifier changes: one restart.
	spec = parse(t, strings.Replace(fmt.Sprintf(notifySpec, "1", "2"), "fixed", "other", 1))
	res = mustApply(t, root, spec, Options{})
	if len(res.Handlers) != 1 || restarts(t, root) != 2 {
		t.Fatalf("one changed notifier: %+v, %d restarts", res.Handlers, restarts(t, root))
	}
	// Check mode says it would restart, and does not.
	spec = parse(t, strings.Replace(fmt.Sprintf(notifySpec, "3", "2"), "fixed", "other", 1))
	res, err := Apply(context.Background(), root, spec, Options{Check: true})
	if err != nil || len(res.Handlers) != 1 || res.Handlers[0].Action != "would restart" || restarts(t, root) != 2 {
		t.Fatalf("check: %v %+v", err, res.Handlers)
	}
}

func TestNoRestartOfAUnitStartedAfterItsConfig(t *testing.T) {
	root := seededRoot(t)
	spec := parse(t, `
apiVersion: hpcstorage/v1
owner: fresh
items:
  - file: {path: /etc/beegfs/a.conf, content: "1\n", notify: [beegfs-storage]}
  - service: {name: beegfs-storage, enabled: true, state: started}
`)
	for _, check := range []bool{true, false} {
		res, err := Apply(context.Background(), root, spec, Options{Check: check})
		if err != nil || res.Failed {
			t.Fatal(err, res)
		}
		if len(res.Handlers) != 0 {
			t.Errorf("check=%t: restart of a unit started after its config changed: %+v", check, res.Handlers)
		}
	}
	want := []string{"systemctl enable beegfs-storage.service", "systemctl start beegfs-storage.service"}
	if got := commands(t, root); !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	st, err := state.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Owner("fresh").Pending; len(p) != 0 {
		t.Errorf("restart still owed: %q", p)
	}
}

// failingRestart makes systemctl restart fail, standing in for a run killed
// between writing a config file and restarting its service.
type failingRestart struct{ runner.Sim }

func (f failingRestart) Run(ctx context.Context, argv ...string) error {
	if len(argv) > 1 && argv[0] == "systemctl" && argv[1] == "restart" {
		return errors.New("killed")
	}
	return f.Sim.Run(ctx, argv...)
}

func TestOwedRestartSurvivesACrash(t *testing.T) {
	root := seededRoot(t)
	spec := parse(t, fmt.Sprintf(notifySpec, "1", "1"))
	res, err := Apply(context.Background(), root, spec, Options{Runner: failingRestart{runner.Sim{Root: root}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || len(res.Handlers) != 1 || res.Handlers[0].Action != "failed" {
		t.Fatalf("restart failure not reported: %+v", res.Handlers)
	}
	st, err := state.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Owner("notify-test").Pending; !slices.Equal(p, []string{"beegfs-storage.service"}) {
		t.Fatalf("pending restarts in state = %q", p)
	}
	// Next run: nothing changes, but the owed restart happens, once.
	res = mustApply(t, root, spec, Options{})
	if len(res.Handlers) != 1 || res.Handlers[0].Reason != "owed" || restarts(t, root) != 1 {
		t.Fatalf("owed restart: %+v, %d restarts", res.Handlers, restarts(t, root))
	}
	res = mustApply(t, root, spec, Options{})
	if len(res.Handlers) != 0 || res.Changed {
		t.Fatalf("owed restart repeated: %+v", res)
	}
}

func TestDroppedItemIsReverted(t *testing.T) {
	root := seededRoot(t)
	before := treeHash(t, root.Dir())
	both := parse(t, "apiVersion: hpcstorage/v1\nowner: p\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 20}\n  - file: {path: /etc/beegfs/extra.conf, content: \"x\\n\"}\n  - file: {path: /opt/site/a/b.conf, content: \"x\\n\"}\n")
	one := parse(t, "apiVersion: hpcstorage/v1\nowner: p\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 20}\n")
	none := parse(t, "apiVersion: hpcstorage/v1\nowner: p\nitems: []\n")
	mustApply(t, root, both, Options{})
	res := mustApply(t, root, one, Options{Diff: true})
	var reverted []string
	for _, it := range res.Items {
		if strings.HasPrefix(it.ID, "revert:") && it.Changed {
			reverted = append(reverted, it.ID)
		}
	}
	want := []string{"revert:file:/opt/site/a/b.conf", "revert:dir:/opt/site/a", "revert:dir:/opt/site", "revert:dir:/opt", "revert:file:/etc/beegfs/extra.conf"}
	slices.Sort(want)
	slices.Sort(reverted)
	if !slices.Equal(reverted, want) {
		t.Fatalf("reverted %q", reverted)
	}
	mustApply(t, root, none, Options{})
	if d := diffTrees(before, treeHash(t, root.Dir(), protocol.StateDir)); len(d) > 0 {
		t.Errorf("empty spec did not put the node back:\n%s", strings.Join(d, "\n"))
	}
}

func TestPreflightFailureAppliesNothing(t *testing.T) {
	root := seededRoot(t)
	before := treeHash(t, root.Dir())
	spec := parse(t, `
apiVersion: hpcstorage/v1
owner: r2
items:
  - sysctl: {key: vm.dirty_ratio, value: 20}
  - package_version: {name: lvm2, min: "8:2.03.12-1.el8"}
`)
	res, err := Apply(context.Background(), root, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || !strings.Contains(res.Items[1].Error, "lvm2 8:2.03.11-5.el8 is installed; at least 8:2.03.12-1.el8 is required") {
		t.Fatalf("preflight: %+v", res.Items)
	}
	if !res.Items[0].Skipped {
		t.Errorf("item after a failed preflight was not skipped: %+v", res.Items[0])
	}
	if d := diffTrees(before, treeHash(t, root.Dir(), protocol.StateDir)); len(d) > 0 {
		t.Errorf("failed preflight wrote:\n%s", strings.Join(d, "\n"))
	}
}

func TestMountApplyRemoveIsByteIdentical(t *testing.T) {
	root := seededRoot(t)
	st := filepath.Join(root.Dir(), "dev/disk/by-id")
	ents, err := os.ReadDir(st)
	if err != nil || len(ents) < 2 {
		t.Fatalf("by-id links: %v %v", ents, err)
	}
	for _, e := range ents[:2] { // formatted, or mount refuses them
		target, err := os.Readlink(filepath.Join(st, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sig := filepath.Join(root.Dir(), fakenode.SimBlkidDir, filepath.Base(target))
		if err := os.MkdirAll(filepath.Dir(sig), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sig, []byte("xfs\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := treeHash(t, root.Dir())
	spec := parse(t, fmt.Sprintf(`
apiVersion: hpcstorage/v1
owner: targets
items:
  - mount: {device: /dev/disk/by-id/%s, path: /data/beegfs/st01, fstype: xfs, options: [noatime, largeio]}
  - mount: {device: /dev/disk/by-id/%s, path: /data/beegfs/st02, fstype: xfs, persist: none}
`, ents[0].Name(), ents[1].Name()))
	mustApply(t, root, spec, Options{})
	if res := mustApply(t, root, spec, Options{}); res.Changed {
		t.Fatalf("second apply changed: %+v", res.Items)
	}
	fstab := readRoot(t, root, "/etc/fstab")
	if !strings.Contains(fstab, "/data/beegfs/st01 xfs noatime,largeio 0 0\n") || strings.Contains(fstab, "st02") {
		t.Errorf("fstab:\n%s", fstab)
	}
	rm, err := Remove(context.Background(), root, "targets", Options{})
	if err != nil || rm.Failed {
		t.Fatalf("remove: %v %+v", err, rm)
	}
	if d := diffTrees(before, treeHash(t, root.Dir(), protocol.StateDir)); len(d) > 0 {
		t.Errorf("apply+remove of mounts left:\n%s", strings.Join(d, "\n"))
	}
}

func TestStorageTargetsExampleConverges(t *testing.T) {
	dir := t.TempDir()
	opts := fakenode.Options{Hostname: "storage01", Disks: fakenode.ArrayVolumes("storage01", 2), Simulator: simtest.Binary(t)}
	if err := fakenode.SeedWith(dir, fakenode.Storage, opts); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "agent", "r1-storage-targets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := parse(t, string(data))
	mustApply(t, root, spec, Options{})
	if res := mustApply(t, root, spec, Options{Diff: true}); res.Changed {
		for _, it := range res.Items {
			if it.Changed {
				t.Errorf("second apply changed %s: %s", it.ID, it.Diff)
			}
		}
	}
	var mkfs int
	for _, c := range commands(t, root) {
		if strings.HasPrefix(c, "mkfs.xfs") {
			mkfs++
		}
	}
	if mkfs != 2 {
		t.Errorf("mkfs ran %d times, want once per volume", mkfs)
	}
	if m := readRoot(t, root, "/proc/mounts"); !strings.Contains(m, "/data/beegfs/storage01/target02 xfs") {
		t.Errorf("mounts:\n%s", m)
	}
}

func TestInterruptedRunStopsBetweenItems(t *testing.T) {
	root := seededRoot(t)
	before := treeHash(t, root.Dir(), protocol.StateDir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Apply(ctx, root, r1Spec(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.Changed || res.ExitCode() != protocol.ExitItemFailed {
		t.Fatalf("interrupted run: %+v", res)
	}
	for _, it := range res.Items {
		if strings.HasPrefix(it.ID, "package_version:") {
			continue
		}
		if !it.Skipped || !strings.Contains(it.Error, "interrupted") {
			t.Errorf("%s ran after the interrupt: %+v", it.ID, it)
		}
	}
	if d := diffTrees(before, treeHash(t, root.Dir(), protocol.StateDir)); len(d) > 0 {
		t.Errorf("interrupted run wrote:\n%s", strings.Join(d, "\n"))
	}
}

// TestReadOnlyOutput: a read-only command's stdout reaches the result, in
// check mode too, and is never a change.
func TestReadOnlyOutput(t *testing.T) {
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, fakenode.Client, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	spec := parse(t, "apiVersion: hpcstorage/v1\nowner: probe\nitems:\n  - command: {name: info, argv: [beegfs-ctl, --getentryinfo, /mnt/beegfs], read_only: true}\n")
	for _, check := range []bool{true, false} {
		res := mustApply(t, root, spec, Options{Check: check})
		if res.Changed || res.Items[0].Changed || !strings.Contains(res.Items[0].Output, "+ Chunksize: 512K\n") {
			t.Errorf("check %v: %+v", check, res.Items[0])
		}
	}
	if got := commands(t, root); len(got) != 0 {
		t.Errorf("a query was recorded as a change: %q", got)
	}
}
