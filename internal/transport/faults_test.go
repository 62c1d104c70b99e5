package transport_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

func stepOf(t *testing.T, err error) *transport.StepError {
	t.Helper()
	var se *transport.StepError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *StepError", err)
	}
	return se
}

func TestSudo(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	o.User, o.Sudo = "deploy", true
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sudo")}); err != nil {
		t.Fatal(err)
	}
	cmds := n.Commands()
	for _, c := range cmds {
		if !strings.HasPrefix(c, "sudo -n ") {
			t.Errorf("command not run through sudo -n: %q", c)
		}
	}
	if len(cmds) != 4 || !strings.Contains(cmds[0], " --expect-sha256 ") {
		t.Errorf("commands %q, want the single-exec run (no agent yet), probe, upload, run", cmds)
	}

	// Preinstalled: only the agent itself goes through sudo, and on a new
	// connection it is the only command.
	pre := o
	pre.AgentPreinstalled = true
	if _, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), pre, transport.Request{Spec: spec("sudo")}); err != nil {
		t.Fatal(err)
	}
	cmds = n.Commands()[4:]
	if len(cmds) != 1 || !strings.HasPrefix(cmds[0], "sudo -n "+transport.DefaultAgentPath+" serve") || strings.Contains(cmds[0], "expect-sha256") {
		t.Errorf("preinstalled agent with sudo: commands %q, want one sudo run", cmds)
	}
	// A missing preinstalled agent: the probe that names the problem runs
	// without sudo, as before.
	missing := pre
	missing.AgentPath = "/opt/none/hpcstorage-agent"
	_, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), missing, transport.Request{Spec: spec("sudo")})
	if !errors.Is(err, transport.ErrAgentMissing) || !strings.Contains(err.Error(), missing.AgentPath) {
		t.Errorf("missing preinstalled agent with sudo: %v", err)
	}
	cmds = n.Commands()[5:]
	if len(cmds) != 2 || !strings.HasPrefix(cmds[1], "sh -c 'uname -m") {
		t.Errorf("missing preinstalled agent with sudo: commands %q, want the session start and a plain probe", cmds)
	}

	n.SetFaults(labnode.Faults{SudoPassword: true})
	p2 := newPool(t, transport.PoolOptions{})
	_, err = p2.Apply(t.Context(), o, transport.Request{Spec: spec("sudo")})
	if !errors.Is(err, transport.ErrSudoPassword) {
		t.Fatalf("err = %v, want ErrSudoPassword", err)
	}
	se := stepOf(t, err)
	if se.Step != transport.StepProbe || !strings.Contains(err.Error(), "NOPASSWD") || !strings.Contains(err.Error(), `"deploy"`) ||
		!strings.Contains(err.Error(), "sudo: a password is required") {
		t.Errorf("unclear sudo error: %v", err)
	}
}

func TestBastion(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 3, func(c *labnode.Config) { c.AllowForwarding = true })
	bastion := lab.Nodes[0]
	// The bastion and the nodes are verified against different files.
	bkh := writeFile(t, "bastion_known_hosts", bastion.KnownHostsLine()+"\n")
	nkh := writeFile(t, "nodes_known_hosts", lab.Nodes[1].KnownHostsLine()+"\n"+lab.Nodes[2].KnownHostsLine()+"\n")
	bo := nodeOptions(t, bastion, bkh)
	bo.User = "jump"
	p := newPool(t, transport.PoolOptions{})
	var targets []transport.Target
	for _, n := range lab.Nodes[1:] {
		o := nodeOptions(t, n, nkh)
		o.Bastion = &bo
		targets = append(targets, transport.Target{Options: o, Request: transport.Request{Spec: spec("jump")}})
	}
	for _, out := range p.ApplyAll(t.Context(), targets) {
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		if !strings.Contains(out.Response.Host, "via jump@") {
			t.Errorf("host name %q does not show the jump host", out.Response.Host)
		}
	}
	if bastion.Connections() != 1 || bastion.Execs() != 0 {
		t.Errorf("bastion: %d connections, %d execs; want 1 shared connection and no commands", bastion.Connections(), bastion.Execs())
	}
	for _, n := range lab.Nodes[1:] {
		if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "20" {
			t.Errorf("%s not configured through the bastion", n.Name)
		}
	}

	// The bastion's own host key is checked too.
	bad := bo
	bad.KnownHostsFiles = []string{nkh}
	o := nodeOptions(t, lab.Nodes[1], nkh)
	o.Bastion = &bad
	_, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), o, transport.Request{Spec: spec("jump")})
	if !errors.Is(err, transport.ErrUnknownHost) || !strings.Contains(err.Error(), "bastion") || !strings.Contains(err.Error(), bastion.Fingerprint()) {
		t.Fatalf("unverified bastion: err = %v", err)
	}
}

// A connection dropped while the agent runs: the error names the host and
// step, every managed file is old or new (never torn), the next run
// converges.
func TestConnectionDroppedMidRun(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	p := newPool(t, transport.PoolOptions{})
	bigSpec := func(gen int) ([]byte, []string) {
		var items []string
		var contents []string
		for i := range 8 {
			c := strings.Repeat(fmt.Sprintf("gen %d line %d\n", gen, i), 2000)
			contents = append(contents, c)
			items = append(items, fmt.Sprintf(`{"file":{"path":"/etc/drop/f%02d.conf","content":%q}}`, i, c))
		}
		return []byte(`{"apiVersion":"hpcstorage/v1","owner":"drop","items":[` + strings.Join(items, ",") + `]}`), contents
	}
	s0, prev := bigSpec(0)
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: s0}); err != nil {
		t.Fatal(err)
	}
	drops := 0
	for gen, after := range []time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
		s, cur := bigSpec(gen + 1)
		n.SetFaults(labnode.Faults{DropAfter: after})
		start := time.Now()
		r, err := p.Apply(t.Context(), o, transport.Request{Spec: s})
		n.SetFaults(labnode.Faults{})
		// The node armed its drop when the request arrived; a run that
		// finished first can still see the connection cut just after its
		// answer. Wait that out (plus the client noticing the cut), so the
		// run below is not itself dropped: an apply on a session that dies
		// under it is, rightly, not retried.
		time.Sleep(time.Until(start.Add(after + 250*time.Millisecond)))
		if err != nil {
			drops++
			se := stepOf(t, err)
			if se.Step != transport.StepRun || !strings.Contains(err.Error(), n.Addr) || !errors.Is(err, transport.ErrConnectionLost) && !errors.Is(err, transport.ErrAgentExit) {
				t.Fatalf("drop after %s: err = %v, want a run-step connection error naming %s", after, err, n.Addr)
			}
		} else if r.Result == nil || r.Result.Failed {
			t.Fatalf("drop after %s: run finished but result %+v", after, r.Result)
		}
		for i := range cur {
			got := readNodeFile(t, n, fmt.Sprintf("/etc/drop/f%02d.conf", i))
			if got != strings.TrimSpace(prev[i]) && got != strings.TrimSpace(cur[i]) {
				t.Fatalf("drop after %s: f%02d.conf is torn (%d bytes)", after, i, len(got))
			}
		}
		// The next run converges over a new connection, then is a no-op.
		if _, err := p.Apply(t.Context(), o, transport.Request{Spec: s}); err != nil {
			t.Fatalf("run after the drop: %v", err)
		}
		r, err = p.Apply(t.Context(), o, transport.Request{Spec: s})
		if err != nil || r.Result.Changed {
			t.Fatalf("second run after the drop: err=%v changed=%v", err, r != nil && r.Result.Changed)
		}
		prev = cur
	}
	if drops == 0 {
		t.Fatal("no run was cut off: the fault did not fire")
	}
	t.Logf("%d of 3 runs cut off; connections made: %d", drops, p.Dials())
}

// blackholeListener accepts TCP but never speaks SSH.
func blackholeListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// fullBacklog is a port whose accept queue is full, so new SYNs are
// dropped and a connect hangs: a host that does not answer.
func fullBacklog(t *testing.T) (addr string, ok bool) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return "", false
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) != nil || syscall.Listen(fd, 0) != nil {
		return "", false
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return "", false
	}
	addr = fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	// Fill the queue; once a connect takes longer than 200 ms it is full.
	for range 8 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr, true
		}
		t.Cleanup(func() { c.Close() })
	}
	return "", false
}

func TestUnreachableHosts(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	kh := knownHosts(t, lab)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()
	hole := blackholeListener(t)

	mk := func(addr string) transport.Options {
		host, port, _ := net.SplitHostPort(addr)
		o := nodeOptions(t, lab.Nodes[0], kh)
		o.Host = host
		fmt.Sscan(port, &o.Port)
		o.DialTimeout, o.HandshakeTimeout = 300*time.Millisecond, 400*time.Millisecond
		return o
	}
	type bad struct {
		name    string
		addr    string
		step    string
		wantErr error
		within  time.Duration
	}
	bads := []bad{
		{name: "refused", addr: closedAddr, step: transport.StepDial, wantErr: transport.ErrUnreachable, within: 3 * time.Second},
		{name: "no SSH answer", addr: hole, step: transport.StepHandshake, wantErr: transport.ErrTimeout, within: 3 * time.Second},
	}
	if addr, ok := fullBacklog(t); ok {
		bads = append(bads, bad{name: "SYN dropped", addr: addr, step: transport.StepDial, wantErr: transport.ErrTimeout, within: 3 * time.Second})
	} else {
		t.Log("could not make a port that drops SYNs; the dial-timeout case is covered by the handshake one only")
	}
	var targets []transport.Target
	for _, n := range lab.Nodes {
		targets = append(targets, transport.Target{Options: nodeOptions(t, n, kh), Request: transport.Request{Spec: spec("unreach")}})
	}
	for _, b := range bads {
		targets = append(targets, transport.Target{Options: mk(b.addr), Request: transport.Request{Spec: spec("unreach")}})
	}
	p := newPool(t, transport.PoolOptions{})
	outs := p.ApplyAll(t.Context(), targets)
	for i := range lab.Nodes {
		if outs[i].Err != nil {
			t.Errorf("healthy node %d failed beside unreachable ones: %v", i, outs[i].Err)
		}
	}
	for i, b := range bads {
		err := outs[len(lab.Nodes)+i].Err
		if !errors.Is(err, b.wantErr) || stepOf(t, err).Step != b.step || !strings.Contains(err.Error(), b.addr) {
			t.Errorf("%s: err = %v, want %v at step %s naming %s", b.name, err, b.wantErr, b.step, b.addr)
		}
	}
	// A correctness bound, not a speed target: the timeouts are honoured
	// (the unreachable hosts alone, so the healthy nodes' work on a busy
	// machine does not count).
	start := time.Now()
	for _, o := range p.ApplyAll(t.Context(), targets[len(lab.Nodes):]) {
		if o.Err == nil {
			t.Error("an unreachable host succeeded")
		}
	}
	if elapsed := time.Since(start); elapsed > bads[0].within {
		t.Errorf("unreachable hosts took %s to fail; the dial/handshake timeouts are 300/400 ms", elapsed)
	}
}

func TestAgentFailuresReachTheUser(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{})
	o := nodeOptions(t, n, kh)

	// Exit 1: the spec is invalid; the agent's stderr is in the error.
	_, err := p.Apply(t.Context(), o, transport.Request{Spec: []byte(`{"apiVersion":"hpcstorage/v1","owner":"x","items":[{"sysctl":{"key":"","value":"1"}}]}`)})
	if !errors.Is(err, transport.ErrSpecInvalid) {
		t.Fatalf("invalid spec: err = %v", err)
	}
	se := stepOf(t, err)
	if se.ExitStatus != 1 || !strings.Contains(se.Stderr, "items[0]") || !strings.Contains(err.Error(), "items[0]") || !strings.Contains(err.Error(), n.Addr) {
		t.Errorf("invalid spec error lacks the agent's located message or the host: %v", err)
	}

	// Exit 2: an item failed; the result comes back with the error.
	r, err := p.Apply(t.Context(), o, transport.Request{Spec: []byte(`{"apiVersion":"hpcstorage/v1","owner":"x","items":[
		{"sysctl":{"key":"vm.dirty_ratio","value":"20"}},
		{"package_version":{"name":"lvm2","min":"99:99"}}]}`)})
	if !errors.Is(err, transport.ErrItemFailed) || r == nil || r.Result == nil || !r.Result.Failed || r.ExitStatus != 2 {
		t.Fatalf("failed item: err = %v resp = %+v", err, r)
	}
	if !strings.Contains(err.Error(), "package_version:lvm2") {
		t.Errorf("error does not name the failed item: %v", err)
	}
}

func TestKeepaliveDropsHungHost(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	// Deliver the agent first with default keepalives, so the tight ones
	// below only ever see short commands.
	if _, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), o, transport.Request{Spec: spec("ka"), Check: true}); err != nil {
		t.Fatal(err)
	}
	o.KeepaliveInterval, o.KeepaliveCountMax = 100*time.Millisecond, 3
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ka"), Check: true}); err != nil {
		t.Fatal(err)
	}
	n.SetFaults(labnode.Faults{RunDelay: 30 * time.Second})
	before := runs(n)
	errc := make(chan error, 1)
	go func() {
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ka"), Check: true})
		errc <- err
	}()
	for runs(n) == before {
		time.Sleep(5 * time.Millisecond)
	}
	n.SetFaults(labnode.Faults{RunDelay: 30 * time.Second, Freeze: true})
	select {
	case err := <-errc:
		if !errors.Is(err, transport.ErrConnectionLost) || !strings.Contains(err.Error(), "keepalive") || stepOf(t, err).Step != transport.StepRun {
			t.Fatalf("err = %v, want a lost connection blamed on keepalives", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a hung host hung the run: keepalives did not fire")
	}
	n.SetFaults(labnode.Faults{})
}

func TestRunTimeout(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	p := newPool(t, transport.PoolOptions{})
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("rt"), Check: true}); err != nil {
		t.Fatal(err)
	}
	n.SetFaults(labnode.Faults{RunDelay: 10 * time.Second})
	o.RunTimeout = 300 * time.Millisecond
	_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("rt"), Check: true})
	if !errors.Is(err, transport.ErrTimeout) || !strings.Contains(err.Error(), "run_timeout") || stepOf(t, err).Step != transport.StepRun {
		t.Fatalf("err = %v, want a run_timeout error at step run", err)
	}
	n.SetFaults(labnode.Faults{})
	// The connection survives a timed-out run.
	o.RunTimeout = time.Minute
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("rt"), Check: true}); err != nil {
		t.Fatal(err)
	}
	if p.Dials() != 1 {
		t.Errorf("dials = %d, want the connection reused after a timeout", p.Dials())
	}
}

func TestBadOptions(t *testing.T) {
	base := transport.Options{Host: "node1", PrivateKey: "unused", HostKeys: []string{"SHA256:" + strings.Repeat("A", 43)}}
	bastion := base
	bastion.Host = "jump"
	nested := bastion
	nested.Bastion = &transport.Options{Host: "jump2"}
	tests := []struct {
		name string
		set  func(o *transport.Options)
		want []string
	}{
		{"empty host", func(o *transport.Options) { o.Host = "" }, []string{"host"}},
		{"host with spaces", func(o *transport.Options) { o.Host = "node 1" }, []string{`"node 1"`}},
		{"host with port", func(o *transport.Options) { o.Host = "node1:2222" }, []string{`"node1:2222"`, "port"}},
		{"port", func(o *transport.Options) { o.Port = 70000 }, []string{"port 70000", "node1"}},
		{"user", func(o *transport.Options) { o.User = "a b" }, []string{"user"}},
		{"key and key file", func(o *transport.Options) { o.PrivateKeyFile = "/x" }, []string{"private_key", "private_key_file"}},
		{"relative agent path", func(o *transport.Options) { o.AgentPath = "bin/agent" }, []string{"agent_path"}},
		{"agent path not clean", func(o *transport.Options) { o.AgentPath = "/opt/../agent" }, []string{"agent_path"}},
		{"negative timeout", func(o *transport.Options) { o.RunTimeout = -time.Second }, []string{"run_timeout"}},
		{"insecure and pinned", func(o *transport.Options) { o.InsecureIgnoreHostKey = true }, []string{"insecure_ignore_host_key"}},
		{"nested bastion", func(o *transport.Options) { o.Bastion = &nested }, []string{"bastion"}},
		{"bad bastion", func(o *transport.Options) { b := bastion; b.Port = -1; o.Bastion = &b }, []string{"bastion", "jump"}},
	}
	p := transport.NewPool(transport.PoolOptions{})
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.set(&o)
			_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("x")})
			if !errors.Is(err, transport.ErrConfig) || stepOf(t, err).Step != transport.StepConfig {
				t.Fatalf("err = %v, want ErrConfig at step config", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not name %q: %v", w, err)
				}
			}
		})
	}
	_, err := p.Apply(t.Context(), base, transport.Request{Spec: []byte("  ")})
	if !errors.Is(err, transport.ErrConfig) || !strings.Contains(err.Error(), "empty spec") {
		t.Errorf("empty spec: %v", err)
	}
	if p.Dials() != 0 {
		t.Error("bad options still dialed")
	}
}
