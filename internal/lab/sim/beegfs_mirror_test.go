package sim_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// Mirror groups are the management service's: defined from one node, seen
// from another; the provider's items define them once (the unless guard
// reads --listmirrorgroups), and BeeGFS's refusals hold.
func TestBeegfsMirrorGroups(t *testing.T) {
	shared := t.TempDir()
	var nodes []*node
	for _, h := range []string{"mgmt", "client01"} {
		dir := t.TempDir()
		profile := fakenode.Storage
		if h == "client01" {
			profile = fakenode.Client
		}
		if err := fakenode.SeedWith(dir, profile, fakenode.Options{Hostname: h, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, newNodeAt(t, dir))
	}
	mgmt, client := nodes[0], nodes[1]
	g := beegfs.MirrorGroup{NodeType: beegfs.MirrorStorage, GroupID: 1,
		Primary:   beegfs.MirrorMember{ID: 101, SizeBytes: 8e12, Pool: 1, Server: "stor1"},
		Secondary: beegfs.MirrorMember{ID: 201, SizeBytes: 8e12, Pool: 1, Server: "stor2"}}
	items, err := g.Items()
	if err != nil {
		t.Fatal(err)
	}
	add := items[0].Command
	mgmt.ok(add.Argv...)
	out, code := client.query(add.Unless...)
	if code != 0 {
		t.Fatalf("listmirrorgroups: exit %d", code)
	}
	groups, err := beegfs.ParseMirrorGroups(out)
	if err != nil || len(groups) != 1 || groups[0] != (beegfs.ListedGroup{ID: 1, Primary: 101, Secondary: 201}) {
		t.Fatalf("groups %+v (%v) from:\n%s", groups, err, out)
	}
	if !strings.HasPrefix(out, "     BuddyGroupID   PrimaryTargetID   SecondaryTargetID\n") {
		t.Errorf("header:\n%s", out)
	}
	if !matchesAll(out, add.UnlessMatch) {
		t.Errorf("the guard %q does not match the listing:\n%s", add.UnlessMatch, out)
	}
	// Refusals.
	mgmt.refused("buddy group ID 1 is already in use", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=102", "--secondary=202", "--groupid=1")
	mgmt.refused("ID 201 is already a member of buddy group 1", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=102", "--secondary=201", "--groupid=2")
	mgmt.refused("primary and secondary must differ", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=102", "--secondary=102", "--groupid=2")
	mgmt.refused("invalid or missing --groupid", "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=102", "--secondary=202")
	mgmt.refused("invalid or missing node type", "beegfs-ctl", "--addmirrorgroup", "--primary=102", "--secondary=202", "--groupid=2")
	// Metadata groups are separate: ID 1 again is fine there.
	mgmt.refused("no metadata buddy groups defined", "beegfs-ctl", "--mirrormd")
	mgmt.ok("beegfs-ctl", "--addmirrorgroup", "--nodetype=meta", "--primary=1", "--secondary=2", "--groupid=1")
	if out, _ := mgmt.query("beegfs-ctl", "--listmirrorgroups", "--nodetype=meta"); !strings.Contains(out, "PrimaryNodeID") {
		t.Errorf("meta listing:\n%s", out)
	}
	// --mirrormd while a client is mounted is refused; unmounted, it runs
	// once.
	client.write("etc/beegfs/beegfs-mounts.conf", "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n")
	client.ok("systemctl", "start", "beegfs-client")
	if out, _ := mgmt.query(beegfs.ClientsArgv...); strings.Join(beegfs.ParseClients(out), ",") != "client01" {
		t.Errorf("clients %q", out)
	}
	md := beegfs.MirrorGroup{NodeType: beegfs.MirrorMeta, GroupID: 1, Primary: beegfs.MirrorMember{ID: 1}, Secondary: beegfs.MirrorMember{ID: 2},
		MirrorMetadata: true}
	mdItems, err := md.Items()
	if err != nil {
		t.Fatal(err)
	}
	mgmt.refused("clients are still mounted (client01)", mdItems[1].Command.Argv...)
	client.ok("systemctl", "stop", "beegfs-client")
	if out, _ := mgmt.query(beegfs.ClientsArgv...); len(beegfs.ParseClients(out)) != 0 {
		t.Errorf("clients after unmount %q", out)
	}
	mgmt.ok(mdItems[1].Command.Argv...)
	if mgmt.read(strings.TrimPrefix(beegfs.MirrorMDMarker, "/")) != "" || !mgmt.exists(strings.TrimPrefix(beegfs.MirrorMDMarker, "/")) {
		t.Error("no marker after --mirrormd")
	}
	mgmt.refused("metadata mirroring is already enabled", "beegfs-ctl", "--mirrormd")
}

// A directory set to buddymirror reads back as Buddy Mirror, and the
// provider's guard sees it; a plain setpattern makes it RAID0 again.
func TestBeegfsBuddyMirrorPattern(t *testing.T) {
	n := newNode(t)
	s := beegfs.Stripe{MountPoint: "/mnt/beegfs", Path: "mirrored", ChunkSize: 1 << 20, NumTargets: 2, Pool: 1, BuddyMirror: true}
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	n.ok(items[0].Command.Argv...)
	out, _ := n.query(s.GetEntryInfoArgv()...)
	if !strings.Contains(out, "+ Type: Buddy Mirror\n") || !matchesAll(out, items[0].Command.UnlessMatch) {
		t.Errorf("after buddymirror:\n%s", out)
	}
	p, err := beegfs.ParseEntryInfo(out)
	if err != nil || !p.IsBuddyMirror() {
		t.Errorf("parsed %+v %v", p, err)
	}
	s.BuddyMirror = false
	items, _ = s.Items()
	if matchesAll(out, items[0].Command.UnlessMatch) {
		t.Error("the RAID0 guard matches a buddy mirror directory")
	}
	n.ok(items[0].Command.Argv...)
	if out, _ := n.query(s.GetEntryInfoArgv()...); !strings.Contains(out, "+ Type: RAID0\n") {
		t.Errorf("after setpattern without --pattern:\n%s", out)
	}
	n.refused("invalid pattern", "beegfs-ctl", "--setpattern", "--pattern=raid10", "/mnt/beegfs/mirrored")
}

func (n *node) exists(p string) bool {
	_, err := os.Stat(filepath.Join(n.dir, p))
	return err == nil
}

// matchesAll is the agent's unless_match rule: every expression matches.
func matchesAll(out string, res []string) bool {
	for _, r := range res {
		if !regexp.MustCompile(r).MatchString(out) {
			return false
		}
	}
	return true
}
