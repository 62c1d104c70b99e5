// Package sim is the lab's stand-in for the tools of a Linux node
// (systemctl, modprobe, mount, mkfs.*, blkid, beegfs-ctl, sh...): a
// multi-call program that the agent runs, under a fake root, in place of
// the real tool (see runner.Sim for the contract). Each tool keeps its
// state in the root, follows the real tool's rules, refusals included, and
// answers with the real tool's output and exit status, so a lab run
// catches what a real node would refuse.
//
// Volatile state (what a reboot loses, like /run) is under RunDir;
// on-disk state (file-system signatures, BeeGFS stripe patterns) under
// DataDir.
package sim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// Where the simulators keep their state, root-relative.
const (
	// RunDir is volatile: a lab reboot clears it (see PowerOff).
	RunDir = "/run/hpcstorage-sim"
	// DataDir survives reboots, like the disks it stands for.
	DataDir = "/.hpcstorage-sim/data"
	// Program is the multi-call program's name in BinDir.
	Program = "hpcstorage-sim"
	// BinDir and RootEnv are the agent's side of the contract
	// (runner.SimBinDir, runner.SimRootEnv), repeated here so that the
	// simulator, which starts once per command, does not pay for the
	// agent's packages' initialisation; a test keeps them equal.
	BinDir  = "/.hpcstorage-sim/bin"
	RootEnv = "HPCSTORAGE_SIM_ROOT"
)

// Env is one simulated command's world: the root it acts on and its
// standard streams.
type Env struct {
	Root   *fsroot.Root
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	tool   string
}

// tool simulates one program: it gets the arguments after argv[0] and
// returns the exit status.
type tool func(e *Env, args []string) int

// tools maps every simulated program name to its simulator.
var tools map[string]tool

func init() {
	tools = map[string]tool{
		"systemctl":  systemctl,
		"modprobe":   modprobe,
		"mount":      mount,
		"umount":     umount,
		"wipefs":     wipefs,
		"blkid":      blkid,
		"beegfs-ctl": beegfsCtl,
		// BeeGFS 7.x setup scripts (beegfs_targets.go).
		"beegfs-setup-storage": beegfsSetup,
		"beegfs-setup-meta":    beegfsSetup,
		// BeeGFS 8 and 7.x's mgmtd setup (beegfs8.go).
		"beegfs-mgmtd":       beegfsMgmtd,
		"beegfs":             beegfsCLI,
		"beegfs-setup-mgmtd": beegfsSetupMgmtd,
		"mkdir":              mkdir,
		"sh":                 shell,
		"bash":               shell,
		"dash":               shell,
		// Benchmarks (bench_fio.go, bench_tools.go): fio runs for real.
		"fio":      fio,
		"mpirun":   mpirun,
		"mpiexec":  mpirun,
		"ior":      func(e *Env, args []string) int { return ior(e, args, 1, 1) },
		"mdtest":   func(e *Env, args []string) int { return mdtest(e, args, 1, 1) },
		"iozone":   iozone,
		"elbencho": elbencho,
		// Ceph (cephadm.go, ceph*.go, rbd.go): one cluster per lab.
		"cephadm": cephadm,
		"ceph":    ceph,
		"rbd":     rbdTool,
		// R2 (multipath.go, lvm.go, nfsd.go).
		"multipath":  multipathCmd,
		"multipathd": multipathd,
		"pvcreate":   pvcreate,
		"vgcreate":   vgcreate,
		"lvcreate":   lvcreate,
		"vgchange":   vgchange,
		"vgs":        vgs,
		"pvs":        pvs,
		"lvs":        lvs,
		"rpc.nfsd":   rpcNFSD,
		// Pacemaker (pacemaker.go): the real tools on the lab's CIB.
		"cibadmin":      cibadmin,
		"crm_mon":       crmMon,
		"crm_diff":      crmDiff,
		"crm_resource":  crmResource,
		"stonith_admin": stonithAdmin,
		"crm_attribute": crmAttribute,
	}
	for _, t := range mkfsTypes {
		tools["mkfs."+t] = mkfs
	}
	// Spectrum Scale (gpfs*.go): the mm commands.
	for n, t := range gpfsTools {
		tools[n] = t
	}
}

// Tools lists the simulated program names, sorted.
func Tools() []string {
	out := make([]string, 0, len(tools))
	for n := range tools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// IsTool reports whether name is a simulated program.
func IsTool(name string) bool { _, ok := tools[name]; return ok }

// Main runs the simulator argv[0] names (or, when argv[0] is Program,
// argv[1]) against the root named by RootEnv, and returns the
// exit status.
func Main(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(argv) > 0 && path.Base(argv[0]) == Program {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fmt.Fprintf(stderr, "%s: usage: %s TOOL [ARGS...] (tools: %s)\n", Program, Program, strings.Join(Tools(), ", "))
		return 2
	}
	dir := os.Getenv(RootEnv)
	if dir == "" || dir == "/" {
		fmt.Fprintf(stderr, "%s: %s must name a fake node root (never /)\n", Program, RootEnv)
		return 2
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", Program, err)
		return 2
	}
	defer root.Close()
	return Run(&Env{Root: root, Stdin: stdin, Stdout: stdout, Stderr: stderr}, argv)
}

// Run runs one simulated command in e.
func Run(e *Env, argv []string) int {
	name := path.Base(argv[0])
	t, ok := tools[name]
	if !ok {
		fmt.Fprintf(e.Stderr, "%s: %s: command not simulated\n", Program, name)
		return 127
	}
	sub := *e
	sub.tool = name
	return t(&sub, argv[1:])
}

// fail prints "tool: msg" on stderr and returns code.
func (e *Env) fail(code int, format string, a ...any) int {
	fmt.Fprintf(e.Stderr, "%s: %s\n", e.tool, fmt.Sprintf(format, a...))
	return code
}

// read returns a root file's content, nil when it is missing.
func (e *Env) read(p string) ([]byte, error) {
	data, err := e.Root.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// write replaces a root file atomically, keeping its mode, creating its
// folder.
func (e *Env) write(p string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := e.Root.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	if _, err := e.Root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	return e.Root.WriteAtomic(p, data, fsroot.WriteOpts{Mode: mode, UID: -1, GID: -1})
}

// exists reports whether p (links followed inside the root) exists.
func (e *Env) exists(p string) bool {
	ok, err := e.Root.Exists(p)
	return err == nil && ok
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinLines(l []string) []byte {
	if len(l) == 0 {
		return nil
	}
	return []byte(strings.Join(l, "\n") + "\n")
}

// lastArg is a command's device argument: its last non-option word.
func lastArg(args []string) string {
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return ""
}
