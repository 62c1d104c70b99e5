package sim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// After a failover: a resource that fails leaves a failed action (the real
// crm_mon prints it from the CIB), a node that crashes leaves the fencer's
// history; crm_resource --cleanup and stonith_admin --history --cleanup
// clear them, as pcs resource cleanup and pcs stonith history cleanup do.
func TestPacemakerFailuresAndFenceHistory(t *testing.T) {
	n1, n2, shared, c := pcmkPair(t)
	for _, n := range []*node{n1, n2} {
		n.ok("systemctl", "enable", "corosync", "pacemaker")
		n.ok("systemctl", "start", "corosync")
		n.ok("systemctl", "start", "pacemaker")
	}
	want, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	n1.xmlFile("/tmp/conf.xml", want)
	if _, errs, code := n1.tool("", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/conf.xml"); code != 0 {
		t.Fatalf("cibadmin --replace: %d %s", code, errs)
	}
	status := func(n *node, args ...string) (pacemaker.Status, string) {
		t.Helper()
		out, errs, code := n.tool("", append([]string{"crm_mon", "-1", "-X"}, args...)...)
		if code != 0 {
			t.Fatalf("crm_mon: %d %s", code, errs)
		}
		st, err := pacemaker.ReadStatus([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		return st, out
	}
	if st, _ := status(n2, "--fence-history=3"); len(st.Failed) != 0 || len(st.Fenced) != 0 || !st.Available["nfs1"] || !st.Available["nfs2"] {
		t.Fatalf("a fresh cluster: %+v", st)
	}
	// svc-a's monitor finds it dead on nfs1: a failed action, fail count 1.
	if err := sim.FailResource(n1.dir, "svc-a"); err != nil {
		t.Fatal(err)
	}
	st, out := status(n2)
	if len(st.Failed) != 1 || !strings.Contains(st.Failed[0], "svc-a_monitor_") || !strings.Contains(st.Failed[0], "on nfs1: not running (rc 7)") {
		t.Fatalf("failed actions after svc-a failed: %q\n%s", st.Failed, out)
	}
	validMon(t, n2)
	// The cleanup, on a subset first: another node has nothing to clean.
	if out, _, code := n2.tool("", "crm_resource", "--cleanup", "--resource", "svc-a", "--node", "nfs2"); code != 0 || out != "" {
		t.Fatalf("cleanup on nfs2: exit %d %q", code, out)
	}
	if out, errs, code := n2.tool("", "crm_resource", "--cleanup"); code != 0 || strings.TrimSpace(out) != "Cleaned up svc-a on nfs1" {
		t.Fatalf("crm_resource --cleanup: exit %d %q %s", code, out, errs)
	}
	if st, out := status(n2); len(st.Failed) != 0 {
		t.Fatalf("failed actions after the cleanup: %q\n%s", st.Failed, out)
	}
	// nfs1 crashes: nfs2 fences it; the history shows at level 3 (and 2),
	// not at crm_mon's default (failed and pending fencing only).
	if err := sim.PowerOff(n1.dir); err != nil {
		t.Fatal(err)
	}
	if st, _ := status(n2); len(st.Fenced) != 0 {
		t.Errorf("crm_mon's default level shows successful fencing: %q", st.Fenced)
	}
	st, out = status(n2, "--fence-history=3")
	if len(st.Fenced) != 1 || !strings.HasPrefix(st.Fenced[0], "reboot of nfs1: success, by nfs2 at ") || st.Available["nfs1"] {
		t.Fatalf("fence history after nfs1 crashed: %+v\n%s", st, out)
	}
	validMon(t, n2)
	hist, _, code := n2.tool("", "stonith_admin", "--history", "*")
	if code != 0 || !strings.HasPrefix(hist, "reboot of nfs1 successful: delegate=nfs2, client=pacemaker-controld.") {
		t.Fatalf("stonith_admin --history: exit %d %q", code, hist)
	}
	if x, _, _ := n2.tool("", "stonith_admin", "--history", "nfs2", "--output-as=xml"); strings.Contains(x, "<fence_event") {
		t.Errorf("history of nfs2 lists nfs1's fencing:\n%s", x)
	}
	n2.refused("requires --history", "stonith_admin", "--cleanup")
	if _, errs, code := n1.tool("", "stonith_admin", "--history", "*"); code != 102 {
		t.Errorf("stonith_admin on the powered-off node: exit %d %s", code, errs)
	}
	n2.ok("stonith_admin", "--history", "*", "--cleanup")
	if st, out := status(n2, "--fence-history=3"); len(st.Fenced) != 0 {
		t.Fatalf("fence history after the cleanup: %q\n%s", st.Fenced, out)
	}
	if ops, _ := os.ReadFile(filepath.Join(shared, sim.OperationsLog)); !strings.Contains(string(ops), "nfs2: stonith_admin --history * --cleanup") {
		t.Errorf("operations.log:\n%s", ops)
	}
}

// validMon checks crm_mon's XML (pacemaker 2's format, with the lab's
// fence history) against pacemaker's own schema of it.
func validMon(t *testing.T, n *node) {
	t.Helper()
	out, errs, code := n.tool("", "crm_mon", "--output-as=xml", "--fence-history=3")
	if code != 0 {
		t.Fatalf("crm_mon --output-as=xml: %d %s", code, errs)
	}
	rng := "/usr/share/pacemaker/api/api-result-2.25.rng"
	if _, err := os.Stat(rng); err != nil {
		t.Logf("no %s: schema check skipped", rng)
		return
	}
	f := filepath.Join(t.TempDir(), "mon.xml")
	if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := exec.Command("xmllint", "--noout", "--relaxng", rng, f).CombinedOutput(); err != nil {
		t.Fatalf("crm_mon's XML does not validate against %s: %v\n%s\n%s", rng, err, res, out)
	}
}
