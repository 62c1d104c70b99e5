package day2

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// newBeeGFS is mgmt (the admin host) and stor1, stor2 with two storage
// targets each (stor1: 101, 102; stor2: 201, 202), buddy groups 1
// (101+201) and 2 (102+202), the storage services enabled and running;
// extra lists more targets of stor1 outside any group.
func newBeeGFS(t *testing.T, extra ...int) *pair {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(dir, lab.SharedDir)
	p := &pair{t: t, dir: dir, roots: map[string]string{}, down: map[string]bool{}}
	for _, h := range []string{"mgmt", "stor1", "stor2"} {
		root := filepath.Join(dir, h)
		if err := fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Hostname: h, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		p.roots[h] = root
	}
	for i, h := range []string{"stor1", "stor2"} {
		ids := []int{100*(i+1) + 1, 100*(i+1) + 2}
		if h == "stor1" {
			ids = append(ids, extra...)
		}
		var dirs []string
		for _, id := range ids {
			d := fmt.Sprintf("/data/st%d", id)
			p.sim(h, "/opt/beegfs/sbin/beegfs-setup-storage", "-C", "-p", d, "-s", fmt.Sprint(i+1), "-i", fmt.Sprint(id))
			dirs = append(dirs, d)
		}
		p.write(h, "etc/beegfs/beegfs-storage.conf", "sysMgmtdHost = mgmt\nstoreStorageDirectory = "+strings.Join(dirs, ",")+"\n", 0o644)
		p.sim(h, "systemctl", "enable", "beegfs-storage")
		p.sim(h, "systemctl", "start", "beegfs-storage")
	}
	p.sim("mgmt", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=101", "--secondary=201", "--groupid=1")
	p.sim("mgmt", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=202", "--secondary=102", "--groupid=2")
	return p
}

func beegfsMember(node string) Member {
	return Member{Domain: "r1", Kind: KindBeeGFS, Host: node, Node: node, Admin: "mgmt"}
}

func (p *pair) listTargets() string {
	p.t.Helper()
	res, err := p.Run(context.Background(), "mgmt", []protocol.Item{{Command: &protocol.Command{Name: "lt",
		Argv: []string{"beegfs-ctl", "--listtargets", "--nodetype=storage", "--state"}, ReadOnly: true}}}, true)
	if err != nil || res.Failed {
		p.t.Fatalf("listtargets: %v %+v", err, res)
	}
	return res.Items[0].Output
}

// Both storage nodes rolled in parallel: one after the other in name
// order, the second only once the first's targets resynced; every buddy
// group served throughout.
func TestBeeGFSRollWaitsForResync(t *testing.T) {
	t.Parallel()
	p := newBeeGFS(t)
	pr := probe(t, p)
	turns := &Turns{Gather: 100 * time.Millisecond}
	var mu sync.Mutex
	var order []string
	work := func(h string) func(context.Context) error {
		reboot := p.reboot(h, 100*time.Millisecond)
		return func(ctx context.Context) error {
			mu.Lock()
			order = append(order, h)
			mu.Unlock()
			if out := p.listTargets(); strings.Contains(out, "Needs-resync") || strings.Contains(out, "Offline") {
				t.Errorf("%s's work began with a group not whole:\n%s", h, out)
			}
			return reboot(ctx)
		}
	}
	var wg sync.WaitGroup
	for _, h := range []string{"stor2", "stor1"} {
		wg.Go(func() {
			if err := Roll(t.Context(), p, beegfsMember(h), fast, turns, work(h)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	r := pr.Stop()["beegfs"]
	t.Logf("%s", r)
	if r.MaxOut != 1 || strings.Join(r.Order, ",") != "stor1,stor2" || r.Errors > 0 {
		t.Errorf("probe: at most %d nodes out, order %v, %d errors; want 1, stor1 then stor2", r.MaxOut, r.Order, r.Errors)
	}
	if id, d := r.Longest(); d > 0 {
		t.Errorf("probe: %s unserved for %s", id, d)
	}
	if strings.Join(order, ",") != "stor1,stor2" {
		t.Errorf("work order %v", order)
	}
	if out := p.listTargets(); strings.Count(out, "Online         Good") != 4 {
		t.Errorf("after the roll:\n%s", out)
	}
	for _, h := range []string{"stor1", "stor2"} {
		if pend, err := Pending(t.Context(), p, beegfsMember(h)); err != nil || pend {
			t.Errorf("%s pending=%v %v", h, pend, err)
		}
	}
}

// A target in no buddy group, or a group not Good, is refused at the
// check; a domain without an admin host is refused at the lock.
func TestBeeGFSRefusals(t *testing.T) {
	t.Parallel()
	p := newBeeGFS(t, 103)
	o := fast
	o.Timeout = 200 * time.Millisecond
	nowork := func(context.Context) error { t.Error("work ran"); return nil }
	err := Roll(t.Context(), p, beegfsMember("stor1"), o, nil, nowork)
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepCheck || !strings.Contains(err.Error(), "storage target 103 is in no buddy group") {
		t.Fatalf("got %v", err)
	}
	// stor1 down: stor2's buddies need a resync first.
	p.sim("stor1", "systemctl", "stop", "beegfs-storage")
	err = Roll(t.Context(), p, beegfsMember("stor2"), o, nil, nowork)
	if !errors.As(err, &se) || se.Step != StepCheck || !strings.Contains(err.Error(), "target 101 on stor1 is Offline/Needs-resync") {
		t.Fatalf("with stor1 stopped: %v", err)
	}
	m := beegfsMember("stor2")
	m.Admin = ""
	err = Roll(t.Context(), p, m, o, nil, nowork)
	if !errors.As(err, &se) || se.Step != StepLock || !strings.Contains(err.Error(), "needs its admin host") {
		t.Fatalf("without admin: %v", err)
	}
}

// A run stopped at the work keeps the lock; the other node waits; the
// resumed run finishes; racing lockers never both hold it.
func TestBeeGFSLockResumes(t *testing.T) {
	t.Parallel()
	p := newBeeGFS(t)
	broken := errors.New("BMC task failed")
	err := Roll(t.Context(), p, beegfsMember("stor1"), fast, nil, func(context.Context) error { return broken })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepWork {
		t.Fatalf("got %v", err)
	}
	if pend, err := Pending(t.Context(), p, beegfsMember("stor1")); err != nil || !pend {
		t.Fatalf("pending=%v %v", pend, err)
	}
	o := fast
	o.Timeout = 200 * time.Millisecond
	err = Roll(t.Context(), p, beegfsMember("stor2"), o, nil, func(context.Context) error { t.Error("stor2's work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepLock || !strings.Contains(err.Error(), "held by stor1") {
		t.Fatalf("stor2 while stor1 holds the domain: %v", err)
	}
	if err := Roll(t.Context(), p, beegfsMember("stor1"), fast, nil, p.reboot("stor1", 20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var wg sync.WaitGroup
		var holders atomic.Int32
		for _, h := range []string{"stor1", "stor2"} {
			wg.Go(func() {
				d := &beegfsDomain{r: p, m: beegfsMember(h)}
				if got, err := d.lock(t.Context()); err == nil && got == h {
					holders.Add(1)
				}
			})
		}
		wg.Wait()
		if n := holders.Load(); n != 1 {
			t.Fatalf("%d racing lockers hold the domain, want 1", n)
		}
		for _, h := range []string{"stor1", "stor2"} {
			if err := (&beegfsDomain{r: p, m: beegfsMember(h)}).release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
}
