package transport_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// count counts the lines equal to s.
func count(lines []string, pred func(string) bool) int {
	n := 0
	for _, l := range lines {
		if pred(l) {
			n++
		}
	}
	return n
}

func isFacts(l string) bool { return strings.HasPrefix(l, "facts") }

// fileSpec manages one file of its own per owner.
func fileSpec(owner string) []byte {
	return []byte(`{"apiVersion":"hpcstorage/v1","owner":"` + owner + `","items":[
 {"file":{"path":"/etc/hpcstorage-` + owner + `.conf","content":"owner = ` + owner + `\n","mode":"0644"}}]}`)
}

// A read-only call whose connection the node drops is sent again on a new
// connection, once, and succeeds; over an agent session and as one exec.
func TestDroppedReadOnlyRetriedOnce(t *testing.T) {
	needAgent(t)
	for _, perCall := range []bool{false, true} {
		t.Run(map[bool]string{false: "session", true: "exec"}[perCall], func(t *testing.T) {
			lab := startLab(t, 1)
			n := lab.Nodes[0]
			o := nodeOptions(t, n, knownHosts(t, lab))
			p := newPool(t, transport.PoolOptions{ExecPerCall: perCall})
			// Deliver the agent and open the session first: the next
			// request is then the facts call itself.
			if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ro")}); err != nil {
				t.Fatal(err)
			}
			before, dials := len(n.Commands()), p.Dials()
			for _, at := range []labnode.DropPoint{labnode.DropBefore, labnode.DropAfterAnswer} {
				n.SetFaults(labnode.Faults{DropAtRequest: 1, DropAt: at})
				f, err := p.Facts(t.Context(), o, "")
				if err != nil {
					t.Fatalf("facts dropped %s: %v", at, err)
				}
				if f.Hostname != n.Name {
					t.Errorf("facts dropped %s: hostname %q", at, f.Hostname)
				}
			}
			if got := len(n.Drops()); got != 2 {
				t.Fatalf("the node cut %d connections, want 2: %+v", got, n.Drops())
			}
			if got := p.Dials() - dials; got != 2 {
				t.Errorf("%d new connections, want one per drop", got)
			}
			// Each facts call reached the node twice: the dropped one and
			// its retry (a drop before the run still records the request).
			var sent int
			if perCall {
				sent = count(n.Commands()[before:], func(c string) bool { return strings.Contains(c, " facts") })
			} else {
				sent = count(n.ServeRequests(), isFacts)
			}
			if sent != 4 {
				t.Errorf("facts sent %d times for 2 calls, want 4 (each retried once)", sent)
			}
		})
	}
}

// A read-only call dropped again on its retry fails, saying both.
func TestDroppedReadOnlyRetriedOnlyOnce(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	o := nodeOptions(t, n, knownHosts(t, lab))
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ro")}); err != nil {
		t.Fatal(err)
	}
	// Every request from now on is cut once it has run: the session's own
	// start too, so count facts requests the agent got.
	n.SetFaults(labnode.Faults{DropRate: 1, DropAt: labnode.DropAfterAnswer})
	_, err := p.Facts(t.Context(), o, "")
	n.SetFaults(labnode.Faults{})
	if err == nil {
		t.Fatal("facts succeeded though every connection was cut")
	}
	if !errors.Is(err, transport.ErrConnectionLost) || !strings.Contains(err.Error(), "retried on a new session") || !strings.Contains(err.Error(), n.Addr) {
		t.Errorf("err = %v, want the lost connection, the retry and the host", err)
	}
	if got := count(n.ServeRequests(), isFacts) + count(n.Commands(), func(c string) bool { return strings.Contains(c, " facts") }); got > 2 {
		t.Errorf("facts sent %d times, want at most 2 (one retry)", got)
	}
}

// An apply whose connection drops is not sent again (it may have run):
// the error names the host and says the change may be partly applied; the
// next apply converges and a third changes nothing. Cut before the run,
// while it runs and after it ran.
func TestDroppedApplyReportedThenConverges(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	o := nodeOptions(t, n, knownHosts(t, lab))
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Facts(t.Context(), o, ""); err != nil {
		t.Fatal(err)
	}
	isApply := func(l string) bool { return strings.HasPrefix(l, "apply") }
	for i, at := range []labnode.DropPoint{labnode.DropBefore, labnode.DropWhile, labnode.DropAfterAnswer} {
		owner := fmt.Sprintf("drop%d", i)
		applies := count(n.ServeRequests(), isApply)
		// DropWhile at once: the apply is cut while it runs.
		n.SetFaults(labnode.Faults{DropAtRequest: 1, DropAt: at, DropWhileMax: 1})
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: fileSpec(owner)})
		n.SetFaults(labnode.Faults{})
		if err == nil {
			t.Fatalf("apply cut %s: no error", at)
		}
		se := stepOf(t, err)
		if se.Step != transport.StepRun || !errors.Is(err, transport.ErrConnectionLost) || !strings.Contains(err.Error(), n.Addr) ||
			!strings.Contains(err.Error(), "may be partly applied") {
			t.Errorf("apply cut %s: err = %v, want a run-step lost connection naming %s and what it means", at, err, n.Addr)
		}
		if got := count(n.ServeRequests(), isApply) - applies; got != 1 {
			t.Errorf("apply cut %s: sent %d times, want once (never retried)", at, got)
		}
		r, err := p.Apply(t.Context(), o, transport.Request{Spec: fileSpec(owner)})
		if err != nil || r.Result.Failed {
			t.Fatalf("apply after the cut %s: %v", at, err)
		}
		// What the cut run did is on the node: after the answer was cut,
		// everything; before it, nothing.
		if at == labnode.DropAfterAnswer && r.Result.Changed {
			t.Errorf("apply after a cut answer changed things again: %+v", r.Result)
		}
		if at == labnode.DropBefore && !r.Result.Changed {
			t.Errorf("apply cut before it ran: the next apply changed nothing")
		}
		r, err = p.Apply(t.Context(), o, transport.Request{Spec: fileSpec(owner)})
		if err != nil || r.Result.Changed {
			t.Fatalf("third apply after the cut %s: err=%v changed=%v", at, err, r != nil && r.Result.Changed)
		}
	}
}

// A connection cut after N bytes: a big apply cut while its spec is on
// the way never runs half a spec; the error names the host; the next apply
// converges, and every file is old or new.
func TestDropAfterBytes(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	o := nodeOptions(t, n, knownHosts(t, lab))
	p := newPool(t, transport.PoolOptions{})
	big := func(gen int) ([]byte, []string) {
		var items, contents []string
		for i := range 6 {
			c := strings.Repeat(fmt.Sprintf("gen %d line %d\n", gen, i), 1500)
			contents = append(contents, c)
			items = append(items, fmt.Sprintf(`{"file":{"path":"/etc/bytes/f%d.conf","content":%q}}`, i, c))
		}
		return []byte(`{"apiVersion":"hpcstorage/v1","owner":"bytes","items":[` + strings.Join(items, ",") + `]}`), contents
	}
	s0, old := big(0)
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: s0}); err != nil {
		t.Fatal(err)
	}
	s1, cur := big(1)
	// The spec is about 140 kB: cut at a third of it.
	n.SetFaults(labnode.Faults{DropAfterBytes: int64(len(s1) / 3)})
	_, err := p.Apply(t.Context(), o, transport.Request{Spec: s1})
	n.SetFaults(labnode.Faults{})
	if err == nil || !errors.Is(err, transport.ErrConnectionLost) || !strings.Contains(err.Error(), n.Addr) {
		t.Fatalf("apply cut after %d bytes: err = %v, want a lost connection naming %s", len(s1)/3, err, n.Addr)
	}
	// A spec whose frame could not be written whole never reached the
	// agent: the transport sends it on a new connection (cut again), at
	// most twice more.
	d := n.Drops()
	if len(d) == 0 || len(d) > 3 {
		t.Fatalf("drops %+v, want one to three byte-limit cuts", d)
	}
	for _, c := range d {
		if c.Bytes < int64(len(s1)/3) {
			t.Fatalf("a cut at %d bytes, before the limit %d", c.Bytes, len(s1)/3)
		}
	}
	for i := range cur {
		if got := readNodeFile(t, n, fmt.Sprintf("/etc/bytes/f%d.conf", i)); got != strings.TrimSpace(old[i]) {
			t.Fatalf("f%d.conf changed by an apply whose spec never arrived whole", i)
		}
	}
	r, err := p.Apply(t.Context(), o, transport.Request{Spec: s1})
	if err != nil || !r.Result.Changed {
		t.Fatalf("apply after the cut: err=%v", err)
	}
	for i := range cur {
		if got := readNodeFile(t, n, fmt.Sprintf("/etc/bytes/f%d.conf", i)); got != strings.TrimSpace(cur[i]) {
			t.Fatalf("f%d.conf not converged", i)
		}
	}
}

// A storm: a third of the requests cut at random points (seeded). Every
// check run (read only) either answers or fails after its one retry; every
// apply either answers or fails with a lost connection naming the host;
// once the storm ends one apply converges and the next changes nothing.
func TestDropStorm(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{})
	for i, n := range lab.Nodes {
		n.SetFaults(labnode.Faults{DropRate: 0.33, DropSeed: uint64(7 + i), DropWhileMax: 50e6})
	}
	failed, checkFailed := 0, 0
	for range 12 {
		for _, n := range lab.Nodes {
			o := nodeOptions(t, n, kh)
			owner := "storm"
			_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec(owner), Check: true})
			if err != nil {
				checkFailed++
				if !strings.Contains(err.Error(), "retried on a new session") && !errors.Is(err, transport.ErrConnectionLost) {
					t.Errorf("check on %s: %v", n.Name, err)
				}
			}
			if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec(owner)}); err != nil {
				failed++
				if !strings.Contains(err.Error(), n.Addr) || !(errors.Is(err, transport.ErrConnectionLost) || errors.Is(err, transport.ErrAgentExit)) {
					t.Errorf("apply on %s: %v", n.Name, err)
				}
			}
		}
	}
	drops := 0
	for _, n := range lab.Nodes {
		drops += len(n.Drops())
		n.SetFaults(labnode.Faults{})
	}
	t.Logf("%d connections cut; %d of 24 applies and %d of 24 checks failed", drops, failed, checkFailed)
	if drops == 0 {
		t.Fatal("the storm cut nothing")
	}
	for _, n := range lab.Nodes {
		o := nodeOptions(t, n, kh)
		for _, owner := range []string{"storm"} {
			if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec(owner)}); err != nil {
				t.Fatalf("%s after the storm: %v", n.Name, err)
			}
			r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec(owner)})
			if err != nil || r.Result.Changed {
				t.Fatalf("%s, second apply after the storm: err=%v changed=%v", n.Name, err, r != nil && r.Result.Changed)
			}
		}
	}
}
