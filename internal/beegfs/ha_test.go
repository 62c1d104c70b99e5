package beegfs

import (
	"context"
	"errors"
	"fmt"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/pcmktest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// r1Storage is R1's storage pair: stor1 and stor2 share four ME4084s, each
// runs one beegfs-storage instance over 16 of the 32 targets (each target
// mapped to both servers).
func r1Storage() HA {
	h := HA{Nodes: []string{"stor1", "stor2"}, MgmtdPort: 8008, MgmtdIP: "10.10.0.100", Auth: Auth{Secret: "0123456789abcdef-r1"}}
	for s, node := range h.Nodes {
		svc := HAService{Kind: KindStorage, Name: node, FloatingIP: fmt.Sprintf("10.10.0.%d/16", 121+s), Interface: "ib0",
			Preferred: node, NodeID: s + 1, Port: 8003}
		for i := 0; i < 16; i++ {
			n := s*16 + i + 1
			mnt := fmt.Sprintf("/data/st%02d", n)
			svc.Targets = append(svc.Targets, HATarget{Target: Target{WWN: fmt.Sprintf("600c0ff00012345600000000%08x", n), Kind: KindStorage,
				MountPoint: mnt, SegmentBytes: 512 << 10, DataDrives: 8}, MappedTo: []string{"stor1", "stor2"}})
			svc.StorageTargets = append(svc.StorageTargets, StorageTarget{ID: 100 + n, Directory: mnt + "/storage", Pool: 1})
		}
		h.Services = append(h.Services, svc)
	}
	return h
}

// r1Metadata is R1's metadata pair: 6 instances per server on the ME4024's
// RAID1 targets, mgmtd in a folder of metadata target 1 (so its group runs
// with metaA-numa0-1's).
func r1Metadata() HA {
	h := HA{Nodes: []string{"meta1", "meta2"}, MgmtdPort: 8008, Auth: Auth{Secret: "0123456789abcdef-r1"}}
	h.Services = append(h.Services, HAService{Kind: KindManagement, Name: "mgmt", FloatingIP: "10.10.0.100/16", Interface: "ib0",
		Preferred: "meta1", Port: 8008, With: MetaInstanceName(0, 0, 1), Directory: "/data/mdt01/mgmtd"})
	for s, node := range h.Nodes {
		for slot := 0; slot < 6; slot++ {
			n := s*6 + slot + 1
			zone := slot / 3
			mnt := fmt.Sprintf("/data/mdt%02d", n)
			h.Services = append(h.Services, HAService{Kind: KindMetadata, Name: MetaInstanceName(s, zone, slot%3+1),
				FloatingIP: fmt.Sprintf("10.10.0.%d/16", 100+n), Interface: "ib0", Preferred: node, NodeID: n, Port: 8005 + 10*slot,
				NumaZone: &zone, Directory: mnt + "/meta",
				Targets: []HATarget{{Target: Target{WWN: fmt.Sprintf("600c0ff00065432100000000%08x", n), Kind: KindMetadata, MountPoint: mnt},
					MappedTo: []string{"meta1", "meta2"}}}})
		}
	}
	return h
}

// r3Block is an R3 base building block: two file nodes sharing one EF600,
// management on its own volume, two metadata and two storage services per
// node.
func r3Block() HA {
	nodes := []string{"bb1-node1", "bb1-node2"}
	h := HA{Nodes: nodes, MgmtdPort: 8008, Auth: Auth{Secret: "0123456789abcdef-r3"}}
	vol := 0
	target := func(kind, mnt string) []HATarget {
		vol++
		t := Target{WWN: fmt.Sprintf("6d039ea000aa0000%016x", vol), Kind: kind, MountPoint: mnt}
		if kind == KindStorage {
			t.SegmentBytes, t.DataDrives = 512<<10, 8
		}
		return []HATarget{{Target: t, MappedTo: nodes}}
	}
	h.Services = append(h.Services, HAService{Kind: KindManagement, Name: "mgmt", FloatingIP: "100.127.101.0/16", Interface: "i1b",
		Preferred: nodes[0], Port: 8008, Directory: "/data/b01-mgmt/mgmtd", Targets: target(KindManagement, "/data/b01-mgmt")})
	for i := 0; i < 4; i++ {
		node := nodes[i%2]
		mdt, st := fmt.Sprintf("/data/b01-mdt%02d", i+1), fmt.Sprintf("/data/b01-st%02d", i+1)
		h.Services = append(h.Services,
			HAService{Kind: KindMetadata, Name: fmt.Sprintf("b01-meta%d", i+1), FloatingIP: fmt.Sprintf("100.127.101.%d/16", 1+i),
				Interface: "i1b", Preferred: node, NodeID: 101 + i, Port: 8015 + 10*i, Directory: mdt + "/meta", Targets: target(KindMetadata, mdt)},
			HAService{Kind: KindStorage, Name: fmt.Sprintf("b01-stor%d", i+1), FloatingIP: fmt.Sprintf("100.127.102.%d/16", 1+i),
				Interface: "i2b", Preferred: node, NodeID: 101 + i, Port: 8013 + 10*i, Targets: target(KindStorage, st),
				StorageTargets: []StorageTarget{{ID: 1001 + i, Directory: st + "/storage", Pool: 1}}})
	}
	return h
}

// cluster puts h's groups into a two-node cluster fenced through the BMCs.
func cluster(t *testing.T, name string, h HA) pacemaker.Cluster {
	t.Helper()
	r, err := h.Resources()
	if err != nil {
		t.Fatal(err)
	}
	c := pacemaker.Cluster{Name: name, TwoNode: true, Transport: "knet", Groups: r.Groups, Locations: r.Locations,
		Colocations: r.Colocations, Orders: r.Orders}
	for i, n := range h.Nodes {
		c.Nodes = append(c.Nodes, pacemaker.Node{Name: n, ID: i + 1, Addrs: []string{fmt.Sprintf("10.20.0.%d", i+1)}})
		c.Fencing = append(c.Fencing, pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: n, Address: fmt.Sprintf("10.30.0.%d:443", i+1),
			SystemsURI: "/redfish/v1/Systems/System.Embedded.1", Username: "root"}))
	}
	return c
}

func TestHAGroups(t *testing.T) {
	h := r1Metadata()
	r, err := h.Resources()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 13 {
		t.Fatalf("%d groups, want mgmt and 12 metadata instances", len(r.Groups))
	}
	g := r.Groups[1]
	var types []string
	for _, m := range g.Members {
		types = append(types, m.Class+":"+m.Type)
	}
	if got := strings.Join(types, " "); got != "ocf:IPaddr2 ocf:Filesystem systemd:beegfs-meta@metaA-numa0-1" {
		t.Errorf("metaA-numa0-1 members %s", got)
	}
	ip, fs := g.Members[0].Params, g.Members[1].Params
	if ip["ip"] != "10.10.0.101" || ip["cidr_netmask"] != "16" || ip["nic"] != "ib0" || ip["iflabel"] != "md1" {
		t.Errorf("floating IP %v", ip)
	}
	if fs["device"] != "/dev/disk/by-id/wwn-0x600c0ff0006543210000000000000001" || fs["directory"] != "/data/mdt01" || fs["fstype"] != "ext4" ||
		fs["options"] != "noatime,nodiratime" {
		t.Errorf("target mount %v", fs)
	}
	// The management group has no target of its own: it runs with, and
	// after, the group holding metadata target 1.
	if len(r.Groups[0].Members) != 2 || r.Colocations[0].WithRsc != "metaA-numa0-1" || r.Orders[0].First != "metaA-numa0-1" || r.Orders[0].Then != "mgmt" {
		t.Errorf("mgmt %+v %+v %+v", r.Groups[0], r.Colocations, r.Orders)
	}
	prefers := map[string]string{}
	for _, l := range r.Locations {
		if l.Score == HAPreferredScore {
			prefers[l.Rsc] = l.Node
		}
	}
	for _, s := range h.Services {
		if prefers[s.Name] != s.Preferred || !strings.HasPrefix(s.Name, map[string]string{"meta1": "metaA", "meta2": "metaB"}[s.Preferred]) && s.Name != "mgmt" {
			t.Errorf("%s prefers %q (want %s)", s.Name, prefers[s.Name], s.Preferred)
		}
	}
}

// What each node of the pair gets: configs for every instance (either node
// may run it), units disabled and not started, and only on the preferred
// node the one-time format and store setup; never an fstab mount.
func TestHANodeItems(t *testing.T) {
	h := r1Storage()
	for _, node := range h.Nodes {
		items, err := h.NodeItems(node)
		if err != nil {
			t.Fatal(err)
		}
		valid(t, items)
		units, formats, inits := map[string]bool{}, 0, 0
		var conf string
		for _, it := range items {
			switch {
			case it.Mount != nil:
				t.Errorf("%s: mount %s: targets are mounted only by the cluster", node, it.Mount.Path)
			case it.File != nil && len(it.File.Notify) > 0:
				t.Errorf("%s: %s notifies %v: only the cluster starts or restarts the services", node, it.File.Path, it.File.Notify)
			case it.Service != nil:
				if it.Service.Enabled == nil || *it.Service.Enabled || it.Service.State != "" {
					t.Errorf("%s: unit %+v: want disabled, state left to the cluster", node, it.Service)
				}
				units[it.Service.Name] = true
			case it.Command != nil && strings.HasPrefix(it.Command.Name, "format-"):
				formats++
			case it.Command != nil && strings.HasPrefix(it.Command.Name, "init-"):
				inits++
				if formats != 16 {
					t.Errorf("%s: init before the formats", node)
				}
			case it.File != nil && it.File.Path == "/etc/beegfs/stor1.d/beegfs-storage.conf":
				conf = *it.File.Content
			case it.File != nil && it.File.Path == "/etc/beegfs/stor1.d/connInterfacesFile":
				if *it.File.Content != "ib0:st1\n" {
					t.Errorf("connInterfacesFile %q", *it.File.Content)
				}
			case it.File != nil && it.File.Path == "/etc/beegfs/stor1.d/connNetFilterFile":
				if *it.File.Content != "10.10.0.0/16\n" {
					t.Errorf("connNetFilterFile %q", *it.File.Content)
				}
			}
		}
		if !units["beegfs-storage@stor1"] || !units["beegfs-storage@stor2"] {
			t.Errorf("%s: units %v", node, units)
		}
		if formats != 16 || inits != 16 {
			t.Errorf("%s: %d formats, %d inits: want its 16 targets", node, formats, inits)
		}
		for _, want := range []string{"sysMgmtdHost                  = 10.10.0.100", "connInterfacesFile            = /etc/beegfs/stor1.d/connInterfacesFile",
			"connNetFilterFile             = /etc/beegfs/stor1.d/connNetFilterFile", "storeStorageDirectory         = /data/st01/storage,/data/st02/storage,"} {
			if !strings.Contains(conf, want) {
				t.Errorf("%s: stor1's config lacks %q:\n%s", node, want, conf)
			}
		}
	}
}

// The init step mounts the target only when nothing has it mounted, and
// unmounts it after the setup: run here with stand-ins for mount, umount
// and the setup program that log their calls.
func TestHAInitScript(t *testing.T) {
	sh := testenv.NeedTool(t, "sh", "dash")
	_ = sh
	h := r1Metadata()
	items, err := h.NodeItems("meta1")
	if err != nil {
		t.Fatal(err)
	}
	var initMgmt []string
	for _, it := range items {
		if it.Command != nil && it.Command.Name == "init-mgmt" {
			initMgmt = it.Command.Argv
		}
	}
	if len(initMgmt) == 0 {
		t.Fatal("no init of the management store on meta1")
	}
	// mgmtd's store is on metadata target 1.
	if initMgmt[5] != "/data/mdt01" || initMgmt[6] != "ext4" {
		t.Fatalf("mgmt init mounts %q", initMgmt[4:8])
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	for _, tool := range []string{"mount", "umount", "setup"} {
		script := fmt.Sprintf("#!/bin/sh\necho %s \"$@\" >> %s\n", tool, log)
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(dir, "marker")
	argv := append(slices.Clone(initMgmt[:4]), DevicePath("600c0ff0006543210000000000000001"), filepath.Join(dir, "mnt"), "ext4", marker, "setup", "-p", "x")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(log)
	want := fmt.Sprintf("mount -t ext4 %s %s/mnt\nsetup -p x\numount %s/mnt\n", DevicePath("600c0ff0006543210000000000000001"), dir, dir)
	if string(got) != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("no marker: %v", err)
	}
}

// Each refusal names the attribute at fault.
func TestHARefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(h *HA)
		want   string
	}{
		{"target mapped to one node", func(h *HA) { h.Services[1].Targets[3].MappedTo = []string{"stor2"} },
			"services[1].targets[3].mapped_to: volume 600c0ff0001234560000000000000014 is mapped to stor2 but not to stor1"},
		{"target mapped nowhere", func(h *HA) { h.Services[0].Targets[0].MappedTo = nil }, "services[0].targets[0].mapped_to: volume"},
		{"same floating IP twice", func(h *HA) { h.Services[1].FloatingIP = "10.10.0.121/24" },
			"services[1].floating_ip: 10.10.0.121 is also the floating IP of services[0] (stor1)"},
		{"floating IP without prefix", func(h *HA) { h.Services[0].FloatingIP = "10.10.0.121" }, `services[0].floating_ip: "10.10.0.121"`},
		{"preferred node outside the pair", func(h *HA) { h.Services[0].Preferred = "stor3" }, `services[0].preferred_node: "stor3" is not a node of the pair`},
		{"volume in two groups", func(h *HA) { h.Services[1].Targets[0].WWN = h.Services[0].Targets[0].WWN },
			"services[1].targets[0].wwn: volume 600c0ff0001234560000000000000001 is also mounted by services[0].targets[0]"},
		{"store off the group's targets", func(h *HA) { h.Services[0].StorageTargets[0].Directory = "/srv/storage" },
			"services[0].storage_targets[0].directory: /srv/storage is on none of the group's targets"},
		{"one node", func(h *HA) { h.Nodes = h.Nodes[:1] }, "nodes: 1 node(s)"},
		{"label too long", func(h *HA) { h.Services[0].Interface = "enp175s0f1np1" }, `services[0].interface: label "enp175s0f1np1:st1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := r1Storage()
			tc.change(&h)
			_, err := h.Resources()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant %q", err, tc.want)
			}
			if _, err := h.NodeItems("stor1"); err == nil {
				t.Error("node items render for a refused pair")
			}
		})
	}
	// A fence device allowed on its own node: pacemaker refuses it.
	c := cluster(t, "r1-storage", r1Storage())
	c.Locations = append(c.Locations, pacemaker.Location{ID: "bad", Rsc: pacemaker.FenceID("stor1"), Node: "stor1", Score: "100"})
	if _, err := c.Render(false); err == nil || !strings.Contains(err.Error(), "fence device fence-stor1 fences stor1 and may never run there") {
		t.Errorf("fence device on its own node: %v", err)
	}
}

// --- pacemaker's own tools ---------------------------------------------------

// pcmk runs one of pacemaker's tools (CIB_file=cib when set) and returns
// its output, stdout then stderr, and exit code.
func pcmk(t *testing.T, cib, name string, args ...string) (string, int) {
	t.Helper()
	out, errs, code := pcmktest.Run(t, cib, name, args...)
	return out + errs, code
}

type (
	transition = pcmktest.Transition
	gAction    = pcmktest.Action
)

var simulate = pcmktest.Simulate

func startsOn(t *testing.T, tr transition, g pacemaker.Group, node string) gAction {
	t.Helper()
	var prev *gAction
	var first gAction
	for i, m := range g.Members {
		s := tr.Find(m.ID, "start", "")
		if len(s) != 1 || s[0].Node != node {
			t.Fatalf("%s starts %+v, want once on %s", m.ID, s, node)
		}
		if prev != nil && !tr.After(s[0].ID, prev.ID) {
			t.Errorf("%s starts without waiting for %s", m.ID, prev.Primitive.ID)
		}
		if i == 0 {
			first = s[0]
		}
		prev = &s[0]
	}
	return first
}

// locate is where crm_resource says rsc runs in cib.
func locate(t *testing.T, cib, rsc string) string {
	t.Helper()
	out, code := pcmk(t, cib, "crm_resource", "--locate", "--resource", rsc)
	if code != 0 {
		t.Fatalf("crm_resource --locate %s: %d %s", rsc, code, out)
	}
	_, node, ok := strings.Cut(strings.TrimSpace(out), "running on: ")
	if !ok {
		return ""
	}
	return node
}

// up renders c, checks it with crm_verify and lets the scheduler start it.
func up(t *testing.T, c pacemaker.Cluster) (string, transition, string) {
	t.Helper()
	cib, err := c.Render(true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, c.Name+".xml")
	if err := os.WriteFile(f, cib, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := pcmk(t, "", "crm_verify", "-x", f, "-V"); code != 0 || strings.TrimSpace(out) != "" {
		t.Fatalf("crm_verify: exit %d\n%s", code, out)
	}
	tr, running := simulate(t, f)
	return dir, tr, running
}

func copyTo(t *testing.T, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return to
}

// R1's metadata pair starts every instance on its server, mgmtd after
// metaA-numa0-1 on the same node.
func TestHAR1MetadataCIB(t *testing.T) {
	h := r1Metadata()
	c := cluster(t, "r1-metadata", h)
	_, tr, running := up(t, c)
	for i, s := range h.Services {
		first := startsOn(t, tr, c.Groups[i], s.Preferred)
		if s.With != "" {
			last := c.Groups[1].Members[len(c.Groups[1].Members)-1].ID
			if w := tr.Find(last, "start", "meta1"); len(w) != 1 || !tr.After(first.ID, w[0].ID) {
				t.Errorf("%s starts before %s", s.Name, last)
			}
		}
		if got := locate(t, running, s.Name); got != s.Preferred {
			t.Errorf("%s runs on %q, want %s", s.Name, got, s.Preferred)
		}
	}
}

// R1: storage server stor1 fails. The scheduler fences it through its BMC
// (fence-stor1, which runs on stor2) and only then starts stor1's group,
// all 16 target mounts and the service, on stor2; stor2's own group stays.
func TestHAR1StorageFailover(t *testing.T) {
	h := r1Storage()
	c := cluster(t, "r1-storage", h)
	dir, tr, running := up(t, c)
	startsOn(t, tr, c.Groups[0], "stor1")
	startsOn(t, tr, c.Groups[1], "stor2")
	tr, after := simulate(t, copyTo(t, running, filepath.Join(dir, "fail.xml")), "--node-fail", "stor1")
	var fences []gAction
	for _, a := range tr.Actions {
		if a.XMLName.Local == "crm_event" && a.Operation == "stonith" {
			fences = append(fences, a)
		}
	}
	if len(fences) != 1 || fences[0].Node != "stor1" {
		t.Fatalf("fencing %+v, want stor1 fenced once", fences)
	}
	if got := locate(t, after, pacemaker.FenceID("stor1")); got != "stor2" {
		t.Errorf("fence-stor1 runs on %q, want stor2 (never on the node it fences)", got)
	}
	first := startsOn(t, tr, c.Groups[0], "stor2")
	if !tr.After(first.ID, fences[0].ID) {
		t.Error("stor1's group starts on stor2 before stor1 is fenced")
	}
	for _, m := range c.Groups[1].Members {
		if s := tr.Find(m.ID, "stop", ""); len(s) > 0 {
			t.Errorf("%s (stor2's own group) stops: %+v", m.ID, s)
		}
	}
	for _, g := range c.Groups {
		if got := locate(t, after, g.ID); got != "stor2" {
			t.Errorf("after the failover %s runs on %q, want stor2", g.ID, got)
		}
	}
}

// R3: a block node in standby hands its groups to the other node (each
// stopped in reverse order first); unstandby brings them back.
func TestHAR3StandbyAndBack(t *testing.T) {
	h := r3Block()
	c := cluster(t, "bb1", h)
	dir, _, running := up(t, c)
	var mine []pacemaker.Group
	for i, s := range h.Services {
		if s.Preferred == "bb1-node1" {
			mine = append(mine, c.Groups[i])
		}
	}
	if len(mine) != 5 {
		t.Fatalf("%d groups prefer bb1-node1, want mgmt, 2 metadata, 2 storage", len(mine))
	}
	standby := copyTo(t, running, filepath.Join(dir, "standby.xml"))
	if out, code := pcmk(t, standby, "crm_attribute", "--node", "bb1-node1", "--name", "standby", "--update", "on"); code != 0 {
		t.Fatalf("crm_attribute: %s", out)
	}
	tr, moved := simulate(t, standby)
	for _, g := range mine {
		n := len(g.Members)
		for i := n - 1; i > 0; i-- {
			later, earlier := tr.Find(g.Members[i].ID, "stop", "bb1-node1"), tr.Find(g.Members[i-1].ID, "stop", "bb1-node1")
			if len(later) != 1 || len(earlier) != 1 || !tr.After(earlier[0].ID, later[0].ID) {
				t.Errorf("%s does not stop after %s on bb1-node1", g.Members[i-1].ID, g.Members[i].ID)
			}
		}
		first := startsOn(t, tr, g, "bb1-node2")
		if stop := tr.Find(g.Members[0].ID, "stop", "bb1-node1"); len(stop) != 1 || !tr.After(first.ID, stop[0].ID) {
			t.Errorf("%s starts on bb1-node2 before it is down on bb1-node1", g.ID)
		}
		if got := locate(t, moved, g.ID); got != "bb1-node2" {
			t.Errorf("in standby %s runs on %q", g.ID, got)
		}
	}
	for i, s := range h.Services {
		if s.Preferred == "bb1-node2" {
			if stops := tr.Find(c.Groups[i].Members[0].ID, "stop", ""); len(stops) > 0 {
				t.Errorf("%s moves though its node stays", s.Name)
			}
		}
	}
	back := copyTo(t, moved, filepath.Join(dir, "back.xml"))
	if out, code := pcmk(t, back, "crm_attribute", "--node", "bb1-node1", "--name", "standby", "--update", "off"); code != 0 {
		t.Fatalf("crm_attribute: %s", out)
	}
	tr, home := simulate(t, back)
	for _, g := range mine {
		startsOn(t, tr, g, "bb1-node1")
		if got := locate(t, home, g.ID); got != "bb1-node1" {
			t.Errorf("after unstandby %s runs on %q", g.ID, got)
		}
	}
}

// R1 as one cluster of its four servers (NetApp's way: one cluster per
// file system): each pair's groups stay on that pair. stor1 fails: fenced,
// its group goes to stor2, never to a metadata server.
func TestHAR1OneClusterKeepsPairs(t *testing.T) {
	meta, stor := r1Metadata(), r1Storage()
	meta.Others, stor.Others = stor.Nodes, meta.Nodes
	c := cluster(t, "r1", meta)
	rs, err := stor.Resources()
	if err != nil {
		t.Fatal(err)
	}
	c.TwoNode = false
	// Without quorum the scheduler would stop everything: ignore it here,
	// so only the location rules keep storage groups off the metadata pair.
	c.Properties = map[string]string{"no-quorum-policy": "ignore"}
	c.Groups = append(c.Groups, rs.Groups...)
	c.Locations = append(c.Locations, rs.Locations...)
	for i, n := range stor.Nodes {
		c.Nodes = append(c.Nodes, pacemaker.Node{Name: n, ID: 3 + i, Addrs: []string{fmt.Sprintf("10.20.0.%d", 3+i)}})
		c.Fencing = append(c.Fencing, pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: n, Address: fmt.Sprintf("10.30.0.%d:443", 3+i),
			SystemsURI: "/redfish/v1/Systems/System.Embedded.1", Username: "root"}))
	}
	dir, _, running := up(t, c)
	for _, s := range append(meta.Services, stor.Services...) {
		if got := locate(t, running, s.Name); got != s.Preferred {
			t.Errorf("%s runs on %q, want %s", s.Name, got, s.Preferred)
		}
	}
	tr, after := simulate(t, copyTo(t, running, filepath.Join(dir, "fail.xml")), "--node-fail", "stor1")
	startsOn(t, tr, rs.Groups[0], "stor2")
	if got := locate(t, after, "stor1"); got != "stor2" {
		t.Errorf("stor1's group runs on %q after the failure, want stor2", got)
	}
	// Both storage servers down: the storage groups stop rather than
	// move to a metadata server that cannot see their volumes.
	tr, after = simulate(t, copyTo(t, after, filepath.Join(dir, "fail2.xml")), "--node-fail", "stor2")
	if got := locate(t, after, "metaA-numa0-1"); got != "meta1" {
		t.Errorf("metaA-numa0-1 runs on %q with the storage pair down, want meta1 (still running)", got)
	}
	for _, g := range rs.Groups {
		for _, m := range g.Members {
			if s := tr.Find(m.ID, "start", ""); len(s) > 0 {
				t.Errorf("%s starts on %s with both storage servers down", m.ID, s[0].Node)
			}
		}
	}
}
