package benchmark

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Invocation is one command of a step, run on one client.
type Invocation struct {
	Client int
	Argv   []string
}

// Step is what runs between two cache drops: one invocation per client
// (fio) or one launcher on the first client (MPI, IOzone's cluster mode,
// elbencho's --hosts), measuring the phases listed.
type Step struct {
	Phases      []string
	Invocations []Invocation
}

// FilePrefix names every file and directory a run creates in the target
// directory, so a site can tell them apart (and clean up after a killed
// run).
const FilePrefix = "hpcstorage-bench"

// Steps are the commands of one point of the sweep, in run order. hosts
// are the clients' host names as they know each other (MPI, IOzone and
// elbencho launch on them from the first one). The last step of a point
// removes the files it used.
func (p Params) Steps(threads int, dir string, hosts []string) []Step {
	phases := SortPhases(p.Phases)
	var groups [][]string
	switch p.Tool {
	case Mdtest:
		// mdtest runs its steps in one pass over one tree.
		groups = [][]string{phases}
	case IOzone:
		// -i 2 measures random reads and writes in one pass.
		var random []string
		for _, ph := range phases {
			if ph == RandWrite || ph == RandRead {
				random = append(random, ph)
				continue
			}
			groups = append(groups, []string{ph})
		}
		if random != nil {
			groups = append(groups, random)
		}
	default:
		for _, ph := range phases {
			groups = append(groups, []string{ph})
		}
	}
	var out []Step
	for i, g := range groups {
		last := i == len(groups)-1
		out = append(out, Step{Phases: g, Invocations: p.invocations(g, threads, dir, hosts, last, phases)})
	}
	return out
}

func (p Params) invocations(phases []string, threads int, dir string, hosts []string, last bool, all []string) []Invocation {
	switch p.Tool {
	case Fio:
		var out []Invocation
		if len(p.Devices) > 0 {
			// Each client benchmarks its devices one after the other, all
			// threads on each.
			for _, d := range p.Devices {
				for i := range hosts {
					out = append(out, Invocation{Client: i, Argv: p.fioDevice(phases[0], threads, d)})
				}
			}
			return out
		}
		for i := range hosts {
			if n := Share(threads, len(hosts), i); n > 0 {
				out = append(out, Invocation{Client: i, Argv: p.fio(phases[0], n, threads, i, dir, last)})
			}
		}
		return out
	case IOR:
		return []Invocation{{Argv: p.mpirun(threads, hosts, p.ior(phases[0], threads, dir, last))}}
	case Mdtest:
		return []Invocation{{Argv: p.mpirun(threads, hosts, p.mdtest(phases, threads, dir))}}
	case IOzone:
		return []Invocation{{Argv: p.iozone(phases, threads, dir, hosts, last, all)}}
	case Elbencho:
		return []Invocation{{Argv: p.elbencho(phases[0], threads, dir, hosts, last)}}
	}
	return nil
}

func bool01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// fio runs jobs of the threads of one phase on client i; file names carry the
// client index so clients sharing the directory never collide.
func (p Params) fio(phase string, jobs, threads, client int, dir string, last bool) []string {
	engine := "psync"
	if p.IODepth > 1 {
		engine = "libaio"
	}
	argv := []string{"fio", fmt.Sprintf("--name=%s-c%d", FilePrefix, client), "--directory=" + dir, "--rw=" + phase,
		"--bs=" + strconv.FormatInt(p.BlockSize, 10), "--size=" + strconv.FormatInt(p.SizeFor(threads), 10),
		"--numjobs=" + strconv.Itoa(jobs), "--iodepth=" + strconv.Itoa(p.IODepth), "--ioengine=" + engine,
		"--direct=" + bool01(p.Direct), "--group_reporting", "--output-format=json", "--lat_percentiles=1"}
	if p.RuntimeSeconds > 0 {
		argv = append(argv, "--runtime="+strconv.Itoa(p.RuntimeSeconds))
	}
	if last {
		argv = append(argv, "--unlink=1")
	}
	return append(argv, p.ExtraArgs...)
}

// fioDevice runs jobs threads of one phase on a raw device; the size
// bounds the region each job covers.
func (p Params) fioDevice(phase string, jobs int, dev string) []string {
	engine := "psync"
	if p.IODepth > 1 {
		engine = "libaio"
	}
	argv := []string{"fio", "--name=" + FilePrefix + "-" + path.Base(dev), "--filename=" + dev, "--rw=" + phase,
		"--bs=" + strconv.FormatInt(p.BlockSize, 10), "--size=" + strconv.FormatInt(p.FileSize, 10),
		"--numjobs=" + strconv.Itoa(jobs), "--iodepth=" + strconv.Itoa(p.IODepth), "--ioengine=" + engine,
		"--direct=" + bool01(p.Direct), "--group_reporting", "--output-format=json", "--lat_percentiles=1"}
	if p.RuntimeSeconds > 0 {
		argv = append(argv, "--runtime="+strconv.Itoa(p.RuntimeSeconds))
	}
	return append(argv, p.ExtraArgs...)
}

// mpirun launches threads ranks over the hosts, round robin (the papers'
// -map-by node). The agent runs as root, which OpenMPI refuses unless
// told.
func (p Params) mpirun(threads int, hosts []string, argv []string) []string {
	var slots []string
	for i, h := range hosts {
		if n := Share(threads, len(hosts), i); n > 0 {
			slots = append(slots, fmt.Sprintf("%s:%d", h, n))
		}
	}
	return append([]string{"mpirun", "--allow-run-as-root", "-np", strconv.Itoa(threads), "--map-by", "node",
		"--host", strings.Join(slots, ",")}, argv...)
}

func (p Params) ior(phase string, threads int, dir string, last bool) []string {
	op := "-w"
	if phase == Read {
		op = "-r"
	}
	argv := []string{"ior", "-a", "POSIX", op, "-i", strconv.Itoa(p.Repeat), "-t", FormatSize(p.BlockSize),
		"-b", FormatSize(p.SizeFor(threads)), "-s", "1", "-o", path.Join(dir, FilePrefix+".ior"),
		"-O", "summaryFormat=JSON"}
	if p.FilePerProcess {
		argv = append(argv, "-F")
	}
	if p.Direct {
		argv = append(argv, "--posix.odirect")
	}
	if !last {
		argv = append(argv, "-k")
	}
	return append(argv, p.ExtraArgs...)
}

// mdtest: -z 1 -L puts every file in a leaf directory of FilesPerDir;
// each process gets Files/threads files, so -b (leaves per process)
// follows from the thread count, as in the papers' tables.
func (p Params) mdtest(phases []string, threads int, dir string) []string {
	perProc := p.Files / threads
	leaves := (perProc + p.FilesPerDir - 1) / p.FilesPerDir
	argv := []string{"mdtest", "-d", path.Join(dir, FilePrefix+".mdtest"), "-i", strconv.Itoa(p.Repeat),
		"-n", strconv.Itoa(perProc), "-b", strconv.Itoa(leaves), "-z", "1", "-L", "-I", strconv.Itoa(p.FilesPerDir), "-u", "-F"}
	if p.FileBytes > 0 {
		argv = append(argv, "-w", strconv.FormatInt(p.FileBytes, 10), "-e", strconv.FormatInt(p.FileBytes, 10))
	}
	flags := map[string]string{Create: "-C", Stat: "-T", FileRead: "-E", Remove: "-r"}
	for _, ph := range phases {
		argv = append(argv, flags[ph])
	}
	return append(argv, p.ExtraArgs...)
}

// iozone runs N-N with one file per thread; on several clients it runs
// in cluster mode (-+m) from the first one, the list written just before.
func (p Params) iozone(phases []string, threads int, dir string, hosts []string, last bool, all []string) []string {
	var tests []string
	switch {
	case phases[0] == Write:
		tests = []string{"-i", "0"}
	case phases[0] == Read && !slices.Contains(all, Write):
		tests = []string{"-i", "0", "-i", "1"}
	case phases[0] == Read:
		tests = []string{"-i", "1"}
	case !slices.Contains(all, Write):
		tests = []string{"-i", "0", "-i", "2"}
	default:
		tests = []string{"-i", "2"}
	}
	argv := append([]string{"iozone"}, tests...)
	argv = append(argv, "-c", "-e")
	if !last {
		argv = append(argv, "-w")
	}
	if phases[0] == RandWrite || phases[0] == RandRead {
		argv = append(argv, "-O")
	}
	if p.Direct {
		argv = append(argv, "-I")
	}
	argv = append(argv, "-r", FormatSize(p.BlockSize), "-s", FormatSize(p.SizeFor(threads)), "-t", strconv.Itoa(threads), "-+n")
	argv = append(argv, p.ExtraArgs...)
	if len(hosts) <= 1 {
		argv = append(argv, "-F")
		for k := 1; k <= threads; k++ {
			argv = append(argv, path.Join(dir, fmt.Sprintf("%s.iozone.%d", FilePrefix, k)))
		}
		return argv
	}
	// Cluster mode: one line per thread (client, work directory, iozone),
	// threads dealt round robin over the clients as in the R1 paper.
	list := path.Join(dir, "."+FilePrefix+".iozone-clients")
	lines := make([]string, threads)
	for k := range threads {
		lines[k] = fmt.Sprintf("%s %s iozone", hosts[k%len(hosts)], dir)
	}
	argv = append(argv, "-+m", list)
	script := `list=$1; shift; n=$1; shift; i=0; : > "$list"; while [ "$i" -lt "$n" ]; do printf '%s\n' "$1" >> "$list"; shift; i=$((i+1)); done; exec "$@"`
	return append(append([]string{"sh", "-c", script, "sh", list, strconv.Itoa(threads)}, lines...), argv...)
}

func (p Params) elbencho(phase string, threads int, dir string, hosts []string, last bool) []string {
	op := "-w"
	if phase == Read || phase == RandRead {
		op = "-r"
	}
	argv := []string{"elbencho", op, "-t", strconv.Itoa(threads), "-b", FormatSize(p.BlockSize),
		"-s", FormatSize(p.SizeFor(threads)), "--iodepth", strconv.Itoa(p.IODepth)}
	if phase == RandWrite || phase == RandRead {
		argv = append(argv, "--rand")
	}
	if p.Direct {
		argv = append(argv, "--direct")
	}
	if len(hosts) > 1 {
		argv = append(argv, "--hosts", strings.Join(hosts, ","))
	}
	if last {
		argv = append(argv, "-F")
	}
	argv = append(argv, p.ExtraArgs...)
	return append(argv, path.Join(dir, fmt.Sprintf("%s.elbencho.[1-%d]", FilePrefix, threads)))
}

// DropCaches is the command that empties a client's page cache (the R1
// paper's `sync; echo 3 > /proc/sys/vm/drop_caches`).
func DropCaches() []string {
	return []string{"sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches"}
}

// Remount is the commands, run in turn, that unmount and mount again the
// file system of type fstype mounted at mountPoint on a client (the R1
// paper's remount between runs). BeeGFS mounts belong to the
// beegfs-client service, which unmounts every mount of
// beegfs-mounts.conf on stop and mounts them on start; other file
// systems are refused.
func Remount(fstype, mountPoint string) ([][]string, error) {
	if fstype == "beegfs" {
		return [][]string{{"systemctl", "stop", "beegfs-client"}, {"systemctl", "start", "beegfs-client"}}, nil
	}
	return nil, invalid(located.At("remount"), "%s is a %s mount; remounting between phases is done for BeeGFS mounts "+
		"(a stop and start of beegfs-client)", mountPoint, fstype)
}
