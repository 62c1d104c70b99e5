package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// TestR3ModuleExample applies examples/r3 (three beegfs-building-block
// modules, each carving its EF600 over SANtricity) with the real Terraform
// CLI to a fresh R3 lab: every volume mapped to both file nodes of its
// block and seen in their roots by WWN, targets formatted with the stripe
// geometry of their group and mounted, services running; the second plan
// is empty; the six file nodes are on per their BMCs; destroy leaves the
// arrays and nodes bare.
func TestR3ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R3 design")
	}
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r3", Dir: filepath.Join(dir, "lab"), Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, file, _, _ := runtime.Caller(0)
	examples := filepath.Join(filepath.Dir(file), "..", "examples")
	for _, d := range []string{"r3", "modules/beegfs-building-block"} {
		if err := os.CopyFS(filepath.Join(dir, "examples", d), os.DirFS(filepath.Join(examples, d))); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "examples", "r3")
	if err := os.Symlink(filepath.Join(dir, "lab", lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
		t.Fatal(err)
	}
	ri := serveAs(t, "registry.terraform.io/hpcstorage/hpcstorage")
	tf, err := tfexec.NewTerraform(cfg, tfPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.tfrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": filepath.Join(dir, "empty.tfrc")})
	// The endpoints' passwords (BMCs and EF600s) come from the lab's
	// lab.env, as in CI; the provider runs in this process.
	envFile, err := os.ReadFile(filepath.Join(dir, "lab", lab.EnvFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(envFile)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		t.Setenv(k, v)
	}
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R3 apply: %s", time.Since(start).Round(time.Second))
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}

	// Per node: array volumes seen, formats, mounts. Base (block 1): mgmt,
	// 4 metadata and 8 storage volumes, mgmt on node1; metadata_storage
	// (2): 4 + 8; storage (3): 8 on two RAID6 10+2 groups.
	want := map[string][3]int{
		"bb1-node1": {13, 7, 7}, "bb1-node2": {13, 6, 6},
		"bb2-node1": {12, 6, 6}, "bb2-node2": {12, 6, 6},
		"bb3-node1": {8, 4, 4}, "bb3-node2": {8, 4, 4},
	}
	_, nodes, err := lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		w, ok := want[n.Name]
		if !ok {
			continue
		}
		delete(want, n.Name)
		if got := [3]int{len(n.Disks), len(n.Formats), len(n.Mounts)}; got != w {
			t.Errorf("%s: volumes, formats, mounts = %v, want %v", n.Name, got, w)
		}
		joined := strings.Join(n.Services, " ")
		if !strings.Contains(joined, "beegfs-storage") {
			t.Errorf("%s: no storage service in %v", n.Name, n.Services)
		}
		if n.Name == "bb1-node1" && !strings.Contains(joined, "beegfs-mgmtd") {
			t.Errorf("bb1-node1: no mgmtd in %v", n.Services)
		}
		if strings.HasPrefix(n.Name, "bb3") && strings.Contains(joined, "beegfs-meta") {
			t.Errorf("%s (storage block) runs metadata: %v", n.Name, n.Services)
		}
		sw := "sw=8 "
		if strings.HasPrefix(n.Name, "bb3") {
			sw = "sw=10 "
		}
		stripes := 0
		for _, f := range n.Formats {
			if strings.Contains(f, "su=512k,"+sw) {
				stripes++
			}
		}
		if stripes != 4 {
			t.Errorf("%s: %d storage formats with su=512k,%s, want 4: %v", n.Name, stripes, sw, n.Formats)
		}
	}
	if len(want) != 0 {
		t.Errorf("nodes missing from the lab status: %v", want)
	}
	out, err := tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids map[string][]int
	if err := json.Unmarshal(out["storage_target_ids"].Value, &ids); err != nil {
		t.Fatal(err)
	}
	if len(ids["bb1-node1"]) != 4 || ids["bb1-node1"][0] != 1001 || len(ids["bb3-node2"]) != 4 || ids["bb3-node2"][0] != 3002 {
		t.Errorf("storage target ids %v", ids)
	}
	var layoutText string
	if err := json.Unmarshal(out["array_layout"].Value, &layoutText); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ef600-1 (block 1, base)", "meta01 RAID10 (4 drives)", "stor_01_01", "ef600-3 (block 3, storage)"} {
		if !strings.Contains(layoutText, s) {
			t.Errorf("array_layout output lacks %q:\n%s", s, layoutText)
		}
	}

	var bmcs string
	if err := json.Unmarshal(out["bmc_summary"].Value, &bmcs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(bmcs, "\n"); len(lines) != 6 || strings.Count(bmcs, "power On") != 6 || !strings.Contains(bmcs, "bb3-node2") {
		t.Errorf("bmc_summary: want the six file nodes powered on:\n%s", bmcs)
	}

	if err := tf.Destroy(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	_, nodes, err = lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if len(n.Disks) != 0 || len(n.Mounts) != 0 || strings.Contains(strings.Join(n.Services, " "), "beegfs") {
			t.Errorf("%s after destroy: volumes %v mounts %v services %v", n.Name, n.Disks, n.Mounts, n.Services)
		}
	}
	for _, srv := range l.ESeries() {
		c, err := santricity.New(santricity.Config{Name: "check", URL: srv.URL, Username: srv.Username, Password: srv.Password, CACertPEM: srv.CAPEM()})
		if err != nil {
			t.Fatal(err)
		}
		if held, err := eseriesHolds(ctx, c); err != nil || held != "" {
			t.Errorf("%s after destroy holds %q (%v)", srv.Service.Spec().Name, held, err)
		}
		_ = c.Close(ctx)
	}
}
