package sim

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
)

// mpirun follows OpenMPI's launcher: it refuses root without
// --allow-run-as-root (the agent runs as root), needs as many slots
// (--host name:N, --hostfile) as ranks, and starts the program's
// simulator (ior, mdtest) with the rank count.
func mpirun(e *Env, args []string) int {
	np, asRoot := 0, false
	var hosts []string
	slots := 0
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "--allow-run-as-root":
			asRoot = true
		case "-np", "-n", "--np", "-c":
			n, err := strconv.Atoi(next())
			if err != nil || n < 1 {
				return e.fail(1, "Error: the number of processes to launch must be a positive integer")
			}
			np = n
		case "--map-by", "-map-by", "--bind-to", "-bind-to", "-x", "--rank-by":
			next()
		case "--mca", "-mca":
			next()
			next()
		case "--host", "-H", "-host":
			for _, h := range strings.Split(next(), ",") {
				name, n, ok := strings.Cut(h, ":")
				k := 1
				if ok {
					var err error
					if k, err = strconv.Atoi(n); err != nil || k < 1 {
						return e.fail(1, "Error: bad slot count in --host %q", h)
					}
				}
				hosts = append(hosts, name)
				slots += k
			}
		case "--hostfile", "-hostfile", "--machinefile", "-machinefile":
			f := next()
			data, err := e.read(f)
			if err != nil || data == nil {
				return e.fail(1, "Open RTE was unable to open the hostfile:\n    %s\nCheck to make sure the path and filename are correct.", f)
			}
			for _, l := range splitLines(string(data)) {
				fl := strings.Fields(l)
				if len(fl) == 0 || strings.HasPrefix(fl[0], "#") {
					continue
				}
				k := 1
				for _, kv := range fl[1:] {
					if v, ok := strings.CutPrefix(kv, "slots="); ok {
						k, _ = strconv.Atoi(v)
					}
				}
				hosts = append(hosts, fl[0])
				slots += k
			}
		default:
			return e.fail(1, "Error: unknown option %q", a)
		}
	}
	prog := args[i:]
	if len(prog) == 0 {
		return e.fail(1, "Error: No executable was specified on the mpirun command line.")
	}
	if !asRoot {
		return e.fail(1, "mpirun has detected an attempt to run as root.\n\nRunning as root is *strongly* discouraged as any mistake (e.g., in\n"+
			"defining TMPDIR) or bug can result in catastrophic damage to the OS\nfile system, leaving your system in an unusable state.\n\n"+
			"We strongly suggest that you run mpirun as a non-root user.\n\nYou can override this protection by adding the --allow-run-as-root option\n"+
			"to the cmd line or by setting two environment variables in the following way:\nthe variable OMPI_ALLOW_RUN_AS_ROOT=1 to allow execution as root")
	}
	if len(hosts) == 0 {
		hosts, slots = []string{"localhost"}, e.cpus()
	}
	if np == 0 {
		np = slots
	}
	if np > slots {
		return e.fail(1, "There are not enough slots available in the system to satisfy the %d\nslots that were requested by the "+
			"application:\n\n  %s\n\nEither request fewer slots for your application, or make more slots\navailable for use.", np, prog[0])
	}
	nodes := min(len(hosts), np)
	switch path.Base(prog[0]) {
	case "ior":
		return ior(e, prog[1:], np, nodes)
	case "mdtest":
		return mdtest(e, prog[1:], np, nodes)
	}
	return e.fail(1, "mpirun was unable to find the specified executable file, and therefore\ndid not launch the job.\n\n"+
		"Executable: %s", prog[0])
}

// cpus counts the node's processors.
func (e *Env) cpus() int {
	data, _ := e.read("/proc/cpuinfo")
	n := strings.Count(string(data), "\nprocessor")
	if strings.HasPrefix(string(data), "processor") {
		n++
	}
	return max(n, 1)
}

// touch creates an empty placeholder for a benchmark's file.
func (e *Env) touch(p string) error { return e.write(p, nil) }

func (e *Env) isDir(p string) bool {
	st, err := e.Root.Stat(p)
	return err == nil && st.IsDir()
}

// ior follows IOR 3.3's POSIX API with -O summaryFormat=JSON: block a
// multiple of the transfer, the test directory present, a read-only run
// needing the files a write with -k kept; the rates come from the lab's
// fio calibration, scaled to the rank count.
func ior(e *Env, args []string, ranks, nodes int) int {
	var write, read, keep, filePer, random, jsonOut bool
	reps, segs := 1, int64(1)
	xfer, block := int64(256<<10), int64(1<<20)
	file := "testFile"
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-w":
			write = true
		case "-r":
			read = true
		case "-k":
			keep = true
		case "-F":
			filePer = true
		case "-z":
			random = true
		case "-e", "-C", "-E", "-v", "-Y", "--posix.odirect":
		case "-a":
			if api := next(); api != "POSIX" {
				return e.fail(1, "ior ERROR: the lab simulates the POSIX API only, not %s", api)
			}
		case "-i":
			reps, _ = strconv.Atoi(next())
		case "-d":
			next()
		case "-s":
			segs, _ = strconv.ParseInt(next(), 10, 64)
		case "-t", "-b":
			v, err := bytesize.Parse(next())
			if err != nil || v <= 0 {
				return e.fail(1, "ior ERROR: invalid %s size", a)
			}
			if a == "-t" {
				xfer = v
			} else {
				block = v
			}
		case "-o":
			file = next()
		case "-O":
			if kv := next(); kv == "summaryFormat=JSON" || kv == "summaryFormat=json" {
				jsonOut = true
			}
		default:
			return e.fail(1, "ior: invalid option -- '%s'", strings.TrimLeft(a, "-"))
		}
	}
	if !write && !read {
		write, read = true, true
	}
	if block%xfer != 0 {
		return e.fail(1, "ior ERROR: block size must be a multiple of transfer size, (ior.c:1637)")
	}
	if !strings.HasPrefix(file, "/") || !e.isDir(path.Dir(file)) {
		return e.fail(1, "ior ERROR: open64(\"%s\", 66, 0664) failed, errno 2, No such file or directory (aiori-POSIX.c:412)", file)
	}
	files := []string{file}
	if filePer {
		files = nil
		for r := range ranks {
			files = append(files, fmt.Sprintf("%s.%08d", file, r))
		}
	}
	if !write {
		for _, f := range files {
			if !e.exists(f) {
				return e.fail(1, "ior ERROR: open64(\"%s\", 0, 0664) failed, errno 2, No such file or directory (aiori-POSIX.c:505)", f)
			}
		}
	}
	e.logBench("ior", args)
	cal, err := e.calibrate(path.Dir(file))
	if err != nil {
		return e.fail(1, "ior ERROR: %v", err)
	}
	agg := float64(ranks) * float64(block) * float64(segs)
	type summary struct {
		Operation       string  `json:"operation"`
		API             string  `json:"API"`
		TestID          int     `json:"TestID"`
		ReferenceNumber int     `json:"ReferenceNumber"`
		SegmentCount    int64   `json:"segmentCount"`
		BlockSize       int64   `json:"blockSize"`
		TransferSize    int64   `json:"transferSize"`
		NumTasks        int     `json:"numTasks"`
		TasksPerNode    int     `json:"tasksPerNode"`
		Repetitions     int     `json:"repetitions"`
		FilePerProc     int     `json:"filePerProc"`
		BwMaxMIB        float64 `json:"bwMaxMIB"`
		BwMinMIB        float64 `json:"bwMinMIB"`
		BwMeanMIB       float64 `json:"bwMeanMIB"`
		BwStdMIB        float64 `json:"bwStdMIB"`
		OPsMax          float64 `json:"OPsMax"`
		OPsMin          float64 `json:"OPsMin"`
		OPsMean         float64 `json:"OPsMean"`
		OPsSD           float64 `json:"OPsSD"`
		MeanTime        float64 `json:"MeanTime"`
		XsizeMiB        float64 `json:"xsizeMiB"`
	}
	var sums []summary
	var results []map[string]any
	for _, op := range []string{"write", "read"} {
		if op == "write" && !write || op == "read" && !read {
			continue
		}
		base := cal.SeqWrite.BandwidthBps
		switch {
		case op == "read" && random:
			base = cal.RandRead.IOPS * float64(xfer)
		case op == "read":
			base = cal.SeqRead.BandwidthBps
		case random:
			base = cal.RandWrite.IOPS * float64(xfer)
		}
		bw := scaled(base, ranks)
		mib := bw / (1 << 20)
		t := agg / bw
		sums = append(sums, summary{Operation: op, API: "POSIX", SegmentCount: segs, BlockSize: block, TransferSize: xfer,
			NumTasks: ranks, TasksPerNode: (ranks + nodes - 1) / nodes, Repetitions: reps, FilePerProc: b01(filePer),
			BwMaxMIB: mib, BwMinMIB: mib, BwMeanMIB: mib, OPsMax: bw / float64(xfer), OPsMin: bw / float64(xfer),
			OPsMean: bw / float64(xfer), MeanTime: t, XsizeMiB: agg / (1 << 20)})
		results = append(results, map[string]any{"access": op, "bwMiB": mib, "blockKiB": block / 1024, "xferKiB": xfer / 1024,
			"iops": bw / float64(xfer), "latency": float64(xfer) / bw * float64(ranks), "openTime": 0.0, "wrRdTime": t,
			"closeTime": 0.0, "totalTime": t, "numTasks": ranks, "iter": 0})
	}
	if write {
		for _, f := range files {
			if err := e.touch(f); err != nil {
				return e.fail(1, "ior ERROR: %v", err)
			}
		}
	}
	if !keep {
		for _, f := range files {
			_ = e.Root.Remove(f)
		}
	}
	now := time.Now().Format("Mon Jan  2 15:04:05 2006")
	if !jsonOut {
		fmt.Fprintf(e.Stdout, "IOR-3.3.0: MPI Coordinated Test of Parallel I/O\nBegan               : %s\n\n", now)
		for _, s := range sums {
			fmt.Fprintf(e.Stdout, "Max %-6s %.2f MiB/sec (%.2f MB/sec)\n", strings.ToUpper(s.Operation[:1])+s.Operation[1:]+":",
				s.BwMaxMIB, s.BwMaxMIB*1.048576)
		}
		return 0
	}
	doc := map[string]any{"Version": "3.3.0", "Began": now, "Command line": "ior " + strings.Join(args, " "),
		"tests": []any{map[string]any{"TestID": 0, "Results": [][]map[string]any{results},
			"Parameters": map[string]any{"testFileName": file, "numTasks": ranks, "filePerProc": b01(filePer),
				"blockSize": block, "transferSize": xfer, "segmentCount": segs, "repetitions": reps}}},
		"summary": sums, "Finished": now}
	b, _ := json.MarshalIndent(doc, "", "  ")
	fmt.Fprintf(e.Stdout, "%s\n", b)
	return 0
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mdtest follows mdtest 3.3: a test directory whose parent exists, the
// steps chosen by -C -T -E -r (all without them), unselected rows 0;
// rates are scaled from the lab's fio 4 KiB calibration.
func mdtest(e *Env, args []string, ranks, nodes int) int {
	dir := ""
	iters, items := 1, 0
	var steps []string
	var fileBytes int64
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-d":
			dir = next()
		case "-i":
			iters, _ = strconv.Atoi(next())
		case "-n":
			items, _ = strconv.Atoi(next())
		case "-b", "-z", "-I", "-N":
			if _, err := strconv.Atoi(next()); err != nil {
				return e.fail(1, "mdtest: %s wants a number", a)
			}
		case "-w", "-e":
			v, err := bytesize.Parse(next())
			if err != nil {
				return e.fail(1, "mdtest: %s wants a size", a)
			}
			fileBytes = max(fileBytes, v)
		case "-C", "-T", "-E", "-r":
			steps = append(steps, a)
		case "-L", "-u", "-F", "-v", "-y", "-t", "-D":
		default:
			return e.fail(1, "mdtest: invalid option -- '%s'", strings.TrimLeft(a, "-"))
		}
	}
	if dir == "" || !strings.HasPrefix(dir, "/") || !e.isDir(path.Dir(dir)) {
		return e.fail(1, "mdtest: Unable to create test directory %s: No such file or directory", dir)
	}
	if len(steps) == 0 {
		steps = []string{"-C", "-T", "-E", "-r"}
	}
	has := func(s string) bool {
		for _, x := range steps {
			if x == s {
				return true
			}
		}
		return false
	}
	if !has("-C") && !e.isDir(dir) {
		return e.fail(1, "mdtest: stat of %s failed: No such file or directory (no files: run the create step first)", dir)
	}
	e.logBench("mdtest", args)
	cal, err := e.calibrate(path.Dir(dir))
	if err != nil {
		return e.fail(1, "mdtest: %v", err)
	}
	if has("-C") {
		if _, err := e.Root.MkdirAll(dir, 0o755); err != nil {
			return e.fail(1, "mdtest: %v", err)
		}
	}
	readRate := cal.RandRead.IOPS * 1.5
	if fileBytes > 0 {
		readRate = cal.RandRead.IOPS * 0.8
	}
	rows := []struct {
		name string
		on   bool
		rate float64
	}{
		{"File creation", has("-C"), cal.RandWrite.IOPS * 0.5}, {"File stat", has("-T"), cal.RandRead.IOPS * 3},
		{"File read", has("-E"), readRate}, {"File removal", has("-r"), cal.RandWrite.IOPS * 0.6},
		{"Tree creation", true, 900}, {"Tree removal", true, 1100},
	}
	fmt.Fprintf(e.Stdout, "-- started at %s --\n\nmdtest-3.3.0 was launched with %d total task(s) on %d node(s)\n",
		time.Now().Format("01/02/2006 15:04:05"), ranks, nodes)
	fmt.Fprintf(e.Stdout, "Command line used: mdtest %s\nPath: %s\n\n%d tasks, %d files\n\n", strings.Join(args, " "), path.Dir(dir),
		ranks, ranks*items)
	for _, table := range []string{"rate", "time"} {
		fmt.Fprintf(e.Stdout, "SUMMARY %s: (of %d iterations)\n   Operation                     Max            Min           Mean        Std Dev\n"+
			"   ---------                     ---            ---           ----        -------\n", table, iters)
		for _, r := range rows {
			v := 0.0
			if r.on {
				v = scaled(r.rate, ranks)
				if table == "time" {
					v = float64(max(ranks*items, 1)) / v
				}
			}
			fmt.Fprintf(e.Stdout, "   %-26s: %14.3f %14.3f %14.3f %14.3f\n", r.name, v, v, v, 0.0)
		}
	}
	fmt.Fprintf(e.Stdout, "-- finished at %s --\n", time.Now().Format("01/02/2006 15:04:05"))
	if has("-r") {
		_ = e.Root.Remove(dir)
	}
	return 0
}

// iozone follows IOzone 3.4's throughput mode: -t with -F names (their
// folders present) or a -+m client list with a line per thread; reads and
// random tests need the files a write kept (-w); -O reports ops/sec.
func iozone(e *Env, args []string) int {
	var tests []int
	threads := 0
	var files []string
	var clients string
	var ops, keep, noRetest bool
	rec, size := int64(4<<10), int64(512<<10)
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "-i":
			n, err := strconv.Atoi(next())
			if err != nil || n < 0 || n > 12 {
				return e.fail(1, "iozone: bad test number for -i")
			}
			tests = append(tests, n)
		case strings.HasPrefix(a, "-i") && len(a) > 2:
			n, _ := strconv.Atoi(a[2:])
			tests = append(tests, n)
		case a == "-t":
			threads, _ = strconv.Atoi(next())
		case a == "-r" || a == "-s":
			v, err := bytesize.Parse(next())
			if err != nil || v <= 0 {
				return e.fail(1, "iozone: bad size for %s", a)
			}
			if a == "-r" {
				rec = v
			} else {
				size = v
			}
		case a == "-F":
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				files = append(files, next())
			}
		case a == "-+m":
			clients = next()
		case a == "-+n":
			noRetest = true
		case a == "-O":
			ops = true
		case a == "-w":
			keep = true
		case a == "-c" || a == "-e" || a == "-I" || a == "-R":
		default:
			return e.fail(1, "iozone: unknown option %s", a)
		}
	}
	if threads < 1 {
		return e.fail(1, "iozone: the lab simulates throughput mode (-t N) only")
	}
	dirs := map[string]bool{}
	switch {
	case clients != "":
		data, err := e.read(clients)
		if err != nil || data == nil {
			return e.fail(1, "iozone: unable to open client file %s", clients)
		}
		lines := 0
		for _, l := range splitLines(string(data)) {
			if f := strings.Fields(l); len(f) >= 3 && !strings.HasPrefix(f[0], "#") {
				if lines < threads {
					files = append(files, path.Join(f[1], fmt.Sprintf("iozone.DUMMY.%d", lines)))
				}
				lines++
			}
		}
		if lines < threads {
			return e.fail(1, "iozone: the client file lists %d clients, fewer than the %d threads", lines, threads)
		}
	case len(files) < threads:
		return e.fail(1, "iozone: -t %d needs %d file names with -F, got %d", threads, threads, len(files))
	}
	files = files[:threads]
	for _, f := range files {
		dirs[path.Dir(f)] = true
		if !strings.HasPrefix(f, "/") || !e.isDir(path.Dir(f)) {
			return e.fail(1, "Can not open temp file: %s\nopen: No such file or directory", f)
		}
	}
	writes := false
	for _, t := range tests {
		writes = writes || t == 0
	}
	for _, t := range tests {
		if t != 0 && !writes {
			for _, f := range files {
				if !e.exists(f) {
					return e.fail(1, "Can not open temp file: %s\nopen: No such file or directory", f)
				}
			}
		}
	}
	e.logBench("iozone", args)
	var dir string
	for d := range dirs {
		dir = d
	}
	cal, err := e.calibrate(dir)
	if err != nil {
		return e.fail(1, "iozone: %v", err)
	}
	unit := "kB/sec"
	if ops {
		unit = "ops/sec"
	}
	value := func(bytesPerSec float64) float64 {
		if ops {
			return bytesPerSec / float64(rec)
		}
		return bytesPerSec / 1024
	}
	fmt.Fprintf(e.Stdout, "\tIozone: Performance Test of File I/O\n\t        Version $Revision: 3.489 $\n\t\tCompiled for 64 bit mode.\n\t\tBuild: linux\n\n")
	fmt.Fprintf(e.Stdout, "\tRun began: %s\n\n\tCommand line used: iozone %s\n", time.Now().Format("Mon Jan  2 15:04:05 2006"), strings.Join(args, " "))
	if ops {
		fmt.Fprintf(e.Stdout, "\tOPS Mode. Output is in operations per second.\n")
	} else {
		fmt.Fprintf(e.Stdout, "\tOutput is in kBytes/sec\n")
	}
	fmt.Fprintf(e.Stdout, "\tThroughput test with %d processes\n\tEach process writes a %d kByte file in %d kByte records\n", threads, size/1024, rec/1024)
	block := func(name string, bps float64) {
		v := value(scaled(bps, threads))
		fmt.Fprintf(e.Stdout, "\n\tChildren see throughput for %2d %-15s\t= %10.2f %s\n", threads, name, v, unit)
		fmt.Fprintf(e.Stdout, "\tParent sees throughput for %2d %-15s\t= %10.2f %s\n", threads, name, v*0.99, unit)
		fmt.Fprintf(e.Stdout, "\tMin throughput per process \t\t\t= %10.2f %s \n\tMax throughput per process \t\t\t= %10.2f %s\n",
			v/float64(threads), unit, v/float64(threads), unit)
		fmt.Fprintf(e.Stdout, "\tAvg throughput per process \t\t\t= %10.2f %s\n\tMin xfer \t\t\t\t\t= %10.2f kB\n", v/float64(threads), unit, float64(size)/1024)
	}
	randBps := func(m float64) float64 { return m * float64(min(rec, 64<<10)) }
	for _, t := range tests {
		switch t {
		case 0:
			block("initial writers", cal.SeqWrite.BandwidthBps)
			if !noRetest {
				block("rewriters", cal.SeqWrite.BandwidthBps*1.05)
			}
			for _, f := range files {
				if err := e.touch(f); err != nil {
					return e.fail(1, "iozone: %v", err)
				}
			}
		case 1:
			block("readers", cal.SeqRead.BandwidthBps)
			if !noRetest {
				block("re-readers", cal.SeqRead.BandwidthBps*1.1)
			}
		case 2:
			block("random readers", randBps(cal.RandRead.IOPS))
			block("random writers", randBps(cal.RandWrite.IOPS))
		}
	}
	if !keep {
		for _, f := range files {
			_ = e.Root.Remove(f)
		}
	}
	fmt.Fprintf(e.Stdout, "\n\niozone test complete.\n")
	return 0
}

var elbenchoRange = regexp.MustCompile(`^(.*)\[(\d+)-(\d+)\](.*)$`)

// elbencho follows elbencho 3's file mode: paths (with [a-b] ranges) in
// present folders, a read needing the files a write made, -F deleting
// them; the table shows FIRST DONE and LAST DONE.
func elbencho(e *Env, args []string) int {
	var write, read, rnd, del bool
	threads := 1
	bs, size := int64(1<<20), int64(0)
	var paths []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-w", "--write":
			write = true
		case "-r", "--read":
			read = true
		case "-F", "--delfiles":
			del = true
		case "--rand":
			rnd = true
		case "--direct", "--sync":
		case "-t", "--threads":
			threads, _ = strconv.Atoi(next())
		case "--iodepth", "--hosts":
			next()
		case "-b", "--block", "-s", "--size":
			v, err := bytesize.Parse(next())
			if err != nil {
				return e.fail(1, "ERROR: invalid size for %s", a)
			}
			if a == "-b" || a == "--block" {
				bs = v
			} else {
				size = v
			}
		default:
			if strings.HasPrefix(a, "-") {
				return e.fail(1, "ERROR: unrecognised option '%s'", a)
			}
			if m := elbenchoRange.FindStringSubmatch(a); m != nil {
				lo, _ := strconv.Atoi(m[2])
				hi, _ := strconv.Atoi(m[3])
				for k := lo; k <= hi; k++ {
					paths = append(paths, m[1]+strconv.Itoa(k)+m[4])
				}
			} else {
				paths = append(paths, a)
			}
		}
	}
	if len(paths) == 0 {
		return e.fail(1, "ERROR: No path given")
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") || !e.isDir(path.Dir(p)) {
			return e.fail(1, "ERROR: Unable to open file: %s; SysErr: No such file or directory", p)
		}
		if read && !write && !e.exists(p) {
			return e.fail(1, "ERROR: Unable to open file: %s; SysErr: No such file or directory", p)
		}
	}
	e.logBench("elbencho", args)
	cal, err := e.calibrate(path.Dir(paths[0]))
	if err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	fmt.Fprintf(e.Stdout, "OPERATION   RESULT TYPE         FIRST DONE   LAST DONE\n=========== ================    ==========   =========\n")
	row := func(op string, bps float64) {
		last := scaled(bps, threads)
		first := last * 1.02
		total := float64(size) * float64(len(paths)) / (1 << 20)
		secs := total * (1 << 20) / last
		fmt.Fprintf(e.Stdout, "%-11s Elapsed time     : %11s %11s\n", op, fmtElapsed(secs*0.98), fmtElapsed(secs))
		fmt.Fprintf(e.Stdout, "            IOPS             : %11.0f %11.0f\n", first/float64(bs), last/float64(bs))
		fmt.Fprintf(e.Stdout, "            Throughput MiB/s : %11.0f %11.0f\n", first/(1<<20), last/(1<<20))
		fmt.Fprintf(e.Stdout, "            Total MiB        : %11.0f %11.0f\n", total*0.98, total)
	}
	if write {
		b := cal.SeqWrite.BandwidthBps
		if rnd {
			b = cal.RandWrite.IOPS * float64(bs)
		}
		row("WRITE", b)
		for _, p := range paths {
			if err := e.touch(p); err != nil {
				return e.fail(1, "ERROR: %v", err)
			}
		}
	}
	if read {
		b := cal.SeqRead.BandwidthBps
		if rnd {
			b = cal.RandRead.IOPS * float64(bs)
		}
		row("READ", b)
	}
	if del {
		for _, p := range paths {
			_ = e.Root.Remove(p)
		}
	}
	return 0
}

func fmtElapsed(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d >= time.Minute {
		return fmt.Sprintf("%dm%.3fs", int(d.Minutes()), (d % time.Minute).Seconds())
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}
