package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// r4Lab is examples/r4 in a scratch folder against a fresh r4 lab,
// served by this process's provider.
type r4Lab struct {
	t     testing.TB
	lab   *lab.Lab
	tf    *tfexec.Terraform
	ri    tfexec.ReattachInfo
	roots map[string]string
	cfg   string
}

func newR4Lab(t testing.TB) *r4Lab {
	t.Helper()
	return newR4LabWith(t, 10, "")
}

// newR4LabWith is newR4Lab with clients clients and, when config is not
// empty, config as the work folder's main.tf instead of examples/r4's.
func newR4LabWith(t testing.TB, clients int, config string) *r4Lab {
	t.Helper()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	// Short power transitions: the day-2 roll reboots the OSD hosts in turn.
	l, err := lab.Up(lab.Config{Design: "r4", Dir: filepath.Join(dir, "lab"), Clients: clients, Simulator: simtest.Binary(t), PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	_, file, _, _ := runtime.Caller(0)
	examples := filepath.Join(filepath.Dir(file), "..", "examples")
	for _, d := range []string{"r4", "modules/ceph-rbd"} {
		if err := os.CopyFS(filepath.Join(dir, "examples", d), os.DirFS(filepath.Join(examples, d))); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "examples", "r4")
	if config != "" {
		if err := os.WriteFile(filepath.Join(cfg, "main.tf"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "lab", lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
		t.Fatal(err)
	}
	r := &r4Lab{t: t, lab: l, cfg: cfg, roots: map[string]string{}}
	for _, n := range l.State.Nodes {
		r.roots[n.Name] = n.Root
	}
	// The OSD nodes' BMCs: their passwords from the lab's env file.
	p := &hpcstorageProvider{version: "test"}
	env := labEnv(t, filepath.Join(dir, "lab"))
	p.hooks.env = func(k string) (string, bool) {
		if v, ok := env[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}
	ri, stop := serveProviderAt(t, "registry.terraform.io/hpcstorage/hpcstorage", p)
	t.Cleanup(stop)
	r.ri = ri
	if r.tf, err = tfexec.NewTerraform(cfg, tfPath); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.tfrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": filepath.Join(dir, "empty.tfrc")})
	if err := r.tf.Init(context.Background(), tfexec.Reattach(r.ri)); err != nil {
		t.Fatal(err)
	}
	return r
}

// ceph runs a command on a lab node through the node's simulators, as an
// administrator at its shell would.
func (r *r4Lab) ceph(node string, argv ...string) string {
	r.t.Helper()
	root, err := fsroot.Open(r.roots[node])
	if err != nil {
		r.t.Fatal(err)
	}
	defer root.Close()
	out, code, err := runner.Sim{Root: root}.Query(context.Background(), argv...)
	if err != nil || code != 0 {
		r.t.Fatalf("%s: %q: exit %d %v: %s", node, argv, code, err, out)
	}
	return out
}

// planJSON runs a plan and returns the resource changes' addresses and
// actions, and the error (diagnostics) if the plan failed.
func (r *r4Lab) plan(opts ...tfexec.PlanOption) (map[string]string, error) {
	r.t.Helper()
	planFile := filepath.Join(r.cfg, "plan.out")
	opts = append(opts, tfexec.Reattach(r.ri), tfexec.Out(planFile))
	if _, err := r.tf.Plan(context.Background(), opts...); err != nil {
		return nil, err
	}
	p, err := r.tf.ShowPlanFile(context.Background(), planFile, tfexec.Reattach(r.ri))
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]string{}
	for _, rc := range p.ResourceChanges {
		if !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			out[rc.Address] = fmt.Sprint(rc.Change.Actions)
			before, _ := rc.Change.Before.(map[string]any)
			after, _ := rc.Change.After.(map[string]any)
			for k, v := range after {
				if b, _ := json.Marshal(before[k]); string(b) != fmt.Sprint(mustJSON(v)) {
					r.t.Logf("%s: %s: %s -> %s", rc.Address, k, b, mustJSON(v))
				}
			}
		}
	}
	return out, nil
}

// TestR4ModuleExample applies examples/r4 with the real Terraform CLI to
// the r4 lab: 3 monitors, 88 OSDs (22 NVMe on each of 4 nodes, never the
// boot disks), the size-2 pool, 200 images and each client mapping its 20;
// the next plan is empty; an image shrunk by hand and the pool's size
// changed by hand show as drift and the apply puts them back; an image
// grown by hand is a shrink the plan refuses. The cluster starts with three
// OSD nodes: adding the fourth only adds its 22 OSDs. Destroy unmaps,
// deletes the images and the pool, and takes cephadm's key off the hosts.
func TestR4ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R4 design")
	}
	t.Parallel()
	r := newR4Lab(t)
	ctx := context.Background()
	// Three OSD nodes first; the fourth joins afterwards and only adds
	// its own OSDs.
	start := time.Now()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("osd_nodes=3")); err != nil {
		t.Fatalf("apply with 3 OSD nodes: %v", err)
	}
	t.Logf("R4 apply (3 OSD nodes): %s", time.Since(start).Round(time.Second))
	before := r.osdsByHost()
	if len(before) != 3 || len(before["osd1"]) != 22 || len(before["osd4"]) != 0 {
		t.Fatalf("OSDs with 3 nodes: %v", before)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply with the fourth OSD node: %v", err)
	}
	after := r.osdsByHost()
	for h, ids := range before {
		if fmt.Sprint(after[h]) != fmt.Sprint(ids) {
			t.Errorf("%s: OSDs %v became %v when osd4 joined", h, ids, after[h])
		}
	}
	if len(after["osd4"]) != 22 || after["osd4"][0] != 66 {
		t.Errorf("osd4's OSDs: %v, want 22 numbered from 66", after["osd4"])
	}

	var mon struct {
		Mons   []struct{ Name string } `json:"mons"`
		Quorum []int                   `json:"quorum"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "ceph", "mon", "dump", "-f", "json")), &mon); err != nil || len(mon.Mons) != 3 || len(mon.Quorum) != 3 {
		t.Errorf("mon dump: %+v %v", mon, err)
	}
	var tree struct {
		Nodes []struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Children []int  `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "ceph", "osd", "tree", "-f", "json")), &tree); err != nil {
		t.Fatal(err)
	}
	osds := 0
	for _, n := range tree.Nodes {
		if n.Type == "osd" {
			osds++
		}
		if n.Type == "host" && len(n.Children) != 22 {
			t.Errorf("host %s: %d OSDs", n.Name, len(n.Children))
		}
	}
	if osds != 88 {
		t.Errorf("%d OSDs, want 88", osds)
	}
	var devs []struct {
		Name    string `json:"name"`
		Devices []struct {
			Path       string `json:"path"`
			CephDevice *bool  `json:"ceph_device"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "ceph", "orch", "device", "ls", "--format", "json")), &devs); err != nil {
		t.Fatal(err)
	}
	for _, h := range devs {
		for _, d := range h.Devices {
			if !strings.HasPrefix(d.Path, "/dev/nvme") && d.CephDevice != nil && *d.CephDevice {
				t.Errorf("%s: %s became an OSD", h.Name, d.Path)
			}
		}
	}
	var pools []struct {
		Name    string `json:"pool_name"`
		Size    int    `json:"size"`
		MinSize int    `json:"min_size"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "ceph", "osd", "pool", "ls", "detail", "-f", "json")), &pools); err != nil {
		t.Fatal(err)
	}
	// The manager's own pool (device_health_metrics) sits beside it.
	rbdPools := 0
	for _, p := range pools {
		if p.Name == "rbd" {
			rbdPools++
			if p.Size != 2 || p.MinSize != 1 {
				t.Errorf("pool rbd: %+v", p)
			}
		}
	}
	if rbdPools != 1 {
		t.Errorf("pools: %+v", pools)
	}
	var imgs []struct {
		Image string `json:"image"`
		Size  int64  `json:"size"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "rbd", "ls", "-l", "--format", "json", "rbd")), &imgs); err != nil || len(imgs) != 200 {
		t.Fatalf("rbd ls: %d images %v", len(imgs), err)
	}
	for i := 1; i <= 10; i++ {
		c := fmt.Sprintf("client%02d", i)
		var mapped []struct{ Pool, Name, Device string }
		if err := json.Unmarshal([]byte(r.ceph(c, "rbd", "showmapped", "--format", "json")), &mapped); err != nil || len(mapped) != 20 {
			t.Fatalf("%s showmapped: %d %v", c, len(mapped), err)
		}
		for _, m := range mapped {
			if !strings.HasPrefix(m.Name, c+"-img") || m.Pool != "rbd" {
				t.Errorf("%s maps %s/%s", c, m.Pool, m.Name)
			}
		}
		st, err := os.Stat(filepath.Join(r.roots[c], "etc/ceph/ceph.client."+c+".keyring"))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s keyring: %v %v", c, st, err)
		}
		if rbdmap, _ := os.ReadFile(filepath.Join(r.roots[c], "etc/ceph/rbdmap")); strings.Count(string(rbdmap), "id="+c+",") != 20 {
			t.Errorf("%s rbdmap:\n%s", c, rbdmap)
		}
	}
	state, err := r.tf.Show(ctx, tfexec.Reattach(r.ri))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(state)
	if strings.Contains(string(raw), "AQ") && strings.Contains(string(raw), "key = ") {
		t.Error("a cephx key is in the state")
	}

	if changes, err := r.plan(); err != nil || len(changes) != 0 {
		t.Fatalf("second plan: %v %v", changes, err)
	}

	// Drift: an image shrunk and the pool's size changed, by hand.
	r.ceph("mon1", "rbd", "resize", "rbd/client03-img07", "--size", "51200", "--allow-shrink")
	r.ceph("mon1", "ceph", "osd", "pool", "set", "rbd", "size", "3")
	changes, err := r.plan()
	if err != nil {
		t.Fatal(err)
	}
	if changes["module.ceph.hpcstorage_rbd_images.this"] != "[update]" || changes["module.ceph.hpcstorage_ceph_pool.rbd"] != "[update]" || len(changes) != 2 {
		t.Fatalf("plan after changes by hand: %v", changes)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply putting drift back: %v", err)
	}
	if changes, err := r.plan(); err != nil || len(changes) != 0 {
		t.Fatalf("plan after putting drift back: %v %v", changes, err)
	}
	// An image grown by hand: getting back would shrink it, which the plan
	// refuses, naming the image.
	r.ceph("mon1", "rbd", "resize", "rbd/client05-img02", "--size", "204800")
	if _, err := r.plan(); err == nil || !strings.Contains(err.Error(), "Image Shrink Refused") || !strings.Contains(err.Error(), "client05-img02") {
		t.Fatalf("plan after an image grown by hand: %v", err)
	}

	// The administrator takes the image back, as the error says (destroy
	// plans first too, and would be refused the same way).
	r.ceph("mon1", "rbd", "resize", "rbd/client05-img02", "--size", "102400", "--allow-shrink")

	// Day 2: a BIOS value rolls over the OSD hosts one at a time.
	r4RollingBIOSChange(t, r)

	// Destroy: clients unmapped and their files gone, images and pool
	// deleted, cephadm's key off every host; the cluster itself stays.
	pub := strings.TrimSpace(r.read("mon1", "etc/ceph/ceph.pub"))
	if !strings.Contains(r.read("osd2", "root/.ssh/authorized_keys"), pub) {
		t.Fatal("cephadm's key is not on osd2")
	}
	if err := r.tf.Destroy(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if out := r.ceph("mon1", "ceph", "osd", "pool", "ls", "detail", "-f", "json"); strings.Contains(out, `"pool_name":"rbd"`) ||
		strings.Contains(out, `"pool_name": "rbd"`) {
		t.Errorf("pool left after destroy: %s", out)
	}
	for _, c := range []string{"client01", "client10"} {
		if out := r.ceph(c, "rbd", "showmapped", "--format", "json"); strings.TrimSpace(out) != "[]" {
			t.Errorf("%s still maps %s", c, out)
		}
		if _, err := os.Stat(filepath.Join(r.roots[c], "etc/ceph/ceph.client."+c+".keyring")); err == nil {
			t.Errorf("%s keyring left", c)
		}
	}
	for _, h := range []string{"mon1", "mon2", "osd1", "osd4"} {
		if strings.Contains(r.read(h, "root/.ssh/authorized_keys"), pub) {
			t.Errorf("%s: cephadm's key still authorised", h)
		}
	}
}

// read is a file of a lab node's root ("" when missing).
func (r *r4Lab) read(node, p string) string {
	b, _ := os.ReadFile(filepath.Join(r.roots[node], p))
	return string(b)
}

// osdsByHost reads `ceph osd tree` on mon1: host to its OSD ids.
func (r *r4Lab) osdsByHost() map[string][]int {
	r.t.Helper()
	var tree struct {
		Nodes []struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Children []int  `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(r.ceph("mon1", "ceph", "osd", "tree", "-f", "json")), &tree); err != nil {
		r.t.Fatal(err)
	}
	out := map[string][]int{}
	for _, n := range tree.Nodes {
		if n.Type == "host" {
			ids := append([]int(nil), n.Children...)
			sort.Ints(ids)
			out[n.Name] = ids
		}
	}
	return out
}

// node is the lab node name.
func (r *r4Lab) node(name string) *labnode.Node {
	r.t.Helper()
	for _, n := range r.lab.Nodes().Nodes {
		if n.Name == name {
			return n
		}
	}
	r.t.Fatalf("no lab node %s", name)
	return nil
}
