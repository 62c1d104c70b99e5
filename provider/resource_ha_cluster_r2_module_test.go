package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// TestR2ModuleExample applies examples/r2 (the nfs-ha module) with the real
// Terraform CLI to a fresh R2 lab: the ME4084 carved into 8 RAID6 8+2
// volumes mapped to both servers, multipath, HA-LVM and XFS, the NFS
// server, and the cluster running R2's group on nfs1 with each server
// fenced from the other; the generated CIB passes the real crm_verify; the
// second plan is empty; standby of nfs1 moves the group to nfs2; destroy
// stops the cluster and keeps the file system.
func TestR2ModuleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R2 design")
	}
	// Parallel: a lab of its own, the provider served with its own env.
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	// One-second power transitions: the day-2 steps reboot both servers.
	e := applyExample(t, tfPath, lab.Config{Design: "r2", Simulator: simtest.Binary(t), PowerDelay: time.Second}, nil, "r2", "modules/nfs-ha")
	l, labDir, cfg, tf, ri := e.lab, e.labDir, e.cfg, e.tf, e.ri
	ctx := context.Background()
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	outs, err := tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var placement map[string]string
	if err := json.Unmarshal(outs["placement"].Value, &placement); err != nil {
		t.Fatal(err)
	}
	members := []string{"nfsgroup-lvm", "nfsgroup-fs", "nfsgroup-server", "nfsgroup-export-1", "nfsgroup-export-2", "nfsgroup-ip", "nfsgroup-notify"}
	for _, m := range append([]string{"nfsgroup"}, members...) {
		if placement[m] != "nfs1" {
			t.Errorf("%s does not run on nfs1: %v", m, placement)
		}
	}
	if placement["fence-nfs1"] != "nfs2" || placement["fence-nfs2"] != "nfs1" {
		t.Errorf("fence devices: %v", placement)
	}
	summary := string(outs["cluster_summary"].Value)
	t.Logf("cluster_summary: %s", summary)

	// The CIB the cluster holds, in R2's order, passes the real crm_verify.
	cib, err := os.ReadFile(filepath.Join(labDir, lab.SharedDir, "pacemaker-nfsha", "cib.xml"))
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, m := range members {
		i := strings.Index(string(cib), `<primitive id="`+m+`"`)
		if i < last {
			t.Errorf("%s is out of R2's order in the CIB", m)
		}
		last = i
	}
	for _, want := range []string{`name="vg_access_mode" value="system_id"`, `name="nfs_shared_infodir" value="/mnt/nfs/nfsinfo"`,
		`name="clientspec" value="10.10.0.0/16"`, `name="systems_uri" value="/redfish/v1/Systems/`, `name="password_script"`} {
		if !strings.Contains(string(cib), want) {
			t.Errorf("the CIB lacks %s", want)
		}
	}
	verifyCIB(t, cib)

	// Day 2, a BIOS value changed on the running pair: the plan says
	// which servers reboot and how; the apply reboots nfs1 then nfs2, each
	// in standby while it is away, so the group only ever fails over.
	r2RollingBIOSChange(t, tf, ri, cfg, l, labDir)

	// Day 2, a setting nfs-idmapd reads only when the cluster starts the
	// group: each server takes it in standby, nfs1 then nfs2.
	r2RollingServiceChange(t, tf, ri, cfg, l, labDir)

	// Day 2: nfs1 in standby, the group moves to nfs2.
	if err := tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(`standby=["nfs1"]`), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2)); err != nil {
		t.Fatalf("standby apply: %v", err)
	}
	outs, err = tf.Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	placement = nil
	if err := json.Unmarshal(outs["placement"].Value, &placement); err != nil {
		t.Fatal(err)
	}
	for _, m := range append([]string{"nfsgroup"}, members...) {
		if placement[m] != "nfs2" {
			t.Errorf("with nfs1 in standby, %s is not on nfs2: %v", m, placement)
		}
	}

	// A BIOS value changed by hand on nfs1 (logical processors back on in
	// the setup screen) shows in the next plan as an update of its server;
	// nfs1 is in standby, so the reboot that puts it back moves nothing.
	bmc, err := l.Mock().Design.Service("nfs1-bmc")
	if err != nil {
		t.Fatal(err)
	}
	if err := bmc.SetBiosByHand("LogicalProc", "Enabled"); err != nil {
		t.Fatal(err)
	}
	plan, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(`standby=["nfs1"]`), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2), tfexec.Out("bios.plan"))
	if err != nil || !plan {
		t.Fatalf("plan after a BIOS change by hand: changes %v, err %v", plan, err)
	}
	shown, err := tf.ShowPlanFile(ctx, filepath.Join(cfg, "bios.plan"), tfexec.Reattach(ri))
	if err != nil {
		t.Fatal(err)
	}
	var updated []string
	for _, rc := range shown.ResourceChanges {
		if !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			updated = append(updated, rc.Address+" "+fmt.Sprint(rc.Change.Actions))
		}
	}
	if len(updated) != 1 || !strings.Contains(updated[0], "hpcstorage_server") || !strings.Contains(updated[0], "update") {
		t.Errorf("after LogicalProc changed by hand on nfs1, the plan changes %v, want one hpcstorage_server update", updated)
	}
	if err := tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(`standby=["nfs1"]`), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2)); err != nil {
		t.Fatalf("apply putting the BIOS back: %v", err)
	}
	if cur, _ := bmc.BiosAttributes(); fmt.Sprint(cur["LogicalProc"]) != "Disabled" {
		t.Errorf("LogicalProc after apply: %v, want Disabled", cur["LogicalProc"])
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), tfexec.Var(`standby=["nfs1"]`), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2)); err != nil || changes {
		t.Fatalf("plan after the BIOS was put back: changes %v, err %v", changes, err)
	}

	if err := tf.Destroy(ctx, tfexec.Reattach(ri), tfexec.Var(`standby=["nfs1"]`), tfexec.Var(subNumaOff), tfexec.Var(r2Firmware), tfexec.Var(idmapDay2)); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		var root string
		for _, ni := range l.State.Nodes {
			if ni.Name == n {
				root = ni.Root
			}
		}
		if _, err := os.Stat(filepath.Join(root, strings.TrimPrefix(pacemaker.CorosyncConf, "/"))); err == nil {
			t.Errorf("%s: corosync.conf left after destroy", n)
		}
	}
}

// verifyCIB runs the real crm_verify on a live CIB (status included).
func verifyCIB(t *testing.T, cib []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "cib.xml")
	if err := os.WriteFile(f, cib, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runCrmVerify(t, f)
	if code != 0 {
		t.Fatalf("crm_verify: exit %d\n%s", code, out)
	}
}

func runCrmVerify(t *testing.T, file string) (string, int) {
	t.Helper()
	bin := "/usr/sbin/crm_verify"
	if p, err := exec.LookPath("crm_verify"); err == nil {
		bin = p
	}
	out, err := exec.Command(bin, "--xml-file", file, "-V").CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("crm_verify: %v (apt-get install -y pacemaker-cli-utils)", err)
	}
	return string(out), 0
}
