package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// bench-fleet: the fleet figure of the SSH transport (issue 4). On the
// same N real sshd hosts of the Ansible baseline (../shared/bench/ansible:
// one sshd per host on 127.0.0.1, a fake root folder per host), it times
// our agent over internal/transport and then tuned ansible-playbook, each
// for a first converge of freshly reset hosts and a no-op converge, every
// run starting with no open SSH connection. Our agent runs the issue's
// sequence (check, first, no-op on the same hosts; the check delivers the
// agent), and once more a first converge with no check before it, which
// includes the delivery. The workload is the baseline's playbook, turned
// into an agent spec from the baseline's own files.

// fleetEnv is where the baseline scripts keep their state (their
// common.sh defaults, overridable the same way).
type fleetEnv struct {
	ansDir   string // the baseline folder (scripts, playbook, files, templates)
	dir      string // ANSBENCH_DIR
	basePort int
	n        int
}

func (e fleetEnv) sshDir() string        { return filepath.Join(e.dir, "ssh") }
func (e fleetEnv) hostRoot(i int) string { return filepath.Join(e.dir, "hosts", fmt.Sprintf("h%d", i)) }

// fleetRun is one timed converge of one tool.
type fleetRun struct {
	tool, mode string
	wall       time.Duration
	changed    int // items (agent) or tasks (ansible) changed, over all hosts
	handlers   int
	delivered  int
	// CPU seconds: the controller (this process, or ansible-playbook with
	// its workers and ssh) and the nodes (the sshd instances and all they
	// ran), as bench.sh measures them.
	ctrlCPU, nodeCPU float64
	note             string
}

func benchFleet(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench-fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 50, "number of sshd hosts")
	ansDir := fs.String("ansible-dir", "", "the Ansible baseline folder (default: ../shared/bench/ansible from the repository root)")
	forks := fs.Int("ansible-forks", 0, "ansible-playbook --forks (default: N)")
	fanout := fs.Int("max-parallel", 0, "agent calls in flight (default: N)")
	skipR1 := fs.Bool("skip-r1", false, "do not try the R1 storage-server profile")
	agentOnly := fs.Bool("agent-only", false, "time the agent only (for profiling): no Ansible runs and no fleet line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (the controller side) to this file")
	r1Path := fs.String("r1", "", "R1 storage-server spec (default: examples/agent/r1-storage-server.yaml in the repository)")
	quietMax := fs.Float64("quiet-max", 0.3, "before each timed run, wait until other processes use fewer cores than this (as bench.sh)")
	quietTimeout := fs.Duration("quiet-timeout", 8*time.Second, "give up waiting for a quiet machine after this long (as bench.sh QUIET_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *n < 1 || *n > 500 {
		return fmt.Errorf("--n %d: want 1-500", *n)
	}
	if *forks <= 0 {
		*forks = *n
	}
	if *fanout <= 0 {
		*fanout = *n
	}
	if err := fleetPrereqs(); err != nil {
		return err
	}
	root, rootErr := repoRoot()
	if *ansDir == "" {
		if rootErr != nil {
			return fmt.Errorf("--ansible-dir not given and %v", rootErr)
		}
		*ansDir = filepath.Join(root, "..", "shared", "bench", "ansible")
	}
	if *r1Path == "" && rootErr == nil {
		*r1Path = filepath.Join(root, "examples", "agent", "r1-storage-server.yaml")
	}
	env, err := newFleetEnv(*ansDir, *n)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := func(format string, a ...any) { fmt.Fprintf(stderr, "bench-fleet: "+format+"\n", a...) }

	log("starting %d sshd hosts with %s", env.n, filepath.Join(env.ansDir, "sshd.sh"))
	if out, err := env.script(ctx, nil, "sshd.sh", "start", strconv.Itoa(env.n)); err != nil {
		return fmt.Errorf("sshd.sh start: %v\n%s", err, out)
	}
	defer func() {
		// Even after an error or Ctrl-C: a fresh context.
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if out, err := env.script(sctx, nil, "sshd.sh", "stop"); err != nil {
			log("sshd.sh stop: %v\n%s", err, out)
		} else {
			log("%s", strings.TrimSpace(string(out)))
		}
	}()

	hostKey, err := env.hostKey()
	if err != nil {
		return err
	}
	specs, err := env.baselineSpecs()
	if err != nil {
		return err
	}
	quiet := func() { waitQuiet(ctx, *quietMax, *quietTimeout, log) }
	var runs []fleetRun

	// Our agent: check, first converge and no-op converge, each with a new
	// pool (a new provider process: no connection, nothing cached).
	compressed := false // agentRun's delivery: sftp (false) or gzip through one exec
	agentRun := func(mode string, specFor func(i int) []byte, check bool) (fleetRun, []transport.Outcome, error) {
		if err := ctx.Err(); err != nil {
			return fleetRun{}, nil, err
		}
		quiet()
		targets := make([]transport.Target, env.n)
		for i := 1; i <= env.n; i++ {
			targets[i-1] = transport.Target{Options: env.options(i, hostKey), Request: transport.Request{Spec: specFor(i), Check: check, Root: env.hostRoot(i)}}
		}
		n0, c0 := env.nodeCPU(ctx), selfCPU()
		start := time.Now()
		pool := transport.NewPool(transport.PoolOptions{MaxParallel: *fanout, Warn: func(m string) { log("%s", m) }, CompressedDelivery: compressed})
		outs := pool.ApplyAll(ctx, targets)
		pool.Close()
		r := fleetRun{tool: "agent", mode: mode, wall: time.Since(start)}
		r.ctrlCPU, r.nodeCPU = selfCPU()-c0, env.nodeCPU(ctx)-n0
		for i, o := range outs {
			if o.Err != nil {
				return r, outs, fmt.Errorf("agent %s on h%d: %w", mode, i+1, o.Err)
			}
			if o.Response.Delivered {
				r.delivered++
			}
			for _, it := range o.Response.Result.Items {
				if it.Changed {
					r.changed++
				}
			}
			r.handlers += len(o.Response.Result.Handlers)
		}
		log("agent %-6s %d hosts: %.3f s, %d items changed, %d handlers, %d deliveries, CPU s: controller %.2f, nodes %.2f",
			mode, env.n, r.wall.Seconds(), r.changed, r.handlers, r.delivered, r.ctrlCPU, r.nodeCPU)
		return r, outs, nil
	}
	reset := func() error {
		if out, err := env.script(ctx, nil, "reset_hosts.sh", strconv.Itoa(env.n)); err != nil {
			return fmt.Errorf("reset_hosts.sh: %v\n%s", err, out)
		}
		return nil
	}
	baseline := func(i int) []byte { return specs[i] }
	items := len(specItems(specs[1]))

	if err := reset(); err != nil {
		return err
	}
	r, _, err := agentRun("check", baseline, true)
	if err != nil {
		return err
	}
	if r.changed != items*env.n {
		return fmt.Errorf("agent check on fresh hosts: %d items would change, want %d (%d per host)", r.changed, items*env.n, items)
	}
	if err := env.checkUntouched(); err != nil {
		return fmt.Errorf("agent check changed a host: %w", err)
	}
	runs = append(runs, r)

	// The sequence, as bench.sh runs Ansible's modes: check, first
	// and no-op converge on the same hosts, each from a new pool (no
	// connection, nothing cached). The check delivers the agent, as the
	// plan of a first `terraform apply` does.
	if r.delivered != env.n {
		return fmt.Errorf("agent check on fresh hosts: %d deliveries, want %d", r.delivered, env.n)
	}
	first, _, err := agentRun("first", baseline, false)
	if err != nil {
		return err
	}
	if first.changed != items*env.n || first.delivered != 0 {
		return fmt.Errorf("agent first converge: %d items changed (want %d), %d deliveries (want 0: the check delivered)",
			first.changed, items*env.n, first.delivered)
	}
	if err := env.checkFiles(); err != nil {
		return fmt.Errorf("after the agent's first converge: %w", err)
	}
	runs = append(runs, first)
	noop, _, err := agentRun("noop", baseline, false)
	if err != nil {
		return err
	}
	if noop.changed != 0 || noop.handlers != 0 || noop.delivered != 0 {
		return fmt.Errorf("agent no-op converge: %d items changed, %d handlers, %d deliveries; want none", noop.changed, noop.handlers, noop.delivered)
	}
	if err := env.checkFiles(); err != nil {
		return fmt.Errorf("after the agent's no-op converge: %w", err)
	}
	runs = append(runs, noop)

	// The SSH floor on the same hosts: fresh connections, `true`, the same
	// fan-out. Floor and no-op alternate three times and the best of each
	// is compared, as the machine is shared (the Ansible ratio keeps the
	// first no-op above, as bench.sh measures Ansible once).
	var floor time.Duration
	bestNoop := noop.wall
	for range 3 {
		quiet()
		f, err := env.sshFloor(ctx, hostKey, *fanout)
		if err != nil {
			return fmt.Errorf("SSH floor: %w", err)
		}
		if floor == 0 || f < floor {
			floor = f
		}
		again, _, err := agentRun("noop", baseline, false)
		if err != nil {
			return err
		}
		if again.changed != 0 || again.delivered != 0 {
			return fmt.Errorf("agent no-op converge (again): %d items changed, %d deliveries; want none", again.changed, again.delivered)
		}
		bestNoop = min(bestNoop, again.wall)
	}
	log("ssh floor %d hosts: %.3f s (ssh host true, fresh connections, fan-out %d); best agent no-op %.3f s", env.n, floor.Seconds(), *fanout, bestNoop.Seconds())

	// Beside the figure: a first converge straight on hosts that never had
	// the agent (no check before it), so the delivery is inside it; with
	// the agent written over sftp (no process on the node) and sent
	// gzip-compressed through one exec (less than half the bytes), twice
	// each, alternating, best of each (the machine is shared).
	var cold, coldGz fleetRun
	for round := range 4 {
		compressed = round%2 == 1
		if err := reset(); err != nil {
			return err
		}
		mode := "first*"
		if compressed {
			mode = "first*gz"
		}
		r, _, err := agentRun(mode, baseline, false)
		compressed = false
		if err != nil {
			return err
		}
		if r.changed != items*env.n || r.delivered != env.n {
			return fmt.Errorf("agent %s converge on hosts without the agent: %d items changed (want %d), %d deliveries (want %d)",
				mode, r.changed, items*env.n, r.delivered, env.n)
		}
		if err := env.checkFiles(); err != nil {
			return fmt.Errorf("after the agent's %s converge on hosts without the agent: %w", mode, err)
		}
		best := &cold
		if mode == "first*gz" {
			best = &coldGz
		}
		if best.wall == 0 || r.wall < best.wall {
			*best = r
		}
	}
	cold.note = "* no check before it: the agent is delivered inside this converge (over sftp while the session's one exec waits; best of 2)"
	coldGz.note = "* as first*, the agent sent gzip-compressed through one exec (best of 2)"
	runs = append(runs, cold, coldGz)

	// The full R1 storage-server profile, if the baseline's bare hosts can
	// take it (its preflights need packages, disks and kernel files).
	r1Note := "skipped (--skip-r1)"
	if !*skipR1 && *r1Path != "" {
		r1Runs, note, err := env.r1(ctx, *r1Path, reset, agentRun)
		if err != nil {
			return err
		}
		runs = append(runs, r1Runs...)
		r1Note = note
	}

	// Ansible, the same way bench.sh always measures it, on reset hosts.
	if err := ctx.Err(); err != nil {
		return err
	}
	var ans []fleetRun
	sameConf := "Ansible not run (--agent-only)"
	if !*agentOnly {
		if ans, err = env.ansible(ctx, *forks, *quietMax, *quietTimeout, stderr); err != nil {
			return err
		}
		runs = append(runs, ans...)
		sameConf = env.compareRendering(specs)
	}

	// Report.
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tool\tworkload\tmode\thosts\twall s\tctrl CPU s\tnode CPU s\tchanged\thandlers\tdeliveries\t\n")
	for _, r := range runs {
		workload := "baseline"
		if strings.HasPrefix(r.mode, "r1-") {
			workload = "R1 profile"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.2f\t%.2f\t%d\t%d\t%d\t  %s\n", r.tool, workload, strings.TrimPrefix(r.mode, "r1-"), env.n,
			r.wall.Seconds(), r.ctrlCPU, r.nodeCPU, r.changed, r.handlers, r.delivered, r.note)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "agent: real OpenSSH (sshd.sh), a new transport.Pool per run, fan-out %d; ansible-playbook: ansible-tuned.cfg, forks %d, via bench.sh\n", *fanout, *forks)
	fmt.Fprintf(stdout, "workload: the playbook as %d agent items per host (4 files, THP, the handler's command); %s\n", items, sameConf)
	fmt.Fprintf(stdout, "R1 storage-server profile: %s\n", r1Note)
	fmt.Fprintf(stdout, "SSH floor (ssh host true on every host, fresh connections, same client library and fan-out; best of 3): %.3f s; best agent no-op of 4: %.3f s; no-op / floor: %.2f (target <= 1.3)\n",
		floor.Seconds(), bestNoop.Seconds(), bestNoop.Seconds()/floor.Seconds())
	if *agentOnly {
		return nil
	}
	a1, a2 := runs[1].wall.Seconds(), runs[2].wall.Seconds()
	var b1, b2 float64
	for _, r := range ans {
		switch r.mode {
		case "first":
			b1 = r.wall.Seconds()
		case "noop":
			b2 = r.wall.Seconds()
		}
	}
	fmt.Fprintf(stdout, "first converge with the agent delivered inside it (first*): %.3f s, %.1fx Ansible's first\n", cold.wall.Seconds(), b1/cold.wall.Seconds())
	fmt.Fprintf(stdout, "delivery inside first* (first* - first): sftp %.3f s, gzip through one exec %.3f s (gzip/sftp %.2f); first*gz %.3f s, %.1fx Ansible's first\n",
		cold.wall.Seconds()-a1, coldGz.wall.Seconds()-a1, (coldGz.wall.Seconds()-a1)/(cold.wall.Seconds()-a1), coldGz.wall.Seconds(), b1/coldGz.wall.Seconds())
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(stdout, "fleet N=%d agent_first_s=%.3f agent_noop_s=%.3f ansible_first_s=%.2f ansible_noop_s=%.2f ratio_first=%.1f ratio_noop=%.1f "+
		"agent_first_star_s=%.3f ratio_first_star=%.1f agent_first_star_gz_s=%.3f ratio_first_star_gz=%.1f ssh_floor_s=%.3f noop_over_floor=%.2f loadavg=%q\n",
		env.n, a1, a2, b1, b2, b1/a1, b2/a2, cold.wall.Seconds(), b1/cold.wall.Seconds(), coldGz.wall.Seconds(), b1/coldGz.wall.Seconds(), floor.Seconds(), bestNoop.Seconds()/floor.Seconds(),
		strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}

// fleetPrereqs fails clearly when a tool the bench needs is missing.
func fleetPrereqs() error {
	var missing []string
	for _, t := range []struct{ bin, why string }{
		{"ansible-playbook", "the baseline (apt-get install ansible-core)"},
		{"ssh", "Ansible's connections (apt-get install openssh-client)"},
		{"ssh-keygen", "sshd.sh's keys (apt-get install openssh-client)"},
		{"python3", "bench.sh's timer"},
	} {
		if _, err := exec.LookPath(t.bin); err != nil {
			missing = append(missing, fmt.Sprintf("%s (needed for %s)", t.bin, t.why))
		}
	}
	if _, err := exec.LookPath("sshd"); err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			missing = append(missing, "sshd (the hosts are real sshd instances: apt-get install openssh-server)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing: %s", strings.Join(missing, "; "))
	}
	return nil
}

// repoRoot is the module root: the folder with go.mod above the working
// directory, else above this executable (bin/hpcstorage-lab).
func repoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, d := range starts {
		for {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.Contains(b, []byte("terraform-provider-hpcstorage")) {
				return d, nil
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return "", errors.New("the repository root (go.mod) was not found above the working directory or this executable")
}

func newFleetEnv(ansDir string, n int) (fleetEnv, error) {
	abs, err := filepath.Abs(ansDir)
	if err != nil {
		return fleetEnv{}, err
	}
	for _, f := range []string{"sshd.sh", "bench.sh", "reset_hosts.sh", "gen_inventory.sh", "common.sh", "playbook.yml", "ansible-tuned.cfg",
		"sshd_cpu.py", "files/90-beegfs.conf", "files/60-beegfs-block.rules", "files/beegfs-modprobe.conf", "templates/beegfs-storage.conf.j2"} {
		if _, err := os.Stat(filepath.Join(abs, f)); err != nil {
			return fleetEnv{}, fmt.Errorf("--ansible-dir %s is not the Ansible baseline: %v", abs, err)
		}
	}
	e := fleetEnv{ansDir: abs, dir: "/tmp/ansbench", basePort: 42200, n: n}
	if d := os.Getenv("ANSBENCH_DIR"); d != "" {
		e.dir = d
	}
	if !strings.HasPrefix(filepath.Clean(e.dir)+"/", "/tmp/") {
		return fleetEnv{}, fmt.Errorf("ANSBENCH_DIR %s: the baseline only works under /tmp", e.dir)
	}
	if p := os.Getenv("BASE_PORT"); p != "" {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1024 || v+n > 65535 {
			return fleetEnv{}, fmt.Errorf("BASE_PORT %q: want a port number with room for %d hosts", p, n)
		}
		e.basePort = v
	}
	return e, nil
}

// script runs one of the baseline's scripts and returns its output.
func (e fleetEnv) script(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(e.ansDir, name), args...)
	cmd.Dir = e.ansDir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

// hostKey is the key sshd.sh gave every host, from its known_hosts file
// (under the alias ansbench-host), pinned for our transport.
func (e fleetEnv) hostKey() (string, error) {
	p := filepath.Join(e.sshDir(), "known_hosts")
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "ansbench-host" {
			return f[1] + " " + f[2], nil
		}
	}
	return "", fmt.Errorf("%s has no ansbench-host line", p)
}

// options reaches host i as Ansible does: root with the bench's client
// key, its host key verified; the agent inside the host's folder.
func (e fleetEnv) options(i int, hostKey string) transport.Options {
	return transport.Options{
		Host: "127.0.0.1", Port: e.basePort + i, User: "root",
		PrivateKeyFile: filepath.Join(e.sshDir(), "client_ed25519"),
		HostKeys:       []string{hostKey},
		AgentPath:      filepath.Join(e.hostRoot(i), transport.DefaultAgentPath),
		RunTimeout:     5 * time.Minute,
	}
}

// baselineSpecs turns playbook.yml into one agent spec per host (index i
// for host hi): the same files with the same contents and modes (the
// etc/beegfs folder comes with its file), THP off, and the playbook's
// handler, `touch run/beegfs-storage.restarted`, as a command item guarded
// by that file. (The agent's own handlers restart services its spec
// manages; the baseline's bare hosts have no beegfs-storage unit, and the
// playbook's handler is a stand-in command anyway.)
func (e fleetEnv) baselineSpecs() (map[int][]byte, error) {
	read := func(p string) (string, error) {
		b, err := os.ReadFile(filepath.Join(e.ansDir, p))
		return string(b), err
	}
	sysctl, err := read("files/90-beegfs.conf")
	if err != nil {
		return nil, err
	}
	udev, err := read("files/60-beegfs-block.rules")
	if err != nil {
		return nil, err
	}
	modprobe, err := read("files/beegfs-modprobe.conf")
	if err != nil {
		return nil, err
	}
	tmpl, err := read("templates/beegfs-storage.conf.j2")
	if err != nil {
		return nil, err
	}
	specs := map[int][]byte{}
	for i := 1; i <= e.n; i++ {
		conf, err := renderStorageConf(tmpl, fmt.Sprintf("h%d", i))
		if err != nil {
			return nil, err
		}
		type m = map[string]any
		file := func(path, content string, notify ...string) m {
			f := m{"path": path, "content": content, "mode": "0644"}
			if len(notify) > 0 {
				f["notify"] = notify
			}
			return m{"file": f}
		}
		spec := m{"apiVersion": protocol.APIVersion, "owner": "ansible-baseline", "items": []m{
			file("/etc/sysctl.d/90-beegfs.conf", sysctl),
			file("/etc/udev/rules.d/60-beegfs-block.rules", udev),
			file("/etc/modprobe.d/beegfs.conf", modprobe),
			file("/etc/beegfs/beegfs-storage.conf", conf),
			{"thp": m{"enabled": "never"}},
			{"command": m{"name": "restart-beegfs-storage", "argv": []string{"touch", "/run/beegfs-storage.restarted"}, "creates": "/run/beegfs-storage.restarted"}},
		}}
		b, err := json.Marshal(spec)
		if err != nil {
			return nil, err
		}
		specs[i] = b
	}
	return specs, nil
}

func specItems(spec []byte) []json.RawMessage {
	var s struct{ Items []json.RawMessage }
	_ = json.Unmarshal(spec, &s)
	return s.Items
}

// storeDirsLoop is the one Jinja construct of the baseline's template.
const storeDirsLoop = "{% for t in range(1, 17) %}/data/beegfs/{{ inventory_hostname }}/target{{ '%02d' % t }}{{ '' if loop.last else ',' }}{% endfor %}"

// renderStorageConf renders templates/beegfs-storage.conf.j2 for host as
// Ansible's template module does (trim_blocks: the newline right after a
// block tag goes). Any other Jinja in the template is an error, so a
// changed template is noticed rather than rendered wrong.
func renderStorageConf(tmpl, host string) (string, error) {
	i := strings.Index(tmpl, storeDirsLoop)
	if i < 0 {
		return "", errors.New("templates/beegfs-storage.conf.j2 changed: its storeStorageDirectory loop is not the one bench-fleet renders")
	}
	dirs := make([]string, 16)
	for t := range dirs {
		dirs[t] = fmt.Sprintf("/data/beegfs/%s/target%02d", host, t+1)
	}
	out := tmpl[:i] + strings.Join(dirs, ",") + strings.TrimPrefix(tmpl[i+len(storeDirsLoop):], "\n")
	out = strings.ReplaceAll(out, "{{ inventory_hostname }}", host)
	if strings.Contains(out, "{{") || strings.Contains(out, "{%") {
		return "", errors.New("templates/beegfs-storage.conf.j2 has Jinja that bench-fleet does not render")
	}
	return out, nil
}

// checkFiles is bench.sh's check_files: the copied files byte for byte,
// the per-host storage directories, THP off (the agent writes the kernel's
// form, "always madvise [never]", into a fake sysfs file, Ansible's copy
// task "never") and the handler's marker.
func (e fleetEnv) checkFiles() error {
	want := map[string]string{
		"etc/sysctl.d/90-beegfs.conf":            "files/90-beegfs.conf",
		"etc/udev/rules.d/60-beegfs-block.rules": "files/60-beegfs-block.rules",
		"etc/modprobe.d/beegfs.conf":             "files/beegfs-modprobe.conf",
	}
	for i := 1; i <= e.n; i++ {
		r := e.hostRoot(i)
		for got, src := range want {
			a, err1 := os.ReadFile(filepath.Join(r, got))
			b, err2 := os.ReadFile(filepath.Join(e.ansDir, src))
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				return fmt.Errorf("h%d: %s differs from %s (%v %v)", i, got, src, err1, err2)
			}
		}
		conf, err := os.ReadFile(filepath.Join(r, "etc/beegfs/beegfs-storage.conf"))
		re := regexp.MustCompile(`(?m)^storeStorageDirectory .*/data/beegfs/h` + strconv.Itoa(i) + `/target16$`)
		if err != nil || !re.Match(conf) {
			return fmt.Errorf("h%d: beegfs-storage.conf has no storeStorageDirectory ending in target16 (%v)", i, err)
		}
		thp, err := os.ReadFile(filepath.Join(r, "sys/kernel/mm/transparent_hugepage/enabled"))
		if s := strings.TrimSpace(string(thp)); err != nil || (s != "never" && !strings.Contains(s, "[never]")) {
			return fmt.Errorf("h%d: transparent_hugepage/enabled is %q, want never", i, thp)
		}
		if _, err := os.Stat(filepath.Join(r, "run/beegfs-storage.restarted")); err != nil {
			return fmt.Errorf("h%d: handler did not run: %v", i, err)
		}
	}
	return nil
}

// checkUntouched: a check run left the fresh hosts as reset_hosts.sh made
// them (apart from the delivered agent).
func (e fleetEnv) checkUntouched() error {
	for i := 1; i <= e.n; i++ {
		r := e.hostRoot(i)
		for _, p := range []string{"etc/sysctl.d/90-beegfs.conf", "etc/beegfs", "run/beegfs-storage.restarted"} {
			if _, err := os.Stat(filepath.Join(r, p)); err == nil {
				return fmt.Errorf("h%d: %s exists after a check", i, p)
			}
		}
		thp, _ := os.ReadFile(filepath.Join(r, "sys/kernel/mm/transparent_hugepage/enabled"))
		if strings.TrimSpace(string(thp)) != "[always] madvise never" {
			return fmt.Errorf("h%d: THP is %q after a check", i, thp)
		}
	}
	return nil
}

// r1 runs the R1 storage-server profile when a check on the baseline's
// hosts passes; otherwise it says why not.
func (e fleetEnv) r1(ctx context.Context, path string, reset func() error,
	agentRun func(string, func(int) []byte, bool) (fleetRun, []transport.Outcome, error)) ([]fleetRun, string, error) {
	spec, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	r1 := func(int) []byte { return spec }
	if err := reset(); err != nil {
		return nil, "", err
	}
	if _, _, err := agentRun("r1-check", r1, true); err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		return nil, fmt.Sprintf("not run: its check fails on the baseline's bare hosts, which have no package database, disks or /proc/sys files: %s", firstLine(err.Error())), nil
	}
	first, _, err := agentRun("r1-first", r1, false)
	if err != nil {
		return nil, "", err
	}
	noop, _, err := agentRun("r1-noop", r1, false)
	if err != nil {
		return nil, "", err
	}
	if noop.changed != 0 {
		return nil, "", fmt.Errorf("R1 no-op converge changed %d items", noop.changed)
	}
	return []fleetRun{first, noop}, fmt.Sprintf("first %.3f s, no-op %.3f s (%s)", first.wall.Seconds(), noop.wall.Seconds(), path), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// ansible runs bench.sh for the first and second converge (it resets the
// hosts first and closes every ControlPersist master before each run) and
// reads its raw.tsv from a scratch results folder.
func (e fleetEnv) ansible(ctx context.Context, forks int, quietMax float64, quietTimeout time.Duration, stderr io.Writer) ([]fleetRun, error) {
	res, err := os.MkdirTemp("", "bench-fleet-ansible-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(res)
	fmt.Fprintf(stderr, "bench-fleet: ansible-playbook first and second converge on %d hosts, forks %d (bench.sh, a few minutes)\n", e.n, forks)
	cmd := exec.CommandContext(ctx, filepath.Join(e.ansDir, "bench.sh"), strconv.Itoa(e.n), strconv.Itoa(forks), "tuned", "1")
	cmd.Dir = e.ansDir
	cmd.Env = append(os.Environ(), "MODES=first second", "RESULTS_DIR="+res,
		fmt.Sprintf("QUIET_MAX=%g", quietMax), fmt.Sprintf("QUIET_TIMEOUT=%d", int(quietTimeout.Seconds())))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, io.MultiWriter(&out, stderr)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench.sh: %v\n%s", err, out.String())
	}
	f, err := os.Open(filepath.Join(res, "raw.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := csv.NewReader(bufio.NewReader(f))
	rd.Comma, rd.FieldsPerRecord, rd.LazyQuotes = '\t', -1, true
	rows, err := rd.ReadAll()
	if err != nil || len(rows) < 3 {
		return nil, fmt.Errorf("bench.sh raw.tsv: %v (%d rows)\n%s", err, len(rows), out.String())
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"mode", "wall_s", "changed", "verdict", "hosts"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("bench.sh raw.tsv has no %s column", h)
		}
	}
	var runs []fleetRun
	for _, row := range rows[1:] {
		mode := row[col["mode"]]
		if row[col["verdict"]] != "ok" {
			return nil, fmt.Errorf("ansible %s converge: bench.sh verdict %s (changed %s on %s hosts; see its log under %s/logs)",
				mode, row[col["verdict"]], row[col["changed"]], row[col["hosts"]], e.dir)
		}
		wall, err := strconv.ParseFloat(row[col["wall_s"]], 64)
		if err != nil {
			return nil, fmt.Errorf("bench.sh raw.tsv wall_s %q", row[col["wall_s"]])
		}
		chg, _ := strconv.Atoi(row[col["changed"]])
		if mode == "second" {
			mode = "noop"
		}
		r := fleetRun{tool: "ansible", mode: mode, wall: time.Duration(wall * float64(time.Second)), changed: chg, note: "verdict ok (bench.sh check_files)"}
		if i, ok := col["ctrl_cpu_s"]; ok {
			r.ctrlCPU, _ = strconv.ParseFloat(row[i], 64)
		}
		if i, ok := col["node_cpu_s"]; ok {
			r.nodeCPU, _ = strconv.ParseFloat(row[i], 64)
		}
		if mode == "first" {
			r.handlers = e.n
		}
		runs = append(runs, r)
	}
	if len(runs) != 2 || runs[0].mode != "first" || runs[1].mode != "noop" {
		return nil, fmt.Errorf("bench.sh raw.tsv: want a first and a second converge, got %d rows", len(runs))
	}
	// bench.sh checked the files; check them once more our way.
	if err := e.checkFiles(); err != nil {
		return nil, fmt.Errorf("after Ansible: %w", err)
	}
	return runs, nil
}

// compareRendering compares the agent spec's beegfs-storage.conf with the
// one Ansible rendered on the same host.
func (e fleetEnv) compareRendering(specs map[int][]byte) string {
	var s struct {
		Items []struct {
			File *struct{ Path, Content string }
		}
	}
	if err := json.Unmarshal(specs[1], &s); err != nil {
		return "rendering not compared: " + err.Error()
	}
	for _, it := range s.Items {
		if it.File == nil || it.File.Path != "/etc/beegfs/beegfs-storage.conf" {
			continue
		}
		got, err := os.ReadFile(filepath.Join(e.hostRoot(1), it.File.Path))
		if err != nil {
			return "rendering not compared: " + err.Error()
		}
		if string(got) == it.File.Content {
			return "h1's beegfs-storage.conf from the spec is byte-identical to Ansible's rendering"
		}
		return fmt.Sprintf("WARNING: h1's beegfs-storage.conf from the spec (%d bytes) differs from Ansible's rendering (%d bytes)", len(it.File.Content), len(got))
	}
	return "rendering not compared"
}

// waitQuiet waits, as bench.sh does, until the other processes on the
// machine use less than maxCores (sampled over 2 s), at most timeout.
func waitQuiet(ctx context.Context, maxCores float64, timeout time.Duration, log func(string, ...any)) {
	deadline := time.Now().Add(timeout)
	for {
		b0 := cpuBusy()
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
		bg := float64(cpuBusy()-b0) / 100 / 2
		if bg <= maxCores {
			return
		}
		if time.Now().After(deadline) {
			log("note: machine not quiet after %s (background %.2f cores); running anyway", timeout, bg)
			return
		}
	}
}

// cpuBusy is the machine's busy time in USER_HZ (user nice system irq
// softirq steal), as bench.sh reads it.
func cpuBusy() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var s int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		if i < len(f) {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			s += v
		}
	}
	return s
}

// nodeCPU is the CPU seconds the sshd hosts and everything they reaped
// have used (bench.sh's sshd_cpu.py, which waits for closed connections).
func (e fleetEnv) nodeCPU(ctx context.Context) float64 {
	cmd := exec.CommandContext(ctx, "python3", filepath.Join(e.ansDir, "sshd_cpu.py"), filepath.Join(e.sshDir(), "pids"), strconv.Itoa(e.n))
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return v
}

// selfCPU is this process's user+system CPU seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
