package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestBeegfsTargetStates: targets set up with beegfs-setup-storage
// register when their service starts; a buddy group member whose node
// goes down is Offline and Needs-resync, back Online it resyncs (lab
// time) and is Good again; BeegfsGroups (the probe) follows.
func TestBeegfsTargetStates(t *testing.T) {
	shared := t.TempDir()
	nodes := map[string]*node{}
	for _, h := range []string{"stor1", "stor2"} {
		dir := t.TempDir()
		if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Hostname: h, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		n := newNodeAt(t, dir)
		id := map[string]string{"stor1": "101", "stor2": "201"}[h]
		n.ok("/opt/beegfs/sbin/beegfs-setup-storage", "-C", "-p", "/data/st01", "-s", id[:1], "-i", id, "-P", "1")
		n.refused("already holds ID "+id, "/opt/beegfs/sbin/beegfs-setup-storage", "-C", "-p", "/data/st01", "-s", id[:1], "-i", "999")
		n.write("etc/beegfs/beegfs-storage.conf", "sysMgmtdHost = mgmt\nstoreStorageDirectory = /data/st01\n")
		n.ok("systemctl", "enable", "beegfs-storage")
		n.ok("systemctl", "start", "beegfs-storage")
		nodes[h] = n
	}
	s1, s2 := nodes["stor1"], nodes["stor2"]
	s1.ok("beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=101", "--secondary=201", "--groupid=1")
	list := func() string {
		t.Helper()
		out, code := s1.query("beegfs-ctl", "--listtargets", "--nodetype=storage", "--state", "--longnodes")
		if code != 0 {
			t.Fatalf("listtargets: exit %d", code)
		}
		return out
	}
	want := "TargetID     Reachability  Consistency   NodeID\n========     ============  ===========   ======\n" +
		"     101           Online         Good   beegfs-storage stor1 [ID: 1]\n" +
		"     201           Online         Good   beegfs-storage stor2 [ID: 2]\n"
	if got := list(); got != want {
		t.Fatalf("listtargets:\n%s\nwant:\n%s", got, want)
	}
	groups := func() sim.BeegfsGroupState {
		t.Helper()
		g, err := sim.BeegfsGroups(shared)
		if err != nil || len(g) != 1 {
			t.Fatalf("BeegfsGroups: %v %v", g, err)
		}
		return g[0]
	}
	if g := groups(); !g.Whole || !g.Serving {
		t.Errorf("group before: %+v", g)
	}
	if err := sim.Shutdown(s2.dir); err != nil {
		t.Fatal(err)
	}
	if got := list(); !strings.Contains(got, "     201          Offline Needs-resync   beegfs-storage stor2 [ID: 2]\n") {
		t.Errorf("stor2 down:\n%s", got)
	}
	if g := groups(); g.Whole || !g.Serving {
		t.Errorf("group with stor2 down: %+v", g)
	}
	if err := sim.Boot(s2.dir); err != nil {
		t.Fatal(err)
	}
	if got := list(); !strings.Contains(got, "     201           Online Needs-resync") {
		t.Errorf("stor2 back, resyncing:\n%s", got)
	}
	time.Sleep(sim.BeegfsResyncTime)
	if got := list(); got != want {
		t.Errorf("after the resync:\n%s", got)
	}
	if out, _ := s2.query("beegfs-ctl", "--listtargets"); !strings.Contains(out, "     201     2\n") {
		t.Errorf("listtargets without --state:\n%s", out)
	}
	s1.refused("invalid node type", "beegfs-ctl", "--listtargets", "--nodetype=client")
}
