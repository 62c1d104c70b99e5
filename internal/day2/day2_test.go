package day2

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/engine"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/pcmktest"
)

// pair is a two-node pacemaker cluster on fake roots whose pacemaker
// tools are the lab's (the real crm_* on one shared CIB). Its runner runs
// agent specs in process, and a node that is rebooting does not answer.
type pair struct {
	t     *testing.T
	dir   string // the probe's lab folder: shared/ holds the CIB
	roots map[string]string

	mu   sync.Mutex
	down map[string]bool
}

func newPair(t *testing.T) *pair {
	t.Helper()
	pcmktest.Tool(t, "crm_simulate")
	dir := t.TempDir()
	shared := filepath.Join(dir, lab.SharedDir)
	c := pacemaker.Cluster{Name: "nfsha", TwoNode: true, Transport: "knet",
		Nodes: []pacemaker.Node{{Name: "nfs1", ID: 1, Addrs: []string{"10.10.1.11"}}, {Name: "nfs2", ID: 2, Addrs: []string{"10.10.1.12"}}},
		Fencing: []pacemaker.FenceDevice{
			pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: "nfs1", Address: "127.0.0.1:8443", SystemsURI: "/redfish/v1/Systems/1", Username: "root", Insecure: true}),
			pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: "nfs2", Address: "127.0.0.1:8444", SystemsURI: "/redfish/v1/Systems/1", Username: "root", Insecure: true}),
		},
		Groups: []pacemaker.Group{{ID: "svc", Members: []pacemaker.Primitive{
			{ID: "svc-a", Class: "ocf", Provider: "heartbeat", Type: "Dummy"},
			{ID: "svc-ip", Class: "ocf", Provider: "heartbeat", Type: "IPaddr2", Params: map[string]string{"ip": "10.10.1.100", "cidr_netmask": "24"}},
		}}},
		Locations:        []pacemaker.Location{{ID: "svc-prefers-nfs1", Rsc: "svc", Node: "nfs1", Score: "100"}},
		ResourceDefaults: map[string]string{"resource-stickiness": "100"},
	}
	conf, err := c.Corosync()
	if err != nil {
		t.Fatal(err)
	}
	p := &pair{t: t, dir: dir, roots: map[string]string{}, down: map[string]bool{}}
	for _, name := range []string{"nfs1", "nfs2"} {
		root := filepath.Join(dir, name)
		if err := fakenode.SeedWith(root, fakenode.Metadata, fakenode.Options{Hostname: name, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		if err := fakenode.InstallUnits(root, fakenode.ClusterUnits...); err != nil {
			t.Fatal(err)
		}
		p.write(name, "etc/corosync/corosync.conf", string(conf), 0o644)
		p.write(name, "etc/corosync/authkey", strings.Repeat("k", 256), 0o400)
		p.write(name, "var/log/cluster/.keep", "", 0o644)
		p.roots[name] = root
		for _, argv := range [][]string{{"systemctl", "enable", "corosync", "pacemaker"}, {"systemctl", "start", "corosync"}, {"systemctl", "start", "pacemaker"}} {
			p.sim(name, argv...)
		}
	}
	want, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	p.write("nfs1", "tmp/conf.xml", string(want), 0o600)
	p.sim("nfs1", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/conf.xml")
	if at := p.placement()["svc"]; at != "nfs1" {
		t.Fatalf("svc runs on %q after setup, want nfs1", at)
	}
	return p
}

func (p *pair) write(node, rel, content string, mode os.FileMode) {
	p.t.Helper()
	f := filepath.Join(p.dir, node, rel)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), mode); err != nil {
		p.t.Fatal(err)
	}
	if err := os.Chmod(f, mode); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pair) sim(node string, argv ...string) {
	p.t.Helper()
	root, err := fsroot.Open(p.roots[node])
	if err != nil {
		p.t.Fatal(err)
	}
	defer root.Close()
	if err := (runner.Sim{Root: root}).Run(context.Background(), argv...); err != nil {
		p.t.Fatalf("%s: %q: %v", node, argv, err)
	}
}

func (p *pair) mon() (map[string]pacemaker.NodeState, map[string]string) {
	p.t.Helper()
	res, err := p.Run(context.Background(), "nfs1", []protocol.Item{pacemaker.QueryMembersItem()}, true)
	if err != nil || res.Failed {
		p.t.Fatalf("crm_mon: %v %+v", err, res)
	}
	nodes, top, err := pacemaker.Members([]byte(res.Items[0].Output))
	if err != nil {
		p.t.Fatal(err)
	}
	return nodes, top
}

func (p *pair) placement() map[string]string { _, top := p.mon(); return top }

// Run is the Runner: the agent's engine on the node's root, as the agent
// serving over SSH runs it; a node that is down does not answer.
func (p *pair) Run(ctx context.Context, host string, items []protocol.Item, check bool) (*protocol.Result, error) {
	p.mu.Lock()
	down := p.down[host]
	p.mu.Unlock()
	if down {
		return nil, fmt.Errorf("dial %s: connection refused", host)
	}
	root, err := fsroot.Open(p.roots[host])
	if err != nil {
		return nil, err
	}
	defer root.Close()
	res, err := engine.Apply(ctx, root, &protocol.Spec{APIVersion: protocol.APIVersion, Owner: "day2-test", Items: items}, engine.Options{Check: check})
	return &res, err
}

// reboot is the work: a graceful reboot that takes the node away for a
// while (its services stop, it does not answer, it boots again).
func (p *pair) reboot(node string, away time.Duration) func(context.Context) error {
	return func(context.Context) error {
		p.mu.Lock()
		p.down[node] = true
		p.mu.Unlock()
		if err := sim.Shutdown(p.roots[node]); err != nil {
			return err
		}
		time.Sleep(away) // the length of a POST, not a wait for anything
		if err := sim.Boot(p.roots[node]); err != nil {
			return err
		}
		p.mu.Lock()
		p.down[node] = false
		p.mu.Unlock()
		return nil
	}
}

func member(node string) Member {
	return Member{Domain: "nfsha", Kind: KindPacemaker, Host: node, Node: node}
}

var fast = Options{Timeout: 30 * time.Second, Poll: 20 * time.Millisecond}

func probe(t *testing.T, p *pair) *lab.Probe {
	t.Helper()
	pr, err := lab.StartProbe(p.dir, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// The before: both halves rebooted at once, as two parallel updates did,
// leave the group nowhere; the probe sees both members out together.
func TestProbeSeesBothMembersDown(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	pr := probe(t, p)
	var wg sync.WaitGroup
	for _, n := range []string{"nfs1", "nfs2"} {
		wg.Go(func() {
			if err := p.reboot(n, 400*time.Millisecond)(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	r := pr.Stop()["nfsha"]
	t.Logf("%s", r)
	if r.MaxOut != 2 || r.OutTogether == 0 {
		t.Errorf("both rebooted at once, probe saw at most %d out", r.MaxOut)
	}
	if id, d := r.Longest(); d < 200*time.Millisecond {
		t.Errorf("longest unserved %s %s: want about the reboot (400ms)", id, d)
	}
}

// Two members of one domain rolled in parallel in one process: one after
// the other, in name order, each drained before its reboot; the group is
// unserved only for a failover (no sample at all here: the lab's
// transitions are instant), never for a reboot.
func TestRollOneMemberAtATime(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	pr := probe(t, p)
	turns := &Turns{Gather: 200 * time.Millisecond}
	var order []string
	var mu sync.Mutex
	o := fast
	o.Log = func(m Member, step, _ string) {
		if step == StepWork {
			mu.Lock()
			order = append(order, m.Node)
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	// nfs2 asks first: the gather window still hands the domain to nfs1.
	for _, n := range []string{"nfs2", "nfs1"} {
		wg.Go(func() {
			if err := Roll(t.Context(), p, member(n), o, turns, p.reboot(n, 300*time.Millisecond)); err != nil {
				t.Error(err)
			}
		})
		time.Sleep(20 * time.Millisecond) // nfs2 is first in line, not a wait
	}
	wg.Wait()
	r := pr.Stop()["nfsha"]
	t.Logf("%s", r)
	if !slices.Equal(order, []string{"nfs1", "nfs2"}) {
		t.Errorf("work order %v, want nfs1 then nfs2", order)
	}
	if r.MaxOut != 1 || r.OutTogether != 0 {
		t.Errorf("%d members out at once (%d samples with two): want one", r.MaxOut, r.OutTogether)
	}
	if !slices.Equal(r.Order, []string{"nfs1", "nfs2"}) {
		t.Errorf("members went out in order %v", r.Order)
	}
	if id, d := r.Longest(); d >= 300*time.Millisecond {
		t.Errorf("%s unserved for %s: as long as a reboot", id, d)
	}
	nodes, top := p.mon()
	for n, s := range nodes {
		if !s.Online || s.Standby {
			t.Errorf("%s after the roll: %+v", n, s)
		}
	}
	if top["svc"] != "nfs1" {
		t.Errorf("svc runs on %q after the roll, want nfs1 (its location preference)", top["svc"])
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		if pend, err := Pending(t.Context(), p, member(n)); err != nil || pend {
			t.Errorf("%s pending=%v %v after the roll", n, pend, err)
		}
	}
}

// Two runs that share no process (two CI jobs): the lock in the CIB keeps
// them apart.
func TestRollClusterLockAcrossRuns(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	pr := probe(t, p)
	var wg sync.WaitGroup
	for _, n := range []string{"nfs1", "nfs2"} {
		wg.Go(func() {
			if err := Roll(t.Context(), p, member(n), fast, &Turns{Gather: time.Millisecond}, p.reboot(n, 300*time.Millisecond)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	r := pr.Stop()["nfsha"]
	t.Logf("%s", r)
	if r.MaxOut != 1 {
		t.Errorf("%d members out at once: the cluster lock let two runs in", r.MaxOut)
	}
}

// A run that stops in the work step leaves the member in standby holding
// the lock; the next run of the same member resumes and finishes it. A
// domain that cannot lose the member is refused before anything changes.
func TestRollStopsCleanlyAndResumes(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	broken := errors.New("BMC task failed")
	err := Roll(t.Context(), p, member("nfs1"), fast, nil, func(context.Context) error { return broken })
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepWork || !errors.Is(err, broken) || !strings.Contains(err.Error(), "nfs1") {
		t.Fatalf("got %v, want a StepError at work naming nfs1", err)
	}
	nodes, top := p.mon()
	if !nodes["nfs1"].Standby || top["svc"] != "nfs2" {
		t.Fatalf("after the failed work: nfs1 %+v, svc on %q; want nfs1 left in standby, svc on nfs2", nodes["nfs1"], top["svc"])
	}
	if pend, err := Pending(t.Context(), p, member("nfs1")); err != nil || !pend {
		t.Fatalf("nfs1 pending=%v %v, want true", pend, err)
	}
	// nfs2 must wait: the domain is nfs1's until it is finished.
	o := fast
	o.Timeout = 300 * time.Millisecond
	err = Roll(t.Context(), p, member("nfs2"), o, nil, p.reboot("nfs2", 0))
	if !errors.As(err, &se) || se.Step != StepLock || !strings.Contains(err.Error(), "held by nfs1") {
		t.Fatalf("nfs2 while nfs1 holds the domain: %v", err)
	}
	// The resumed run: no second standby, the work, back home.
	if err := Roll(t.Context(), p, member("nfs1"), fast, nil, p.reboot("nfs1", 50*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	nodes, top = p.mon()
	if nodes["nfs1"].Standby || top["svc"] != "nfs1" {
		t.Fatalf("after the resumed run: nfs1 %+v, svc on %q", nodes["nfs1"], top["svc"])
	}
	if pend, _ := Pending(t.Context(), p, member("nfs1")); pend {
		t.Fatal("still pending after the resumed run")
	}
	// A domain whose other member is out cannot lose this one: refused at
	// the check, the lock given back, nothing changed.
	p.sim("nfs1", "crm_attribute", "--node", "nfs2", "--name", "standby", "--update", "on")
	err = Roll(t.Context(), p, member("nfs1"), o, nil, func(context.Context) error { t.Error("work ran"); return nil })
	if !errors.As(err, &se) || se.Step != StepCheck || !strings.Contains(err.Error(), "nfs2 not online and active") {
		t.Fatalf("with nfs2 in standby: %v", err)
	}
	if pend, _ := Pending(t.Context(), p, member("nfs1")); pend {
		t.Error("a refused check kept the lock")
	}
	if nodes, _ := p.mon(); nodes["nfs1"].Standby {
		t.Error("a refused check put nfs1 in standby")
	}
}

// The lock is the run's, not the configuration's: the HA cluster's drift
// ignores it and its push keeps it.
func TestLockIsNotClusterDrift(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	res, err := p.Run(t.Context(), "nfs1", []protocol.Item{pacemaker.QueryConfigurationItem()}, true)
	if err != nil || res.Failed {
		t.Fatal(err, res)
	}
	before := res.Items[0].Output
	if _, err := change(t.Context(), p, "nfs1", pacemaker.TakeLockItem("nfsha", pacemaker.Lock{Holder: "nfs1", Home: []string{"svc"}})); err != nil {
		t.Fatal(err)
	}
	res, _ = p.Run(t.Context(), "nfs1", []protocol.Item{pacemaker.QueryConfigurationItem()}, true)
	after := res.Items[0].Output
	if d, err := pacemaker.ConfigDiff([]byte(after), []byte(before)); err != nil || d != "" {
		t.Errorf("the lock counts as drift: %q %v", d, err)
	}
	_, next, err := pacemaker.PatchDocuments([]byte(after), []byte(before))
	if err != nil || !strings.Contains(string(next), pacemaker.MaintenanceLockPrefix+"nfsha") {
		t.Errorf("the push would remove the lock: %v\n%s", err, next)
	}
	// A second run's create is skipped (the lock is there) and the holder
	// stays; the create itself is refused by the CIB manager.
	if _, err := change(t.Context(), p, "nfs2", pacemaker.TakeLockItem("nfsha", pacemaker.Lock{Holder: "nfs2"})); err != nil {
		t.Fatal(err)
	}
	d := &pcmkDomain{r: p, m: member("nfs2")}
	if holder, err := d.lock(t.Context()); err != nil || holder != "nfs1" {
		t.Fatalf("nfs2 taking the held lock: holder %q %v", holder, err)
	}
	root, err := fsroot.Open(p.roots["nfs2"])
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	create := pacemaker.TakeLockItem("nfsha", pacemaker.Lock{Holder: "nfs2"}).Command.Argv
	if err := (runner.Sim{Root: root}).Run(t.Context(), create...); err == nil || !strings.Contains(err.Error(), "File exists") {
		t.Fatalf("a second cibadmin --create: %v, want the CIB manager's refusal", err)
	}
}

// The failover drill on the pair: each server to standby and back, then
// powered off and on; the peer sees each service move and come home, and
// the pair ends as it began.
func TestDrill(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	power := func(_ context.Context, m Member, reset string) error {
		p.mu.Lock()
		p.down[m.Host] = reset == "ForceOff"
		p.mu.Unlock()
		if reset == "ForceOff" {
			return sim.PowerOff(p.roots[m.Host])
		}
		return sim.Boot(p.roots[m.Host])
	}
	m1, m2 := member("nfs1"), member("nfs2")
	m1.Admin, m2.Admin = "nfs2", "nfs1"
	var said []string
	res, err := Drill(t.Context(), p, power, []Member{m1, m2}, fast, &Turns{Gather: time.Millisecond}, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", strings.Join(said, "\n"))
	if len(res) != 4 || res[0].Exercise != ExerciseStandby || res[1].Exercise != ExercisePowerOff || res[3].Member != "nfs2" {
		t.Fatalf("results %+v", res)
	}
	for _, r := range res {
		// The lab's standby takes milliseconds: the peer's samples may miss
		// it; they must never see both out.
		if r.Seen.Samples == 0 || r.Seen.MaxOut > 1 {
			t.Errorf("%s %s: %d samples, %d out at most (order %v)", r.Member, r.Exercise, r.Seen.Samples, r.Seen.MaxOut, r.Seen.Order)
		}
	}
	nodes, top := p.mon()
	if !nodes["nfs1"].Online || nodes["nfs1"].Standby || !nodes["nfs2"].Online || top["svc"] != "nfs1" {
		t.Errorf("after the drill: %+v, svc on %q", nodes, top["svc"])
	}
	// The fencing of the power-off exercise was cleaned up.
	res2, _ := p.Run(t.Context(), "nfs1", []protocol.Item{pacemaker.QueryStatusItem(false)}, true)
	if st, err := pacemaker.ReadStatus([]byte(res2.Items[0].Output)); err != nil || len(st.Fenced) > 0 || len(st.Failed) > 0 {
		t.Errorf("after the drill: fenced %v, failed %v, %v", st.Fenced, st.Failed, err)
	}
	// A member without a peer to watch from is refused.
	if _, err := Drill(t.Context(), p, power, []Member{member("nfs1")}, fast, nil, nil); err == nil || !strings.Contains(err.Error(), "peer to watch from") {
		t.Errorf("drill without a peer: %v", err)
	}
}

// In one run, a member whose sequence stops keeps the others of its
// domain from starting: they fail at once instead of waiting out their
// timeout on the lock it holds.
func TestRollStopsTheDomainInOneRun(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	turns := &Turns{Gather: 100 * time.Millisecond}
	o := fast
	o.Timeout = time.Minute
	errs := make(chan error, 2)
	start := time.Now()
	go func() {
		errs <- Roll(t.Context(), p, member("nfs1"), o, turns, func(context.Context) error { return errors.New("BMC task failed") })
	}()
	go func() {
		errs <- Roll(t.Context(), p, member("nfs2"), o, turns, func(context.Context) error { t.Error("nfs2's work ran"); return nil })
	}()
	var got []error
	for range 2 {
		got = append(got, <-errs)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the run took %s: nfs2 waited on the lock", took)
	}
	var stoppedAtWork, busy bool
	for _, err := range got {
		var se *StepError
		stoppedAtWork = stoppedAtWork || errors.As(err, &se) && se.Step == StepWork && se.Member.Node == "nfs1"
		busy = busy || errors.Is(err, ErrBusy) && strings.Contains(err.Error(), "nfs1's sequence stopped")
	}
	if !stoppedAtWork || !busy {
		t.Errorf("errors %v: want nfs1 stopped at work and nfs2 refused because of it", got)
	}
}

// A member whose sshd answers before its pacemaker has started (as a
// real node boots) is waited for, not taken for a node without a cluster.
func TestRollWaitsForPacemakerAfterBoot(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	booted := make(chan error, 1)
	work := func(context.Context) error {
		if err := sim.Shutdown(p.roots["nfs1"]); err != nil {
			return err
		}
		go func() {
			time.Sleep(500 * time.Millisecond) // the rest of the boot, not a wait
			booted <- sim.Boot(p.roots["nfs1"])
		}()
		return nil
	}
	if err := Roll(t.Context(), p, member("nfs1"), fast, nil, work); err != nil {
		t.Fatalf("roll with pacemaker starting after sshd: %v", err)
	}
	if err := <-booted; err != nil {
		t.Fatal(err)
	}
	if nodes, top := p.mon(); nodes["nfs1"].Standby || top["svc"] != "nfs1" {
		t.Errorf("after the roll: nfs1 %+v, svc on %q", nodes["nfs1"], top["svc"])
	}
}
