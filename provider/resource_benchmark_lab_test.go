package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark/report"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// benchTF adds the R1 validation runs to the R1 example: fio (for real in
// the lab) with the R1 presets' phases, thread counts cut to the lab's
// size, after the whole design is up.
const benchTF = `
variable "bench_trigger" {
  type    = string
  default = "first"
}

locals {
  bench_clients = [for c in local.clients : c.host]
}

resource "hpcstorage_benchmark" "r1_seq" {
  preset      = "r1-seq"
  tool        = "fio"
  clients     = local.bench_clients
  directory   = "${module.r1.mount_points["client01"]}/bench"
  create_directory = true
  threads     = [1, 2, 4]
  file_size_bytes = 4194304
  report_path = "${abspath(path.root)}/reports/r1-seq.svg"
  triggers    = { run = var.bench_trigger }
  depends_on  = [module.r1]
}

resource "hpcstorage_benchmark" "r1_random" {
  preset      = "r1-random"
  tool        = "fio"
  clients     = local.bench_clients
  directory   = "${module.r1.mount_points["client01"]}/bench"
  create_directory = true
  threads     = [2, 4]
  file_size_bytes = 2097152
  iodepth     = 4
  report_path = "${abspath(path.root)}/reports/r1-random.svg"
  depends_on  = [module.r1]
}

output "bench_ratios" {
  value = merge(hpcstorage_benchmark.r1_seq.ratios, hpcstorage_benchmark.r1_random.ratios)
}
`

// TestR1ModuleBenchmark applies the R1 example with its validation runs
// in the lab: the real fio runs the sequential and random phases on both
// clients, results and ratios land in state, each report's SVG has one
// series per phase; the next plan is empty, and a changed trigger plans
// exactly one re-run.
func TestR1ModuleBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	testenv.NeedTool(t, "fio", "fio") // the lab's fio is the real fio
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 2, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r1", "modules/beegfs-high-capacity")
	if err := os.WriteFile(filepath.Join(cfg, "bench.tf"), []byte(benchTF), 0o644); err != nil {
		t.Fatal(err)
	}
	// The lab's clients are separate folders, not one shared BeeGFS
	// namespace: the directory the stripe pattern makes on client01 is
	// made on client02 by create_directory (mkdir -p: on a real client,
	// the stripe pattern's directory is kept as it is).
	r := &r1Lab{Lab: l, dir: filepath.Join(dir, "lab")}
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R1 with benchmarks: %s", time.Since(start).Round(time.Second))

	st, err := tf.Show(ctx, tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr    string
		phases  []string
		threads int
		svg     string
	}{
		{"hpcstorage_benchmark.r1_seq", []string{"write", "read"}, 3, "r1-seq.svg"},
		{"hpcstorage_benchmark.r1_random", []string{"randwrite", "randread"}, 2, "r1-random.svg"},
	} {
		res := findResource(st, c.addr)
		if res == nil {
			t.Fatalf("%s not in state", c.addr)
		}
		v := res.AttributeValues
		results, _ := v["results"].([]any)
		if len(results) != len(c.phases)*c.threads {
			t.Errorf("%s: %d results, want %d: %v", c.addr, len(results), len(c.phases)*c.threads, results)
		}
		for _, x := range results {
			p := x.(map[string]any)
			if num(p["bandwidth_bytes_per_second"]) <= 0 || num(p["iops"]) <= 0 || num(p["mean_latency_us"]) <= 0 ||
				num(p["p9999_latency_us"]) < num(p["mean_latency_us"]) {
				t.Errorf("%s: implausible point %v", c.addr, p)
			}
		}
		// Each ratio is the phase's best point over the paper's figure.
		ratios, _ := v["ratios"].(map[string]any)
		expected, _ := v["expected"].(map[string]any)
		for _, ph := range c.phases {
			peak := 0.0
			for _, x := range results {
				p := x.(map[string]any)
				if p["phase"] != ph {
					continue
				}
				val := num(p["iops"])
				if ph == "write" || ph == "read" {
					val = num(p["bandwidth_bytes_per_second"])
				}
				peak = max(peak, val)
			}
			if r, e := num(ratios[ph]), num(expected[ph]); e <= 0 || r <= 0 || math.Abs(r-peak/e) > 1e-9*r {
				t.Errorf("%s: ratio %s = %v, expected figure %v, peak %v", c.addr, ph, r, e, peak)
			}
		}
		if s, _ := v["settings"].(map[string]any); s["remount"] != "true" || s["drop_caches"] != "true" {
			t.Errorf("%s: the R1 presets remount and drop caches: settings %v", c.addr, s)
		}
		if cmds := fmt.Sprint(v["commands"]); !strings.Contains(cmds, "fio --name=hpcstorage-bench-c1") ||
			!strings.Contains(cmds, "--output-format=json --lat_percentiles=1") {
			t.Errorf("%s: commands %s", c.addr, cmds)
		}
		svg, err := os.ReadFile(filepath.Join(cfg, "reports", c.svg))
		if err != nil {
			t.Fatal(err)
		}
		got := measuredSeries(t, svg)
		if len(got) != len(c.phases) {
			t.Errorf("%s: SVG series %v, want one per phase %v", c.addr, got, c.phases)
		}
		for _, ph := range c.phases {
			if got[ph] != 1 {
				t.Errorf("%s: SVG has %d series for %s", c.addr, got[ph], ph)
			}
		}
		md, err := os.ReadFile(filepath.Join(cfg, "reports", strings.TrimSuffix(c.svg, ".svg")+".md"))
		if err != nil || !strings.Contains(string(md), "| phase | peak | at threads | paper | ratio |") {
			t.Errorf("%s: table %q %v", c.addr, md, err)
		}
		t.Logf("%s (real fio on the lab clients' folders):\n%s", c.addr, md)
	}
	// The caches were dropped before the sequential phases, on both clients.
	for _, n := range []string{"client01", "client02"} {
		if got := r.read(t, n, "proc/sys/vm/drop_caches"); strings.TrimSpace(got) != "3" {
			t.Errorf("%s drop_caches %q", n, got)
		}
		if log := r.read(t, n, strings.TrimPrefix(sim.BenchLog, "/")); strings.Count(log, `"tool":"fio"`) < 5 {
			t.Errorf("%s ran fio %d times:\n%s", n, strings.Count(log, `"tool":"fio"`), log)
		}
	}

	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	planFile := filepath.Join(dir, "trigger.plan")
	if _, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var("bench_trigger=second"), tfexec.Out(planFile)); err != nil {
		t.Fatal(err)
	}
	plan, err := tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, rc := range plan.ResourceChanges {
		if !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			changed = append(changed, fmt.Sprintf("%s %v", rc.Address, rc.Change.Actions))
		}
	}
	if len(changed) != 1 || !strings.HasPrefix(changed[0], "hpcstorage_benchmark.r1_seq [delete create]") {
		t.Errorf("a new trigger plans %v, want one re-run of r1_seq", changed)
	}
	if err := tf.Destroy(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(cfg, "reports", "*")); len(left) != 0 {
		t.Errorf("reports left after destroy: %v", left)
	}
}

// num reads a number of terraform show's JSON.
func num(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	}
	return -1
}

// measuredSeries parses the SVG as XML and counts the legend entries of
// measured series per phase.
func measuredSeries(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	out := map[string]int{}
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
		case xml.CharData:
			if ph, ok := strings.CutSuffix(strings.TrimSpace(string(e)), report.MeasuredSuffix); ok && inText {
				out[ph]++
			}
		case xml.EndElement:
			inText = false
		}
	}
}

func findResource(st *tfjson.State, addr string) *tfjson.StateResource {
	if st == nil || st.Values == nil {
		return nil
	}
	var walk func(m *tfjson.StateModule) *tfjson.StateResource
	walk = func(m *tfjson.StateModule) *tfjson.StateResource {
		for _, r := range m.Resources {
			if r.Address == addr {
				return r
			}
		}
		for _, c := range m.ChildModules {
			if r := walk(c); r != nil {
				return r
			}
		}
		return nil
	}
	return walk(st.Values.RootModule)
}

// TestBenchmarkUnmountedDirectory: a directory on the clients' root file
// system fails the apply before anything runs.
func TestBenchmarkUnmountedDirectory(t *testing.T) {
	testenv.NeedTool(t, "fio", "fio")
	r := upR1(t, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_benchmark" "b" {
  preset    = "r5-fio-random"
  clients   = [%q]
  directory = "/tmp"
  threads   = [1]
  file_size_bytes = 1048576
}
`, r.node("client01").Host),
			ExpectError: regexp.MustCompile(`(?s)Benchmark Directory Not Mounted.*Client .*: /tmp is not on a mounted\s+file\s+system.*Nothing\s+was\s+run`),
		}},
	})
	if log, err := os.ReadFile(filepath.Join(r.node("client01").Root, sim.BenchLog)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("something ran: %v\n%s", err, log)
	}
}

// TestBenchmarkRawDrive: R4's baseline runs the real fio on a blank
// device (a storage server's array volume, named by its by-id link, before
// anything is built on it); once the device carries a file system the
// benchmark is refused at plan, before anything runs.
func TestBenchmarkRawDrive(t *testing.T) {
	testenv.NeedTool(t, "fio", "fio")
	r := upR1(t, 0)
	var drives []string
	for d := 0; d < 10; d++ {
		drives = append(drives, fmt.Sprintf("0.%d", d))
	}
	wwn, err := r.ProvisionVolume(lab.VolumeRequest{Array: "me4084-1", Pool: "raw", RAID: "RAID6", Drives: drives, Volume: "raw",
		SegmentBytes: 512 << 10, Hosts: []string{"stor1"}, LUN: 1})
	if err != nil {
		t.Fatal(err)
	}
	dev := "/dev/disk/by-id/wwn-0x" + wwn
	conf := func(run string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_benchmark" "raw" {
  preset    = "r4-raw-drive"
  clients   = [%q]
  devices   = [%q]
  threads   = [2]
  file_size_bytes = 4194304
  iodepth   = 4
  repeat    = 1
  triggers  = { run = %q }
}
`, r.node("stor1").Host, dev, run)
	}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(r.node("stor1").Root, sim.BenchLog))
		return strings.Count(string(b), "--filename="+dev)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: conf("1"), Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("hpcstorage_benchmark.raw", "results.#", "2"),
				resource.TestCheckResourceAttr("hpcstorage_benchmark.raw", "settings.devices", dev),
				func(*terraform.State) error {
					if n := runs(); n != 2 {
						return fmt.Errorf("fio ran %d times on the device, want 2 (randwrite, randread)", n)
					}
					return nil
				})},
			{
				PreConfig:   func() { r.clientSim(t, "stor1", "mkfs.xfs", "-q", dev) },
				Config:      conf("2"),
				ExpectError: regexp.MustCompile(`(?s)Device Not Blank.*carries a xfs\s+signature.*nothing\s+was\s+run`),
			},
		},
	})
	if n := runs(); n != 2 {
		t.Errorf("fio ran %d times in all, want 2", n)
	}
}

// TestBenchmarkRemount: with remount, beegfs-client unmounts and mounts
// the client's BeeGFS again before the phases (the mount the test made by
// hand, with a mark in its options, is replaced by the service's own);
// create_directory makes the directory. A mount that does not come back
// stops the run before fio runs again; a mount other than BeeGFS (a
// tmpfs) is refused at plan.
func TestBenchmarkRemount(t *testing.T) {
	testenv.NeedTool(t, "fio", "fio")
	r := upR1(t, 1)
	root := r.node("client01").Root
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A BeeGFS client as the beegfs_client resource leaves it, mounted
	// with a mark in its options that only a remount removes.
	write("etc/beegfs/beegfs-mounts.conf", "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n")
	write("usr/lib/systemd/system/beegfs-client.service", "[Service]\n")
	r.clientSim(t, "client01", "systemctl", "start", "beegfs-client")
	mounts := strings.Replace(r.read(t, "client01", "proc/mounts"), "_netdev", "_netdev,before-remount", 1)
	write("proc/mounts", mounts)
	conf := func(run string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_benchmark" "b" {
  preset           = "r5-fio-random"
  clients          = [%q]
  directory        = "/mnt/beegfs/bench"
  create_directory = true
  remount          = true
  drop_caches      = true
  threads          = [1]
  file_size_bytes  = 1048576
  triggers         = { run = %q }
}
`, r.node("client01").Host, run)
	}
	// A tmpfs: no service to remount it with.
	if err := os.MkdirAll(filepath.Join(root, "mnt/scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.clientSim(t, "client01", "mount", "-t", "tmpfs", "tmpfs", "/mnt/scratch")
	fioRuns := func() int {
		b, _ := os.ReadFile(filepath.Join(root, sim.BenchLog))
		return strings.Count(string(b), `"tool":"fio"`)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      strings.Replace(conf("0"), "/mnt/beegfs/bench", "/mnt/scratch", 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Cannot Remount Between Phases.*/mnt/scratch is a tmpfs\s+mount`),
			},
			{Config: conf("1"), Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("hpcstorage_benchmark.b", "results.#", "2"),
				resource.TestCheckResourceAttr("hpcstorage_benchmark.b", "settings.remount", "true"),
				func(*terraform.State) error {
					if st, err := os.Stat(filepath.Join(root, "mnt/beegfs/bench")); err != nil || !st.IsDir() {
						return fmt.Errorf("create_directory: %v", err)
					}
					if m := r.read(t, "client01", "proc/mounts"); strings.Contains(m, "before-remount") ||
						!strings.Contains(m, " /mnt/beegfs beegfs ") {
						return fmt.Errorf("not remounted:\n%s", m)
					}
					return nil
				})},
			{
				// The service now mounts elsewhere: after the remount the
				// directory is on / and nothing runs.
				PreConfig:   func() { write("etc/beegfs/beegfs-mounts.conf", "/mnt/other /etc/beegfs/beegfs-client.conf\n") },
				Config:      conf("2"),
				ExpectError: regexp.MustCompile(`(?s)Not Mounted After Remount.*/mnt/beegfs is not mounted\s+again`),
			},
		},
	})
	if n := fioRuns(); n != 2 {
		t.Errorf("fio ran %d times, want 2 (the first run's phases only)", n)
	}
}
