package transport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/agentbin"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// One node, the whole path: single-exec run, sftp delivery, run; then the
// same again over the reused connection: one exec, nothing changed.
func TestApplyDeliversOnceAndConverges(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{})
	ctx := t.Context()
	o := nodeOptions(t, n, kh)

	check, err := p.Apply(ctx, o, transport.Request{Spec: spec("t1"), Check: true, Diff: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if !check.Delivered || check.Result == nil || !check.Result.Changed || !check.Result.Check {
		t.Fatalf("check: delivered=%v result=%+v", check.Delivered, check.Result)
	}
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "40" {
		t.Fatalf("check mode changed vm.dirty_ratio to %q", got)
	}
	first, err := p.Apply(ctx, o, transport.Request{Spec: spec("t1")})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if first.Delivered || !first.Result.Changed || first.ExitStatus != 0 {
		t.Fatalf("apply: delivered=%v changed=%v exit=%d", first.Delivered, first.Result.Changed, first.ExitStatus)
	}
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "20" {
		t.Errorf("vm.dirty_ratio = %q after apply, want 20", got)
	}
	if got := readNodeFile(t, n, "/etc/hpcstorage-test.conf"); got != "tuned = yes" {
		t.Errorf("managed file = %q", got)
	}
	if got := readNodeFile(t, n, transport.DefaultAgentPath); len(got) == 0 {
		t.Error("agent not at the default path inside the node folder")
	}
	second, err := p.Apply(ctx, o, transport.Request{Spec: spec("t1")})
	if err != nil {
		t.Fatalf("second apply: %v", err)
	}
	if second.Result.Changed {
		t.Errorf("second apply changed something: %+v", second.Result.Items)
	}
	cmds := n.Commands()
	// The first call's session exec finds no agent and waits while it
	// arrives over sftp: no probe or upload command.
	if got := archProbes(cmds); got != 0 {
		t.Errorf("%d probe commands, want none: %q", got, cmds)
	}
	if got := uploads(n); got != 1 || n.SFTPSessions() != 1 {
		t.Errorf("%d uploads in %d sftp sessions, want 1 and 1: %q", got, n.SFTPSessions(), cmds)
	}
	// The three calls go over one agent session: one exec, one agent
	// process.
	if n.Execs() != 1 || n.AgentStarts() != 1 || len(n.ServeRequests()) != 3 || n.Connections() != 1 || p.Dials() != 1 {
		t.Errorf("execs=%d agents=%d requests=%d connections=%d dials=%d, want 1, 1, 3, 1, 1: %q", n.Execs(), n.AgentStarts(),
			len(n.ServeRequests()), n.Connections(), p.Dials(), cmds)
	}
}

// Many nodes at once: one connection and one exec per node, the delivery
// included.
func TestApplyAllManyNodes(t *testing.T) {
	needAgent(t)
	nodes := 24
	if testing.Short() {
		nodes = 6
	}
	lab := startLab(t, nodes)
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{MaxParallel: 8})
	var targets []transport.Target
	for _, n := range lab.Nodes {
		for range 3 { // three resources per node share its connection
			targets = append(targets, transport.Target{Options: nodeOptions(t, n, kh), Request: transport.Request{Spec: spec("many")}})
		}
	}
	for i, out := range p.ApplyAll(t.Context(), targets) {
		if out.Err != nil {
			t.Errorf("target %d: %v", i, out.Err)
		}
	}
	if p.Dials() != int64(nodes) {
		t.Errorf("dials = %d, want %d", p.Dials(), nodes)
	}
	for _, n := range lab.Nodes {
		cmds := n.Commands()
		if n.Connections() != 1 || n.Execs() != 1 || n.SFTPSessions() != 1 || uploads(n) != 1 || archProbes(cmds) != 0 {
			t.Errorf("%s: %d connections, commands %q", n.Name, n.Connections(), cmds)
		}
		if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "20" {
			t.Errorf("%s: vm.dirty_ratio = %q", n.Name, got)
		}
	}
	// A call in flight holds its exec and, while the agent arrives, the
	// sftp session beside it.
	if lab.MaxActive() > 2*8 {
		t.Errorf("%d commands and sftp sessions ran at once, MaxParallel is 8", lab.MaxActive())
	}
}

func TestFanOutBounds(t *testing.T) {
	needAgent(t)
	tests := []struct {
		name                string
		nodes, callsPerNode int
		maxParallel         int
		maxPerHost          int
		wantLab, wantNode   int64
	}{
		{name: "total", nodes: 6, callsPerNode: 1, maxParallel: 3, maxPerHost: 4, wantLab: 3, wantNode: 1},
		{name: "per host", nodes: 1, callsPerNode: 6, maxParallel: 10, maxPerHost: 2, wantLab: 2, wantNode: 2},
		{name: "both", nodes: 3, callsPerNode: 4, maxParallel: 4, maxPerHost: 2, wantLab: 4, wantNode: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := startLab(t, tt.nodes)
			kh := knownHosts(t, lab)
			p := newPool(t, transport.PoolOptions{MaxParallel: tt.maxParallel, MaxPerHost: tt.maxPerHost})
			// Deliver first, so that only agent runs (held by RunDelay) overlap.
			var targets []transport.Target
			for _, n := range lab.Nodes {
				targets = append(targets, transport.Target{Options: nodeOptions(t, n, kh), Request: transport.Request{Spec: spec("fan"), Check: true}})
			}
			for _, o := range p.ApplyAll(t.Context(), targets) {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
			}
			lab.ResetMaxActive()
			targets = targets[:0]
			for _, n := range lab.Nodes {
				n.SetFaults(labnode.Faults{RunDelay: 300 * time.Millisecond})
				for range tt.callsPerNode {
					targets = append(targets, transport.Target{Options: nodeOptions(t, n, kh), Request: transport.Request{Spec: spec("fan"), Check: true}})
				}
			}
			for _, o := range p.ApplyAll(t.Context(), targets) {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
			}
			// With every run held 300 ms, the limits are reached, never passed.
			if got := lab.MaxActive(); got != tt.wantLab {
				t.Errorf("lab-wide concurrency %d, want %d", got, tt.wantLab)
			}
			for _, n := range lab.Nodes {
				if got := n.MaxActive(); got > tt.wantNode {
					t.Errorf("%s: %d at once, MaxPerHost %d", n.Name, got, tt.maxPerHost)
				}
			}
			if got := lab.Nodes[0].MaxActive(); got != tt.wantNode {
				t.Errorf("%s: max %d at once, want %d", lab.Nodes[0].Name, got, tt.wantNode)
			}
		})
	}
}

// The agent is shipped again only when the node's copy or the provider's
// build changes.
func TestRedeliveryOnlyOnChecksumChange(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	ctx := t.Context()
	uploads := func() int { return uploads(n) }
	apply := func(p *transport.Pool) *transport.Response {
		t.Helper()
		r, err := p.Apply(ctx, o, transport.Request{Spec: spec("redeliver"), Check: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	p1 := newPool(t, transport.PoolOptions{})
	if r := apply(p1); !r.Delivered || uploads() != 1 {
		t.Fatalf("first run: delivered=%v uploads=%d", r.Delivered, uploads())
	}
	p1.Close()

	// A new process (pool) runs the node's copy in one exec: same checksum.
	p2 := newPool(t, transport.PoolOptions{})
	before := n.Execs()
	if r := apply(p2); r.Delivered || uploads() != 1 || n.Execs() != before+1 {
		t.Fatalf("unchanged agent: delivered=%v uploads=%d execs=%d, want one exec", r.Delivered, uploads(), n.Execs()-before)
	}
	p2.Close()

	// Someone replaced the node's copy: the next process notices and ships.
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	// By rename, as p2's agent session may still be running the file.
	if err := os.WriteFile(hp+".new", []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(hp+".new", hp); err != nil {
		t.Fatal(err)
	}
	p3 := newPool(t, transport.PoolOptions{})
	if r := apply(p3); !r.Delivered || uploads() != 2 {
		t.Fatalf("tampered agent not replaced: delivered=%v uploads=%d", r.Delivered, uploads())
	}
	if b, _ := os.ReadFile(hp); !bytes.Equal(b, agentData) {
		t.Fatal("node copy differs from the shipped agent")
	}

	// The provider carries a new build (same connection, cached probe):
	// shipped once, then not again. (Exec per call: an agent session
	// keeps running the build it started with.)
	newer := append(append([]byte{}, agentData...), []byte("\x00new build")...)
	sum := sha256.Sum256(newer)
	var calls int
	var mu sync.Mutex
	p4 := newPool(t, transport.PoolOptions{ExecPerCall: true, Agent: func(goarch string) ([]byte, string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return agentData, agentSum, nil
		}
		return newer, hex.EncodeToString(sum[:]), nil
	}})
	if r := apply(p4); r.Delivered {
		t.Fatal("same build re-delivered")
	}
	if r := apply(p4); !r.Delivered || uploads() != 3 {
		t.Fatalf("new build not delivered: uploads=%d", uploads())
	}
	if r := apply(p4); r.Delivered || uploads() != 3 {
		t.Fatalf("new build delivered twice: uploads=%d", uploads())
	}
	// Each delivery took one sftp session: beside p1's waiting session
	// exec, and where the run found another build (p3, and p4 without
	// sessions) with the architecture read in it. No probe command ran.
	if got := archProbes(n.Commands()); got != 0 || n.SFTPSessions() != 3 {
		t.Errorf("%d probe commands and %d sftp sessions for 4 pools, want 0 and 3: %q", got, n.SFTPSessions(), n.Commands())
	}
}

// uname -m decides which build is shipped.
func TestArchMapping(t *testing.T) {
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	builds := map[string][]byte{"amd64": []byte("fake amd64 agent"), "arm64": []byte("fake arm64 agent")}
	source := func(goarch string) ([]byte, string, error) {
		b, ok := builds[goarch]
		if !ok {
			return nil, "", fmt.Errorf("no build for %s", goarch)
		}
		s := sha256.Sum256(b)
		return b, hex.EncodeToString(s[:]), nil
	}
	tests := []struct {
		uname   string
		want    string
		wantErr error
	}{
		{uname: "x86_64", want: "amd64"},
		{uname: "aarch64", want: "arm64"},
		{uname: "arm64", want: "arm64"},
		{uname: "ppc64le", wantErr: transport.ErrUnsupportedArch},
	}
	for _, tt := range tests {
		t.Run(tt.uname, func(t *testing.T) {
			n.SetArch(tt.uname)
			p := newPool(t, transport.PoolOptions{Agent: source})
			_, err := p.Apply(t.Context(), nodeOptions(t, n, kh), transport.Request{Spec: spec("arch")})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.uname) {
					t.Fatalf("err = %v, want %v naming %s", err, tt.wantErr, tt.uname)
				}
				var se *transport.StepError
				if !errors.As(err, &se) || se.Step != transport.StepProbe {
					t.Errorf("step = %+v, want probe", se)
				}
				return
			}
			// The fake build cannot run, but it must be the right one.
			hp, _ := n.HostFile(transport.DefaultAgentPath)
			got, rerr := os.ReadFile(hp)
			if rerr != nil || !bytes.Equal(got, builds[tt.want]) {
				t.Fatalf("node has %q (%v), want the %s build; apply err: %v", got, rerr, tt.want, err)
			}
			var se *transport.StepError
			if !errors.As(err, &se) || se.Step != transport.StepRun {
				t.Errorf("running a fake agent: err = %v, want a run-step error", err)
			}
		})
	}
}

// Air-gapped sites install the agent themselves.
func TestPreinstalledAgent(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	o := nodeOptions(t, n, kh)
	o.AgentPath, o.AgentPreinstalled = "/opt/site/bin/hpcstorage-agent", true
	p := newPool(t, transport.PoolOptions{Agent: func(string) ([]byte, string, error) {
		t.Error("preinstalled agent: the pool asked for a build")
		return nil, "", errors.New("no builds here")
	}})
	_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("pre")})
	if !errors.Is(err, transport.ErrAgentMissing) || !strings.Contains(err.Error(), o.AgentPath) {
		t.Fatalf("missing preinstalled agent: err = %v", err)
	}
	hp, _ := n.HostFile(o.AgentPath)
	if err := os.MkdirAll(strings.TrimSuffix(hp, "/hpcstorage-agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hp, agentData, 0o755); err != nil {
		t.Fatal(err)
	}
	p2 := newPool(t, transport.PoolOptions{Agent: func(string) ([]byte, string, error) { return nil, "", errors.New("no builds") }})
	r, err := p2.Apply(t.Context(), o, transport.Request{Spec: spec("pre")})
	if err != nil || r.Delivered || !r.Result.Changed {
		t.Fatalf("preinstalled run: %v %+v", err, r)
	}
	if countPrefix(n.Commands(), "sh -c 'mkdir") != 0 {
		t.Error("something was uploaded to a preinstalled node")
	}
}

func TestFacts(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{})
	f, err := p.Facts(t.Context(), nodeOptions(t, lab.Nodes[0], kh), "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Hostname != lab.Nodes[0].Name || len(f.BlockDevices) == 0 {
		t.Errorf("facts: hostname %q, %d block devices", f.Hostname, len(f.BlockDevices))
	}
}

// Remove puts back what an owner changed (the provider's Delete).
func TestRemove(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{})
	o := nodeOptions(t, n, kh)
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("rm")}); err != nil {
		t.Fatal(err)
	}
	plan, err := p.Remove(t.Context(), o, "rm", true, "")
	if err != nil || !plan.Result.Changed || readNodeFile(t, n, "/proc/sys/vm/dirty_ratio") != "20" {
		t.Fatalf("remove --check: err=%v result=%+v", err, plan)
	}
	r, err := p.Remove(t.Context(), o, "rm", false, "")
	if err != nil || !r.Result.Changed {
		t.Fatalf("remove: err=%v result=%+v", err, r)
	}
	if got := readNodeFile(t, n, "/proc/sys/vm/dirty_ratio"); got != "40" {
		t.Errorf("vm.dirty_ratio = %q after remove, want the original 40", got)
	}
	if _, err := p.Remove(t.Context(), o, " ", false, ""); !errors.Is(err, transport.ErrConfig) {
		t.Errorf("empty owner: %v", err)
	}
}

// The node's agent disappears while a connection (and its cached probe)
// lives on: the run notices (exit 127), ships it again and succeeds. (Exec
// per call: a running agent session does not need its file.)
func TestAgentVanishesMidSession(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	p := newPool(t, transport.PoolOptions{ExecPerCall: true})
	o := nodeOptions(t, n, kh)
	if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("gone"), Check: true}); err != nil {
		t.Fatal(err)
	}
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	if err := os.Remove(hp); err != nil {
		t.Fatal(err)
	}
	r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("gone"), Check: true})
	if err != nil || !r.Delivered {
		t.Fatalf("after the agent vanished: err=%v delivered=%v", err, r != nil && r.Delivered)
	}
	if p.Dials() != 1 {
		t.Errorf("dials = %d, want the same connection", p.Dials())
	}
}

// The provider's own embedded builds (make agent-dist), with the pool's
// default agent source.
func TestEmbeddedAgentBuilds(t *testing.T) {
	data, sum, err := agentbin.For(runtime.GOARCH)
	if errors.Is(err, agentbin.ErrNotBuilt) {
		testenv.Missing(t, "provider built without agents (run make agent-dist): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	p := transport.NewPool(transport.PoolOptions{Warn: func(m string) { t.Log(m) }})
	t.Cleanup(func() { p.Close() })
	r, err := p.Apply(t.Context(), nodeOptions(t, n, knownHosts(t, lab)), transport.Request{Spec: spec("embedded"), Check: true})
	if err != nil || !r.Delivered {
		t.Fatalf("embedded agent: err=%v", err)
	}
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	got, _ := os.ReadFile(hp)
	if !bytes.Equal(got, data) {
		t.Errorf("node has %d bytes, the embedded build (sha256 %s) has %d", len(got), sum, len(data))
	}
}

// Callers share a connection only with the same credentials and host-key
// checks: a caller that pins another host key is refused even while a
// connection opened with looser checks is up, and one with the same
// settings rides on it.
func TestConnectionSharedOnlyWithSameChecks(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	p := newPool(t, transport.PoolOptions{})
	loose := nodeOptions(t, n, knownHosts(t, lab))
	loose.KnownHostsFiles, loose.InsecureIgnoreHostKey = nil, true
	if _, err := p.Apply(t.Context(), loose, transport.Request{Spec: spec("share"), Check: true}); err != nil {
		t.Fatal(err)
	}
	pinned := nodeOptions(t, n, "")
	pinned.KnownHostsFiles, pinned.HostKeys = nil, []string{ssh.FingerprintSHA256(otherKey(t))}
	if _, err := p.Apply(t.Context(), pinned, transport.Request{Spec: spec("share"), Check: true}); !errors.Is(err, transport.ErrHostKeyMismatch) {
		t.Fatalf("pinned to another key over a shared pool: err = %v, want ErrHostKeyMismatch", err)
	}
	good := nodeOptions(t, n, knownHosts(t, lab))
	for range 2 {
		if _, err := p.Apply(t.Context(), good, transport.Request{Spec: spec("share"), Check: true}); err != nil {
			t.Fatal(err)
		}
	}
	// loose and good (once for both calls); the pinned handshake failed.
	if n.Connections() != 2 || p.Dials() != 2 {
		t.Errorf("%d connections at the node, %d dials; want 2 and 2", n.Connections(), p.Dials())
	}
}

// An sftp upload cut off by a dropped connection leaves its temp file; the
// next delivery removes the old ones (not a fresh one: another upload may
// be in flight) and nothing else.
func TestStaleUploadTempsRemoved(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	dir := filepath.Dir(hp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale, fresh, other := hp+".tmp-0a0a0a0a0a0a", hp+".tmp-0b0b0b0b0b0b", filepath.Join(dir, "notes.txt")
	for _, f := range []string{stale, fresh, other} {
		if err := os.WriteFile(f, []byte("half an agent"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, transport.PoolOptions{})
	if r, err := p.Apply(t.Context(), nodeOptions(t, n, knownHosts(t, lab)), transport.Request{Spec: spec("stale"), Check: true}); err != nil || !r.Delivered {
		t.Fatalf("err=%v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale upload temp still there: %v", err)
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
}

// A delivery that cannot write agent_path fails at the upload step, naming
// the host and the folder; nothing is left half-written.
func TestSFTPUploadErrorNamesStep(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	blocker, _ := n.HostFile(path.Dir(path.Dir(transport.DefaultAgentPath)))
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, transport.PoolOptions{})
	_, err := p.Apply(t.Context(), nodeOptions(t, n, knownHosts(t, lab)), transport.Request{Spec: spec("blocked"), Check: true})
	var se *transport.StepError
	if !errors.As(err, &se) || se.Step != transport.StepUpload || se.Host != "root@"+n.Addr ||
		!strings.Contains(err.Error(), path.Dir(transport.DefaultAgentPath)) {
		t.Fatalf("err = %v, want an upload-step error naming the host and %s", err, path.Dir(transport.DefaultAgentPath))
	}
	t.Logf("error: %v", err)
	if b, _ := os.ReadFile(blocker); string(b) != "not a folder" {
		t.Errorf("the file in the way was changed: %q", b)
	}
}
