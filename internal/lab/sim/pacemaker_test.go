package sim_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// pcmkPair is two seeded nodes sharing one cluster folder, with corosync
// and pacemaker installed and the R2-like cluster's corosync.conf.
func pcmkPair(t *testing.T) (*node, *node, string, pacemaker.Cluster) {
	t.Helper()
	shared := t.TempDir()
	c := pacemaker.Cluster{Name: "nfsha", TwoNode: true, Transport: "knet",
		Nodes: []pacemaker.Node{{Name: "nfs1", ID: 1, Addrs: []string{"10.10.1.11"}}, {Name: "nfs2", ID: 2, Addrs: []string{"10.10.1.12"}}},
		Fencing: []pacemaker.FenceDevice{
			pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: "nfs1", Address: "127.0.0.1:8443", SystemsURI: "/redfish/v1/Systems/1", Username: "root", Insecure: true}),
			pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: "nfs2", Address: "127.0.0.1:8444", SystemsURI: "/redfish/v1/Systems/1", Username: "root", Insecure: true}),
		},
		Groups: []pacemaker.Group{{ID: "svc", Members: []pacemaker.Primitive{
			{ID: "svc-a", Class: "ocf", Provider: "heartbeat", Type: "Dummy"},
			{ID: "svc-ip", Class: "ocf", Provider: "heartbeat", Type: "IPaddr2", Params: map[string]string{"ip": "10.10.1.100", "cidr_netmask": "24"}},
		}}},
		Locations: []pacemaker.Location{{ID: "svc-prefers-nfs1", Rsc: "svc", Node: "nfs1", Score: "100"}},
	}
	conf, err := c.Corosync()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*node
	for _, name := range []string{"nfs1", "nfs2"} {
		dir := t.TempDir()
		if err := fakenode.SeedWith(dir, fakenode.Metadata, fakenode.Options{Hostname: name, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		if err := fakenode.InstallUnits(dir, fakenode.ClusterUnits...); err != nil {
			t.Fatal(err)
		}
		root, err := fsroot.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		n := &node{t: t, dir: dir, run: runner.Sim{Root: root}}
		n.write("etc/corosync/corosync.conf", string(conf))
		if err := os.MkdirAll(filepath.Join(dir, "var/log/cluster"), 0o755); err != nil {
			t.Fatal(err)
		}
		n.write("etc/corosync/authkey", strings.Repeat("k", 256))
		if err := os.Chmod(filepath.Join(dir, "etc/corosync/authkey"), 0o400); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	return nodes[0], nodes[1], filepath.Join(shared, "pacemaker-"+c.Name), c
}

func (n *node) xmlFile(p string, b []byte) {
	n.t.Helper()
	n.write(strings.TrimPrefix(p, "/"), string(b))
}

// The cluster comes up as corosync and pacemaker would let it, the real
// tools answer on its CIB, and the scheduler places the group.
func TestPacemakerClusterLifecycle(t *testing.T) {
	n1, n2, shared, c := pcmkPair(t)
	// Refusals before anything runs.
	n1.refused("corosync is not running", "systemctl", "start", "pacemaker")
	if err := os.Chmod(filepath.Join(n1.dir, "etc/corosync/authkey"), 0o644); err != nil {
		t.Fatal(err)
	}
	n1.refused("readable by others", "systemctl", "start", "corosync")
	// As the real corosync (found on real Debian nodes): no logfile
	// folder, no start.
	if err := os.Chmod(filepath.Join(n1.dir, "etc/corosync/authkey"), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(n1.dir, "var/log/cluster")); err != nil {
		t.Fatal(err)
	}
	n1.refused("Can't open logfile '/var/log/cluster/corosync.log'", "systemctl", "start", "corosync")
	if err := os.MkdirAll(filepath.Join(n1.dir, "var/log/cluster"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(n1.dir, "etc/corosync/authkey"), 0o400); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := n1.tool("", "cibadmin", "--query"); code != 102 || !strings.Contains(errs, "Transport endpoint is not connected") {
		t.Fatalf("cibadmin without pacemaker: exit %d %s", code, errs)
	}
	for _, n := range []*node{n1, n2} {
		n.ok("systemctl", "enable", "corosync", "pacemaker")
		n.ok("systemctl", "start", "corosync")
		n.ok("systemctl", "start", "pacemaker")
	}
	mon, _, code := n2.tool("", "crm_mon", "-1", "-X")
	if code != 0 || strings.Count(mon, `online="true"`) != 2 {
		t.Fatalf("crm_mon after both joined: exit %d\n%s", code, mon)
	}
	conf, _, code := n1.tool("", "cibadmin", "--query", "--scope", "configuration")
	if code != 0 || !strings.Contains(conf, `name="cluster-name" value="nfsha"`) || !strings.Contains(conf, `uname="nfs2"`) {
		t.Fatalf("fresh CIB: exit %d\n%s", code, conf)
	}
	// A configuration with an error (a constraint on a resource that does
	// not exist) is refused; the CIB is unchanged.
	bad := c
	bad.Locations = nil
	want, err := bad.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	broken := bytes.Replace(want, []byte("</constraints>"), []byte(`<rsc_order id="o" first="nothing" then="svc"/></constraints>`), 1)
	if !bytes.Contains(broken, []byte("nothing")) {
		broken = bytes.Replace(want, []byte("<constraints/>"), []byte(`<constraints><rsc_order id="o" first="nothing" then="svc"/></constraints>`), 1)
	}
	n1.xmlFile("/tmp/broken.xml", broken)
	if out, errs, code := n1.tool("", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/broken.xml"); code == 0 || !strings.Contains(errs, "nothing") {
		t.Fatalf("an order on a missing resource: exit %d %s %s", code, out, errs)
	} else {
		t.Logf("refused (exit %d): %s", code, errs)
	}
	if conf2, _, _ := n1.tool("", "cibadmin", "--query", "--scope", "configuration"); conf2 != conf {
		t.Fatalf("the refused change altered the CIB:\n%s", conf2)
	}
	// The real configuration: the group starts on nfs1, fences elsewhere.
	want, err = c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	n1.xmlFile("/tmp/conf.xml", want)
	if _, errs, code := n1.tool("", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/conf.xml"); code != 0 {
		t.Fatalf("cibadmin --replace: %d %s", code, errs)
	}
	place := func(n *node) map[string]string {
		t.Helper()
		out, errs, code := n.tool("", "crm_mon", "-1", "-X")
		if code != 0 {
			t.Fatalf("crm_mon: %d %s", code, errs)
		}
		pl, err := pacemaker.Placement([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	if pl := place(n2); pl["svc"] != "nfs1" || pl["svc-ip"] != "nfs1" || pl["fence-nfs1"] != "nfs2" || pl["fence-nfs2"] != "nfs1" {
		t.Fatalf("placement after the push: %v", pl)
	}
	// Standby by hand moves the group; the log has the transition.
	if _, errs, code := n2.tool("", "crm_attribute", "--node", "nfs1", "--name", "standby", "--update", "on"); code != 0 {
		t.Fatalf("crm_attribute: %d %s", code, errs)
	}
	if pl := place(n1); pl["svc"] != "nfs2" || pl["svc-a"] != "nfs2" {
		t.Fatalf("placement with nfs1 in standby: %v", pl)
	}
	if _, errs, code := n2.tool("", "crm_attribute", "--node", "nfs1", "--name", "standby", "--update", "off"); code != 0 {
		t.Fatalf("crm_attribute: %d %s", code, errs)
	}
	if pl := place(n1); pl["svc"] != "nfs1" {
		t.Fatalf("placement after unstandby: %v", pl)
	}
	// nfs1's BMC powers it off: nfs2 fences it and takes the group; nfs1
	// boots and joins again (the group stays where it is: stickiness is 0
	// here, so it goes home to nfs1).
	if err := sim.PowerOff(n1.dir); err != nil {
		t.Fatal(err)
	}
	if pl := place(n2); pl["svc"] != "nfs2" || pl["svc-ip"] != "nfs2" {
		t.Fatalf("placement with nfs1 powered off: %v", pl)
	}
	if log, _ := os.ReadFile(filepath.Join(shared, "transitions.log")); !strings.Contains(string(log), "Fencing nfs1") {
		t.Fatalf("nfs1 was not fenced:\n%s", log)
	}
	if err := sim.Boot(n1.dir); err != nil {
		t.Fatal(err)
	}
	if mon, _, code := n1.tool("", "crm_mon", "-1", "-X"); code != 0 || strings.Count(mon, `online="true"`) != 2 {
		t.Fatalf("crm_mon after nfs1 booted: exit %d\n%s", code, mon)
	}
	if pl := place(n2); pl["svc"] != "nfs1" {
		t.Fatalf("placement after nfs1 is back: %v", pl)
	}
	// A restart of corosync (its configuration changed) takes pacemaker
	// down and back up with it, as Requires= does: the group comes back.
	n1.ok("systemctl", "restart", "corosync")
	if out, _ := n1.query("systemctl", "is-active", "pacemaker"); strings.TrimSpace(out) != "active" {
		t.Fatalf("pacemaker after a corosync restart: %q", out)
	}
	if pl := place(n2); pl["svc"] != "nfs1" {
		t.Fatalf("placement after a corosync restart on nfs1: %v", pl)
	}
	// nfs1 leaves cleanly: the group goes to nfs2; crm_mon there says so,
	// and nfs1's own tools no longer reach the CIB.
	n1.ok("systemctl", "stop", "corosync")
	if pl := place(n2); pl["svc"] != "nfs2" {
		t.Fatalf("placement with nfs1 stopped: %v", pl)
	}
	if _, _, code := n1.tool("", "crm_mon", "-1", "-X"); code != 102 {
		t.Errorf("crm_mon on a stopped node: exit %d, want 102", code)
	}
	if st := n1.read("run/hpcstorage-sim/systemd.json"); strings.Contains(st, `"pacemaker.service": {`) && strings.Contains(st, `"active": true`) && strings.Contains(st, "pacemaker") {
		out, _ := n1.query("systemctl", "is-active", "pacemaker")
		if strings.TrimSpace(out) == "active" {
			t.Errorf("stopping corosync left pacemaker running")
		}
	}
	log, err := os.ReadFile(filepath.Join(shared, "transitions.log"))
	if err != nil || !strings.Contains(string(log), "down [nfs1]") {
		t.Errorf("transitions.log: %v\n%s", err, log)
	}
	_ = context.Background
}

// crm_diff is the real one on the node's files: exit 1 and a v2 patch for
// different documents, 0 for the same.
func TestCrmDiffOnNodeFiles(t *testing.T) {
	n1, _, _, c := pcmkPair(t)
	want, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	c.Groups[0].Members[1].Params["cidr_netmask"] = "16"
	changed, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	orig, next, err := pacemaker.PatchDocuments(want, changed)
	if err != nil {
		t.Fatal(err)
	}
	n1.xmlFile("/var/tmp/a.xml", orig)
	n1.xmlFile("/var/tmp/b.xml", next)
	out, errs, code := n1.tool("", "crm_diff", "--no-version", "--original", "/var/tmp/a.xml", "--new", "/var/tmp/b.xml")
	if code != 1 || !strings.Contains(out, `format="2"`) || strings.Count(out, "<change ") != 1 || !strings.Contains(out, `value="16"`) {
		t.Fatalf("crm_diff: exit %d %s\n%s", code, errs, out)
	}
	if _, _, code := n1.tool("", "crm_diff", "--no-version", "-o", "/var/tmp/a.xml", "-n", "/var/tmp/a.xml"); code != 0 {
		t.Errorf("crm_diff of one file with itself: exit %d", code)
	}
	if _, _, code := n1.tool("", "crm_diff", "-o", "/var/tmp/missing.xml", "-n", "/var/tmp/a.xml"); code == 0 {
		t.Error("crm_diff of a missing file succeeded")
	}
}
