//go:build faults

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// gpfsKillConfig grows with stage: 0 the cluster and two volumes, 1 an
// NSD and a file system on it, 2 a second NSD added to the file system
// (mmadddisk, then mmrestripefs -b: rebalance_on_add). Both the file
// system and the NSDs are deleted on destroy, so stage 0 starts again.
const gpfsKillConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "stage" {
  type    = number
  default = 0
}

variable "threads" {
  type    = string
  default = ""
}

provider "hpcstorage" {
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    ca_certificate = var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

resource "hpcstorage_disk_group" "g" {
  for_each   = { k_d01 = 0, k_d02 = 10 }
  endpoint   = "me4084-2"
  name       = each.key
  raid_level = "RAID6"
  drive_ids  = [for i in range(10) : "0.${each.value + i}"]
}

resource "hpcstorage_volume" "v" {
  for_each           = hpcstorage_disk_group.g
  endpoint           = "me4084-2"
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 524288
  host_mappings      = [{ host = "nsd1", lun = each.key == "k_d01" ? 1 : 2 }, { host = "nsd2", lun = each.key == "k_d01" ? 1 : 2 }]
}

resource "hpcstorage_gpfs_cluster" "c" {
  host  = var.lab.nodes["nsd1"].host
  name  = "r5"
  nodes  = { nsd1 = ["quorum", "manager", "nsd_server"], nsd2 = ["quorum", "manager", "nsd_server"], mgmt = ["quorum"] }
  config = var.threads == "" ? null : { all = { workerThreads = var.threads } }
}

resource "hpcstorage_gpfs_nsds" "k" {
  count             = var.stage >= 1 ? 1 : 0
  cluster_nodes     = hpcstorage_gpfs_cluster.c.node_names
  host              = var.lab.nodes["nsd1"].host
  name              = "k"
  server_hosts      = { nsd1 = var.lab.nodes["nsd1"].host, nsd2 = var.lab.nodes["nsd2"].host }
  delete_on_destroy = true
  nsds = [for k in(var.stage >= 2 ? ["k_d01", "k_d02"] : ["k_d01"]) : {
    name = k, wwn = hpcstorage_volume.v[k].wwn, servers = ["nsd1", "nsd2"], usage = "dataAndMetadata", pool = "system"
  }]
}

resource "hpcstorage_gpfs_filesystem" "fs" {
  count             = var.stage >= 1 ? 1 : 0
  host              = var.lab.nodes["nsd1"].host
  device            = "fs1"
  mount_point       = "/gpfs/fs1"
  block_size        = "1M"
  rebalance_on_add  = true
  delete_on_destroy = true
  disks = [for n in hpcstorage_gpfs_nsds.k[0].nsds : {
    nsd = n.name, usage = n.usage, failure_group = n.failure_group, pool = n.pool
  }]
}
`

// gpfsSimState is what the kill test reads of the lab's cluster
// configuration (the simulators' shared state).
type gpfsSimState struct {
	NSDs []struct {
		Name string `json:"name"`
		FS   string `json:"fs"`
	} `json:"nsds"`
	FS []struct {
		Name      string `json:"name"`
		Restriped int    `json:"restriped"`
	} `json:"file_systems"`
}

// TestGpfsKilled (issue 32): terraform and its provider are killed
// (SIGKILL to the process group, the session keeper off so the agent
// goes with the SSH connection, as with a dropped admin session) at
// seven points of the R5 commands, each held by the lab until the kill:
// before and after mmcrnsd and mmcrfs take effect, before and after
// mmadddisk, and between mmadddisk and mmrestripefs. Each time one plain
// apply converges, the next plan is empty, every object exists once, the
// re-run sends no command whose effect is already there, and the file
// system grown by mmadddisk is restriped exactly once. An eighth kill
// stops a rolling restart after its first node went down: the re-apply
// restarts the rest and leaves every node active, no lock, no record.
func TestGpfsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs R5 applies")
	}
	t.Parallel()
	needAgent(t)
	dir := t.TempDir()
	labDir := filepath.Join(dir, "lab")
	l, err := lab.Up(lab.Config{Design: "r5", Dir: labDir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r5", "modules/spectrum-scale")
	state := startStateServer(t)
	backend := fmt.Sprintf("terraform {\n  backend \"http\" {\n    address = %q\n  }\n}\n", state.url)
	for name, body := range map[string]string{"main.tf": gpfsKillConfig, "backend.tf": backend} {
		if err := os.WriteFile(filepath.Join(cfg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli := pluginCLIIn(t, dir, cfg)
	cli.env = append(cli.env, "HPCSTORAGE_SESSION_KEEPER=off")
	for k, v := range labEnv(t, labDir) {
		cli.env = append(cli.env, k+"="+v)
	}
	r := &r5Lab{Lab: l, dir: dir}
	shared := filepath.Join(labDir, lab.SharedDir, "gpfs")
	apply := func(what string, stage int) {
		t.Helper()
		if out, code := cli.run("apply", "-auto-approve", fmt.Sprintf("-var=stage=%d", stage)); code != 0 {
			t.Fatalf("%s: exit %d\n%s", what, code, out)
		}
	}
	simState := func() gpfsSimState {
		t.Helper()
		var st gpfsSimState
		b, err := os.ReadFile(filepath.Join(shared, sim.GPFSStateFile))
		if err != nil || json.Unmarshal(b, &st) != nil {
			t.Fatalf("lab cluster state: %v", err)
		}
		return st
	}
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	apply("stage 0", 0)

	for i, p := range []struct {
		point string
		stage int
		// sent: the command the re-run sends (true) or, its effect being
		// there, does not (false).
		tool string
		sent bool
	}{
		{"mmcrnsd:start", 1, "mmcrnsd", true},
		{"mmcrnsd:done", 1, "mmcrnsd", false},
		{"mmcrfs:start", 1, "mmcrfs", true},
		{"mmcrfs:done", 1, "mmcrfs", false},
		{"mmadddisk:start", 2, "mmadddisk", true},
		{"mmadddisk:done", 2, "mmadddisk", false},
		{"mmrestripefs:start", 2, "mmadddisk", false},
	} {
		if p.stage == 2 {
			apply("stage 1 before "+p.point, 1)
		}
		if err := os.WriteFile(filepath.Join(shared, sim.GPFSHoldFile), []byte(p.point), 0o644); err != nil {
			t.Fatal(err)
		}
		held := filepath.Join(shared, sim.GPFSHeldFile)
		t0 := time.Now()
		killed := killWhen(t, cli, func() bool { _, err := os.Stat(held); return err == nil }, fmt.Sprintf("-var=stage=%d", p.stage))
		// The held command ends with its agent (the connection closed).
		waitGone(t, held, killed)
		if err := os.Remove(filepath.Join(shared, sim.GPFSHoldFile)); err != nil {
			t.Fatal(err)
		}
		before := len(r.ranOn(t, "nsd1"))
		t1 := time.Now()
		apply(fmt.Sprintf("kill %d (%s): the re-apply", i+1, p.point), p.stage)
		t.Logf("kill %d at %s after %s; the re-apply took %s", i+1, p.point, t1.Sub(t0).Round(100*time.Millisecond),
			time.Since(t1).Round(100*time.Millisecond))
		if out, code := cli.run("plan", "-detailed-exitcode", fmt.Sprintf("-var=stage=%d", p.stage)); code != 0 {
			t.Fatalf("kill %d (%s): the plan after the re-apply is not empty (exit %d):\n%s", i+1, p.point, code, out)
		}
		rerun := map[string]int{}
		for _, argv := range r.ranOn(t, "nsd1")[before:] {
			rerun[filepath.Base(argv[0])]++
		}
		if got := rerun[p.tool]; (got == 1) != p.sent || got > 1 {
			t.Errorf("kill %d (%s): the re-apply ran %s %d times, want %v", i+1, p.point, p.tool, got, p.sent)
		}
		st := simState()
		var names []string
		for _, n := range st.NSDs {
			if n.FS != "fs1" {
				t.Errorf("kill %d (%s): NSD %s not in fs1", i+1, p.point, n.Name)
			}
			names = append(names, n.Name)
		}
		want := []string{"k_d01", "k_d02"}[:p.stage]
		if !slices.Equal(names, want) || len(st.FS) != 1 {
			t.Errorf("kill %d (%s): NSDs %v (want %v), %d file systems", i+1, p.point, names, want, len(st.FS))
		}
		if p.stage == 2 {
			if len(st.FS) == 1 && st.FS[0].Restriped != 1 {
				t.Errorf("kill %d (%s): fs1 restriped %d times, want once", i+1, p.point, st.FS[0].Restriped)
			}
			if rerun["mmrestripefs"] != 1 {
				t.Errorf("kill %d (%s): the re-apply ran mmrestripefs %d times, want once", i+1, p.point, rerun["mmrestripefs"])
			}
			rec, _ := os.ReadFile(filepath.Join(r.root(t, "nsd1"), strings.TrimPrefix(gpfs.RebalanceFile(gpfsPath("fs-fs1")), "/")))
			if len(rec) != 0 {
				t.Errorf("kill %d (%s): rebalance record left: %q", i+1, p.point, rec)
			}
		}
		apply(fmt.Sprintf("kill %d (%s): back to stage 0", i+1, p.point), 0)
	}

	// The rolling restart of a value read at daemon start (workerThreads,
	// every node): killed once the first node (mgmt) is down. The re-apply
	// restarts every node of the record, one at a time, and leaves no lock.
	if err := os.WriteFile(filepath.Join(shared, sim.GPFSHoldFile), []byte("mmshutdown:done"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(shared, sim.GPFSHeldFile)
	killed := killWhen(t, cli, func() bool { _, err := os.Stat(held); return err == nil }, "-var=threads=1024")
	waitGone(t, held, killed)
	if err := os.Remove(filepath.Join(shared, sim.GPFSHoldFile)); err != nil {
		t.Fatal(err)
	}
	before := len(r.ranOn(t, "nsd1"))
	if out, code := cli.run("apply", "-auto-approve", "-var=threads=1024"); code != 0 {
		t.Fatalf("kill during the rolling restart: the re-apply failed (exit %d):\n%s", code, out)
	}
	if out, code := cli.run("plan", "-detailed-exitcode", "-var=threads=1024"); code != 0 {
		t.Fatalf("kill during the rolling restart: the plan after the re-apply is not empty (exit %d):\n%s", code, out)
	}
	var restarted []string
	for _, argv := range r.ranOn(t, "nsd1")[before:] {
		if filepath.Base(argv[0]) == "mmstartup" {
			restarted = append(restarted, strings.Join(argv[1:], " "))
		}
	}
	for _, n := range []string{"nsd1", "nsd2"} {
		if !slices.Contains(restarted, "-N "+n) {
			t.Errorf("kill during the rolling restart: the re-apply did not restart %s (mmstartup runs %v)", n, restarted)
		}
	}
	states, err := gpfs.ParseStates(r.mm(t, "nsd1", true, "mmgetstate", "-a", "-Y"))
	for n, st := range states {
		if st != "active" || err != nil {
			t.Errorf("kill during the rolling restart: %s is %s (%v)", n, st, err)
		}
	}
	if classes, _ := gpfs.ParseNodeClasses(r.mm(t, "nsd1", true, "mmlsnodeclass", "-Y")); len(classes) != 0 {
		t.Errorf("kill during the rolling restart: node classes (a lock?) left: %v", classes)
	}
	rec, _ := os.ReadFile(filepath.Join(r.root(t, "nsd1"), strings.TrimPrefix(gpfsPath("cluster-r5", "restart.pending"), "/")))
	if strings.TrimSpace(string(rec)) != "" {
		t.Errorf("kill during the rolling restart: restart record left: %q", rec)
	}
}

// waitGone waits until the held command released its hold file (it ends
// when its agent does); killed is the killed run's output, for the error.
func waitGone(t *testing.T, held, killed string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(held); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the held command did not end with its session:\n%s", killed)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
