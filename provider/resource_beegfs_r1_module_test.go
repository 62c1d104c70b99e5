package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// serveAs serves the provider in-process under the address the examples
// use, for terraform-exec (the plugin-testing framework cannot hold a
// module's state). The provider reads the endpoints' variables from env
// first (a lab's lab.env, as CI would export it), then from the process:
// tests serving different labs can run in parallel.
func serveAs(t *testing.T, addr string, env map[string]string) tfexec.ReattachInfo {
	t.Helper()
	p := &hpcstorageProvider{version: "test"}
	if env != nil {
		p.hooks.env = func(k string) (string, bool) {
			if v, ok := env[k]; ok {
				return v, true
			}
			return os.LookupEnv(k)
		}
	}
	ri, stop := serveProviderAt(t, addr, p)
	t.Cleanup(stop)
	return ri
}

// TestR1ModuleExample applies examples/r1 (the beegfs-high-capacity module)
// with the real Terraform CLI to a fresh R1 lab: arrays carved, volumes
// mapped and cabled, targets formatted and mounted, services running; the
// second plan is empty; destroy brings the arrays and nodes back.
func TestR1ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	// One-second power transitions: the day-2 step reboots every server.
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 2, Simulator: simtest.Binary(t), PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r1", "modules/beegfs-high-capacity")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R1 apply: %s", time.Since(start).Round(time.Second))
	changes, err := tf.Plan(ctx, tfexec.Reattach(ri))
	if err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}

	_, nodes, err := lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	// Array volumes seen, formats, mounts. With HA each target is formatted
	// once on its preferred server and mounted by the cluster only (no
	// fstab mount); the client has its BeeGFS mount.
	want := map[string][3]int{
		"meta1": {12, 6, 0}, "meta2": {12, 6, 0}, "stor1": {32, 16, 0}, "stor2": {32, 16, 0}, "client01": {0, 0, 1},
	}
	for _, n := range nodes {
		w, ok := want[n.Name]
		if !ok {
			continue
		}
		if got := [3]int{len(n.Disks), len(n.Formats), len(n.Mounts)}; got != w {
			t.Errorf("%s: volumes, formats, mounts = %v, want %v", n.Name, got, w)
		}
		joined := strings.Join(n.Services, " ")
		switch {
		case n.Name != "client01" && strings.Contains(joined, "beegfs-"):
			t.Errorf("%s: BeeGFS units running or enabled outside the cluster: %v", n.Name, n.Services)
		case n.Name == "client01" && !strings.Contains(joined, "beegfs-client.service"):
			t.Errorf("client01 services %v", n.Services)
		}
		for _, f := range n.Formats {
			if strings.HasPrefix(n.Name, "stor") && !strings.HasPrefix(f, "mkfs.xfs -q -d su=512k,sw=8 ") {
				t.Errorf("%s format %q", n.Name, f)
			}
		}
	}
	// beegfs-mon on the management server, pointed at mgmtd on meta1.
	for _, n := range nodes {
		if n.Name != "mgmt" {
			continue
		}
		if joined := strings.Join(n.Services, " "); !strings.Contains(joined, "beegfs-mon.service") || strings.Contains(joined, "beegfs-meta") {
			t.Errorf("mgmt services %v, want beegfs-mon and no metadata instance", n.Services)
		}
		r := &r1Lab{Lab: l}
		b := []byte(r.read(t, "mgmt", "etc/beegfs/beegfs-mon.conf"))
		for k, v := range map[string]string{"sysMgmtdHost": "10.100.0.1", "dbHostName": "localhost", "dbHostPort": "8086", "dbDatabase": "beegfs_mon", "dbAuthFile": ""} {
			if !confKey(k, v).Match(b) {
				t.Errorf("mgmt beegfs-mon.conf lacks %s = %s:\n%s", k, v, b)
			}
		}
	}
	out, err := tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var services map[string][]string
	if err := json.Unmarshal(out["services"].Value, &services); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(services["mgmt"], " "); got != "beegfs-mon" {
		t.Errorf("services output for mgmt %q, want beegfs-mon", got)
	}
	// Every group on its preferred server: mgmtd and server A's metadata
	// instances on meta1, B's on meta2, each storage service on its server.
	var groupsText string
	if err := json.Unmarshal(out["beegfs_groups"].Value, &groupsText); err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, l := range strings.Split(strings.TrimSpace(groupsText), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			t.Errorf("beegfs_groups line %q", l)
			continue
		}
		want := map[bool]string{true: "meta1", false: "meta2"}[f[0] == "mgmt" || strings.HasPrefix(f[0], "metaA")]
		if strings.HasPrefix(f[0], "stor") {
			want = f[0]
		}
		if f[2] != want {
			t.Errorf("%s runs on %s, want %s", f[0], f[2], want)
		}
		placed++
	}
	if placed != 15 {
		t.Errorf("%d groups placed, want 15 (mgmtd, 12 metadata, 2 storage):\n%s", placed, groupsText)
	}
	r := &r1Lab{Lab: l}
	if !confKey("sysSessionChecksEnabled", "false").Match([]byte(r.read(t, "client01", "etc/beegfs/beegfs-client.conf"))) {
		t.Error("the client of the HA file system keeps session checks on")
	}
	// stor1 fails (power-cycled through its BMC): stor2 fences it and
	// starts stor1's group (its 16 target mounts and the service); stor1
	// boots and joins again. The next plan shows the fencing (and, while
	// stickiness keeps the group on stor2, that it is away from home); the
	// apply cleans the history up and moves the group back: then the plan
	// is empty.
	bmc := ""
	for _, n := range l.State.Nodes {
		if n.Name == "stor1" {
			bmc = n.BMC
		}
	}
	bmcPowerCycle(t, l, "stor1", labEnv(t, filepath.Join(dir, "lab"))[lab.PasswordEnv(bmc)])
	trLog, err := os.ReadFile(filepath.Join(dir, "lab", lab.SharedDir, "pacemaker-beegfs-storage", "transitions.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(trLog), "Fencing stor1") || !regexp.MustCompile(`stor1-fs16\s+start on stor2`).Match(trLog) ||
		!regexp.MustCompile(`stor1-service\s+start on stor2`).Match(trLog) {
		t.Errorf("stor1's failure: not fenced, or its group not started on stor2:\n%s", trLog)
	}
	failPlan := filepath.Join(dir, "failover.tfplan")
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Out(failPlan)); err != nil || !changes {
		t.Fatalf("plan after stor1's failover: changes %v, err %v (want the fencing shown)", changes, err)
	}
	shown, err := tf.ShowPlanFile(ctx, failPlan, tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range shown.ResourceChanges {
		if rc.Change.Actions.NoOp() {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		drift, _ := before["drift"].(map[string]any)
		if rc.Address != `module.r1.hpcstorage_ha_cluster.this["beegfs-storage"]` || !rc.Change.Actions.Update() {
			t.Errorf("after stor1's failover the plan changes %s (%v)", rc.Address, rc.Change.Actions)
		} else if h, _ := drift["fence_history"].(string); !strings.HasPrefix(h, "reboot of stor1: success, by stor2") {
			t.Errorf("the storage cluster's drift does not show stor1's fencing: %v", drift)
		}
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply after stor1's failover: %v", err)
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Errorf("plan after the cleanup: changes %v, err %v", changes, err)
	}
	if hist := r.simQuery(t, "stor2", "stonith_admin", "--history", "*"); strings.TrimSpace(hist) != "" {
		t.Errorf("fence history after the cleanup apply: %q", hist)
	}
	var drawers string
	if err := json.Unmarshal(out["storage_drawers"].Value, &drawers); err != nil {
		t.Fatal(err)
	}
	spares := 0
	for _, line := range strings.Split(drawers, "\n") {
		if _, cells, ok := strings.Cut(line, "|"); ok {
			for _, c := range strings.Fields(cells) {
				if c == "S" {
					spares++
				}
			}
		}
	}
	if spares != 4 {
		t.Errorf("ME4084 drawers show %d spares, want 4:\n%s", spares, drawers)
	}

	// Day 2: a BIOS profile for every server of the running design. Each
	// HA pair is a failure domain: one member at a time, in standby while
	// it reboots; the management server goes alone.
	pr, err := lab.StartProbe(filepath.Join(dir, "lab"), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	const profile = `bios_attributes={LogicalProc="Disabled",SubNumaCluster="Disabled"}`
	start = time.Now()
	err = tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(profile))
	reports := pr.Stop()
	if err != nil {
		t.Fatalf("day-2 BIOS apply: %v", err)
	}
	t.Logf("R1 day-2 BIOS change: %s", time.Since(start).Round(100*time.Millisecond))
	for _, c := range []string{"beegfs-meta", "beegfs-storage"} {
		rep := reports[c]
		t.Logf("%s", rep)
		if rep.MaxOut != 1 || len(rep.Order) != 2 {
			t.Errorf("%s: %d members out at once, out in order %v: want each of the pair alone", c, rep.MaxOut, rep.Order)
		}
		if id, d := rep.Longest(); d >= time.Second {
			t.Errorf("%s: %s unserved for %s", c, id, d)
		}
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(profile)); err != nil || changes {
		t.Fatalf("plan after the day-2 BIOS change: changes %v, err %v", changes, err)
	}

	// Day 2: a beegfs-storage.conf option on both storage servers. The
	// cluster starts the services, which read it only then: each storage
	// server takes it in standby, one at a time, and the failback starts
	// its services again with it.
	const workers = `storage_settings={tuneNumWorkers="24"}`
	var planOut bytes.Buffer
	tf.SetStdout(&planOut)
	changes, err = tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(profile), tfexec.Var(workers))
	tf.SetStdout(io.Discard)
	if err != nil || !changes {
		t.Fatalf("day-2 storage settings plan: changes %v, err %v", changes, err)
	}
	for _, n := range []string{"stor1", "stor2"} {
		if want := n + " Restarts In Failure Domain beegfs-storage"; !strings.Contains(planOut.String(), want) {
			t.Errorf("the plan does not say %q", want)
		}
	}
	pr, err = lab.StartProbe(filepath.Join(dir, "lab"), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	err = tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(profile), tfexec.Var(workers))
	rep := pr.Stop()["beegfs-storage"]
	if err != nil {
		t.Fatalf("day-2 storage settings apply: %v", err)
	}
	t.Logf("R1 day-2 storage settings: %s", rep)
	if rep.MaxOut != 1 || !slices.Equal(rep.Order, []string{"stor1", "stor2"}) {
		t.Errorf("beegfs-storage: %d members out at once, in order %v: want stor1 then stor2, alone", rep.MaxOut, rep.Order)
	}
	if id, d := rep.Longest(); d >= time.Second {
		t.Errorf("beegfs-storage: %s unserved for %s", id, d)
	}
	for _, n := range []string{"stor1", "stor2"} {
		confs, _ := filepath.Glob(filepath.Join(labRoot(t, l, n), "etc/beegfs/*.d/beegfs-storage.conf"))
		found := 0
		for _, c := range confs {
			if b, err := os.ReadFile(c); err == nil && regexp.MustCompile(`(?m)^tuneNumWorkers\s*=\s*24$`).Match(b) {
				found++
			}
		}
		if len(confs) == 0 || found != len(confs) {
			t.Errorf("%s: %d of %d storage configs hold tuneNumWorkers = 24", n, found, len(confs))
		}
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(profile), tfexec.Var(workers)); err != nil || changes {
		t.Fatalf("plan after the day-2 storage settings: changes %v, err %v", changes, err)
	}

	if err := tf.Destroy(ctx, tfexec.Reattach(ri), tfexec.Var(profile), tfexec.Var(workers)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	_, nodes, err = lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if len(n.Disks) != 0 || len(n.Mounts) != 0 || len(n.Owners) != 0 || strings.Contains(strings.Join(n.Services, " "), "beegfs") {
			t.Errorf("%s after destroy: volumes %v mounts %v owners %v services %v", n.Name, n.Disks, n.Mounts, n.Owners, n.Services)
		}
	}
}

// TestBuildingBlockModule applies two R3 building blocks to lab nodes: a
// base block (mgmtd, metadata, storage) on the storage servers and a
// storage-only block on the metadata servers, with volumes carved on the
// lab's arrays.
func TestBuildingBlockModule(t *testing.T) {
	if testing.Short() {
		t.Skip("applies two building blocks")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	vol := func(array, name, raid string, first, n int, hosts ...string) string {
		var drives []string
		for d := first; d < first+n; d++ {
			drives = append(drives, fmt.Sprintf("0.%d", d))
		}
		w, err := l.ProvisionVolume(lab.VolumeRequest{Array: array, Pool: name, RAID: raid, Drives: drives, Volume: name,
			SegmentBytes: 512 << 10, Hosts: hosts, LUN: first + 1})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// Block 1 (base) on stor1/stor2: 2 metadata and 4 storage volumes.
	b1meta := []string{vol("me4084-1", "m1", "RAID1", 0, 2, "stor1", "stor2"), vol("me4084-1", "m2", "RAID1", 2, 2, "stor1", "stor2")}
	var b1st []string
	for i := 0; i < 4; i++ {
		b1st = append(b1st, vol("me4084-2", fmt.Sprintf("s%d", i), "RAID6", 10*i, 10, "stor1", "stor2"))
	}
	// Block 2 (storage) on meta1/meta2: 2 volumes.
	b2st := []string{vol("me4024-1", "s1", "RAID6", 0, 10, "meta1", "meta2"), vol("me4024-1", "s2", "RAID6", 10, 10, "meta1", "meta2")}
	node := func(name string) string {
		for _, n := range l.State.Nodes {
			if n.Name == name {
				return n.Host
			}
		}
		t.Fatalf("no node %s", name)
		return ""
	}
	_, file, _, _ := runtime.Caller(0)
	mod := filepath.Join(filepath.Dir(file), "..", "examples", "modules", "beegfs-building-block")
	cfg := fmt.Sprintf(`
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

provider "hpcstorage" {
  ssh = {
    private_key_file  = %[1]q
    known_hosts_files = [%[2]q]
  }
}

module "blocks" {
  source = %[3]q
  blocks = [
    {
      name             = "base"
      profile          = "base"
      servers          = [{ name = "stor1", host = %[4]q }, { name = "stor2", host = %[5]q }]
      metadata_volumes = [{ wwn = %[8]q, server = 0 }, { wwn = %[9]q, server = 1 }]
      storage_volumes  = [for i, w in %[10]s : { wwn = w, server = i %% 2 }]
    },
    {
      name            = "storage"
      profile         = "storage"
      servers         = [{ name = "meta1", host = %[6]q }, { name = "meta2", host = %[7]q }]
      storage_volumes = [for i, w in %[11]s : { wwn = w, server = i }]
    },
  ]
  ha                    = false
  conn_auth_secret_file = %[12]q
}

output "ids" {
  value = module.blocks.storage_target_ids
}
`, filepath.Join(dir, "lab", lab.KeyFile), filepath.Join(dir, "lab", lab.KnownHostsFile), mod,
		node("stor1"), node("stor2"), node("meta1"), node("meta2"), b1meta[0], b1meta[1],
		hclList(b1st), hclList(b2st), filepath.Join(dir, "lab", lab.SecretFile))
	work := filepath.Join(dir, "cfg")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, ri := labTerraform(t, tfPath, dir, work)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	out, err := tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids bytes.Buffer
	if err := json.Compact(&ids, out["ids"].Value); err != nil {
		t.Fatal(err)
	}
	if got, want := ids.String(), `{"meta1":[2001],"meta2":[2002],"stor1":[1001,1003],"stor2":[1002,1004]}`; got != want {
		t.Errorf("target ids %s, want %s", got, want)
	}
	_, nodes, err := lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		units := strings.Join(n.Services, " ")
		switch n.Name {
		case "stor1":
			if !strings.Contains(units, "beegfs-mgmtd") || !strings.Contains(units, "beegfs-meta@b01-metaA-numa0-1") || len(n.Mounts) != 3 {
				t.Errorf("stor1: units %s, mounts %v", units, n.Mounts)
			}
		case "meta2":
			if strings.Contains(units, "beegfs-meta") || !strings.Contains(units, "beegfs-storage") || len(n.Mounts) != 1 {
				t.Errorf("meta2: units %s, mounts %v", units, n.Mounts)
			}
		}
	}
	if err := tf.Destroy(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
}

func hclList(l []string) string {
	b, _ := json.Marshal(l)
	return string(b)
}
