package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Targets from issue 2.
const (
	noopTargetMS   = 10.0
	binaryTargetMB = 10.0
	rssTargetMB    = 30.0
)

// BenchmarkNoopApplyBinary runs the built agent as a subprocess on a
// converged R1 storage-server root. noop_ms is the agent's own time (what
// it reports in elapsed_ms: read and parse the spec, lock, plan); wall_ms
// adds process start and exit; process_cpu_ms is the whole process's CPU.
func BenchmarkNoopApplyBinary(b *testing.B) {
	root := storageRoot(b, b.TempDir())
	if out, err := exec.Command(agentBin, "apply", "-f", r1Path, "--root", root).CombinedOutput(); err != nil {
		b.Fatalf("first apply: %v\n%s", err, out)
	}
	var agentMS, cpuMS float64
	for b.Loop() {
		cmd := exec.Command(agentBin, "apply", "-f", r1Path, "--root", root)
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpuMS += float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
		}
		var res protocol.Result
		if err := json.Unmarshal(out, &res); err != nil || res.Changed {
			b.Fatalf("no-op apply changed something: %v %s", err, out)
		}
		agentMS += res.ElapsedMS
	}
	ms := agentMS / float64(b.N)
	b.ReportMetric(ms, "noop_ms")
	b.ReportMetric(ms/noopTargetMS, "noop_ratio_to_target")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "wall_ms")
	b.ReportMetric(cpuMS/float64(b.N), "process_cpu_ms")
}

// BenchmarkBinarySize reports the size of the agent built as the Makefile
// does (CGO_ENABLED=0, -trimpath, -ldflags "-s -w").
func BenchmarkBinarySize(b *testing.B) {
	st, err := os.Stat(agentBin)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
	}
	mb := float64(st.Size()) / (1 << 20)
	b.ReportMetric(mb, "binary_MB")
	b.ReportMetric(mb/binaryTargetMB, "binary_ratio_to_target")
}

// BenchmarkPeakRSS reports the peak resident set (rusage maxrss) of a first
// apply of the R1 profile on a fresh root, and of a no-op apply.
func BenchmarkPeakRSS(b *testing.B) {
	var first, noop float64
	for b.Loop() {
		root := storageRoot(b, b.TempDir())
		first = max(first, maxRSS(b, "apply", "-f", r1Path, "--root", root))
		noop = max(noop, maxRSS(b, "apply", "-f", r1Path, "--root", root))
	}
	b.ReportMetric(first, "maxrss_MB")
	b.ReportMetric(noop, "maxrss_noop_MB")
	b.ReportMetric(first/rssTargetMB, "maxrss_ratio_to_target")
}

func maxRSS(b *testing.B, args ...string) float64 {
	cmd := exec.Command(agentBin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", args, err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Skip("no rusage on this platform")
	}
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}
