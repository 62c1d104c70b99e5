package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/agentbin"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// buildBenchProviders builds the provider (and the packages in more, each
// as terraform-provider-<last element without "provider">) into dir/bin,
// stripped, as a release builds it.
func buildBenchProviders(b *testing.B, dir string, more ...string) string {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(dir, "bin")
	for _, pkg := range append([]string{"."}, more...) {
		name := "terraform-provider-hpcstorage"
		if pkg != "." {
			name = "terraform-provider-" + strings.TrimSuffix(filepath.Base(pkg), "provider")
		}
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(bin, name), pkg)
		build.Dir = filepath.Join(filepath.Dir(file), "..")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return bin
}

// useDevProviders points this benchmark's Terraform at the builds in bin
// (dev_overrides for hpcstorage and the floor provider), with its own
// session keepers and no checkpoint calls; tfexec passes the process
// environment on.
func useDevProviders(b *testing.B, dir, bin string) {
	b.Helper()
	rc := filepath.Join(dir, "dev.tfrc")
	devrc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/hpcstorage/hpcstorage\" = %q\n    \"registry.terraform.io/hpcstorage/floor\" = %q\n  }\n  direct {}\n}\n", bin, bin)
	if err := os.WriteFile(rc, []byte(devrc), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("TF_CLI_CONFIG_FILE", rc)
	b.Setenv("CHECKPOINT_DISABLE", "1")
	b.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "run"))
}

// BenchmarkR1Module measures examples/r1 (the beegfs-high-capacity module)
// in the R1 lab the way a user runs it, at R1's size (2 clients) and at a
// site's (clients=N sub-benchmarks; HPCSTORAGE_BENCH_CLIENTS=2,10,100 by
// default, make bench-scale adds 1000): the provider binary built as `make
// build` builds it (agent embedded), found through dev_overrides, so every
// Terraform walk starts it as its own process. Reported, per lab node:
// SSH execs, programs started and agent processes for the first `terraform
// apply` (delivery included; Terraform starts the provider once for the
// plan walk and once for the apply walk) and for each no-op `terraform
// plan`; the apply's and the no-op plan's wall time, the provider's
// processes' (its session keeper included) peak memory and CPU, and the
// state's size; and the no-op plan's wall time against Terraform's own
// floor: the same graph (every resource and data source of the state, with
// the same dependencies) as terraform_data resources, planned by the same
// CLI in the same run; and beside it the framework floor: that graph on a
// provider of the same terraform-plugin-framework that does nothing
// (fw_floor_s). Every figure of one size is measured in the same run as
// its floors; sizes after the first also report their cost per node
// against the 100-client size's (node_cost_vs_100, want <= 1).
//
//	make agent-dist && go test ./provider -run '^$' -bench R1Module -benchtime 1x
func BenchmarkR1Module(b *testing.B) {
	sizes := []int{2, 10, 100}
	if s := os.Getenv("HPCSTORAGE_BENCH_CLIENTS"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n > lab.MaxClients {
				b.Fatalf("HPCSTORAGE_BENCH_CLIENTS: %q is not a client count 0..%d", f, lab.MaxClients)
			}
			sizes = append(sizes, n)
		}
	}
	// Cost per node of a no-op plan beyond the framework floor, by size.
	perNodeCost := map[int]float64{}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			perNodeCost[n] = benchR1(b, n)
			if base, ok := perNodeCost[100]; ok && n > 100 && base > 0 {
				b.ReportMetric(perNodeCost[n]/base, "node_cost_vs_100")
			}
		})
	}
}

// benchR1 is one size of BenchmarkR1Module; it returns the no-op plan's
// wall time beyond the framework floor, per lab node.
func benchR1(b *testing.B, clients int) float64 {
	tfPath := terraformCLI(b)
	if _, _, err := agentbin.For(runtime.GOARCH); err != nil {
		testenv.Missing(b, "the provider binary needs the embedded agent: run make agent-dist first (%v)", err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	bin := buildBenchProviders(b, dir, "./provider/testdata/floorprovider")
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: clients})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(b, dir, "r1", "modules/beegfs-high-capacity")
	// The endpoints' passwords come from the lab's lab.env, as a user
	// loads them (examples/demo.sh); the provider processes inherit them.
	setLabEnv(b, filepath.Join(dir, "lab"))
	useDevProviders(b, dir, bin)
	tf, err := tfexec.NewTerraform(cfg, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := tf.Get(ctx); err != nil {
		b.Fatal(err)
	}
	providerBin := filepath.Join(bin, "terraform-provider-hpcstorage")

	nodes := l.Nodes().Nodes
	type counts struct{ execs, procs, agents, requests int64 }
	snap := func() map[string]counts {
		m := map[string]counts{}
		for _, n := range nodes {
			m[n.Name] = counts{n.Execs(), n.Processes(), n.AgentStarts(), int64(len(n.ServeRequests()))}
		}
		return m
	}
	// perNode is the mean per node since s0, and the busiest node.
	perNode := func(s0 map[string]counts, times int) (mean, worst counts) {
		for _, n := range nodes {
			d := counts{execs: n.Execs() - s0[n.Name].execs, procs: n.Processes() - s0[n.Name].procs, agents: n.AgentStarts() - s0[n.Name].agents}
			mean.execs += d.execs
			mean.procs += d.procs
			mean.agents += d.agents
			worst.execs, worst.procs, worst.agents = max(worst.execs, d.execs), max(worst.procs, d.procs), max(worst.agents, d.agents)
		}
		k := int64(len(nodes) * times)
		return counts{execs: mean.execs / k, procs: mean.procs / k, agents: mean.agents / k}, worst
	}
	nn := float64(len(nodes))

	s0 := snap()
	watch := watchProviders(tfPath, providerBin)
	start := time.Now()
	if err := tf.Apply(ctx); err != nil {
		b.Fatalf("apply: %v", err)
	}
	applyTime := time.Since(start)
	applyUse := watch()
	_, applyWorst := perNode(s0, 1)
	b.Logf("%d clients, load %s: first apply (2 provider processes: plan and apply walks, sharing the nodes' sessions through a keeper; delivery included): %s; busiest node: %d execs, %d programs, %d agent processes; provider processes: peak %.0f MiB, %.1f s CPU, %d keepers at most",
		clients, loadAvg(), applyTime.Round(time.Millisecond), applyWorst.execs, applyWorst.procs, applyWorst.agents, applyUse.peakMiB, applyUse.cpuS, applyUse.keepers)
	if applyWorst.agents > 1 {
		b.Errorf("first apply started %d agent processes on its busiest node, want 1 (both walks through the session keeper)", applyWorst.agents)
	}
	if applyUse.keepers > 1 {
		b.Errorf("first apply ran %d session keepers at once, want 1 for all %d nodes", applyUse.keepers, len(nodes))
	}
	stateBytes := 0
	if st, err := os.Stat(filepath.Join(cfg, "terraform.tfstate")); err == nil {
		stateBytes = int(st.Size())
	} else {
		b.Fatal(err)
	}
	// Each command below starts cold, as a user's next command after the
	// keepers' idle time would: no keeper, no connection.
	stopKeepers(b, providerBin)

	floor, floorCPU := r1Floor(b, ctx, tf, tfPath, filepath.Join(dir, "floor"), "terraform_data")
	fwFloor, fwFloorCPU := r1Floor(b, ctx, tf, tfPath, filepath.Join(dir, "framework-floor"), "floor_data")

	// Three plans per iteration: make bench runs one iteration of a
	// benchmark this slow.
	const perOp = 3
	var planTime time.Duration
	var planCPU float64
	var planUse providerUse
	s1 := snap()
	b.ResetTimer()
	// The node agents are this process's children too (the lab runs
	// them): their CPU is the nodes', not Terraform's.
	agentCPU := func() (d time.Duration) {
		for _, n := range nodes {
			d += n.AgentCPU()
		}
		return d
	}
	var nodeCPU time.Duration
	for range b.N * perOp {
		start, cpu0, a0 := time.Now(), childCPU(), agentCPU()
		watch := watchProviders(tfPath, providerBin)
		changes, err := tf.Plan(ctx)
		planTime += time.Since(start)
		// The sessions end with their keepers: stop them, wait for the
		// agents.
		stopKeepers(b, providerBin)
		use := watch()
		planUse.cpuS += use.cpuS
		planUse.peakMiB = max(planUse.peakMiB, use.peakMiB)
		planUse.keepers = max(planUse.keepers, use.keepers)
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var running int64
			for _, n := range nodes {
				running += n.AgentsRunning()
			}
			if running == 0 {
				break
			}
		}
		nodeCPU += agentCPU() - a0
		planCPU += childCPU() - cpu0 - (agentCPU() - a0).Seconds()
		if err != nil {
			b.Fatal(err)
		}
		if changes {
			b.Fatal("the no-op plan of the R1 module has changes")
		}
	}
	b.StopTimer()
	plans := b.N * perOp
	_, planWorst := perNode(s1, plans)
	var execs, procs, agents, requests float64
	for _, n := range nodes {
		execs += float64(n.Execs() - s1[n.Name].execs)
		procs += float64(n.Processes() - s1[n.Name].procs)
		agents += float64(n.AgentStarts() - s1[n.Name].agents)
		requests += float64(int64(len(n.ServeRequests())) - s1[n.Name].requests)
	}
	k := nn * float64(plans)
	planS := planTime.Seconds() / float64(plans)
	b.ReportMetric(nn, "nodes")
	b.ReportMetric(execs/k, "execs/node/plan")
	b.ReportMetric(procs/k, "procs/node/plan")
	b.ReportMetric(agents/k, "agents/node/plan")
	// Agent calls over the nodes' sessions (round trips).
	b.ReportMetric(requests/k, "calls/node/plan")
	// The whole first apply (both walks), busiest node.
	b.ReportMetric(float64(applyWorst.execs), "execs/node/apply")
	b.ReportMetric(float64(applyWorst.procs), "procs/node/apply")
	b.ReportMetric(float64(applyWorst.agents), "agents/node/apply")
	b.ReportMetric(applyTime.Seconds(), "apply_s")
	b.ReportMetric(applyTime.Seconds()/nn*1000, "apply_ms/node")
	b.ReportMetric(float64(stateBytes)/1024/nn, "state_KiB/node")
	// The provider's processes (the walk's and the session keeper): the
	// most memory they held at once, and their CPU (sampled every 100 ms:
	// a process's last 100 ms may be missed).
	b.ReportMetric(applyUse.peakMiB, "provider_MiB_apply")
	b.ReportMetric(applyUse.cpuS, "provider_cpu_s_apply")
	b.ReportMetric(planUse.peakMiB, "provider_MiB_plan")
	b.ReportMetric(planUse.cpuS/float64(plans), "provider_cpu_s_plan")
	b.ReportMetric(float64(planUse.keepers), "keepers_plan")
	b.ReportMetric(planS, "plan_s")
	b.ReportMetric(planS/nn*1000, "plan_ms/node")
	b.ReportMetric(floor, "floor_s")
	b.ReportMetric(planS/floor, "plan/floor")
	// The framework floor: the same graph on a provider of the same
	// framework that does nothing. What it adds to Terraform's floor is
	// not ours to remove; what the R1 plan adds to it is.
	b.ReportMetric(fwFloor, "fw_floor_s")
	b.ReportMetric(fwFloor/floor, "fw_floor/floor")
	b.ReportMetric(planS/fwFloor, "plan/fw_floor")
	b.ReportMetric(fwFloorCPU/floorCPU, "fw_floor_cpu/floor_cpu")
	// CPU seconds of terraform and the processes it waited for (the
	// provider), which a loaded machine disturbs less than wall time.
	b.ReportMetric(planCPU/float64(plans), "plan_cpu_s")
	b.ReportMetric(nodeCPU.Seconds()/float64(plans)/nn, "agent_cpu_s/node/plan")
	b.ReportMetric(planCPU/float64(plans)/floorCPU, "plan_cpu/floor_cpu")
	b.ReportMetric(planCPU/float64(plans)/fwFloorCPU, "plan_cpu/fw_floor_cpu")
	over := max(planS-fwFloor, 0) / nn
	b.ReportMetric(over*1000, "plan_over_fw_ms/node")
	b.Logf("%d clients, load %s: no-op plan: %.3f s, floor %.3f s (%.1fx, target 1.5x), framework floor %.3f s (%.2fx the floor; the plan is %.1fx it); busiest node per plan: %.1f execs, %.1f programs, %.1f agent processes; provider processes: peak %.0f MiB, %d keepers at most",
		clients, loadAvg(), planS, floor, planS/floor, fwFloor, fwFloor/floor, planS/fwFloor, float64(planWorst.execs)/float64(plans), float64(planWorst.procs)/float64(plans), float64(planWorst.agents)/float64(plans), planUse.peakMiB, planUse.keepers)
	if errs := l.Errors(); len(errs) > 0 {
		b.Errorf("lab errors: %v", errs)
	}
	_ = labnode.SFTPCommand
	return over
}

// providerUse is what the provider's processes used during one command.
type providerUse struct {
	peakMiB float64 // resident memory of all of them at once, the most seen
	cpuS    float64 // user and system CPU, summed over them
	keepers int     // session keepers running at once, the most seen
}

// watchProviders follows, every 100 ms until the returned function is
// called, the processes running providerBin below this one (terraform's
// provider processes and the keepers they start, which stay watched once
// seen, as they outlive their starter); the function returns their use.
func watchProviders(tfPath, providerBin string) func() providerUse {
	stop, done := make(chan struct{}), make(chan providerUse)
	// /proc/PID/exe names the file, links resolved.
	if p, err := filepath.EvalSymlinks(tfPath); err == nil {
		tfPath = p
	}
	if p, err := filepath.EvalSymlinks(providerBin); err == nil {
		providerBin = p
	}
	// Only down through terraform and the provider: the lab's thousand
	// agents are this process's children too.
	through := func(pid int) bool {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		return err == nil && (exe == tfPath || exe == providerBin)
	}
	go func() {
		var use providerUse
		cpu := map[int]float64{} // last CPU seen per process
		seen := map[int]bool{}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			// Our children's children (terraform's providers) and theirs
			// (keepers), plus every process seen before that still runs.
			for _, pid := range descendants(os.Getpid(), 3, through) {
				if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == providerBin {
					seen[pid] = true
				}
			}
			var rss float64
			keepers := 0
			for pid := range seen {
				stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
				if err != nil {
					delete(seen, pid)
					continue
				}
				f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
				if len(f) < 22 || f[0] == "Z" {
					continue
				}
				ut, _ := strconv.ParseFloat(f[11], 64)
				st, _ := strconv.ParseFloat(f[12], 64)
				pages, _ := strconv.ParseFloat(f[21], 64)
				cpu[pid] = (ut + st) / 100 // USER_HZ
				rss += pages * float64(os.Getpagesize()) / (1 << 20)
				if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(cmd), KeeperArg) {
					keepers++
				}
			}
			use.peakMiB = max(use.peakMiB, rss)
			use.keepers = max(use.keepers, keepers)
			select {
			case <-stop:
				for _, c := range cpu {
					use.cpuS += c
				}
				done <- use
				return
			case <-tick.C:
			}
		}
	}()
	return func() providerUse { close(stop); return <-done }
}

// descendants lists pid's children, their children, ... depth levels down
// (/proc/PID/task/TID/children), going below pid's children only where
// through says so.
func descendants(pid, depth int, through func(int) bool) []int {
	var out []int
	level := []int{pid}
	for d := range depth {
		var next []int
		for _, p := range level {
			if d > 0 && !through(p) {
				continue
			}
			tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
			for _, t := range tasks {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, t.Name()))
				if err != nil {
					continue
				}
				for _, f := range strings.Fields(string(b)) {
					if c, err := strconv.Atoi(f); err == nil {
						next = append(next, c)
					}
				}
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// loadAvg is the machine's load (1, 5, 15 min), stated beside figures a
// shared machine disturbs.
func loadAvg() string {
	bs, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(bs))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// stopKeepers ends the session keepers this benchmark's provider binary
// started (found by their command line, which names that binary) and
// waits for them to go.
func stopKeepers(b *testing.B, providerBin string) {
	b.Helper()
	find := func() (pids []int) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && string(cmd) == providerBin+"\x00"+KeeperArg+"\x00" {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	for _, pid := range find() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	for deadline := time.Now().Add(5 * time.Second); len(find()) > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// r1Floor writes the R1 state's graph as kind resources (one per resource
// and data source instance, with the same dependencies, its address as
// input), applies it once, and returns the mean wall time and CPU of a
// no-op plan of it (as many plans as the benchmark makes). terraform_data
// starts no provider: what is left is Terraform's own work on that graph.
// floor_data is testdata/floorprovider's resource (through the CLI
// config's dev_overrides): Terraform's work plus the framework's and the
// plugin protocol's, with none of ours.
func r1Floor(b *testing.B, ctx context.Context, tf *tfexec.Terraform, tfPath, dir, kind string) (wallS, cpuS float64) {
	b.Helper()
	st, err := tf.Show(ctx)
	if err != nil || st.Values == nil {
		b.Fatalf("terraform show: %v", err)
	}
	var all []*tfjson.StateResource
	var walk func(m *tfjson.StateModule)
	walk = func(m *tfjson.StateModule) {
		all = append(all, m.Resources...)
		for _, c := range m.ChildModules {
			walk(c)
		}
	}
	walk(st.Values.RootModule)
	bad := regexp.MustCompile(`[^A-Za-z0-9_-]+`)
	name := func(addr string) string { return "r_" + bad.ReplaceAllString(addr, "_") }

	// depends_on names resources without instance keys: every instance of
	// that resource.
	instances := map[string][]string{}
	for _, r := range all {
		base := strings.TrimSuffix(r.Address, fmt.Sprint("[", jsonKey(r.Index), "]"))
		if r.Index == nil {
			base = r.Address
		}
		instances[base] = append(instances[base], name(r.Address))
	}
	// State records every resource an instance depends on, transitively:
	// only the direct edges (those not implied by another dependency) go
	// into depends_on, so the floor has the module's partial order, not
	// thousands of redundant edges Terraform would have to walk.
	deps := map[string]map[string]bool{}
	for _, r := range all {
		d := map[string]bool{}
		for _, a := range r.DependsOn {
			for _, i := range instances[a] {
				d[i] = true
			}
		}
		deps[name(r.Address)] = d
	}
	var cfg strings.Builder
	if kind == "floor_data" {
		cfg.WriteString("terraform {\n  required_providers {\n    floor = { source = \"hpcstorage/floor\" }\n  }\n}\n\n")
	}
	for _, r := range all {
		own := deps[name(r.Address)]
		var keys []string
		for d := range own {
			implied := false
			for e := range own {
				if e != d && deps[e][d] {
					implied = true
					break
				}
			}
			if !implied {
				keys = append(keys, kind+"."+d)
			}
		}
		sort.Strings(keys)
		fmt.Fprintf(&cfg, "resource %q %q {\n  input = %q\n  depends_on = [%s]\n}\n\n", kind, name(r.Address), r.Address, strings.Join(keys, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ftf, err := tfexec.NewTerraform(dir, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	// terraform_data is built in: init installs nothing. floor_data's
	// provider comes through dev_overrides, which need no init (and init
	// would ask the registry for it).
	if kind == "terraform_data" {
		if err := ftf.Init(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if err := ftf.Apply(ctx); err != nil {
		b.Fatal(err)
	}
	runs := 3 * b.N
	var total time.Duration
	var cpu float64
	for range runs {
		start, cpu0 := time.Now(), childCPU()
		changes, err := ftf.Plan(ctx)
		total += time.Since(start)
		cpu += childCPU() - cpu0
		if err != nil || changes {
			b.Fatalf("%s floor plan: changes %v, err %v", kind, changes, err)
		}
	}
	b.Logf("floor: %d %s resources (the R1 state's %d resources and data sources)", len(all), kind, len(all))
	return total.Seconds() / float64(runs), cpu / float64(runs)
}

// childCPU is the user and system CPU seconds of this process's waited-for
// children (terraform, and the provider processes terraform waited for).
func childCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func jsonKey(k any) string {
	if s, ok := k.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(k)
}
