package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// TestR3ModuleExample applies examples/r3 (the beegfs-building-block
// module with a list of three blocks, each carving its EF600 over
// SANtricity, each block a pacemaker cluster, and a client setting the
// stripe pattern of /data) with the real Terraform CLI to a fresh R3 lab: every volume
// mapped to both file nodes of its block and seen in their roots by WWN,
// targets formatted once on their preferred node with the stripe geometry
// of their group and never mounted through fstab (the cluster mounts
// them), no BeeGFS unit started or enabled by Terraform, every group
// running on its preferred node; the second plan is empty; a node in
// standby moves its groups to the other node of its block and back; a
// group's preferred node changed by hand in the cluster shows as drift and
// is put back; the six file nodes are on per their BMCs; destroy removes
// the groups and leaves the arrays and nodes bare, the format markers kept
// (a target is never wiped).
func TestR3ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R3 design")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	// Power transitions of half a second: the day-2 step reboots every
	// file node.
	l, err := lab.Up(lab.Config{Design: "r3", Clients: 1, Dir: filepath.Join(dir, "lab"), Simulator: simtest.Binary(t),
		PowerDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// The endpoints' passwords (BMCs and EF600s) come from the lab's
	// lab.env, as in CI; the provider runs in this process.
	cfg := copyExample(t, dir, "r3", "modules/beegfs-building-block")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	// Scale-out: the base block first, then two more. Adding blocks only
	// creates (their servers, arrays, targets, services, groups and
	// clusters): nothing of the base block changes, and the stripe pattern
	// of /data, set with one block, stays as it is.
	if err := tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(`blocks=["base"]`)); err != nil {
		t.Fatalf("apply of the base block: %v", err)
	}
	growPlan := filepath.Join(dir, "grow.tfplan")
	if _, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Out(growPlan)); err != nil {
		t.Fatal(err)
	}
	grow, err := tf.ShowPlanFile(ctx, growPlan, tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	creates, pattern := 0, false
	for _, rc := range grow.ResourceChanges {
		if rc.Address == "hpcstorage_beegfs_stripe_pattern.data[0]" {
			pattern = rc.Change.Actions.NoOp()
		}
		switch {
		case rc.Change.Actions.Create():
			creates++
		case !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read():
			t.Errorf("adding blocks 2 and 3 plans %v on %s", rc.Change.Actions, rc.Address)
		}
	}
	if creates == 0 {
		t.Error("adding blocks 2 and 3 plans no creates")
	}
	if !pattern {
		t.Error("the grow plan has no unchanged stripe pattern on /data (hpcstorage_beegfs_stripe_pattern.data[0])")
	}
	for _, rc := range grow.ResourceChanges {
		if rc.Change.Actions.Create() && !strings.Contains(rc.Address, `["bb2"]`) && !strings.Contains(rc.Address, `["bb3"]`) &&
			!strings.Contains(rc.Address, `["bb2-node`) && !strings.Contains(rc.Address, `["bb3-node`) {
			t.Errorf("adding blocks 2 and 3 creates %s, outside the new blocks", rc.Address)
		}
	}
	start := time.Now()
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R3 apply of blocks 2 and 3: %s", time.Since(start).Round(time.Second))
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	groups := func() map[string]string {
		t.Helper()
		out, err := tf.Output(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if err := json.Unmarshal(out["beegfs_groups"].Value, &text); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[1] == "on" {
				m[f[0]] = f[2]
			}
		}
		return m
	}
	// Groups on their preferred nodes: storage A and metadata A instances
	// on node1, mgmtd on bb1-node1.
	placed := groups()
	if len(placed) != 15 {
		t.Errorf("%d groups placed, want 15 (mgmtd, 8 metadata, 6 storage): %v", len(placed), placed)
	}
	for g, n := range placed {
		block := g[1:3]
		want := "bb" + strings.TrimPrefix(block, "0") + "-node1"
		if strings.Contains(g, "metaB") || strings.HasSuffix(g, "storB") {
			want = "bb" + strings.TrimPrefix(block, "0") + "-node2"
		}
		if n != want {
			t.Errorf("%s runs on %q, want %s", g, n, want)
		}
	}

	// Planned maintenance: bb1-node1 in standby. The plan says which
	// groups move; the apply moves them to bb1-node2, the other node of
	// the block; back out of standby, they return.
	standby := tfexec.Var(`standby=["bb1-node1"]`)
	planFile := filepath.Join(dir, "standby.tfplan")
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), standby, tfexec.Out(planFile)); err != nil || !changes {
		t.Fatalf("standby plan: changes %v, err %v", changes, err)
	}
	shown, err := tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	moves, _ := json.Marshal(shown.OutputChanges["standby_moves"])
	for _, g := range []string{"b01-mgmt", "b01-storA", "b01-metaA-numa0-1"} {
		if !strings.Contains(string(moves), g) {
			t.Errorf("the standby plan does not say %s moves: %s", g, moves)
		}
	}
	if strings.Contains(string(moves), "b01-storB") || strings.Contains(string(moves), "b02-") {
		t.Errorf("the standby plan moves groups of other nodes: %s", moves)
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri), standby); err != nil {
		t.Fatalf("standby apply: %v", err)
	}
	for g, n := range groups() {
		if strings.HasPrefix(g, "b01-") && n != "bb1-node2" {
			t.Errorf("with bb1-node1 in standby %s runs on %q", g, n)
		}
		if strings.HasPrefix(g, "b02-") && n != placed[g] {
			t.Errorf("%s moved from %s to %s though its block is untouched", g, placed[g], n)
		}
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatalf("unstandby apply: %v", err)
	}
	for g, n := range groups() {
		if n != placed[g] {
			t.Errorf("after unstandby %s runs on %q, want %s (back home)", g, n, placed[g])
		}
	}
	// By hand in block 1's cluster: a preferred node and a floating IP.
	// Both show in the next plan, and the apply puts them back.
	for _, argv := range [][]string{
		{"cibadmin", "--modify", "--scope", "constraints", "--xml-text", `<rsc_location id="prefer-b01-storA-bb1-node1" rsc="b01-storA" node="bb1-node1" score="0"/>`},
		{"crm_resource", "--resource", "b01-storA-ip", "--set-parameter", "ip", "--parameter-value", "100.127.0.99"},
	} {
		root, err := fsroot.Open(labRoot(t, l, "bb1-node1"))
		if err != nil {
			t.Fatal(err)
		}
		err = runner.Sim{Root: root}.Run(ctx, argv...)
		root.Close()
		if err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || !changes {
			t.Errorf("after %s by hand: plan changes %v, err %v (want the drift shown)", argv[0], changes, err)
		}
		if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
			t.Fatalf("apply after %s: %v", argv[0], err)
		}
		if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
			t.Errorf("after putting %s back: plan changes %v, err %v", argv[0], changes, err)
		}
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
		// With HA the targets are formatted on their preferred node and
		// mounted by the cluster only: no fstab mount.
		if got := [3]int{len(n.Disks), len(n.Formats), len(n.Mounts)}; got != [3]int{w[0], w[1], 0} {
			t.Errorf("%s: volumes, formats, mounts = %v, want %v", n.Name, got, [3]int{w[0], w[1], 0})
		}
		if joined := strings.Join(n.Services, " "); strings.Contains(joined, "beegfs-") {
			t.Errorf("%s: BeeGFS units running outside the cluster: %v", n.Name, n.Services)
		}
		for _, unit := range []string{"b0%s-storA.d/beegfs-storage.conf", "b0%s-storB.d/beegfs-storage.conf"} {
			f := fmt.Sprintf(unit, n.Name[2:3])
			if b, err := os.ReadFile(filepath.Join(labRoot(t, l, n.Name), "etc/beegfs", f)); err != nil || !strings.Contains(string(b), "connInterfacesFile") {
				t.Errorf("%s: %s missing or without connInterfacesFile (both nodes hold every instance's config): %v", n.Name, f, err)
			}
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

	r3RollingBIOSChange(t, tf, ri, l, filepath.Join(dir, "lab"))

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
		// The format markers stay: destroy never wipes a target, and a
		// new apply never formats one twice.
		if m, _ := filepath.Glob(filepath.Join(labRoot(t, l, n.Name), "var/lib/hpcstorage/beegfs/formatted/wwn-*")); strings.HasPrefix(n.Name, "bb") && len(m) == 0 {
			t.Errorf("%s after destroy: no format marker left", n.Name)
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

// labRoot is a lab node's root folder.
func labRoot(t *testing.T, l *lab.Lab, name string) string {
	t.Helper()
	for _, n := range l.State.Nodes {
		if n.Name == name {
			return n.Root
		}
	}
	t.Fatalf("no lab node %s", name)
	return ""
}

// r3RollingBIOSChange changes a BIOS value on all six file nodes of the
// running file system: each block is one failure domain (its pacemaker
// cluster), so in every block node1 then node2 reboots, one at a time in
// standby, while the blocks roll side by side; no group is unserved for
// as long as a reboot and the next plan is empty.
func r3RollingBIOSChange(t *testing.T, tf *tfexec.Terraform, ri tfexec.ReattachInfo, l *lab.Lab, labDir string) {
	t.Helper()
	ctx := context.Background()
	bios := tfexec.Var(`bios_attributes={ProcHyperthreading="Disabled"}`)
	var out bytes.Buffer
	tf.SetStdout(&out)
	changes, err := tf.Plan(ctx, tfexec.Reattach(ri), bios)
	tf.SetStdout(io.Discard)
	if err != nil || !changes {
		t.Fatalf("day-2 plan: changes %v, err %v", changes, err)
	}
	for b := 1; b <= 3; b++ {
		for n := 1; n <= 2; n++ {
			if want := fmt.Sprintf("bb%d-node%d Reboots In Failure Domain beegfs-b%02d", b, n, b); !strings.Contains(out.String(), want) {
				t.Errorf("the day-2 plan does not say %q", want)
			}
		}
	}
	pr, err := lab.StartProbe(labDir, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = tf.Apply(ctx, tfexec.Reattach(ri), bios)
	reps := pr.Stop()
	if err != nil {
		t.Fatalf("day-2 apply: %v", err)
	}
	for b := 1; b <= 3; b++ {
		name := fmt.Sprintf("beegfs-b%02d", b)
		rep, ok := reps[name]
		if !ok {
			t.Errorf("the probe did not see cluster %s", name)
			continue
		}
		t.Logf("day-2 BIOS change, apply %s: %s", time.Since(start).Round(100*time.Millisecond), rep)
		if rep.MaxOut != 1 || rep.OutTogether != 0 {
			t.Errorf("%s: %d members out at once (%d samples with two): want one at a time", name, rep.MaxOut, rep.OutTogether)
		}
		if want := []string{fmt.Sprintf("bb%d-node1", b), fmt.Sprintf("bb%d-node2", b)}; !slices.Equal(rep.Order, want) {
			t.Errorf("%s: members went out in the order %v, want %v", name, rep.Order, want)
		}
		// A failover is one scheduler transition; a reboot is two power
		// transitions of half a second each.
		if id, d := rep.Longest(); d >= time.Second {
			t.Errorf("%s: %s was unserved for %s: longer than a failover", name, id, d)
		}
		cib, err := lab.ClusterCIB(labDir, name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(cib, []byte(pacemaker.MaintenanceLockPrefix)) || bytes.Contains(cib, []byte(`name="standby" value="on"`)) {
			t.Errorf("%s: a lock or a standby is left after the day-2 apply", name)
		}
	}
	for b := 1; b <= 3; b++ {
		for n := 1; n <= 2; n++ {
			bmc, err := l.Mock().Design.Service(fmt.Sprintf("bb%d-node%d-bmc", b, n))
			if err != nil {
				t.Fatal(err)
			}
			if cur, _ := bmc.BiosAttributes(); fmt.Sprint(cur["ProcHyperthreading"]) != "Disabled" {
				t.Errorf("bb%d-node%d ProcHyperthreading after the day-2 apply: %v", b, n, cur["ProcHyperthreading"])
			}
		}
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), bios); err != nil || changes {
		t.Fatalf("plan after the day-2 apply: changes %v, err %v", changes, err)
	}
}
