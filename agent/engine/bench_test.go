package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// noopTargetMS is the budget for a no-op apply of the R1 profile.
const noopTargetMS = 10.0

func r1Spec(tb testing.TB) *protocol.Spec {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "agent", "r1-storage-server.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := protocol.ParseSpec(data)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// seededRoot is a storage node with four array volumes.
func seededRoot(tb testing.TB) *fsroot.Root {
	tb.Helper()
	dir := tb.TempDir()
	opts := fakenode.Options{Hostname: "storage01", Disks: fakenode.ArrayVolumes("storage01", 4), Simulator: simtest.Binary(tb)}
	// sdb-sdd are formatted targets (the simulated mount refuses a blank
	// device); sde is a fresh volume.
	for i := range opts.Disks[:3] {
		opts.Disks[i].FSType = "xfs"
	}
	if err := fakenode.SeedWith(dir, fakenode.Storage, opts); err != nil {
		tb.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { root.Close() })
	return root
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkNoopApplyR1 times a converged apply of the R1 storage-server
// profile in-process (parse and validate included), against the 10 ms target.
func BenchmarkNoopApplyR1(b *testing.B) {
	root := seededRoot(b)
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "agent", "r1-storage-server.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	spec := r1Spec(b)
	if res, err := Apply(context.Background(), root, spec, Options{}); err != nil || res.Failed {
		b.Fatalf("first apply: %v %+v", err, res)
	}
	// The binary runs with the collector off until a 20 MB heap (agent
	// main.go); measure the engine the same way.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(20 << 20))
	cpu0, spawns0 := cpuTime(), runner.Spawns()
	for b.Loop() {
		s, err := protocol.ParseSpec(data)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Apply(context.Background(), root, s, Options{})
		if err != nil || res.Changed || res.Failed {
			b.Fatalf("no-op apply changed something: %v %+v", err, res)
		}
	}
	ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	// CPU time is the agent's own work; wall time also counts waiting for a
	// CPU on a busy machine.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "noop_cpu_ms")
	b.ReportMetric(ms, "noop_ms")
	b.ReportMetric(ms/noopTargetMS, "noop_ratio_to_target")
	b.ReportMetric(float64(len(spec.Items)), "items")
	// Each simulated query is a process, as each real one is on a node.
	b.ReportMetric(float64(runner.Spawns()-spawns0)/float64(b.N), "spawns_per_noop")
}
