package transport_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// r1Spec is the R1 storage-server profile the agent ships as an example.
func r1Spec(b *testing.B) []byte {
	b.Helper()
	s, err := os.ReadFile(filepath.Join(moduleRoot(), "examples", "agent", "r1-storage-server.yaml"))
	if err != nil {
		b.Fatalf("R1 profile: %v", err)
	}
	return s
}

// converge applies spec on every node and fails the benchmark on any error.
func converge(b *testing.B, p *transport.Pool, lab *labnode.Lab, kh string, spec []byte) (changed int) {
	b.Helper()
	var targets []transport.Target
	for _, n := range lab.Nodes {
		targets = append(targets, transport.Target{Options: nodeOptions(b, n, kh), Request: transport.Request{Spec: spec}})
	}
	for i, o := range p.ApplyAll(b.Context(), targets) {
		if o.Err != nil {
			b.Fatalf("%s: %v", lab.Nodes[i].Name, o.Err)
		}
		if o.Response.Result.Changed {
			changed++
		}
	}
	return changed
}

func totalExecs(lab *labnode.Lab) int64 {
	var n int64
	for _, node := range lab.Nodes {
		n += node.Execs()
	}
	return n
}

// Per-node cost of a no-op R1 run over a reused connection against a fresh
// connection (TCP, handshake, auth, probe), measured side by side.
func BenchmarkNoopRunReusedVsFresh(b *testing.B) {
	needAgent(b)
	lab := startLab(b, 1)
	kh := knownHosts(b, lab)
	spec := r1Spec(b)
	reused := newPool(b, transport.PoolOptions{})
	converge(b, reused, lab, kh, spec)
	o := nodeOptions(b, lab.Nodes[0], kh)
	var reusedT, freshT time.Duration
	execs0 := lab.Nodes[0].Execs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r, err := reused.Apply(b.Context(), o, transport.Request{Spec: spec})
		if err != nil || r.Result.Changed {
			b.Fatalf("reused no-op: %v", err)
		}
		t1 := time.Now()
		fresh := transport.NewPool(transport.PoolOptions{Agent: hostAgent})
		r, err = fresh.Apply(b.Context(), o, transport.Request{Spec: spec})
		fresh.Close()
		if err != nil || r.Result.Changed || r.Delivered {
			b.Fatalf("fresh no-op: %v", err)
		}
		reusedT += t1.Sub(t0)
		freshT += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(reusedT.Microseconds())/1000/n, "reused_ms/node")
	b.ReportMetric(float64(freshT.Microseconds())/1000/n, "fresh_ms/node")
	b.ReportMetric(float64(freshT)/float64(reusedT), "fresh/reused")
	b.ReportMetric(float64(lab.Nodes[0].Execs()-execs0)/n, "execs/op")
}

func benchNodes() int {
	if v, err := strconv.Atoi(os.Getenv("HPCSTORAGE_BENCH_NODES")); err == nil && v > 0 {
		return v
	}
	return 50
}

// The fleet figure on lab nodes: the R1 profile on 50 nodes
// (HPCSTORAGE_BENCH_NODES) in the order of the Ansible baseline
// (../shared/bench/ansible): --check --diff on fresh nodes (this run also
// delivers the agent), the first converge, the no-op converge. Like the
// baseline, each step opens its own connections. All nodes share this
// machine's cores, so the figures include the agents' own work, as the
// baseline's include the nodes' Python.
func BenchmarkFleet(b *testing.B) {
	needAgent(b)
	nodes := benchNodes()
	spec := r1Spec(b)
	var check, first, noop time.Duration
	step := func(l *labnode.Lab, k string, req transport.Request, wantChanged int) time.Duration {
		p := transport.NewPool(transport.PoolOptions{Agent: hostAgent})
		defer p.Close()
		var targets []transport.Target
		for _, n := range l.Nodes {
			targets = append(targets, transport.Target{Options: nodeOptions(b, n, k), Request: req})
		}
		t0 := time.Now()
		outs := p.ApplyAll(b.Context(), targets)
		d := time.Since(t0)
		changed := 0
		for i, o := range outs {
			if o.Err != nil {
				b.Fatalf("%s: %v", l.Nodes[i].Name, o.Err)
			}
			if o.Response.Result.Changed {
				changed++
			}
		}
		if changed != wantChanged {
			b.Fatalf("%d of %d nodes changed, want %d", changed, nodes, wantChanged)
		}
		return d
	}
	for b.Loop() {
		b.StopTimer()
		l := startLab(b, nodes) // pristine nodes every round
		k := knownHosts(b, l)
		b.StartTimer()
		check += step(l, k, transport.Request{Spec: spec, Check: true, Diff: true}, nodes)
		first += step(l, k, transport.Request{Spec: spec}, nodes)
		noop += step(l, k, transport.Request{Spec: spec}, 0)
		b.StopTimer()
		l.Close()
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(check.Seconds()/n, "check_s")
	b.ReportMetric(first.Seconds()/n, "first_s")
	b.ReportMetric(noop.Seconds()/n, "noop_s")
	b.ReportMetric(noop.Seconds()*1000/n/float64(nodes), "noop_ms/node")
}

// No-op converges over connections kept open between runs (one provider
// process applying many resources).
func BenchmarkFleetNoopReused(b *testing.B) {
	needAgent(b)
	nodes := benchNodes()
	spec := r1Spec(b)
	lab := startLab(b, nodes)
	kh := knownHosts(b, lab)
	p := newPool(b, transport.PoolOptions{})
	converge(b, p, lab, kh, spec)
	e0 := totalExecs(lab)
	for b.Loop() {
		if got := converge(b, p, lab, kh, spec); got != 0 {
			b.Fatalf("no-op converge changed %d nodes", got)
		}
	}
	perFleet := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perFleet, "s/fleet")
	b.ReportMetric(perFleet*1000/float64(nodes), "ms/node")
	b.ReportMetric(float64(totalExecs(lab)-e0)/float64(b.N*nodes), "execs/node")
}

// The fleet figure over real OpenSSH: one sshd per node on loopback (as the
// Ansible baseline runs), each node a fakenode storage-server root, the
// agent delivered into that root. Same steps and metrics as BenchmarkFleet;
// compare with ../shared/bench/ansible/results.md (N=50, tuned).
func BenchmarkFleetOpenSSH(b *testing.B) {
	needAgent(b)
	nodes := benchNodes()
	spec := r1Spec(b)
	type node struct {
		srv  *sshd
		root string
	}
	var fleet []node
	var kh strings.Builder
	for range nodes {
		srv := startSSHD(b, "", sftpInternal)
		fleet = append(fleet, node{srv: srv, root: filepath.Join(b.TempDir(), "root")})
		kh.WriteString(transport.KnownHostsLine(srv.addr, srv.hostKey) + "\n")
	}
	khFile := filepath.Join(b.TempDir(), "known_hosts")
	if err := os.WriteFile(khFile, []byte(kh.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	var check, first, noop time.Duration
	for b.Loop() {
		b.StopTimer()
		for _, n := range fleet { // pristine roots (and no agent) every round
			if err := os.RemoveAll(n.root); err != nil {
				b.Fatal(err)
			}
			if err := fakenode.SeedWith(n.root, fakenode.Storage, fakenode.Options{Simulator: simtest.Binary(b)}); err != nil {
				b.Fatal(err)
			}
		}
		step := func(req transport.Request, wantChanged int) time.Duration {
			p := transport.NewPool(transport.PoolOptions{Agent: hostAgent})
			defer p.Close()
			var targets []transport.Target
			for _, n := range fleet {
				r := req
				r.Root = n.root
				targets = append(targets, transport.Target{Request: r, Options: transport.Options{
					Host: "127.0.0.1", Port: n.srv.port(), PrivateKey: testKey(b).pem, KnownHostsFiles: []string{khFile},
					AgentPath: filepath.Join(n.root, "opt", "hpcstorage-agent"),
				}})
			}
			t0 := time.Now()
			outs := p.ApplyAll(b.Context(), targets)
			d := time.Since(t0)
			changed := 0
			for i, o := range outs {
				if o.Err != nil {
					b.Fatalf("node %d: %v", i, o.Err)
				}
				if o.Response.Result.Changed {
					changed++
				}
			}
			if changed != wantChanged {
				b.Fatalf("%d of %d nodes changed, want %d", changed, nodes, wantChanged)
			}
			return d
		}
		b.StartTimer()
		check += step(transport.Request{Spec: spec, Check: true, Diff: true}, nodes)
		first += step(transport.Request{Spec: spec}, nodes)
		noop += step(transport.Request{Spec: spec}, 0)
	}
	n := float64(b.N)
	b.ReportMetric(check.Seconds()/n, "check_s")
	b.ReportMetric(first.Seconds()/n, "first_s")
	b.ReportMetric(noop.Seconds()/n, "noop_s")
	b.ReportMetric(noop.Seconds()*1000/n/float64(nodes), "noop_ms/node")
}
