package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
)

// r5LogicalProcOff turns hyperthreading off on every R5 server: a BIOS
// change that reboots each of them.
const r5LogicalProcOff = `bios_attributes={LogicalProc="Disabled"}`

// r5RollingBIOSChange is R5's day 2: a BIOS value changed on a running
// cluster reboots every server through the GPFS failure domain, under the
// lab's probe: one member out at a time in name order, quorum and fs1
// never lost, the value on every BMC, no lock left, the next plan empty.
func r5RollingBIOSChange(t *testing.T, r *r5Lab, vars ...string) {
	t.Helper()
	ctx := context.Background()
	pr, err := lab.StartProbe(filepath.Join(r.dir, "lab"), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	apply := []tfexec.ApplyOption{tfexec.Reattach(r.ri), tfexec.Var(r5LogicalProcOff)}
	plan := []tfexec.PlanOption{tfexec.Reattach(r.ri), tfexec.Var(r5LogicalProcOff)}
	for _, v := range vars {
		apply, plan = append(apply, tfexec.Var(v)), append(plan, tfexec.Var(v))
	}
	start := time.Now()
	err = r.tf.Apply(ctx, apply...)
	wall := time.Since(start)
	rep := pr.Stop()["gpfs"]
	t.Logf("R5 day-2 BIOS change: apply %s\n%s", wall.Round(100*time.Millisecond), rep)
	if err != nil {
		t.Fatalf("day-2 apply: %v", err)
	}
	// Every server of examples/r5 has a BMC: five members, in name order.
	members := []string{"gw1", "gw2", "mgmt", "nsd1", "nsd2"}
	if rep.MaxOut != 1 || rep.OutTogether != 0 || !slices.Equal(rep.Order, members) || rep.Errors > 0 {
		t.Errorf("probe: at most %d members out at once (%d samples with two), order %v (want %v), %d errors",
			rep.MaxOut, rep.OutTogether, rep.Order, members, rep.Errors)
	}
	if id, d := rep.Longest(); d > 0 {
		t.Errorf("%s was unserved for %s", id, d)
	}
	for _, n := range members {
		bmc, err := r.Lab.Mock().Design.Service(n + "-bmc")
		if err != nil {
			t.Fatal(err)
		}
		if cur, _ := bmc.BiosAttributes(); fmt.Sprint(cur["LogicalProc"]) != "Disabled" {
			t.Errorf("%s LogicalProc after the day-2 apply: %v", n, cur["LogicalProc"])
		}
	}
	if classes := r.mm(t, "nsd1", true, "mmlsnodeclass", "-Y"); strings.Contains(classes, day2.GPFSLockPrefix) {
		t.Errorf("the domain's lock class is left:\n%s", classes)
	}
	if changes, err := r.tf.Plan(ctx, plan...); err != nil || changes {
		t.Fatalf("plan after the day-2 apply: changes %v, err %v: %v", changes, err, r.planActions(t, append(vars, r5LogicalProcOff)...))
	}
}

// r4HTOff turns hyperthreading off on the R4 OSD nodes (generic BMCs).
const r4HTOff = `bios_attributes={ProcHyperthreading="Disabled"}`

// r4RollingBIOSChange is R4's day 2: a BIOS value changed on the running
// cluster reboots the four OSD hosts through the ceph failure domain,
// under the lab's probe: one host's OSDs down at a time in name order, the
// PGs always active, the value on every BMC, no noout or lock left, the
// next plan empty.
func r4RollingBIOSChange(t *testing.T, r *r4Lab) {
	t.Helper()
	ctx := context.Background()
	pr, err := lab.StartProbe(filepath.Join(filepath.Dir(filepath.Dir(r.cfg)), "lab"), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(r4HTOff))
	wall := time.Since(start)
	rep := pr.Stop()["ceph"]
	t.Logf("R4 day-2 BIOS change: apply %s\n%s", wall.Round(100*time.Millisecond), rep)
	if err != nil {
		t.Fatalf("day-2 apply: %v", err)
	}
	members := []string{"osd1", "osd2", "osd3", "osd4"}
	if rep.MaxOut != 1 || rep.OutTogether != 0 || !slices.Equal(rep.Order, members) || rep.Errors > 0 {
		t.Errorf("probe: at most %d hosts out at once (%d samples with two), order %v (want %v), %d errors",
			rep.MaxOut, rep.OutTogether, rep.Order, members, rep.Errors)
	}
	if id, d := rep.Longest(); d > 0 {
		t.Errorf("%s was unserved for %s", id, d)
	}
	for _, n := range members {
		bmc, err := r.lab.Mock().Design.Service(n + "-bmc")
		if err != nil {
			t.Fatal(err)
		}
		if cur, _ := bmc.BiosAttributes(); fmt.Sprint(cur["ProcHyperthreading"]) != "Disabled" {
			t.Errorf("%s ProcHyperthreading after the day-2 apply: %v", n, cur["ProcHyperthreading"])
		}
	}
	if h := r.ceph("mon1", "ceph", "health", "detail"); strings.Contains(h, "noout") {
		t.Errorf("a noout flag is left:\n%s", h)
	}
	if keys := r.ceph("mon1", "ceph", "config-key", "ls"); strings.Contains(keys, day2.CephLockPrefix) {
		t.Errorf("lock keys are left: %s", keys)
	}
	if changes, err := r.plan(tfexec.Var(r4HTOff)); err != nil || len(changes) != 0 {
		t.Fatalf("plan after the day-2 apply: %v %v", changes, err)
	}
}
