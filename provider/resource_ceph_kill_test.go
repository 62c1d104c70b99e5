//go:build faults

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// cephKillConfig is the ceph-rbd module on a small part of the r4 lab:
// mon1, osd1 and osd2 (22 NVMe each), client01 mapping three images.
const cephKillConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
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

variable "images_per_client" {
  type    = number
  default = 3
}

module "ceph" {
  source = "../modules/ceph-rbd"
  mons   = { mon1 = { host = var.lab.nodes["mon1"].host, addr = "10.40.0.1" } }
  osd_nodes = { for i in [1, 2] : "osd${i}" => {
    host = var.lab.nodes["osd${i}"].host, addr = "10.40.0.${10 + i}", bmc = var.lab.nodes["osd${i}"].bmc
  } }
  clients           = { client01 = { host = var.lab.nodes["client01"].host } }
  public_network    = "10.40.0.0/24"
  cluster_network   = "10.41.0.0/24"
  pool_size         = 2
  images_per_client = var.images_per_client
}
`

// labQuery runs a read-only command on a lab root through its simulators;
// ok is false when it fails (the cluster may not exist yet).
func labQuery(root string, argv ...string) (string, bool) {
	r, err := fsroot.Open(root)
	if err != nil {
		return "", false
	}
	defer r.Close()
	out, code, err := runner.Sim{Root: r}.Query(context.Background(), argv...)
	return out, err == nil && code == 0
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestR4ApplyKilled kills terraform and its provider (SIGKILL to the
// process group) at points of the R4 create: right after cephadm bootstrap,
// with cephadm's key on an OSD host, with the OSD hosts added, with the OSD
// spec written, with the OSDs made, during the pool's creation and during
// the images' creation. Each point starts on a fresh lab. After each kill
// one plain apply converges, the next plan is empty, and nothing is made
// twice: the cluster keeps the fsid it had at the kill (no second
// bootstrap), one monitor, 22 OSDs per host, one pool, three images,
// mapped once. The last run is destroyed: the OSD spec's file goes, its
// OSDs stay, the pool goes.
func TestR4ApplyKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs R4 applies")
	}
	t.Parallel()
	needAgent(t)
	dir := t.TempDir()
	labDir := filepath.Join(dir, "lab")
	cfg := copyExample(t, dir, "r4", "modules/ceph-rbd")
	if err := os.WriteFile(filepath.Join(cfg, "main.tf"), []byte(cephKillConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	state := startStateServer(t)
	backend := fmt.Sprintf("terraform {\n  backend \"http\" {\n    address = %q\n  }\n}\n", state.url)
	if err := os.WriteFile(filepath.Join(cfg, "backend.tf"), []byte(backend), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := pluginCLIIn(t, dir, cfg)
	baseEnv := cli.env
	const arg = "-var=images_per_client=3"

	var roots map[string]string
	file := func(node, p string) string { return filepath.Join(roots[node], p) }
	pub := func() string {
		b, _ := os.ReadFile(file("mon1", "etc/ceph/ceph.pub"))
		return strings.TrimSpace(string(b))
	}
	points := []struct {
		name string
		at   func() bool
	}{
		{"cephadm bootstrap done", func() bool { return exists(file("mon1", ceph.AdminKeyring[1:])) }},
		{"cephadm's key on osd1", func() bool {
			b, _ := os.ReadFile(file("osd1", "root/.ssh/authorized_keys"))
			k := pub()
			return k != "" && strings.Contains(string(b), k)
		}},
		{"osd2 added", func() bool {
			out, ok := labQuery(roots["mon1"], "ceph", "orch", "host", "ls", "--format", "json")
			return ok && strings.Contains(out, `"osd2"`)
		}},
		{"OSD spec written", func() bool { return exists(file("mon1", ceph.SpecPath("osd.nvme")[1:])) }},
		{"OSDs made", func() bool {
			out, ok := labQuery(roots["mon1"], "ceph", "osd", "ls", "-f", "json")
			return ok && strings.TrimSpace(out) != "[]" && strings.TrimSpace(out) != ""
		}},
		{"pool being created", func() bool { return exists(file("mon1", "etc/ceph/hpcstorage/owned/pool/rbd")) }},
		{"images being created", func() bool {
			m, _ := filepath.Glob(file("mon1", "etc/ceph/hpcstorage/owned/image.rbd/*"))
			return len(m) > 0
		}},
	}
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	for i, p := range points {
		last := i == len(points)-1
		if err := os.RemoveAll(labDir); err != nil {
			t.Fatal(err)
		}
		l, err := lab.Up(lab.Config{Design: "r4", Dir: labDir, Clients: 1, Simulator: simtest.Binary(t), PowerDelay: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		roots = map[string]string{}
		for _, n := range l.State.Nodes {
			roots[n.Name] = n.Root
		}
		cli.env = append([]string(nil), baseEnv...)
		for k, v := range labEnv(t, labDir) {
			cli.env = append(cli.env, k+"="+v)
		}
		state.clear()

		t0 := time.Now()
		out := killWhen(t, cli, p.at, arg)
		fsid, _ := labQuery(roots["mon1"], "ceph", "fsid")
		t1 := time.Now()
		again, code := cli.run("apply", "-auto-approve", arg)
		if code != 0 {
			l.Close()
			t.Fatalf("kill %d (%s): the next apply failed (exit %d):\n%s\nkilled run:\n%s", i+1, p.name, code, again, out)
		}
		t.Logf("kill %d at %q after %s; the re-apply took %s", i+1, p.name, t1.Sub(t0).Round(100*time.Millisecond),
			time.Since(t1).Round(100*time.Millisecond))
		if plan, code := cli.run("plan", "-detailed-exitcode", arg); code != 0 {
			l.Close()
			t.Fatalf("kill %d (%s): the plan after the re-apply is not empty (exit %d):\n%s", i+1, p.name, code, plan)
		}
		checkConvergedOnce(t, fmt.Sprintf("kill %d (%s)", i+1, p.name), roots, strings.TrimSpace(fsid))
		if last {
			if out, code := cli.run("destroy", "-auto-approve", arg); code != 0 {
				l.Close()
				t.Fatalf("destroy: exit %d\n%s", code, out)
			}
			if exists(file("mon1", ceph.SpecPath("osd.nvme")[1:])) {
				t.Error("destroy left the OSD spec's file")
			}
			if osds, _ := labQuery(roots["mon1"], "ceph", "osd", "ls", "-f", "json"); strings.Count(osds, ",") != 43 {
				t.Errorf("destroy must keep the OSDs: %s", osds)
			}
			if pools, _ := labQuery(roots["mon1"], "ceph", "osd", "pool", "ls"); strings.Contains(pools, "rbd") {
				t.Errorf("destroy left pool rbd: %s", pools)
			}
		}
		l.Close()
	}
}

// checkConvergedOnce checks that the cluster holds each object once: the
// fsid seen at the kill (when there was a cluster), one monitor, 22 OSDs on
// each OSD host, one pool rbd, three images, each mapped once on client01.
func checkConvergedOnce(t *testing.T, what string, roots map[string]string, fsid string) {
	t.Helper()
	q := func(node string, argv ...string) string {
		out, ok := labQuery(roots[node], argv...)
		if !ok {
			t.Fatalf("%s: %s: %q failed: %s", what, node, argv, out)
		}
		return out
	}
	if now := strings.TrimSpace(q("mon1", "ceph", "fsid")); fsid != "" && now != fsid {
		t.Errorf("%s: the cluster is %s, was %s at the kill: bootstrapped twice", what, now, fsid)
	}
	var mon struct {
		Mons []struct{ Name string } `json:"mons"`
	}
	if err := json.Unmarshal([]byte(q("mon1", "ceph", "mon", "dump", "-f", "json")), &mon); err != nil || len(mon.Mons) != 1 {
		t.Errorf("%s: monitors %+v %v", what, mon, err)
	}
	var tree struct {
		Nodes []struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Children []int  `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(q("mon1", "ceph", "osd", "tree", "-f", "json")), &tree); err != nil {
		t.Fatal(err)
	}
	osds := 0
	for _, n := range tree.Nodes {
		if n.Type == "osd" {
			osds++
		}
		if n.Type == "host" && len(n.Children) != 22 {
			t.Errorf("%s: host %s has %d OSDs, want 22", what, n.Name, len(n.Children))
		}
	}
	if osds != 44 {
		t.Errorf("%s: %d OSDs, want 44", what, osds)
	}
	var pools []struct {
		Name string `json:"pool_name"`
	}
	if err := json.Unmarshal([]byte(q("mon1", "ceph", "osd", "pool", "ls", "detail", "-f", "json")), &pools); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pools {
		if p.Name == "rbd" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%s: pools %+v", what, pools)
	}
	var imgs []struct {
		Image string `json:"image"`
	}
	if err := json.Unmarshal([]byte(q("mon1", "rbd", "ls", "-l", "--format", "json", "rbd")), &imgs); err != nil || len(imgs) != 3 {
		t.Errorf("%s: images %+v %v", what, imgs, err)
	}
	var mapped []struct{ Pool, Name, Device string }
	if err := json.Unmarshal([]byte(q("client01", "rbd", "showmapped", "--format", "json")), &mapped); err != nil || len(mapped) != 3 {
		t.Errorf("%s: client01 maps %+v %v", what, mapped, err)
	}
}
