package day2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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

// newCeph is a Ceph cluster on fake roots with the lab's cephadm and
// ceph: mon1 (the admin host) and osd1..osd3 with two NVMe OSDs each,
// pool rbd (size 3, min_size 2, failure domain host).
func newCeph(t *testing.T) *pair {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(dir, lab.SharedDir)
	p := &pair{t: t, dir: dir, roots: map[string]string{}, down: map[string]bool{}}
	seed := func(name string, prof fakenode.Profile, disks []fakenode.Disk) {
		root := filepath.Join(dir, name)
		if err := fakenode.SeedWith(root, prof, fakenode.Options{Hostname: name, Disks: disks, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		p.roots[name] = root
	}
	seed("mon1", fakenode.Metadata, nil)
	for _, h := range cephHosts {
		seed(h, fakenode.Storage, lab.NVMeDrives(h, 2, 3840*1000*1000*1000, "KCM6XRUL3T84"))
	}
	p.sim("mon1", "cephadm", "bootstrap", "--mon-ip", "10.40.0.1", "--skip-dashboard", "--skip-monitoring-stack", "--ssh-user", "root", "--output-dir", "/etc/ceph")
	pub, err := os.ReadFile(filepath.Join(p.roots["mon1"], "etc/ceph/ceph.pub"))
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range cephHosts {
		p.write(h, "root/.ssh/authorized_keys", string(pub), 0o600)
		p.sim("mon1", "ceph", "orch", "host", "add", h, fmt.Sprintf("10.40.0.%d", 11+i), "--labels", "osd")
	}
	p.write("mon1", "root/osd.yaml", "service_type: osd\nservice_id: nvme\nplacement:\n  label: osd\ndata_devices:\n  rotational: false\n", 0o644)
	p.sim("mon1", "ceph", "orch", "apply", "-i", "/root/osd.yaml")
	p.sim("mon1", "ceph", "osd", "pool", "create", "rbd", "32")
	p.sim("mon1", "ceph", "osd", "pool", "application", "enable", "rbd", "rbd")
	return p
}

var cephHosts = []string{"osd1", "osd2", "osd3"}

func cephMember(host string) Member {
	return Member{Domain: "r4", Kind: KindCeph, Host: host, Node: host, Admin: "mon1"}
}

// cephOut runs a read-only ceph command on mon1.
func (p *pair) cephOut(args ...string) string {
	p.t.Helper()
	res, err := p.Run(context.Background(), "mon1", []protocol.Item{{Command: &protocol.Command{Name: "q", Argv: append([]string{"ceph"}, args...), ReadOnly: true}}}, true)
	if err != nil || res.Failed {
		p.t.Fatalf("ceph %q: %v %+v", args, err, res)
	}
	return res.Items[0].Output
}

// hostsDown counts the hosts with an OSD down in ceph osd tree.
func (p *pair) hostsDown() int {
	var t cephTree
	if err := json.Unmarshal([]byte(p.cephOut("osd", "tree", "-f", "json")), &t); err != nil {
		p.t.Fatal(err)
	}
	down := 0
	status := map[int]string{}
	for _, n := range t.Nodes {
		status[n.ID] = n.Status
	}
	for _, n := range t.Nodes {
		if n.Type != "host" {
			continue
		}
		for _, k := range n.Children {
			if status[k] != "up" {
				down++
				break
			}
		}
	}
	return down
}

// watchHostsDown samples ceph osd tree until the returned function is
// called, which returns the most hosts seen down at once.
func (p *pair) watchHostsDown() func() int {
	var maxDown atomic.Int32
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if n := int32(p.hostsDown()); n > maxDown.Load() {
				maxDown.Store(n)
			}
		}
	}()
	return func() int {
		close(stop)
		<-watched
		return int(maxDown.Load())
	}
}

// Three runs that share no process (three CI jobs), one per host: the
// claims in config-key let one host down at a time, and every run ends.
func TestCephClaimsAcrossRuns(t *testing.T) {
	t.Parallel()
	p := newCeph(t)
	maxDown := p.watchHostsDown()
	var wg sync.WaitGroup
	for _, h := range cephHosts {
		wg.Go(func() {
			if err := Roll(t.Context(), p, cephMember(h), fast, &Turns{Gather: time.Millisecond}, p.reboot(h, 100*time.Millisecond)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := maxDown(); n != 1 {
		t.Errorf("at most %d hosts down at once, want 1", n)
	}
}

// Three OSD hosts rolled in parallel: one at a time in name order, each
// with noout set before its reboot, its OSDs up and every PG clean before
// the next; no claim or flag left.
func TestCephRollOneHostAtATime(t *testing.T) {
	t.Parallel()
	p := newCeph(t)
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
			if !strings.Contains(p.cephOut("health", "detail"), "host "+h+" has flags noout") {
				t.Errorf("%s reboots without noout", h)
			}
			return reboot(ctx)
		}
	}
	var wg sync.WaitGroup
	for _, h := range []string{"osd3", "osd2", "osd1"} {
		wg.Go(func() {
			if err := Roll(t.Context(), p, cephMember(h), fast, turns, work(h)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	r := pr.Stop()["ceph"]
	t.Logf("%s", r)
	if strings.Join(order, ",") != "osd1,osd2,osd3" {
		t.Errorf("work order %v", order)
	}
	if r.MaxOut != 1 || r.OutTogether != 0 || strings.Join(r.Order, ",") != "osd1,osd2,osd3" {
		t.Errorf("probe: at most %d hosts out at once, in order %v; want 1, osd1 then osd2 then osd3", r.MaxOut, r.Order)
	}
	if id, d := r.Longest(); d > 0 || r.Errors > 0 {
		t.Errorf("probe: %s unserved for %s, %d errors", id, d, r.Errors)
	}
	if h := p.cephOut("health", "detail"); strings.Contains(h, "noout") || strings.Contains(h, "down") {
		t.Errorf("health after the roll:\n%s", h)
	}
	if f := strings.Fields(p.cephOut("pg", "stat")); len(f) < 4 || f[0] != f[2] || f[3] != "active+clean;" {
		t.Errorf("pg stat after the roll: %q", f)
	}
	if keys := p.cephOut("config-key", "ls"); strings.Contains(keys, CephLockPrefix) {
		t.Errorf("lock keys left: %s", keys)
	}
}

// A pool whose min_size the other hosts cannot hold is refused at the
// check (nothing flagged, the lock given back); so is a host that holds
// no OSD.
func TestCephRefusesPoolThatCannotBeServed(t *testing.T) {
	t.Parallel()
	p := newCeph(t)
	p.sim("mon1", "ceph", "osd", "pool", "set", "rbd", "min_size", "3")
	o := fast
	o.Timeout = 200 * time.Millisecond
	// Three hosts and min_size 3: no wait helps, refused at once.
	err := Roll(t.Context(), p, cephMember("osd2"), o, nil, func(context.Context) error { t.Error("work ran"); return nil })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepCheck || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "pool rbd (min_size 3) has only 2 other host(s)") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(p.cephOut("health", "detail"), "noout") {
		t.Error("a refused check set noout")
	}
	if pend, _ := Pending(t.Context(), p, cephMember("osd2")); pend {
		t.Error("a refused check kept the lock")
	}
	err = Roll(t.Context(), p, cephMember("mon1"), o, nil, func(context.Context) error { t.Error("work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepCheck || !strings.Contains(err.Error(), `host "mon1" holds no OSD`) {
		t.Fatalf("mon1: %v", err)
	}
}

// A run stopped at the work keeps the host's noout and the held claim;
// the other hosts wait; the next run resumes. Racing lockers: never two
// holders.
func TestCephLockResumesAndExcludes(t *testing.T) {
	t.Parallel()
	p := newCeph(t)
	broken := errors.New("BMC task failed")
	err := Roll(t.Context(), p, cephMember("osd1"), fast, nil, func(context.Context) error { return broken })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepWork {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(p.cephOut("health", "detail"), "host osd1 has flags noout") {
		t.Error("the stopped run cleared noout")
	}
	if pend, err := Pending(t.Context(), p, cephMember("osd1")); err != nil || !pend {
		t.Fatalf("pending=%v %v", pend, err)
	}
	o := fast
	o.Timeout = 200 * time.Millisecond
	err = Roll(t.Context(), p, cephMember("osd2"), o, nil, func(context.Context) error { t.Error("osd2's work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepLock || !strings.Contains(err.Error(), "held by osd1") {
		t.Fatalf("osd2 while osd1 holds the domain: %v", err)
	}
	if err := Roll(t.Context(), p, cephMember("osd1"), fast, nil, p.reboot("osd1", 20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var wg sync.WaitGroup
		var holders atomic.Int32
		ds := make([]*cephDomain, len(cephHosts))
		for i, h := range cephHosts {
			ds[i] = &cephDomain{r: p, m: cephMember(h)}
			wg.Go(func() {
				if h, err := ds[i].lock(t.Context()); err == nil && h == ds[i].m.Node {
					holders.Add(1)
				}
			})
		}
		wg.Wait()
		if n := holders.Load(); n > 1 {
			t.Fatalf("%d racing lockers hold the domain", n)
		}
		for _, d := range ds {
			if err := d.release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
}
