package lab

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// BenchmarkUpClients starts the R1 lab with 10 and with 1000 clients (set
// HPCSTORAGE_BENCH_CLIENTS=N,... for others) and reports what each lab
// node costs this process while idle: resident memory, file descriptors
// and goroutines, its root's files and disk blocks, and the start time;
// and, against the first size of the same run (the floor), how the cost
// per node at each size compares (per-node cost must not grow with N).
func BenchmarkUpClients(b *testing.B) {
	sizes := []int{10, 1000}
	if s := os.Getenv("HPCSTORAGE_BENCH_CLIENTS"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n > MaxClients {
				b.Fatalf("HPCSTORAGE_BENCH_CLIENTS: %q is not a client count 0..%d", f, MaxClients)
			}
			sizes = append(sizes, n)
		}
	}
	simBin := simtest.Binary(b)
	type cost struct{ startS, rssKiB, fds, disk float64 }
	var first *cost
	for _, n := range sizes {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			var c cost
			for range b.N {
				dir := b.TempDir()
				rss0, fds0 := selfRSSKiB(b), openFDs(b)
				start := time.Now()
				l, err := Up(Config{Design: "r1", Dir: dir, Clients: n, Simulator: simBin})
				if err != nil {
					b.Fatal(err)
				}
				took := time.Since(start)
				nodes := float64(len(l.State.Nodes))
				files, blocks := treeCost(b, filepath.Join(dir, NodesDir))
				c.startS += took.Seconds() / nodes
				c.rssKiB += float64(selfRSSKiB(b)-rss0) / nodes
				c.fds += float64(openFDs(b)-fds0) / nodes
				c.disk += float64(blocks) / 2 / nodes // 512-byte blocks to KiB
				b.ReportMetric(float64(files)/nodes, "files/node")
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
			k := float64(b.N)
			c = cost{c.startS / k, c.rssKiB / k, c.fds / k, c.disk / k}
			b.ReportMetric(c.startS*1000, "start_ms/node")
			b.ReportMetric(c.rssKiB, "rss_KiB/node")
			b.ReportMetric(c.fds, "fds/node")
			b.ReportMetric(c.disk, "disk_KiB/node")
			if first == nil {
				first = &c
				return
			}
			b.ReportMetric(c.startS/first.startS, "start/node_vs_first")
			b.ReportMetric(c.fds/first.fds, "fds/node_vs_first")
			b.Logf("load %s", loadAvg())
		})
	}
}

// selfRSSKiB is this process's resident set (VmRSS).
func selfRSSKiB(b *testing.B) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func openFDs(b *testing.B) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		b.Fatal(err)
	}
	return len(ents)
}

// treeCost counts the entries under dir and their disk blocks, a
// hard-linked file (the simulator) once.
func treeCost(b *testing.B, dir string) (files int, blocks int64) {
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && !seen[st.Ino] {
			seen[st.Ino] = true
			blocks += st.Blocks
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, blocks
}

func loadAvg() string {
	bs, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(bs))[:3], " ")
}
