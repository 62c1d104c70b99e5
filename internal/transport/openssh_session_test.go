package transport_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// agentPIDs lists the processes running `agentPath serve` (the agents
// our sshd started for this test: agentPath is the test's own temp path).
func agentPIDs(t *testing.T, agentPath string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		if len(args) >= 2 && args[0] == agentPath && args[1] == "serve" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sshdCommands counts the command sessions sshd started so far.
func sshdCommands(srv *sshd) int {
	return strings.Count(srv.logs.String(), "Starting session: command")
}

// Agent sessions over real OpenSSH: concurrent calls of one pool share one
// command session and one agent process; when that agent dies under a
// read-only call the call is retried on a new session over the same
// connection, an apply is not; then a new session serves the next call.
func TestOpenSSHAgentSession(t *testing.T) {
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
	p := newPool(t, transport.PoolOptions{MaxPerHost: 4})
	if r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sess"), Root: root, Check: true}); err != nil || !r.Delivered {
		t.Fatalf("first call: err=%v", err)
	}
	waitLog := func(want int) int {
		got := sshdCommands(srv)
		for deadline := time.Now().Add(5 * time.Second); got < want && time.Now().Before(deadline); got = sshdCommands(srv) {
			time.Sleep(20 * time.Millisecond)
		}
		return got
	}
	// The failed session start (no agent yet), then the session.
	cmds0 := waitLog(2)

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = p.Facts(t.Context(), o, root)
			} else {
				_, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("sess"), Root: root, Check: true})
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := waitLog(cmds0); got != cmds0 || len(agentPIDs(t, agentPath)) != 1 || p.Dials() != 1 {
		t.Fatalf("16 concurrent calls: %d new command sessions, %d agent processes, %d dials; want 0, 1, 1", got-cmds0, len(agentPIDs(t, agentPath)), p.Dials())
	}

	// Hold the run lock so a request waits inside the agent, then kill
	// that agent (our own test's process, by pid).
	killUnder := func(call func() error) error {
		t.Helper()
		unlock := lockRoot(t, root)
		defer unlock()
		pids := agentPIDs(t, agentPath)
		if len(pids) != 1 {
			t.Fatalf("%d agent sessions running, want 1", len(pids))
		}
		errc := make(chan error, 1)
		go func() { errc <- call() }()
		time.Sleep(300 * time.Millisecond) // the request reaches the lock
		if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		unlock()
		return <-errc
	}
	before := sshdCommands(srv)
	err := killUnder(func() error {
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sess"), Root: root, Check: true})
		return err
	})
	if err != nil {
		t.Fatalf("check retried after its agent died: %v", err)
	}
	if got := waitLog(before + 1); got != before+1 || p.Dials() != 1 {
		t.Errorf("retry: %d new command sessions, %d dials; want 1 new session on the same connection", got-before, p.Dials())
	}
	err = killUnder(func() error {
		_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sess"), Root: root})
		return err
	})
	if !errors.Is(err, transport.ErrAgentExit) || stepOf(t, err).Step != transport.StepRun {
		t.Fatalf("apply whose agent died: err = %v, want the agent's end at the run step, not retried", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/vm/dirty_ratio")); strings.TrimSpace(string(b)) != "40" {
		t.Fatalf("the killed apply changed vm.dirty_ratio to %q", b)
	}
	r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sess"), Root: root})
	if err != nil || !r.Result.Changed || p.Dials() != 1 {
		t.Fatalf("apply on a new session: err=%v dials=%d", err, p.Dials())
	}
	p.Close()
	// The agent sees the end of its stdin and exits with the connection.
	for deadline := time.Now().Add(5 * time.Second); len(agentPIDs(t, agentPath)) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("agent sessions still running after the pool closed: %v", agentPIDs(t, agentPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockRoot takes the agent's run lock on root, as another run would.
func lockRoot(t *testing.T, root string) func() {
	t.Helper()
	d := filepath.Join(root, protocol.StateDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(d, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock := func() { once.Do(func() { f.Close() }) }
	t.Cleanup(unlock)
	return unlock
}
