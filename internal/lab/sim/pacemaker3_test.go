package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// A cluster whose nodes have Pacemaker 3 installed: its controller writes
// their release as dc-version, and a change that Debian's crm_verify takes
// but Pacemaker 3's pacemaker-4.0 schema refuses (stonith-action=poweroff)
// is refused as the CIB manager refuses it, leaving the CIB as it was.
func TestPacemaker3ClusterChecksSchema4(t *testing.T) {
	n1, n2, cluster, c := pcmkPair(t)
	if _, err := sim.AssembleCIBSchema(simtest.PacemakerXML(t), filepath.Join(filepath.Dir(cluster), sim.PacemakerSchemaShared), sim.Schema4); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*node{n1, n2} {
		db := filepath.Join(n.dir, fakenode.RPMDBPath)
		old, _ := os.ReadFile(db)
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(old)), "\n") {
			if !strings.HasPrefix(l, "pacemaker\t") {
				lines = append(lines, l)
			}
		}
		lines = append(lines, "pacemaker\t0:3.0.1-3.el10\tx86_64")
		if err := os.WriteFile(db, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		n.ok("systemctl", "start", "corosync")
		n.ok("systemctl", "start", "pacemaker")
	}
	conf, _, code := n1.tool("", "cibadmin", "--query", "--scope", "configuration")
	if code != 0 || !strings.Contains(conf, `name="dc-version" value="3.0.1-3.el10"`) {
		t.Fatalf("the Pacemaker 3 cluster's CIB: exit %d\n%s", code, conf)
	}
	poweroff := c
	poweroff.Properties = map[string]string{"stonith-action": "poweroff"}
	bad, err := poweroff.Configuration() // version 2 renders it
	if err != nil {
		t.Fatal(err)
	}
	n1.xmlFile("/tmp/poweroff.xml", bad)
	_, errs, code := n1.tool("", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/poweroff.xml")
	if code != 78 || !strings.Contains(errs, "does not conform to the configured schema (pacemaker-4.0)") {
		t.Fatalf("stonith-action=poweroff on Pacemaker 3: exit %d %s", code, errs)
	}
	if again, _, _ := n1.tool("", "cibadmin", "--query", "--scope", "configuration"); again != conf {
		t.Fatalf("the refused change altered the CIB:\n%s", again)
	}
	good, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	n1.xmlFile("/tmp/good.xml", good)
	if _, errs, code := n1.tool("", "cibadmin", "--replace", "--scope", "configuration", "--xml-file", "/tmp/good.xml"); code != 0 {
		t.Fatalf("a valid configuration on Pacemaker 3: exit %d %s", code, errs)
	}
	mon, _, _ := n2.tool("", "crm_mon", "-1", "-X")
	if !strings.Contains(mon, `id="svc-a"`) || !strings.Contains(mon, `name="nfs1"`) {
		t.Errorf("the group does not run after the change:\n%s", mon)
	}
}
