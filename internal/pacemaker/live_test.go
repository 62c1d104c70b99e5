package pacemaker

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// liveR2 is R2 started by the scheduler, with the properties pacemaker's
// controller writes on its own, as a file CIB the real tools act on.
func liveR2(t *testing.T) (string, string) {
	t.Helper()
	dir, _, up := startR2(t, r2())
	cib := filepath.Join(dir, "live.xml")
	copyFile(t, up, cib)
	for _, p := range [][2]string{{"dc-version", "2.1.5-a3f44794f94"}, {"cluster-infrastructure", "corosync"}} {
		if out, errs, code := run(t, cib, "crm_attribute", "--type", "crm_config", "--name", p[0], "--update", p[1]); code != 0 {
			t.Fatalf("crm_attribute %s: %d %s %s", p[0], code, out, errs)
		}
	}
	return dir, cib
}

func liveConfiguration(t *testing.T, cib string) []byte {
	t.Helper()
	out, errs, code := run(t, cib, "cibadmin", "--query", "--scope", "configuration")
	if code != 0 {
		t.Fatalf("cibadmin --query: %d %s", code, errs)
	}
	return []byte(out)
}

// The patch path end to end with the real tools: an unchanged cluster has
// no drift (pacemaker's own properties ignored), one changed parameter
// makes a one-change patch that cibadmin applies, the controller's
// properties survive and the status is not touched.
func TestPatchOneParameter(t *testing.T) {
	dir, cib := liveR2(t)
	c := r2()
	want, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	live := liveConfiguration(t, cib)
	if d, err := ConfigDiff(live, want); err != nil || d != "" {
		t.Fatalf("fresh cluster drifts: %v\n%s", err, d)
	}
	c.Groups[0].Members[1].Params["options"] = "noatime"
	want2, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ConfigDiff(live, want2)
	if err != nil || !strings.Contains(d, `- /resources/group[nfsgroup]/2:primitive[nfsgroup-fs]/instance_attributes[nfsgroup-fs-instance_attributes]/nvpair[nfsgroup-fs-instance_attributes-options] name="options" value="noatime,nodiratime"`) ||
		!strings.Contains(d, `value="noatime"`) || strings.Count(d, "\n") != 2 {
		t.Fatalf("drift of one parameter: %v\n%s", err, d)
	}
	orig, next, err := PatchDocuments(live, want2)
	if err != nil {
		t.Fatal(err)
	}
	of, nf, pf := filepath.Join(dir, "orig.xml"), filepath.Join(dir, "next.xml"), filepath.Join(dir, "patch.xml")
	for f, b := range map[string][]byte{of: orig, nf: next} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	patch, errs, code := run(t, "", "crm_diff", "--no-version", "--original", of, "--new", nf)
	if code != 1 {
		t.Fatalf("crm_diff: exit %d (want 1: differences) %s", code, errs)
	}
	var p struct {
		Changes []struct {
			Op   string `xml:"operation,attr"`
			Path string `xml:"path,attr"`
		} `xml:"change"`
	}
	if err := xml.Unmarshal([]byte(patch), &p); err != nil || len(p.Changes) != 1 || p.Changes[0].Op != "modify" ||
		!strings.Contains(p.Changes[0].Path, "nfsgroup-fs-instance_attributes-options") {
		t.Fatalf("patch (%v): want one modify of the options nvpair:\n%s", err, patch)
	}
	t.Logf("one changed parameter: patch %d bytes, 1 change; the configuration a replace would send: %d bytes", len(patch), len(want2))
	if err := os.WriteFile(pf, []byte(patch), 0o600); err != nil {
		t.Fatal(err)
	}
	statusBefore := section(t, cib, "status")
	if out, errs, code := run(t, cib, "cibadmin", "--patch", "--xml-file", pf); code != 0 {
		t.Fatalf("cibadmin --patch: %d %s %s", code, out, errs)
	}
	after := liveConfiguration(t, cib)
	if d, err := ConfigDiff(after, want2); err != nil || d != "" {
		t.Fatalf("after the patch: %v\n%s", err, d)
	}
	if !strings.Contains(string(after), `name="dc-version"`) || !strings.Contains(string(after), `name="cluster-infrastructure"`) {
		t.Errorf("the controller's properties were lost:\n%s", after)
	}
	if got := section(t, cib, "status"); got != statusBefore {
		t.Error("the patch changed the status section")
	}
	// Same documents: crm_diff finds nothing (the push's guard).
	if _, _, code := run(t, "", "crm_diff", "--no-version", "--original", nf, "--new", nf); code != 0 {
		t.Errorf("crm_diff of equal documents: exit %d", code)
	}
}

func section(t *testing.T, cib, scope string) string {
	t.Helper()
	out, errs, code := run(t, cib, "cibadmin", "--query", "--scope", scope)
	if code != 0 {
		t.Fatalf("cibadmin --query --scope %s: %s", scope, errs)
	}
	return out
}

// A change made by hand (crm_resource, what pcs resource update runs) shows
// as drift, and so does a standby set by hand.
func TestDriftByHand(t *testing.T) {
	_, cib := liveR2(t)
	want, err := r2().Configuration()
	if err != nil {
		t.Fatal(err)
	}
	if out, errs, code := run(t, cib, "crm_resource", "--resource", "nfsgroup-ip", "--set-parameter", "cidr_netmask", "--parameter-value", "24"); code != 0 {
		t.Fatalf("crm_resource: %d %s %s", code, out, errs)
	}
	if out, errs, code := run(t, cib, "crm_attribute", "--node", "nfs2", "--name", "standby", "--update", "on"); code != 0 {
		t.Fatalf("crm_attribute: %d %s %s", code, out, errs)
	}
	d, err := ConfigDiff(liveConfiguration(t, cib), want)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`- /resources/group[nfsgroup]/6:primitive[nfsgroup-ip]/instance_attributes[nfsgroup-ip-instance_attributes]/nvpair[nfsgroup-ip-instance_attributes-cidr_netmask] name="cidr_netmask" value="24"`,
		`+ /resources/group[nfsgroup]/6:primitive[nfsgroup-ip]/instance_attributes[nfsgroup-ip-instance_attributes]/nvpair[nfsgroup-ip-instance_attributes-cidr_netmask] name="cidr_netmask" value="16"`,
		`- /nodes/node[2]/instance_attributes[nodes-2]/nvpair[nodes-2-standby] name="standby" value="on"`} {
		if !strings.Contains(d, w) {
			t.Errorf("drift lacks %s:\n%s", w, d)
		}
	}
}

// Where resources run, from the real crm_mon on the scheduler's result.
func TestPlacementFromCrmMon(t *testing.T) {
	_, cib := liveR2(t)
	out, errs, code := run(t, cib, "crm_mon", "-1", "-X")
	if code != 0 {
		t.Fatalf("crm_mon: %d %s", code, errs)
	}
	pl, err := Placement([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"nfsgroup": "nfs1", "nfsgroup-lvm": "nfs1", "nfsgroup-notify": "nfs1", "fence-nfs1": "nfs2", "fence-nfs2": "nfs1"}
	for k, v := range want {
		if pl[k] != v {
			t.Errorf("placement[%s] = %q, want %q (all: %v)", k, pl[k], v, pl)
		}
	}
	if len(pl) != 2+1+len(r2().Groups[0].Members) {
		t.Errorf("placement has %d entries: %v", len(pl), pl)
	}
}
