package transport_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// Agent sessions: one `hpcstorage-agent serve` per node and connection
// takes every call of the pool.

// Concurrent callers share one session: one exec and one agent process on
// the node, requests running side by side up to MaxPerHost.
func TestSessionConcurrentCalls(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	kh := knownHosts(t, lab)
	warmNodes(t, lab, kh)
	execs0, agents0 := lab.Nodes[0].Execs(), lab.Nodes[0].AgentStarts()
	p := newPool(t, transport.PoolOptions{MaxPerHost: 3})
	for _, n := range lab.Nodes {
		n.SetFaults(labnode.Faults{RunDelay: 200 * time.Millisecond})
	}
	lab.ResetMaxActive()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 12 {
		for _, n := range lab.Nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := nodeOptions(t, n, kh)
				var err error
				switch i % 3 {
				case 0:
					_, err = p.Facts(t.Context(), o, "")
				case 1:
					var r *transport.Response
					r, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("conc"), Check: true})
					if err == nil && !r.Result.Check {
						err = errors.New("check result wrong")
					}
				case 2:
					_, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("conc")})
				}
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	n := lab.Nodes[0]
	if got, agents := n.Execs()-execs0, n.AgentStarts()-agents0; got != 1 || agents != 1 {
		t.Errorf("24 calls on %s: %d execs, %d agent processes; want 1 and 1 (%q)", n.Name, got, agents, n.Commands())
	}
	if got := n.MaxActive(); got != 3 {
		t.Errorf("%s: %d requests at once, want MaxPerHost 3", n.Name, got)
	}
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "20" {
		t.Errorf("vm.dirty_ratio = %q", got)
	}
	if p.SessionStarts() != 2 || p.Dials() != 2 {
		t.Errorf("%d sessions over %d connections, want 2 and 2", p.SessionStarts(), p.Dials())
	}
}

// heldRequest starts call with every request on n held for a while, waits
// until the node has the request, and drops the connection under it.
func heldRequest(t *testing.T, n *labnode.Node, call func() error) error {
	t.Helper()
	n.SetFaults(labnode.Faults{RunDelay: 2 * time.Second})
	before := len(n.ServeRequests())
	errc := make(chan error, 1)
	go func() { errc <- call() }()
	for deadline := time.Now().Add(20 * time.Second); len(n.ServeRequests()) == before; {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the node")
		}
		time.Sleep(5 * time.Millisecond)
	}
	n.SetFaults(labnode.Faults{})
	n.DropConnections()
	return <-errc
}

// A session that drops under a read-only call (facts, a check) is opened
// again and the call retried once; under an apply it is not retried (it
// may have run), the error says the connection was lost, and the next
// call opens a new session.
func TestSessionDropRetriesOnlyReadOnly(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("drop"), Check: true}); err != nil {
		t.Fatal(err)
	}

	var r *transport.Response
	err := heldRequest(t, n, func() (err error) {
		r, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("drop"), Check: true})
		return err
	})
	if err != nil || !r.Result.Check || !r.Result.Changed {
		t.Fatalf("check after a drop: err=%v", err)
	}
	if p.Dials() != 2 || p.SessionStarts() != 2 {
		t.Errorf("check retried over %d connections, %d sessions; want 2 and 2", p.Dials(), p.SessionStarts())
	}
	var facts error
	err = heldRequest(t, n, func() error { _, facts = p.Facts(t.Context(), o, ""); return facts })
	if err != nil {
		t.Fatalf("facts after a drop: %v", err)
	}

	reqs := len(n.ServeRequests())
	err = heldRequest(t, n, func() error {
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("drop")})
		return err
	})
	se := stepOf(t, err)
	if !errors.Is(err, transport.ErrConnectionLost) || se.Step != transport.StepRun || !strings.Contains(err.Error(), n.Addr) {
		t.Fatalf("apply under a drop: err = %v, want a lost connection at the run step", err)
	}
	if got := len(n.ServeRequests()) - reqs; got != 1 {
		t.Errorf("the apply was sent %d times, want once (never retried)", got)
	}
	// The drop came before the held request reached the agent.
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "40" {
		t.Errorf("vm.dirty_ratio = %q: the dropped apply ran", got)
	}
	dials := p.Dials()
	r, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("drop")})
	if err != nil || !r.Result.Changed || p.Dials() != dials+1 {
		t.Fatalf("apply after the drop: err=%v dials %d -> %d", err, dials, p.Dials())
	}
}

// An agent_preinstalled agent from before sessions (no serve command) is
// run once per call, as before; the session is not tried again on that
// connection.
func TestSessionFallsBackToExec(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	o.AgentPath, o.AgentPreinstalled = "/opt/site/bin/hpcstorage-agent", true
	real, err := n.HostFile("/opt/site/bin/agent-real")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, agentData, 0o755); err != nil {
		t.Fatal(err)
	}
	// What an older agent answers to serve; everything else is the agent.
	old := "#!/bin/sh\nif [ \"$1\" = serve ]; then echo 'hpcstorage-agent serve: usage: unknown command \"serve\"' >&2; exit 1; fi\nexec " + real + " \"$@\"\n"
	hp, _ := n.HostFile(o.AgentPath)
	if err := os.WriteFile(hp, []byte(old), 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, transport.PoolOptions{})
	for i := range 3 {
		r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("old"), Check: i == 0})
		if err != nil || r.Result == nil || r.Delivered {
			t.Fatalf("call %d: err=%v response=%+v", i, err, r)
		}
	}
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "20" {
		t.Errorf("vm.dirty_ratio = %q", got)
	}
	cmds := n.Commands()
	want := []string{o.AgentPath + " serve", o.AgentPath + " apply", o.AgentPath + " apply", o.AgentPath + " apply"}
	if len(cmds) != len(want) {
		t.Fatalf("commands %q, want one session attempt then one exec per call", cmds)
	}
	for i, w := range want {
		if !strings.HasPrefix(cmds[i], w) {
			t.Errorf("command %d: %q, want %q...", i, cmds[i], w)
		}
	}
	if p.SessionStarts() != 0 || len(n.ServeRequests()) != 0 {
		t.Errorf("%d sessions, %d requests over them; want none", p.SessionStarts(), len(n.ServeRequests()))
	}
}

// A plan's worth of calls on one node from a new pool (a new provider
// process): 20 read-only checks, 4 at a time, over one agent session
// against one exec and agent process per call.
func BenchmarkCallsSessionVsExec(b *testing.B) {
	needAgent(b)
	lab := startLab(b, 1)
	n := lab.Nodes[0]
	kh := knownHosts(b, lab)
	o := nodeOptions(b, n, kh)
	spec := r1Spec(b)
	converge(b, newPool(b, transport.PoolOptions{}), lab, kh, spec)
	const calls = 20
	run := func(execOnly bool) (time.Duration, int64, int64) {
		e0, a0 := n.Execs(), n.AgentStarts()
		start := time.Now()
		p := transport.NewPool(transport.PoolOptions{Agent: hostAgent, ExecPerCall: execOnly})
		var wg sync.WaitGroup
		for range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := p.Apply(b.Context(), o, transport.Request{Spec: spec, Check: true}); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		p.Close()
		return time.Since(start), n.Execs() - e0, n.AgentStarts() - a0
	}
	var sessT, execT time.Duration
	var sessA, execA, sessE, execE int64
	b.ResetTimer()
	for b.Loop() {
		t, e, a := run(false)
		sessT, sessE, sessA = sessT+t, sessE+e, sessA+a
		t, e, a = run(true)
		execT, execE, execA = execT+t, execE+e, execA+a
	}
	k := float64(b.N)
	b.ReportMetric(float64(sessT.Microseconds())/1000/k, "session_ms/20calls")
	b.ReportMetric(float64(execT.Microseconds())/1000/k, "exec_ms/20calls")
	b.ReportMetric(float64(sessE)/k, "session_execs")
	b.ReportMetric(float64(execE)/k, "exec_execs")
	b.ReportMetric(float64(sessA)/k, "session_agents")
	b.ReportMetric(float64(execA)/k, "exec_agents")
}

// A call that runs out of run_timeout over a session is cancelled on the
// node too: the apply does not run later, and the session serves on.
func TestSessionTimeoutCancelsOnNode(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("cancel"), Check: true}); err != nil {
		t.Fatal(err)
	}
	n.SetFaults(labnode.Faults{RunDelay: 500 * time.Millisecond})
	short := o
	short.RunTimeout = 100 * time.Millisecond
	_, err := p.Apply(t.Context(), short, transport.Request{Spec: spec("cancel")})
	if !errors.Is(err, transport.ErrTimeout) {
		t.Fatalf("err = %v, want a run_timeout", err)
	}
	time.Sleep(time.Second) // past the delay: a request not cancelled would run now
	n.SetFaults(labnode.Faults{})
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "40" {
		t.Errorf("the timed-out apply ran on the node: vm.dirty_ratio = %q", got)
	}
	if r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("cancel")}); err != nil || !r.Result.Changed || p.SessionStarts() != 1 {
		t.Fatalf("apply after the timeout: err=%v sessions=%d", err, p.SessionStarts())
	}
}
