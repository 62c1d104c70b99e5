//go:build linux

package transport_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// keeperConfig starts this test binary as the keeper, with the agent it
// built.
func keeperConfig(dir string, idle time.Duration) *transport.KeeperConfig {
	return &transport.KeeperConfig{Dir: dir, Build: "test", Idle: idle, Command: func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), keeperEnv+"=1", "HPCSTORAGE_TEST_AGENT="+agentBin)
		return cmd
	}}
}

// Two pools standing for the plan and apply walks' provider processes,
// against real OpenSSH: the first starts a keeper that delivers the agent
// and serves; the second reaches the node through the same keeper, so the
// node sees one SSH command session and one agent process for both, and
// neither pool dials. Errors keep their meaning across the socket, and the
// keeper (with its connection and agent) ends after its idle time.
func TestOpenSSHSessionKeeper(t *testing.T) {
	needAgent(t)
	srv := startSSHD(t, "", sftpInternal)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := fakenode.Seed(root, fakenode.Storage); err != nil {
		t.Fatal(err)
	}
	agentPath := filepath.Join(dir, "bin", "hpcstorage-agent")
	o := transport.Options{
		Host: "127.0.0.1", Port: srv.port(), User: "root",
		PrivateKey: testKey(t).pem, HostKeys: []string{ssh.FingerprintSHA256(srv.hostKey)},
		AgentPath: agentPath, RunTimeout: time.Minute,
	}
	kdir := filepath.Join(dir, "keepers")
	const idle = 2 * time.Second
	plan := newPool(t, transport.PoolOptions{MaxPerHost: 4, Agent: hostAgent, Keeper: keeperConfig(kdir, idle)})
	r, err := plan.Apply(t.Context(), o, transport.Request{Spec: spec("keep"), Root: root, Check: true})
	if err != nil || !r.Delivered || r.Result == nil {
		t.Fatalf("plan walk: err=%v resp=%+v", err, r)
	}
	if fi, err := os.Stat(kdir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("keeper directory: %v, %v", fi.Mode(), err)
	}
	if _, err := plan.Facts(t.Context(), o, root); err != nil {
		t.Fatal(err)
	}
	cmds := sshdCommands(srv)
	plan.Close()

	apply := newPool(t, transport.PoolOptions{MaxPerHost: 4, Agent: hostAgent, Keeper: keeperConfig(kdir, idle)})
	r, err = apply.Apply(t.Context(), o, transport.Request{Spec: spec("keep"), Root: root})
	if err != nil || r.Delivered || r.Result == nil {
		t.Fatalf("apply walk: err=%v resp=%+v", err, r)
	}
	if _, err := apply.Facts(t.Context(), o, root); err != nil {
		t.Fatal(err)
	}
	if got := sshdCommands(srv); got != cmds || len(agentPIDs(t, agentPath)) != 1 || plan.Dials()+apply.Dials() != 0 {
		t.Fatalf("two walks: %d new command sessions in the second, %d agent processes, %d dials in this process; want 0, 1, 0",
			got-cmds, len(agentPIDs(t, agentPath)), plan.Dials()+apply.Dials())
	}

	// An error the keeper meets keeps its sentinel here: a host key that
	// does not match.
	bad := o
	bad.HostKeys = []string{"SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
	_, err = apply.Facts(t.Context(), bad, root)
	var se *transport.StepError
	if !errors.Is(err, transport.ErrHostKeyMismatch) || !errors.As(err, &se) || se.Step != transport.StepHandshake || apply.Dials() != 0 {
		t.Fatalf("wrong host key through the keeper: %v (dials here %d)", err, apply.Dials())
	}
	apply.Close()

	// No client for the idle time: the keepers end, their sockets go, and
	// the agent session with them.
	deadline := time.Now().Add(idle + 10*time.Second)
	for {
		socks, _ := filepath.Glob(filepath.Join(kdir, "*.sock"))
		if len(socks) == 0 && len(agentPIDs(t, agentPath)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the idle time: sockets %v, agent processes %v", socks, agentPIDs(t, agentPath))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A keeper directory others can enter is refused: the pool works alone.
func TestSessionKeeperRefusesOpenDirectory(t *testing.T) {
	needAgent(t)
	srv := startSSHD(t, "", sftpInternal)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := fakenode.Seed(root, fakenode.Storage); err != nil {
		t.Fatal(err)
	}
	kdir := filepath.Join(dir, "keepers")
	if err := os.Mkdir(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := transport.Options{
		Host: "127.0.0.1", Port: srv.port(), User: "root",
		PrivateKey: testKey(t).pem, HostKeys: []string{ssh.FingerprintSHA256(srv.hostKey)},
		AgentPath: filepath.Join(dir, "bin", "hpcstorage-agent"), RunTimeout: time.Minute,
	}
	p := newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(kdir, time.Second)})
	if _, err := p.Facts(t.Context(), o, root); err != nil {
		t.Fatal(err)
	}
	if socks, _ := filepath.Glob(filepath.Join(kdir, "*")); p.Dials() != 1 || len(socks) != 0 {
		t.Fatalf("open keeper directory: %d dials here, files %v; want 1 dial and nothing written", p.Dials(), socks)
	}
}

// The same on lab nodes: three pools (a plan's walk, then an apply's two
// walks) over two nodes through one keeper: one SSH exec and one agent
// process per node for all three, none dialed by this process.
func TestLabSessionKeeperAcrossPools(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	kh := knownHosts(t, lab)
	kdir := filepath.Join(t.TempDir(), "keepers")
	type count struct{ execs, agents int64 }
	before := map[string]count{}
	for _, n := range lab.Nodes {
		before[n.Name] = count{n.Execs(), n.AgentStarts()}
	}
	for walk, check := range []bool{true, true, false} {
		p := newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(kdir, 5*time.Second)})
		for _, n := range lab.Nodes {
			o := nodeOptions(t, n, kh)
			if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("keep"), Check: check}); err != nil {
				t.Fatalf("walk %d on %s: %v", walk, n.Name, err)
			}
			if _, err := p.Facts(t.Context(), o, ""); err != nil {
				t.Fatalf("walk %d on %s: %v", walk, n.Name, err)
			}
		}
		if p.Dials() != 0 {
			t.Fatalf("walk %d: %d dials in this process, want 0 (the keeper dials)", walk, p.Dials())
		}
		// One keeper for both nodes: they differ only in where they are.
		if socks, _ := filepath.Glob(filepath.Join(kdir, "*.sock")); len(socks) != 1 {
			t.Fatalf("walk %d: keeper sockets %v, want one for both nodes", walk, socks)
		}
		p.Close()
	}
	for _, n := range lab.Nodes {
		// The first run carries --expect-sha256 and finds no agent; the
		// session starts after delivery: two execs, one agent.
		if e, a := n.Execs()-before[n.Name].execs, n.AgentStarts()-before[n.Name].agents; e > 2 || a != 1 {
			t.Errorf("%s: %d execs and %d agent processes for three walks, want at most 2 and 1", n.Name, e, a)
		}
	}
}

// keeperPIDs lists the keepers this test process started (its children
// running this test binary), except those in old.
func keeperPIDs(t *testing.T, old ...int) []int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if slices.Contains(old, pid) {
			continue
		}
		if env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ")); err == nil && bytes.Contains(env, []byte(keeperEnv+"=1")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A keeper killed under requests: the read-only one runs again in this
// process and succeeds, the apply fails saying it may have run (it is not
// sent twice), and the next call starts a new keeper.
func TestLabSessionKeeperKilled(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	kh := knownHosts(t, lab)
	n := lab.Nodes[0]
	o := nodeOptions(t, n, kh)
	kdir := filepath.Join(t.TempDir(), "keepers")
	p := newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(kdir, 5*time.Second)})
	others := keeperPIDs(t) // other tests' keepers, still in their idle time
	if _, err := p.Facts(t.Context(), o, ""); err != nil {
		t.Fatal(err)
	}
	pids := keeperPIDs(t, others...)
	if len(pids) != 1 {
		t.Fatalf("keepers: %v, want one", pids)
	}
	n.SetFaults(labnode.Faults{RunDelay: time.Second})
	type result struct {
		err error
	}
	check, apply := make(chan result, 1), make(chan result, 1)
	go func() {
		_, err := p.Facts(t.Context(), o, "")
		check <- result{err}
	}()
	go func() {
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("keep")})
		apply <- result{err}
	}()
	time.Sleep(300 * time.Millisecond) // both held on the node
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	n.SetFaults(labnode.Faults{})
	if r := <-check; r.err != nil {
		t.Errorf("read-only call under a killed keeper: %v, want it run again here", r.err)
	}
	r := <-apply
	if !errors.Is(r.err, transport.ErrConnectionLost) || !strings.Contains(r.err.Error(), "may have run") {
		t.Errorf("apply under a killed keeper: %v, want a lost connection that may have run", r.err)
	}
	if _, err := p.Facts(t.Context(), o, ""); err != nil {
		t.Fatal(err)
	}
	if got := keeperPIDs(t, others...); len(got) != 1 || got[0] == pids[0] {
		t.Errorf("after the kill: keepers %v, want one new one", got)
	}
}

// Editing known_hosts (here: the node's key removed) sends the next pool
// to a new keeper, which verifies the host again and refuses it, as a new
// connection would; a keeper connected before the edit is not reused.
func TestLabSessionKeeperKnownHostsEdited(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	kh := knownHosts(t, lab)
	o := nodeOptions(t, lab.Nodes[0], kh)
	kdir := filepath.Join(t.TempDir(), "keepers")
	p := newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(kdir, 5*time.Second)})
	if _, err := p.Facts(t.Context(), o, ""); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p = newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(kdir, 5*time.Second)})
	if _, err := p.Facts(t.Context(), o, ""); !errors.Is(err, transport.ErrUnknownHost) {
		t.Fatalf("after the node's key left known_hosts: %v, want %v", err, transport.ErrUnknownHost)
	}
}
