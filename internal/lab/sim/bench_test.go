package sim_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// benchNode is a client root with a BeeGFS mount folder, driven through
// runner.Sim as the agent drives it.
func benchNode(t *testing.T) *node {
	t.Helper()
	testenv.NeedTool(t, "fio", "fio") // the lab's benchmarks run the real fio
	n := newNode(t)
	n.write("mnt/beegfs/bench/.keep", "")
	return n
}

// TestBenchFioIsReal: the lab's fio is the real fio on files inside the
// root; its JSON parses with the product's parser, sizes are capped, host
// paths never show, and the run is logged.
func TestBenchFioIsReal(t *testing.T) {
	n := benchNode(t)
	argv := benchmark.Params{Tool: benchmark.Fio, Phases: []string{benchmark.Write}, BlockSize: 1 << 20, FileSize: 1 << 40,
		IODepth: 1, Repeat: 1}.Steps(2, "/mnt/beegfs/bench", []string{"client01"})[0].Invocations[0].Argv
	out, code := n.query(argv...)
	if code != 0 {
		t.Fatalf("fio exit %d: %s", code, out)
	}
	m, err := benchmark.ParseFio([]byte(out), benchmark.Write)
	if err != nil || m.BandwidthBps <= 0 {
		t.Fatalf("%+v %v\n%s", m, err, out)
	}
	if strings.Contains(out, n.dir) || !strings.Contains(out, `"directory" : "/mnt/beegfs/bench"`) || !strings.Contains(out, `"size" : "8388608"`) {
		t.Errorf("paths or caps in the output:\n%.2000s", out)
	}
	// The last phase of a point unlinks its files.
	if files, _ := filepath.Glob(filepath.Join(n.dir, "mnt/beegfs/bench", benchmark.FilePrefix+"*")); len(files) != 0 {
		t.Errorf("fio's files left in the root: %v", files)
	}
	if log := n.read(strings.TrimPrefix(sim.BenchLog, "/")); !strings.Contains(log, `"tool":"fio"`) {
		t.Errorf("bench log %q", log)
	}
	// What fio refuses, the lab's fio refuses: a missing directory.
	if _, stderr, code := n.tool("", "fio", "--name=x", "--directory=/mnt/none", "--rw=read", "--size=1m"); code == 0 ||
		!strings.Contains(stderr, "/mnt/none is not a directory") || strings.Contains(stderr, n.dir) {
		t.Errorf("missing directory: exit %d, stderr %q", code, stderr)
	}
}

// TestBenchSimulatedTools: IOR and mdtest through mpirun, IOzone and
// elbencho print their formats (parsed by the product's parsers) and
// refuse what the tools refuse.
func TestBenchSimulatedTools(t *testing.T) {
	n := benchNode(t)
	hosts := []string{"client01", "client02"}
	run := func(p benchmark.Params, threads int) [][]benchmark.Measurement {
		t.Helper()
		var out [][]benchmark.Measurement
		for _, s := range p.Steps(threads, "/mnt/beegfs/bench", hosts) {
			stdout, stderr, code := n.tool("", s.Invocations[0].Argv...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", s.Invocations[0].Argv, code, stderr)
			}
			ms, err := benchmark.Parse(p.Tool, s.Phases, p.BlockSize, []byte(stdout))
			if err != nil {
				t.Fatalf("%v: %v\n%s", s.Invocations[0].Argv, err, stdout)
			}
			out = append(out, ms)
		}
		return out
	}
	ior := benchmark.Params{Tool: benchmark.IOR, Phases: []string{benchmark.Write, benchmark.Read}, BlockSize: 1 << 20,
		FileSize: 4 << 20, IODepth: 1, Repeat: 1, FilePerProcess: true}
	got := run(ior, 4)
	if len(got) != 2 || got[0][0].BandwidthBps <= 0 || got[1][0].BandwidthBps <= 0 || got[0][0].IOPS <= 0 {
		t.Errorf("ior %+v", got)
	}
	if files, _ := filepath.Glob(filepath.Join(n.dir, "mnt/beegfs/bench", benchmark.FilePrefix+".ior*")); len(files) != 0 {
		t.Errorf("ior's last phase keeps no files: %v", files)
	}
	md := benchmark.Params{Tool: benchmark.Mdtest, Phases: []string{benchmark.Create, benchmark.Stat, benchmark.Remove},
		Files: 960, FilesPerDir: 30, IODepth: 1, Repeat: 1}
	if got := run(md, 4); len(got[0]) != 3 || got[0][0].OpsPerSec <= 0 || got[0][1].OpsPerSec <= got[0][0].OpsPerSec {
		t.Errorf("mdtest %+v", got)
	}
	iz := benchmark.Params{Tool: benchmark.IOzone, Phases: []string{benchmark.Write, benchmark.Read, benchmark.RandWrite, benchmark.RandRead},
		BlockSize: 4 << 10, FileSize: 1 << 20, IODepth: 1, Repeat: 1}
	if got := run(iz, 4); len(got) != 3 || got[2][1].IOPS <= 0 || got[0][0].BandwidthBps <= 0 {
		t.Errorf("iozone %+v", got)
	}
	el := benchmark.Params{Tool: benchmark.Elbencho, Phases: []string{benchmark.Write, benchmark.Read}, BlockSize: 1 << 20,
		FileSize: 4 << 20, IODepth: 1, Repeat: 1}
	if got := run(el, 2); got[0][0].BandwidthBps <= 0 || got[1][0].BandwidthBps <= 0 {
		t.Errorf("elbencho %+v", got)
	}
	for _, c := range []struct {
		argv []string
		msg  string
	}{
		{[]string{"mpirun", "-np", "2", "ior", "-w", "-o", "/mnt/beegfs/bench/f"}, "--allow-run-as-root"},
		{[]string{"mpirun", "--allow-run-as-root", "-np", "3", "--host", "a:1,b:1", "ior", "-w", "-o", "/mnt/beegfs/bench/f"}, "not enough slots"},
		{[]string{"mpirun", "--allow-run-as-root", "-np", "1", "--host", "a:1", "ior", "-r", "-o", "/mnt/beegfs/bench/none"}, "errno 2"},
		{[]string{"mpirun", "--allow-run-as-root", "-np", "1", "--host", "a:1", "ior", "-w", "-t", "3m", "-b", "4m", "-o", "/mnt/beegfs/bench/f"}, "multiple of transfer size"},
		{[]string{"mpirun", "--allow-run-as-root", "-np", "1", "--host", "a:1", "bonnie"}, "unable to find the specified executable"},
		{[]string{"mpirun", "--allow-run-as-root", "-np", "1", "--host", "a:1", "mdtest", "-d", "/mnt/none/x", "-C"}, "Unable to create test directory"},
		{[]string{"iozone", "-i", "1", "-t", "1", "-r", "4k", "-s", "1m", "-F", "/mnt/beegfs/bench/none"}, "Can not open temp file"},
		{[]string{"iozone", "-i", "0", "-t", "2", "-F", "/mnt/beegfs/bench/a"}, "needs 2 file names"},
		{[]string{"elbencho", "-r", "-t", "1", "-s", "1m", "/mnt/beegfs/bench/none"}, "Unable to open file"},
	} {
		if _, stderr, code := n.tool("", c.argv...); code == 0 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.argv, code, stderr, c.msg)
		}
	}
}

func newNodeAt(t *testing.T, dir string) *node {
	t.Helper()
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &node{t: t, dir: dir, run: runner.Sim{Root: root}}
}

// TestBeegfsClientMounts: starting beegfs-client mounts what
// beegfs-mounts.conf lists; stopping it unmounts.
func TestBeegfsClientMounts(t *testing.T) {
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, fakenode.Client, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	n := newNodeAt(t, dir)
	n.write("etc/beegfs/beegfs-mounts.conf", "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n")
	n.write("usr/lib/systemd/system/beegfs-client.service", "[Service]\n")
	n.ok("systemctl", "start", "beegfs-client")
	if m := n.read("proc/mounts"); !strings.Contains(m, "beegfs_nodev /mnt/beegfs beegfs rw,relatime,cfgFile=/etc/beegfs/beegfs-client.conf,_netdev 0 0\n") {
		t.Errorf("after start:\n%s", m)
	}
	n.ok("systemctl", "restart", "beegfs-client")
	if m := n.read("proc/mounts"); strings.Count(m, " beegfs ") != 1 {
		t.Errorf("restart mounts twice:\n%s", m)
	}
	n.ok("systemctl", "stop", "beegfs-client")
	if m := n.read("proc/mounts"); strings.Contains(m, "beegfs") {
		t.Errorf("after stop:\n%s", m)
	}
}

// TestBeegfsClientMountsAfterReboot: an enabled beegfs-client mounts its
// file systems again at boot.
func TestBeegfsClientMountsAfterReboot(t *testing.T) {
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, fakenode.Client, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	n := newNodeAt(t, dir)
	n.write("etc/beegfs/beegfs-mounts.conf", "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n")
	n.write("usr/lib/systemd/system/beegfs-client.service", "[Service]\n")
	n.ok("systemctl", "enable", "beegfs-client")
	n.ok("systemctl", "start", "beegfs-client")
	if err := sim.PowerOff(dir); err != nil {
		t.Fatal(err)
	}
	if m := n.read("proc/mounts"); strings.Contains(m, " beegfs ") {
		t.Errorf("powered off, still mounted:\n%s", m)
	}
	if err := sim.Boot(dir); err != nil {
		t.Fatal(err)
	}
	if m := n.read("proc/mounts"); strings.Count(m, "beegfs_nodev /mnt/beegfs beegfs ") != 1 {
		t.Errorf("after boot:\n%s", m)
	}
}
