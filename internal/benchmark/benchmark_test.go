package benchmark

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }

// TestFioReal runs the real fio (tiny files in a temp dir) with the argv
// Steps builds and parses what it printed.
func TestFioReal(t *testing.T) {
	testenv.NeedTool(t, "fio", "fio")
	dir := t.TempDir()
	p := Params{Tool: Fio, Phases: []string{RandRead, Write, Read, RandWrite}, Threads: []int{2}, BlockSize: 4 << 10,
		FileSize: 4 << 20, IODepth: 4, Direct: true, Repeat: 1}
	if err := p.Validate(0); err != nil {
		t.Fatal(err)
	}
	steps := p.Steps(2, dir, []string{"localhost"})
	var order []string
	for _, s := range steps {
		order = append(order, s.Phases...)
	}
	if !slices.Equal(order, []string{Write, Read, RandWrite, RandRead}) {
		t.Fatalf("run order %v", order)
	}
	for i, s := range steps {
		if len(s.Invocations) != 1 {
			t.Fatalf("one client: %d invocations", len(s.Invocations))
		}
		argv := s.Invocations[0].Argv
		if last := i == len(steps)-1; slices.Contains(argv, "--unlink=1") != last {
			t.Errorf("step %d: --unlink=1 only on the last step: %v", i, argv)
		}
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		ms, err := Parse(Fio, s.Phases, p.BlockSize, out)
		if err != nil {
			t.Fatal(err)
		}
		m := ms[0]
		if m.IOPS <= 0 || m.BandwidthBps <= 0 || m.MeanLatencyNs <= 0 || m.P9999LatencyNs < m.MeanLatencyNs {
			t.Errorf("%s: implausible %+v", s.Phases[0], m)
		}
		// 4 KiB blocks: bandwidth is IOPS × 4096 (fio rounds both).
		if r := m.BandwidthBps / (m.IOPS * 4096); r < 0.98 || r > 1.02 {
			t.Errorf("%s: bandwidth %.0f B/s vs IOPS %.0f × 4 KiB", s.Phases[0], m.BandwidthBps, m.IOPS)
		}
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("files left after the last step: %v", left)
	}
	// A write phase reads the write side: the read side is empty.
	out, err := exec.Command("fio", "--name=x", "--directory="+dir, "--rw=write", "--bs=4k", "--size=256k",
		"--output-format=json", "--lat_percentiles=1", "--unlink=1").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFio(out, Read); !errors.Is(err, ErrParse) {
		t.Errorf("read side of a write job: %v", err)
	}
}

func TestParseFioErrors(t *testing.T) {
	for _, in := range []string{"", "fio: no such option", `{"jobs": []}`, `{"jobs": [{"jobname": "x", "error": 5}]}`} {
		if _, err := ParseFio([]byte(in), Write); !errors.Is(err, ErrParse) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestParseIOzone(t *testing.T) {
	ms, err := ParseIOzone(sample(t, "iozone-nfs-2004.txt"), []string{Write, Read}, 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !near(ms[0].BandwidthBps, 109333.84*1024) || !near(ms[1].BandwidthBps, 123864.27*1024) {
		t.Errorf("write/read %+v", ms)
	}
	if !near(ms[0].IOPS, 109333.84/128) {
		t.Errorf("IOPS from 128 KiB records: %v", ms[0].IOPS)
	}
	ms, err = ParseIOzone(sample(t, "iozone-random.txt"), []string{RandWrite, RandRead}, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !near(ms[0].IOPS, 984428.69) || !near(ms[1].IOPS, 1557497.38) {
		t.Errorf("random with 1 KiB records %+v", ms)
	}
	ops := "\tChildren see throughput for 16 random writers \t=   31300.00 ops/sec\n"
	if ms, err := ParseIOzone([]byte(ops), []string{RandWrite}, 4096); err != nil || ms[0].IOPS != 31300 || ms[0].BandwidthBps != 31300*4096 {
		t.Errorf("-O output: %+v %v", ms, err)
	}
	if _, err := ParseIOzone(sample(t, "iozone-nfs-2004.txt"), []string{RandRead}, 4096); !errors.Is(err, ErrParse) {
		t.Errorf("missing phase: %v", err)
	}
}

func TestParseMdtest(t *testing.T) {
	ms, err := ParseMdtest(sample(t, "mdtest-limelead.txt"), []string{Create, Stat, FileRead, Remove})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{51025.596, 530924.557, 133152.508, 125203.104}
	for i, m := range ms {
		if m.OpsPerSec != want[i] {
			t.Errorf("%s = %v, want %v", m.Phase, m.OpsPerSec, want[i])
		}
	}
	// Newer mdtest: a SUMMARY rate table with colons, then a SUMMARY time
	// table whose rows must not be taken for rates.
	newer := "SUMMARY rate: (of 1 iterations)\n   Operation                     Max            Min           Mean        Std Dev\n" +
		"   File creation             :       1000.000       1000.000       1000.000          0.000\n" +
		"SUMMARY time: (of 1 iterations)\n   File creation             :          9.000          9.000          9.000          0.000\n"
	if ms, err := ParseMdtest([]byte(newer), []string{Create}); err != nil || ms[0].OpsPerSec != 1000 {
		t.Errorf("newer layout: %+v %v", ms, err)
	}
	if _, err := ParseMdtest([]byte(newer), []string{Stat}); !errors.Is(err, ErrParse) {
		t.Errorf("missing row: %v", err)
	}
}

func TestParseIOR(t *testing.T) {
	m, err := ParseIOR(sample(t, "ior-summary.json"), Write, 4<<20)
	if err != nil || !near(m.BandwidthBps, 25106.0*(1<<20)) || m.IOPS != 6276.5 {
		t.Errorf("JSON write %+v %v", m, err)
	}
	m, err = ParseIOR(sample(t, "ior-summary.json"), Read, 4<<20)
	if err != nil || !near(m.BandwidthBps, 22423.4*(1<<20)) {
		t.Errorf("JSON read %+v %v", m, err)
	}
	m, err = ParseIOR(sample(t, "ior-text-pr27.txt"), Read, 4<<20)
	if err != nil || !near(m.BandwidthBps, 22659.51*(1<<20)) || !near(m.IOPS, 22659.51/4) {
		t.Errorf("text read %+v %v", m, err)
	}
	if _, err := ParseIOR([]byte("ior ERROR: open failed"), Write, 1); !errors.Is(err, ErrParse) {
		t.Errorf("error output: %v", err)
	}
}

func TestParseElbencho(t *testing.T) {
	m, err := ParseElbencho(sample(t, "elbencho-docs.txt"), Write, 1<<20)
	if err != nil || m.IOPS != 33352 || m.BandwidthBps != 33352*(1<<20) {
		t.Errorf("write (last done) %+v %v", m, err)
	}
	if _, err := ParseElbencho(sample(t, "elbencho-docs.txt"), Read, 1<<20); !errors.Is(err, ErrParse) {
		t.Errorf("no READ row: %v", err)
	}
}

func TestPresets(t *testing.T) {
	for _, p := range Presets() {
		if err := p.Params.Validate(0); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		for ph := range p.Expected {
			if !slices.Contains(p.Params.Phases, ph) {
				t.Errorf("%s: figure for %s, a phase it does not run", p.Name, ph)
			}
		}
		if p.Paper == "" || p.Design == "" {
			t.Errorf("%s: no paper command line or design", p.Name)
		}
	}
	r1, _, ok := Lookup("r1-seq")
	if !ok || r1.Expected[Read].Value != 23.7e9 || r1.Expected[Write].Value != 22.1e9 ||
		!slices.Equal(r1.Params.Threads, []int{1, 2, 4, 8, 16, 32, 64}) || !r1.Params.DropCaches || !r1.Params.Remount {
		t.Errorf("r1-seq %+v", r1)
	}
	// 8 TB aggregate from 16 threads.
	if got := r1.Params.SizeFor(16) * 16; got != 8*1000*gib {
		t.Errorf("r1 aggregate at 16 threads %d", got)
	}
	r5, _, _ := Lookup("r5-mdtest-empty")
	if r5.Expected[Create].Value != 169.4e3 || !strings.Contains(strings.Join(r5.Notes, " "), "222.1") {
		t.Errorf("r5 create figure or note: %+v", r5)
	}
	r4, _, _ := Lookup("r4-fio-seq")
	if r4.Expected[Read].Threads != 100 {
		t.Errorf("r4 read at %d clients", r4.Expected[Read].Threads)
	}
	r3, _, _ := Lookup("r3-ior")
	argv := r3.Params.Steps(96, "/mnt/beegfs", []string{"c1"})[0].Invocations[0].Argv
	// 5 TiB over 96 ranks is the paper's 54613 MiB per rank (rounded).
	if i := slices.Index(argv, "-b"); i < 0 || argv[i+1] != FormatSize(5*tib/96) || 5*tib/96/mib != 54613 {
		t.Errorf("r3 at 96 ranks: %v", argv)
	}
	if _, near, ok := Lookup("r1-sqe"); ok || near != "r1-seq" {
		t.Errorf("suggestion for r1-sqe: %q", near)
	}
}

func TestValidate(t *testing.T) {
	base := Params{Tool: Fio, Phases: []string{Write}, Threads: []int{1, 8}, BlockSize: 1 << 20, FileSize: 1 << 30, IODepth: 1, Repeat: 1}
	for _, c := range []struct {
		mutate   func(p *Params)
		max      int
		at, want string
	}{
		{func(p *Params) { p.BlockSize = 0 }, 0, "block_size_bytes", "must be above 0"},
		{func(p *Params) {}, 4, "threads[1]", "8 threads is more than the clients' CPUs × 4 (4)"},
		{func(p *Params) { p.Phases = []string{Create} }, 0, "phases[0]", `fio has no phase "create"`},
		{func(p *Params) { p.Threads = nil }, 0, "threads", "the sweep is empty"},
		{func(p *Params) { p.FileSize = 4096 }, 0, "file_size_bytes", "is smaller than one block"},
		{func(p *Params) { p.Tool = "bonnie" }, 0, "tool", `"bonnie" is not one of`},
		{func(p *Params) { p.Tool, p.Phases = Mdtest, []string{Create} }, 0, "files", "mdtest needs"},
		{func(p *Params) { p.Remount, p.Devices = true, []string{"/dev/nvme0n1"} }, 0, "remount", "raw devices"},
		{func(p *Params) { p.ExtraArgs = []string{"--x", ""} }, 0, "extra_args[1]", "empty"},
	} {
		p := base
		p.Phases, p.Threads = slices.Clone(base.Phases), slices.Clone(base.Threads)
		c.mutate(&p)
		err := p.Validate(c.max)
		le, ok := located.Find(err)
		if !errors.Is(err, ErrInvalid) || !ok || le.Path.String() != c.at || !strings.Contains(le.Err.Error(), c.want) {
			t.Errorf("want %q at %s, got %v", c.want, c.at, err)
		}
	}
	if err := base.Validate(32); err != nil {
		t.Error(err)
	}
}

func TestStepsMultiClient(t *testing.T) {
	hosts := []string{"c1", "c2", "c3"}
	p := Params{Tool: Fio, Phases: []string{Write}, Threads: []int{4}, BlockSize: 1 << 20, FileSize: 1 << 30, IODepth: 1, Repeat: 1}
	inv := p.Steps(4, "/mnt/x", hosts)[0].Invocations
	if len(inv) != 3 || !slices.Contains(inv[0].Argv, "--numjobs=2") || !slices.Contains(inv[2].Argv, "--numjobs=1") ||
		!slices.Contains(inv[1].Argv, "--name="+FilePrefix+"-c1") {
		t.Errorf("fio over 3 clients: %v", inv)
	}
	p.Tool = IOR
	argv := p.Steps(4, "/mnt/x", hosts)[0].Invocations[0].Argv
	if strings.Join(argv[:8], " ") != "mpirun --allow-run-as-root -np 4 --map-by node --host c1:2,c2:1,c3:1" {
		t.Errorf("mpirun %v", argv)
	}
	p.Tool, p.Phases = IOzone, []string{Write, Read, RandWrite, RandRead}
	steps := p.Steps(4, "/mnt/x", hosts)
	if len(steps) != 3 || !slices.Equal(steps[2].Phases, []string{RandWrite, RandRead}) {
		t.Fatalf("iozone steps %+v", steps)
	}
	argv = steps[0].Invocations[0].Argv
	if argv[0] != "sh" || !slices.Contains(argv, "c1 /mnt/x iozone") || !slices.Contains(argv, "-+m") || !slices.Contains(argv, "-w") {
		t.Errorf("iozone cluster mode %v", argv)
	}
	if slices.Contains(steps[2].Invocations[0].Argv, "-w") || !slices.Contains(steps[2].Invocations[0].Argv, "-O") {
		t.Errorf("last iozone step keeps no files and reports ops: %v", steps[2].Invocations[0].Argv)
	}
	p.Tool, p.Phases, p.Files, p.FilesPerDir = Mdtest, []string{Create, Stat, Remove}, 960000, 3000
	argv = p.Steps(32, "/mnt/x", hosts)[0].Invocations[0].Argv
	if i := slices.Index(argv, "-b"); i < 0 || argv[i+1] != "10" {
		t.Errorf("R2 table: 32 processes get 10 directories of 3000: %v", argv)
	}
}

func TestSummarize(t *testing.T) {
	pts := []Point{
		{1, Measurement{Phase: Read, BandwidthBps: 5e9}}, {2, Measurement{Phase: Read, BandwidthBps: 9e9}},
		{1, Measurement{Phase: Write, BandwidthBps: 4e9}}, {2, Measurement{Phase: Write, BandwidthBps: 3e9}},
		{1, Measurement{Phase: Create, OpsPerSec: 10}},
	}
	s := Summarize(pts, map[string]Figure{Read: {Value: 18e9}, Write: {Value: 8e9}})
	if len(s) != 3 || s[0].Phase != Write || s[0].Peak != 4e9 || s[0].PeakThreads != 1 || s[0].Ratio != 0.5 ||
		s[1].Ratio != 0.5 || s[2].Expected != 0 || s[2].Ratio != 0 {
		t.Errorf("%+v", s)
	}
	c := Combine([]Measurement{{Phase: Read, IOPS: 100, MeanLatencyNs: 10, P9999LatencyNs: 50},
		{Phase: Read, IOPS: 300, MeanLatencyNs: 20, P9999LatencyNs: 40}})
	if c.IOPS != 400 || c.MeanLatencyNs != 17.5 || c.P9999LatencyNs != 50 {
		t.Errorf("combine %+v", c)
	}
}

// TestDevices: R4's raw-drive baseline runs fio on each device in turn
// (never with --unlink, which would remove a device node), with all the
// threads on each; only fio takes devices.
func TestDevices(t *testing.T) {
	p, _, _ := Lookup("r4-raw-drive")
	p.Params.Devices = []string{"/dev/nvme0n1", "/dev/nvme1n1"}
	if err := p.Params.Validate(0); err != nil {
		t.Fatal(err)
	}
	steps := p.Params.Steps(8, "", []string{"c1", "c2"})
	inv := steps[len(steps)-1].Invocations
	if len(inv) != 4 || inv[0].Client != 0 || inv[1].Client != 1 || !slices.Contains(inv[0].Argv, "--filename=/dev/nvme0n1") ||
		!slices.Contains(inv[2].Argv, "--filename=/dev/nvme1n1") || !slices.Contains(inv[0].Argv, "--numjobs=8") ||
		!slices.Contains(inv[0].Argv, "--iodepth=32") || !slices.Contains(inv[0].Argv, "--ioengine=libaio") {
		t.Errorf("device invocations %v", inv)
	}
	for _, i := range inv {
		if slices.Contains(i.Argv, "--unlink=1") || strings.Contains(strings.Join(i.Argv, " "), "--directory") {
			t.Errorf("raw device argv %v", i.Argv)
		}
	}
	q := p.Params
	q.Tool, q.Phases = IOR, []string{Write}
	if err := q.Validate(0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "devices: invalid benchmark parameter: raw devices are benchmarked with fio only") {
		t.Errorf("ior on devices: %v", err)
	}
	q = p.Params
	q.Devices = []string{"/mnt/x"}
	if le, ok := located.Find(q.Validate(0)); !ok || le.Path.String() != "devices[0]" {
		t.Errorf("not a device: %v", le)
	}
	m := PerDevice([]Measurement{{Phase: RandRead, IOPS: 100, MeanLatencyNs: 10, P9999LatencyNs: 9},
		{Phase: RandRead, IOPS: 300, MeanLatencyNs: 20, P9999LatencyNs: 30}})
	if m.IOPS != 200 || m.MeanLatencyNs != 17.5 || m.P9999LatencyNs != 30 {
		t.Errorf("per device %+v", m)
	}
}

// TestRemount: a BeeGFS mount is remounted by stopping and starting
// beegfs-client (it owns the mounts of beegfs-mounts.conf); other file
// systems are refused with the mount named.
func TestRemount(t *testing.T) {
	got, err := Remount("beegfs", "/mnt/beegfs")
	if err != nil || len(got) != 2 || strings.Join(got[0], " ") != "systemctl stop beegfs-client" ||
		strings.Join(got[1], " ") != "systemctl start beegfs-client" {
		t.Errorf("beegfs: %q %v", got, err)
	}
	if got, err := Remount("nfs4", "/mnt/nfs"); !errors.Is(err, ErrInvalid) || got != nil ||
		!strings.Contains(err.Error(), "remount: invalid benchmark parameter: /mnt/nfs is a nfs4 mount") {
		t.Errorf("nfs4: %q %v", got, err)
	}
}
