package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// subNumaOff is R2's BIOS profile with one value changed: the day-2
// change of the rolling-change issue.
const subNumaOff = `bios_attributes={SysProfile="PerfOptimized",SubNumaCluster="Disabled",LogicalProc="Disabled",AdddcSetting="Disabled"}`

// r2Firmware is a BIOS update for both R2 servers, rolled with subNumaOff.
const r2Firmware = `firmware=[{component="BIOS",version="2.12.2",image_uri="https://repo.example.com/BIOS_2.12.2.EXE",models=["PowerEdge R740"]}]`

// r2RollingBIOSChange applies a BIOS change to both servers of the
// running R2 pair while the lab's probe reads the cluster every 100 ms:
// the plan names both servers and the sequence, the apply reboots nfs1
// then nfs2, never both out of service, and the NFS group is never
// unserved for as long as a reboot (before this, both rebooted at once
// and the group ran nowhere for 4.9 s).
func r2RollingBIOSChange(t *testing.T, tf *tfexec.Terraform, ri tfexec.ReattachInfo, cfg string, l *lab.Lab, labDir string) {
	t.Helper()
	ctx := context.Background()
	// A BIOS update for the R740s rolls with the BIOS value: one reboot
	// per server for both.
	if err := l.Mock().Design.RegisterImage(redfishmock.Image{URI: "https://repo.example.com/BIOS_2.12.2.EXE",
		Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}}); err != nil {
		t.Fatal(err)
	}
	out, updated := planChanges(t, tf, ri, cfg, "day2.plan", tfexec.Var(subNumaOff), tfexec.Var(r2Firmware))
	for _, n := range []string{"nfs1", "nfs2"} {
		if want := n + ` leaves failure domain "nfsha" (pacemaker)`; !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "put nfs1 in standby and wait until nothing runs on it") {
		t.Errorf("the plan does not give the sequence:\n%s", out)
	}
	if len(updated) != 2 || !strings.Contains(strings.Join(updated, " "), "hpcstorage_server") {
		t.Errorf("the day-2 plan changes %v, want the two servers", updated)
	}

	pr, err := lab.StartProbe(labDir, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		if bmc, err := l.Mock().Design.Service(n + "-bmc"); err == nil {
			bmc.ResetStats()
		}
	}
	start := time.Now()
	err = tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware))
	wall := time.Since(start)
	rep := pr.Stop()["nfsha"]
	t.Logf("day-2 BIOS change: apply %s\n%s", wall.Round(100*time.Millisecond), rep)
	if err != nil {
		t.Fatalf("day-2 apply: %v", err)
	}
	if rep.MaxOut != 1 || rep.OutTogether != 0 {
		t.Errorf("%d members out of service at once (%d samples with two or more): want one at a time", rep.MaxOut, rep.OutTogether)
	}
	if !slices.Equal(rep.Order, []string{"nfs1", "nfs2"}) {
		t.Errorf("members went out in the order %v, want nfs1 then nfs2", rep.Order)
	}
	// The lab's failover is one scheduler transition (milliseconds); a
	// reboot is two power transitions of the lab's PowerDelay (1 s each).
	if id, d := rep.Longest(); d >= time.Second {
		t.Errorf("%s was unserved for %s: longer than a failover", id, d)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		bmc, err := l.Mock().Design.Service(n + "-bmc")
		if err != nil {
			t.Fatal(err)
		}
		if cur, _ := bmc.BiosAttributes(); fmt.Sprint(cur["SubNumaCluster"]) != "Disabled" {
			t.Errorf("%s SubNumaCluster after the day-2 apply: %v", n, cur["SubNumaCluster"])
		}
		if bios, _, pending := bmc.Firmware(); bios != "2.12.2" || pending != "" {
			t.Errorf("%s runs BIOS %s (pending %q) after the day-2 apply, want 2.12.2", n, bios, pending)
		}
		if got := bmc.RequestCount("POST", resetPath); got != 1 {
			t.Errorf("%s was reset %d times for a BIOS value and a BIOS update, want once", n, got)
		}
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware)); err != nil || changes {
		t.Fatalf("plan after the day-2 apply: changes %v, err %v", changes, err)
	}
	cib, err := os.ReadFile(filepath.Join(labDir, lab.SharedDir, "pacemaker-nfsha", "cib.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(cib, []byte(pacemaker.MaintenanceLockPrefix)) || bytes.Contains(cib, []byte(`name="standby" value="on"`)) {
		t.Errorf("a lock or a standby is left in the CIB after the day-2 apply")
	}
}

// idmapDay2 is a day-2 service change on R2: the NFSv4 ID mapping domain,
// which nfs-idmapd reads only when the cluster starts the NFS group.
const idmapDay2 = `idmap_domain=storage.example.com`

// r2RollingServiceChange changes a setting of the clustered NFS service on
// the running pair: the plan names both servers with the sequence (and
// nothing of the BMCs), the apply writes it on nfs1 in standby, fails the
// group back there, then does nfs2, never both out of service; the files
// land on both and no lock or standby is left behind.
func r2RollingServiceChange(t *testing.T, tf *tfexec.Terraform, ri tfexec.ReattachInfo, cfg string, l *lab.Lab, labDir string) {
	t.Helper()
	ctx := context.Background()
	vars := []tfexec.PlanOption{tfexec.Reattach(ri), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2)}
	out, updated := planChanges(t, tf, ri, cfg, "idmap.plan", tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2))
	for _, n := range []string{"nfs1", "nfs2"} {
		for _, want := range []string{n + " Restarts In Failure Domain nfsha", n + ` leaves failure domain "nfsha" (pacemaker)`,
			"put " + n + " in standby and wait until nothing runs on it"} {
			if !strings.Contains(out, want) {
				t.Errorf("the plan does not say %q:\n%s", want, out)
			}
		}
	}
	if !strings.Contains(out, "change file:/etc/idmapd.conf") {
		t.Errorf("the plan does not say what changes:\n%s", out)
	}
	if len(updated) != 2 || !strings.Contains(strings.Join(updated, " "), "hpcstorage_nfs_server") {
		t.Errorf("the day-2 service plan changes %v, want the two NFS servers", updated)
	}

	pr, err := lab.StartProbe(labDir, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2))
	rep := pr.Stop()["nfsha"]
	t.Logf("day-2 service change: apply %s\n%s", time.Since(start).Round(100*time.Millisecond), rep)
	if err != nil {
		t.Fatalf("day-2 service apply: %v", err)
	}
	if rep.MaxOut != 1 || rep.OutTogether != 0 {
		t.Errorf("%d members out of service at once (%d samples with two or more): want one at a time", rep.MaxOut, rep.OutTogether)
	}
	if !slices.Equal(rep.Order, []string{"nfs1", "nfs2"}) {
		t.Errorf("members went out in the order %v, want nfs1 then nfs2", rep.Order)
	}
	if id, d := rep.Longest(); d >= time.Second {
		t.Errorf("%s was unserved for %s: longer than a failover", id, d)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		var root string
		for _, ni := range l.State.Nodes {
			if ni.Name == n {
				root = ni.Root
			}
		}
		conf, err := os.ReadFile(filepath.Join(root, "etc", "idmapd.conf"))
		if err != nil || !strings.Contains(string(conf), "storage.example.com") {
			t.Errorf("%s idmapd.conf after the day-2 apply (%v):\n%s", n, err, conf)
		}
	}
	if changes, err := tf.Plan(ctx, vars...); err != nil || changes {
		t.Fatalf("plan after the day-2 service apply: changes %v, err %v", changes, err)
	}
	cib, err := os.ReadFile(filepath.Join(labDir, lab.SharedDir, "pacemaker-nfsha", "cib.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(cib, []byte(pacemaker.MaintenanceLockPrefix)) || bytes.Contains(cib, []byte(`name="standby" value="on"`)) {
		t.Errorf("a lock or a standby is left in the CIB after the day-2 service apply")
	}
}

// planChanges saves a plan with opts as file in cfg and returns what the
// CLI printed and the addresses the plan changes; a plan with no change
// fails the test.
func planChanges(t *testing.T, tf *tfexec.Terraform, ri tfexec.ReattachInfo, cfg, file string, opts ...tfexec.PlanOption) (string, []string) {
	t.Helper()
	ctx := context.Background()
	var out bytes.Buffer
	tf.SetStdout(&out)
	changes, err := tf.Plan(ctx, append([]tfexec.PlanOption{tfexec.Reattach(ri), tfexec.Out(file)}, opts...)...)
	tf.SetStdout(io.Discard)
	if err != nil || !changes {
		t.Fatalf("plan %s: changes %v, err %v", file, changes, err)
	}
	shown, err := tf.ShowPlanFile(ctx, filepath.Join(cfg, file), tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	var updated []string
	for _, rc := range shown.ResourceChanges {
		if !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			updated = append(updated, rc.Address)
		}
	}
	return out.String(), updated
}
