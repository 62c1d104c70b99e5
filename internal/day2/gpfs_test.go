package day2

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// newGPFS is a GPFS cluster on fake roots with the lab's mm simulators:
// every node a quorum node, nsd1 and nsd2 serving the NSDs of fs1 (each
// NSD through both), autoload on.
func newGPFS(t *testing.T, names ...string) *pair {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(dir, lab.SharedDir)
	p := &pair{t: t, dir: dir, roots: map[string]string{}, down: map[string]bool{}}
	vols := fakenode.ArrayVolumes("me4084-1", 4)
	for _, n := range names {
		root := filepath.Join(dir, n)
		var disks []fakenode.Disk
		if strings.HasPrefix(n, "nsd") {
			disks = vols
		}
		if err := fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Hostname: n, Disks: disks, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		if err := sim.RegisterNode(shared, n, root); err != nil {
			t.Fatal(err)
		}
		p.roots[n] = root
	}
	var nf strings.Builder
	for _, n := range names {
		fmt.Fprintf(&nf, "%s:quorum-manager\n", n)
	}
	first := names[0]
	p.write(first, "root/gpfs/nodes", nf.String(), 0o644)
	p.sim(first, "mmcrcluster", "-N", "/root/gpfs/nodes", "-C", "day2.lab", "-r", "/usr/bin/ssh", "-R", "/usr/bin/scp", "-A")
	p.sim(first, "mmchlicense", "server", "--accept", "-N", strings.Join(names, ","))
	p.sim(first, "mmstartup", "-a")
	if slices.Contains(names, "nsd1") && slices.Contains(names, "nsd2") {
		var st strings.Builder
		for i, v := range vols {
			servers := "nsd1,nsd2"
			if i%2 == 1 {
				servers = "nsd2,nsd1"
			}
			fmt.Fprintf(&st, "%%nsd: device=/dev/disk/by-id/wwn-0x%s nsd=d%02d servers=%s usage=dataAndMetadata failureGroup=%d pool=system\n", v.WWN, i+1, servers, i%2+1)
		}
		p.write("nsd1", "root/gpfs/nsd.stanza", st.String(), 0o644)
		p.sim("nsd1", "mmcrnsd", "-F", "/root/gpfs/nsd.stanza", "-v", "yes")
		p.write("nsd1", "root/gpfs/fs.stanza", "%nsd: nsd=d01\n%nsd: nsd=d02\n%nsd: nsd=d03\n%nsd: nsd=d04\n", 0o644)
		p.sim("nsd1", "mmcrfs", "fs1", "-F", "/root/gpfs/fs.stanza", "-B", "4M", "-m", "2", "-r", "2", "-T", "/gpfs/fs1", "-A", "yes")
	}
	return p
}

func gpfsMember(node, admin string) Member {
	return Member{Domain: "scale", Kind: KindGPFS, Host: node, Node: node, Admin: admin}
}

// states reads mmgetstate -a -Y on host.
func (p *pair) gpfsStates(host string) map[string]string {
	p.t.Helper()
	res, err := p.Run(context.Background(), host, []protocol.Item{{Command: &protocol.Command{Name: "st", Argv: []string{"mmgetstate", "-a", "-Y"}, ReadOnly: true}}}, true)
	if err != nil || res.Failed {
		p.t.Fatalf("mmgetstate: %v %+v", err, res)
	}
	st, err := gpfs.ParseStates(res.Items[0].Output)
	if err != nil {
		p.t.Fatal(err)
	}
	return st
}

// Three quorum nodes rolled in parallel: one at a time in name order,
// each shut down before its reboot and active again (with its disks up)
// before the next; quorum holds throughout.
func TestGPFSRollKeepsQuorum(t *testing.T) {
	t.Parallel()
	p := newGPFS(t, "nsd1", "nsd2", "nsd3")
	pr := probe(t, p)
	admin := map[string]string{"nsd1": "nsd2", "nsd2": "nsd3", "nsd3": "nsd1"}
	turns := &Turns{Gather: 100 * time.Millisecond}
	var mu sync.Mutex
	var order []string
	var minActive = 3
	o := fast
	o.Log = func(m Member, step, _ string) {
		if step != StepWork {
			return
		}
		mu.Lock()
		order = append(order, m.Node)
		mu.Unlock()
	}
	watch := func(node string, away time.Duration) func(context.Context) error {
		reboot := p.reboot(node, away)
		return func(ctx context.Context) error {
			st := p.gpfsStates(admin[node])
			if st[node] != "down" {
				t.Errorf("%s's work began with GPFS %s there, want down", node, st[node])
			}
			active := 0
			for _, s := range st {
				if s == "active" {
					active++
				}
			}
			mu.Lock()
			minActive = min(minActive, active)
			mu.Unlock()
			return reboot(ctx)
		}
	}
	var wg sync.WaitGroup
	for _, n := range []string{"nsd3", "nsd1", "nsd2"} {
		wg.Go(func() {
			if err := Roll(t.Context(), p, gpfsMember(n, admin[n]), o, turns, watch(n, 100*time.Millisecond)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	r := pr.Stop()["gpfs"]
	t.Logf("%s", r)
	if r.MaxOut != 1 || !slices.Equal(r.Order, []string{"nsd1", "nsd2", "nsd3"}) || r.Errors > 0 {
		t.Errorf("probe: at most %d nodes out, order %v, %d errors", r.MaxOut, r.Order, r.Errors)
	}
	if id, d := r.Longest(); d > 0 {
		t.Errorf("probe: %s unserved for %s", id, d)
	}
	if !slices.Equal(order, []string{"nsd1", "nsd2", "nsd3"}) {
		t.Errorf("work order %v", order)
	}
	if minActive != 2 {
		t.Errorf("at least %d nodes active during the work, want 2 (one out at a time)", minActive)
	}
	for n, s := range p.gpfsStates("nsd1") {
		if s != "active" {
			t.Errorf("%s is %s after the roll", n, s)
		}
	}
	// mmstartup mounted fs1 (-A yes) again on each.
	res, err := p.Run(t.Context(), "nsd1", []protocol.Item{{Command: &protocol.Command{Name: "m", Argv: []string{"mmlsmount", "fs1", "-L", "-Y"}, ReadOnly: true}}}, true)
	if err != nil || res.Failed {
		t.Fatal(err, res)
	}
	for _, n := range []string{"nsd1", "nsd2", "nsd3"} {
		if !strings.Contains(res.Items[0].Output, ":"+n+":") {
			t.Errorf("fs1 not mounted on %s after the roll:\n%s", n, res.Items[0].Output)
		}
	}
	for _, n := range []string{"nsd1", "nsd2", "nsd3"} {
		if pend, err := Pending(t.Context(), p, gpfsMember(n, "")); err != nil || pend {
			t.Errorf("%s pending=%v %v after the roll", n, pend, err)
		}
	}
}

// A two-node cluster without tiebreaker disks cannot lose a quorum node:
// refused at the check, nothing shut down, the lock given back. With
// tiebreaker disks it can.
func TestGPFSTwoNodesNeedTiebreaker(t *testing.T) {
	t.Parallel()
	p := newGPFS(t, "nsd1", "nsd2")
	// No wait can change a cluster's build: refused at once, not after
	// the timeout.
	o := fast
	o.Timeout = time.Minute
	start := time.Now()
	err := Roll(t.Context(), p, gpfsMember("nsd1", "nsd2"), o, nil, func(context.Context) error { t.Error("work ran"); return nil })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepCheck || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "tiebreaker") {
		t.Fatalf("got %v, want a check refusal naming tiebreaker disks", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the refusal took %s: it waited", took)
	}
	if st := p.gpfsStates("nsd2"); st["nsd1"] != "active" {
		t.Errorf("nsd1 %s after the refusal", st["nsd1"])
	}
	if pend, _ := Pending(t.Context(), p, gpfsMember("nsd1", "nsd2")); pend {
		t.Error("a refused check kept the lock")
	}
	p.sim("nsd1", "mmchconfig", "tiebreakerDisks=d01;d03")
	if err := Roll(t.Context(), p, gpfsMember("nsd1", "nsd2"), fast, nil, p.reboot("nsd1", 50*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	// An NSD whose other server is down would be unreachable.
	p.sim("nsd1", "mmshutdown", "-N", "nsd2")
	err = Roll(t.Context(), p, gpfsMember("nsd1", ""), o, nil, func(context.Context) error { t.Error("work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepCheck || !strings.Contains(err.Error(), "NSD d01, d02, d03, d04 would have no active server") {
		t.Fatalf("with nsd2 down: %v", err)
	}
}

// A run that stops at the work leaves the member shut down holding the
// class lock; another member waits; the next run of the member resumes.
// Two runs racing for the lock: mmcrnodeclass lets one in.
func TestGPFSLockResumes(t *testing.T) {
	t.Parallel()
	p := newGPFS(t, "nsd1", "nsd2", "nsd3")
	broken := errors.New("BMC task failed")
	err := Roll(t.Context(), p, gpfsMember("nsd1", "nsd2"), fast, nil, func(context.Context) error { return broken })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepWork || !errors.Is(err, broken) {
		t.Fatalf("got %v", err)
	}
	if st := p.gpfsStates("nsd2"); st["nsd1"] != "down" {
		t.Fatalf("nsd1 %s after the failed work, want left down", st["nsd1"])
	}
	if pend, err := Pending(t.Context(), p, gpfsMember("nsd1", "nsd2")); err != nil || !pend {
		t.Fatalf("pending=%v %v", pend, err)
	}
	o := fast
	o.Timeout = 200 * time.Millisecond
	err = Roll(t.Context(), p, gpfsMember("nsd3", "nsd2"), o, nil, func(context.Context) error { t.Error("nsd3's work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepLock || !strings.Contains(err.Error(), "held by nsd1") {
		t.Fatalf("nsd3 while nsd1 holds the domain: %v", err)
	}
	if err := Roll(t.Context(), p, gpfsMember("nsd1", "nsd2"), fast, nil, p.reboot("nsd1", 20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if st := p.gpfsStates("nsd2"); st["nsd1"] != "active" {
		t.Fatalf("nsd1 %s after the resumed run", st["nsd1"])
	}
	// Two domains objects taking the lock at once, from different hosts.
	holders := make([]string, 2)
	var wg sync.WaitGroup
	for i, n := range []string{"nsd2", "nsd3"} {
		wg.Go(func() {
			d := &gpfsDomain{r: p, m: gpfsMember(n, n)}
			h, err := d.lock(t.Context())
			if err != nil {
				t.Error(err)
			}
			holders[i] = h
		})
	}
	wg.Wait()
	if holders[0] != holders[1] || holders[0] == "" {
		t.Errorf("racing lockers saw holders %q", holders)
	}
}

// What a plan runs before it shows a reboot: the check alone, read-only.
// A two-node cluster without tiebreaker disks is refused as built; with
// them, the check passes and nothing was changed either way.
func TestGPFSPrecheck(t *testing.T) {
	t.Parallel()
	p := newGPFS(t, "nsd1", "nsd2")
	err := Precheck(t.Context(), p, gpfsMember("nsd1", "nsd2"))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "tiebreaker") {
		t.Fatalf("precheck of a two-node cluster: %v", err)
	}
	if st := p.gpfsStates("nsd2"); st["nsd1"] != "active" || st["nsd2"] != "active" {
		t.Errorf("the precheck changed the cluster: %v", st)
	}
	p.sim("nsd1", "mmchconfig", "tiebreakerDisks=d01;d03")
	if err := Precheck(t.Context(), p, gpfsMember("nsd1", "nsd2")); err != nil {
		t.Errorf("precheck with tiebreaker disks: %v", err)
	}
}
