package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
)

// The lab's benchmarks. fio is real: its simulator runs the host's fio
// against files inside the node root, with sizes and run times capped so
// a point takes a second or two. IOR, mdtest, IOzone and elbencho are not
// packaged by Debian: their simulators follow the tools' command lines and
// refusals and print their output formats, with figures scaled from a
// short real fio run in the same directory.

// BenchLog (in RunDir) records one JSON line per benchmark run: the tool
// and its argv, so tests can tell what ran.
const BenchLog = RunDir + "/benchmarks.log"

// Lab caps on a simulated fio run.
const (
	fioMaxJobs     = 8
	fioMaxJobBytes = 8 << 20
	fioMaxRunBytes = 32 << 20
	fioMaxSeconds  = 2
)

// fioPaths are where the real fio is looked for: simulators run without
// the agent's PATH.
var fioPaths = []string{"/usr/bin/fio", "/usr/local/bin/fio", "/bin/fio"}

func realFio() (string, error) {
	for _, p := range fioPaths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errors.New("the lab runs the real fio, which is not installed here (apt-get install fio)")
}

// logBench appends a run to BenchLog.
func (e *Env) logBench(tool string, args []string) {
	line, _ := json.Marshal(map[string]any{"tool": tool, "argv": args})
	old, _ := e.read(BenchLog)
	_ = e.write(BenchLog, append(old, append(line, '\n')...))
}

// fio runs the real fio: paths (--directory, --filename) move into the
// root, which must confine them; jobs, sizes and run time are capped for
// the lab; the output's host paths are put back as the node sees them.
func fio(e *Env, args []string) int {
	bin, err := realFio()
	if err != nil {
		return e.fail(127, "%v", err)
	}
	e.logBench("fio", args)
	opts := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok && strings.HasPrefix(a, "--") {
			opts[k] = v
		}
	}
	jobs, _ := strconv.Atoi(opts["numjobs"])
	jobs = min(max(jobs, 1), fioMaxJobs)
	bs, _ := bytesize.Parse(opts["bs"])
	bs = max(bs, 512)
	perJob := min(int64(fioMaxJobBytes), int64(fioMaxRunBytes)/int64(jobs))
	perJob = max(perJob/bs*bs, bs)
	var out []string
	for _, a := range args {
		k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--"):
			out = append(out, a)
		case k == "directory" || k == "filename":
			if !strings.HasPrefix(v, "/") {
				return e.fail(1, "%s=%s: the lab runs fio on absolute node paths only", k, v)
			}
			if err := e.Root.CheckConfined(v); err != nil {
				return e.fail(1, "%s: %v", v, err)
			}
			if k == "filename" && strings.HasPrefix(v, "/dev/") {
				// A lab disk is a plain file behind its by-id link: fio
				// would lay a short file out anew (unlinking the link),
				// where a real block device keeps its size and node.
				real, err := e.Root.Resolve(v)
				if err != nil || !e.exists(real) {
					return e.fail(1, "%s: No such file or directory (the lab makes no device nodes)", v)
				}
				host := e.Root.HostPath(real)
				if st, err := os.Stat(host); err == nil && st.Size() < int64(jobs)*perJob {
					if err := os.Truncate(host, int64(jobs)*perJob); err != nil {
						return e.fail(1, "%s: %v", v, err)
					}
				}
				out = append(out, "--filename="+host)
				continue
			}
			out = append(out, "--"+k+"="+e.Root.HostPath(v))
		case k == "numjobs":
			out = append(out, "--numjobs="+strconv.Itoa(jobs))
		case k == "size":
			if s, err := bytesize.Parse(v); err == nil && s > 0 && s < perJob {
				out = append(out, a)
				continue
			}
			out = append(out, "--size="+strconv.FormatInt(perJob, 10))
		case k == "runtime":
			if s, err := strconv.Atoi(strings.TrimSuffix(v, "s")); err == nil && s > 0 && s < fioMaxSeconds {
				out = append(out, a)
				continue
			}
			out = append(out, "--runtime="+strconv.Itoa(fioMaxSeconds))
		case k == "client" || k == "server" || k == "exec_prerun" || k == "exec_postrun" || k == "write_iolog" || k == "output":
			// fio would reach out of the root: the lab never does.
			return e.fail(1, "--%s is not run in the lab", k)
		default:
			out = append(out, a)
		}
	}
	if _, ok := opts["size"]; !ok {
		out = append(out, "--size="+strconv.FormatInt(perJob, 10))
	}
	if _, ok := opts["runtime"]; !ok {
		out = append(out, "--runtime="+strconv.Itoa(fioMaxSeconds))
	}
	cmd := exec.Command(bin, out...)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	host := strings.TrimSuffix(e.Root.Dir(), "/")
	e.Stdout.Write(bytes.ReplaceAll(stdout.Bytes(), []byte(host), nil))
	e.Stderr.Write(bytes.ReplaceAll(stderr.Bytes(), []byte(host), nil))
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}

// calibration is a short real fio run in a node directory: the one-thread
// rates the other benchmarks' figures are scaled from.
type calibration struct {
	SeqWrite, SeqRead, RandWrite, RandRead benchmark.Measurement
	At                                     time.Time
}

// calibrationPath (volatile) keeps each directory's last calibration.
const calibrationPath = RunDir + "/bench-calibration.json"

// calibrationTTL is how long a calibration is reused: a sweep's points
// share one, a run an hour later measures again.
const calibrationTTL = 10 * time.Minute

// calibrate returns dir's calibration, measured again when older than
// calibrationTTL.
func (e *Env) calibrate(dir string) (calibration, error) {
	cache := map[string]calibration{}
	if data, _ := e.read(calibrationPath); data != nil {
		_ = json.Unmarshal(data, &cache)
	}
	if c, ok := cache[dir]; ok && time.Since(c.At) < calibrationTTL {
		return c, nil
	}
	c, err := e.measure(dir)
	if err != nil {
		return c, err
	}
	cache[dir] = c
	if data, err := json.Marshal(cache); err == nil {
		_ = e.write(calibrationPath, data)
	}
	return c, nil
}

// measure runs the real fio in dir (a node path) for a moment: 4 MiB of
// sequential 1 MiB and random 4 KiB writes and reads.
func (e *Env) measure(dir string) (calibration, error) {
	c := calibration{At: time.Now()}
	bin, err := realFio()
	if err != nil {
		return c, err
	}
	if err := e.Root.CheckConfined(dir); err != nil {
		return c, err
	}
	for _, r := range []struct {
		rw, bs string
		dst    *benchmark.Measurement
	}{{"write", "1m", &c.SeqWrite}, {"read", "1m", &c.SeqRead}, {"randwrite", "4k", &c.RandWrite}, {"randread", "4k", &c.RandRead}} {
		cmd := exec.Command(bin, "--name=hpcstorage-sim-calibrate", "--directory="+e.Root.HostPath(dir), "--rw="+r.rw,
			"--bs="+r.bs, "--size=4m", "--runtime=1", "--output-format=json", "--lat_percentiles=1")
		cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			return c, fmt.Errorf("calibration fio run in %s: %v", dir, err)
		}
		if *r.dst, err = benchmark.ParseFio(out, r.rw); err != nil {
			return c, err
		}
	}
	_ = os.Remove(e.Root.HostPath(dir + "/hpcstorage-sim-calibrate.0.0"))
	return c, nil
}

// scaled is an aggregate rate at threads from a one-thread rate: linear
// at first, saturating as a shared back end does.
func scaled(base float64, threads int) float64 {
	t := float64(max(threads, 1))
	return base * t / (1 + 0.15*(t-1))
}
