package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// serveProc is `hpcstorage-agent serve` running as a process.
type serveProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.Reader
	stderr bytes.Buffer
}

func startServe(t *testing.T, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{t: t, cmd: exec.Command(agentBin, append([]string{"serve"}, args...)...)}
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.out, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	return p
}

func (p *serveProc) send(req protocol.ServeRequest) {
	p.t.Helper()
	if err := protocol.WriteFrame(p.in, req); err != nil {
		p.t.Fatal(err)
	}
}

// exit closes stdin and waits for the process.
func (p *serveProc) exit() int {
	p.t.Helper()
	p.in.Close()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

func selfSum(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// One serve process answers facts, check, apply and remove requests sent
// at once, each like its one-shot command; it refuses commands it does not
// serve without ending the session, and exits 0 when stdin ends.
func TestServeAnswersLikeOneShotCommands(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	p := startServe(t, "--expect-sha256", strings.ToUpper(selfSum(t)))
	var hello protocol.ServeHello
	if err := protocol.ReadFrame(p.out, &hello); err != nil {
		t.Fatalf("hello: %v (stderr %s)", err, p.stderr.String())
	}
	if hello.Protocol != protocol.ServeProtocol || hello.Version == "" || hello.GOARCH == "" {
		t.Fatalf("hello %+v", hello)
	}
	spec := mustRead(t, r1Path)
	// Read-only requests run concurrently (they share the run lock).
	const checks = 6
	for i := range checks {
		p.send(protocol.ServeRequest{ID: uint64(10 + i), Args: []string{"apply", "-f", "-", "--check", "--root", root}, Stdin: spec})
	}
	p.send(protocol.ServeRequest{ID: 2, Args: []string{"facts", "--root", root}})
	p.send(protocol.ServeRequest{ID: 3, Args: []string{"serve"}})
	p.send(protocol.ServeRequest{ID: 4, Args: []string{"apply", "-f", "-", "--root", root}, Stdin: []byte("not: a spec")})
	got := map[uint64]protocol.ServeResponse{}
	for range checks + 3 {
		var r protocol.ServeResponse
		if err := protocol.ReadFrame(p.out, &r); err != nil {
			t.Fatalf("response: %v (stderr %s)", err, p.stderr.String())
		}
		got[r.ID] = r
	}
	for i := range checks {
		r := got[uint64(10+i)]
		var res protocol.Result
		if r.Exit != protocol.ExitOK || json.Unmarshal(r.Stdout, &res) != nil || !res.Check || !res.Changed {
			t.Errorf("check %d: exit %d stdout %.200s stderr %s", i, r.Exit, r.Stdout, r.Stderr)
		}
	}
	var f protocol.Facts
	if r := got[2]; r.Exit != 0 || json.Unmarshal(r.Stdout, &f) != nil || f.Hostname != "storage01" {
		t.Errorf("facts: exit %d stdout %.200s stderr %s", r.Exit, r.Stdout, r.Stderr)
	}
	if r := got[3]; r.Exit != protocol.ExitUsage || !strings.Contains(string(r.Stderr), `command "serve" cannot be served`) {
		t.Errorf("nested serve: exit %d stderr %s", r.Exit, r.Stderr)
	}
	if r := got[4]; r.Exit != protocol.ExitUsage || !strings.Contains(string(r.Stderr), "hpcstorage-agent apply") {
		t.Errorf("bad spec: exit %d stderr %s", r.Exit, r.Stderr)
	}
	// The check wrote nothing; the apply converges, the next check is a
	// no-op, and remove puts the node back.
	if d := strings.TrimSpace(string(mustRead(t, filepath.Join(root, "proc/sys/vm/dirty_ratio")))); d != "40" {
		t.Fatalf("checks changed vm.dirty_ratio to %s", d)
	}
	for i, args := range [][]string{
		{"apply", "-f", "-", "--root", root},
		{"apply", "-f", "-", "--check", "--root", root},
		{"remove", "--owner", "r1-storage-tuning", "--root", root},
	} {
		p.send(protocol.ServeRequest{ID: uint64(100 + i), Args: args, Stdin: spec})
		var r protocol.ServeResponse
		if err := protocol.ReadFrame(p.out, &r); err != nil {
			t.Fatal(err)
		}
		var res protocol.Result
		if r.ID != uint64(100+i) || r.Exit != 0 || json.Unmarshal(r.Stdout, &res) != nil || res.Changed != (i != 1) {
			t.Errorf("%v: id %d exit %d changed %v stderr %s", args, r.ID, r.Exit, res.Changed, r.Stderr)
		}
		if i == 0 {
			if d := strings.TrimSpace(string(mustRead(t, filepath.Join(root, "proc/sys/vm/dirty_ratio")))); d != "20" {
				t.Errorf("after apply vm.dirty_ratio = %s", d)
			}
		}
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit %d at end of stdin, stderr %s", code, p.stderr.String())
	}
}

// The build is checked once, before the hello: another build's sha exits
// 3 without a frame, and an agent too old for a serve command is told apart
// by its usage error.
func TestServeChecksBuildOnce(t *testing.T) {
	p := startServe(t, "--expect-sha256", strings.Repeat("0", 64))
	if b, _ := io.ReadAll(p.out); len(b) != 0 {
		t.Errorf("wrong build wrote %q", b)
	}
	if code := p.exit(); code != protocol.ExitWrongBuild || !strings.Contains(p.stderr.String(), "wrong build") {
		t.Errorf("wrong build: exit %d stderr %s", code, p.stderr.String())
	}
}

// A cancelled request ends early (its lock wait is cut short) while the
// session goes on; a malformed frame ends the session with exit 1.
func TestServeCancelAndBadFrame(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	spec := mustRead(t, r1Path)
	unlock := holdLock(t, root)
	p := startServe(t)
	var hello protocol.ServeHello
	if err := protocol.ReadFrame(p.out, &hello); err != nil {
		t.Fatal(err)
	}
	p.send(protocol.ServeRequest{ID: 1, Args: []string{"apply", "-f", "-", "--root", root, "--lock-timeout", "60s"}, Stdin: spec})
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	p.send(protocol.ServeRequest{ID: 1, Cancel: true})
	var r protocol.ServeResponse
	if err := protocol.ReadFrame(p.out, &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != 1 || r.Exit == 0 || !strings.Contains(string(r.Stderr), "context canceled") || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled apply: id %d exit %d stderr %s after %s", r.ID, r.Exit, r.Stderr, time.Since(start))
	}
	unlock()
	p.send(protocol.ServeRequest{ID: 2, Args: []string{"facts", "--root", root}})
	if err := protocol.ReadFrame(p.out, &r); err != nil || r.ID != 2 || r.Exit != 0 {
		t.Fatalf("facts after a cancel: %v %+v", err, r)
	}
	if _, err := p.in.Write([]byte{0xff, 0xff, 0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	if code := p.exit(); code != protocol.ExitUsage || !strings.Contains(p.stderr.String(), "malformed serve frame") {
		t.Errorf("bad frame: exit %d stderr %s", code, p.stderr.String())
	}
}

// holdLock takes the root's run lock (flock, as another agent run holds
// it) from this test process.
func holdLock(t *testing.T, root string) func() {
	t.Helper()
	dir := filepath.Join(root, protocol.StateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { f.Close() }) }
	t.Cleanup(release)
	return release
}

// serve --install-as: the transport's delivery runs the uploaded temp
// file, which renames itself to the agent's path once --expect-sha256 has
// verified it (and serves from there, under that name); a wrong build is
// never installed, and the flag without --expect-sha256 is refused.
func TestServeInstallAs(t *testing.T) {
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	sum := selfSum(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "hpcstorage-agent")
	tmp := target + ".tmp-upload"
	stale := target + ".tmp-0a0a0a0a0a0a"
	put := func() {
		t.Helper()
		if err := os.WriteFile(tmp, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command(tmp, append([]string{"serve"}, args...)...)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd, in, out, &errb
	}

	put()
	cmd, in, _, errb := run("--install-as", target)
	in.Close()
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != protocol.ExitUsage || !strings.Contains(errb.String(), "--install-as needs --expect-sha256") {
		t.Errorf("without --expect-sha256: %v, stderr %s", err, errb)
	}
	cmd, in, _, errb = run("--expect-sha256", strings.Repeat("0", 64), "--install-as", target)
	in.Close()
	_ = cmd.Wait()
	if _, err := os.Stat(target); cmd.ProcessState.ExitCode() != protocol.ExitWrongBuild || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("wrong build: exit %d (%s), installed: %v", cmd.ProcessState.ExitCode(), errb, err)
	}

	if err := os.WriteFile(stale, []byte("half an agent"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	put()
	cmd, in, out, errb := run("--expect-sha256", sum, "--install-as", target)
	var hello protocol.ServeHello
	if err := protocol.ReadFrame(out, &hello); err != nil || hello.Protocol != protocol.ServeProtocol {
		t.Fatalf("hello: %+v %v, stderr %s", hello, err, errb)
	}
	if b, err := os.ReadFile(target); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("not installed at %s: %v", target, err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temp still there: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a stale upload temp beside it is left: %v", err)
	}
	// The serving process is the installed file, by name too.
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); err != nil || exe != target {
		t.Errorf("serving from %q (%v), want %s", exe, err, target)
	}
	if argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid)); err != nil || !strings.HasPrefix(string(argv), target+"\x00serve\x00") {
		t.Errorf("serving as %q (%v)", argv, err)
	}
	// Its sidecar names the installed file: the next start hashes nothing.
	if side, err := os.ReadFile(target + ".sha256"); err != nil || !strings.HasPrefix(string(side), sum+" ") {
		t.Errorf("sidecar %q (%v)", side, err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("end of session: %v, stderr %s", err, errb)
	}
}
