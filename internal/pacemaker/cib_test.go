package pacemaker

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cases are the clusters besides R2 whose CIBs must pass crm_verify: every
// kind of element the renderer writes.
func cases() map[string]Cluster {
	three := Cluster{
		Name: "lab3", Transport: "knet", Networks: []string{"192.168.10.0/24", "192.168.20.0/24"},
		Properties:       map[string]string{"no-quorum-policy": "stop", "stonith-timeout": "120s"},
		ResourceDefaults: map[string]string{"resource-stickiness": "100", "migration-threshold": "3"},
		Primitives: []Primitive{
			{ID: "probe", Class: "ocf", Provider: "heartbeat", Type: "Dummy", Meta: map[string]string{"target-role": "Started"}},
			{ID: "chronyd", Class: "systemd", Type: "chronyd"},
		},
		Groups: []Group{{ID: "web", Meta: map[string]string{"resource-stickiness": "200"}, Members: []Primitive{
			{ID: "web-ip", Class: "ocf", Provider: "heartbeat", Type: "IPaddr2", Params: map[string]string{"ip": "192.168.10.50", "cidr_netmask": "24"},
				Ops: []Operation{{Name: "monitor", Interval: "15s", Timeout: "30s"}, {Name: "start", Timeout: "25s"}}},
			{ID: "web-dummy", Class: "ocf", Provider: "heartbeat", Type: "Dummy"},
		}}},
		Locations:   []Location{{ID: "probe-not-c", Rsc: "probe", Node: "c", Score: "-INFINITY"}, {ID: "web-prefers-a", Rsc: "web", Node: "a", Score: "50"}},
		Colocations: []Colocation{{ID: "probe-with-web", Rsc: "probe", WithRsc: "web", Score: "INFINITY"}},
		Orders:      []Order{{ID: "web-then-probe", First: "web", Then: "probe"}, {ID: "chrony-first", First: "chronyd", Then: "web", Kind: "Optional"}},
	}
	for i, n := range []string{"a", "b", "c"} {
		three.Nodes = append(three.Nodes, Node{Name: n, ID: i + 1, Addrs: []string{"192.168.10." + string(rune('1'+i)), "192.168.20." + string(rune('1'+i))}})
		three.Fencing = append(three.Fencing, FenceDevice{ID: "ipmi-" + n, Agent: "fence_ipmilan", Node: n, Params: map[string]string{
			"ip": "10.0.0." + string(rune('1'+i)), "username": "admin", "password_script": "/bin/cat " + PasswordFile("ipmi-"+n),
			"lanplus": "1", "pcmk_host_list": n}, Ops: []Operation{{Name: "monitor", Interval: "120s", Timeout: "60s"}}})
	}
	udpu := r2()
	udpu.Name = "nss-rhel7"
	udpu.Transport = "udpu"
	udpu.Nodes[0].Addrs = append(udpu.Nodes[0].Addrs, "10.10.2.11")
	udpu.Nodes[1].Addrs = append(udpu.Nodes[1].Addrs, "10.10.2.12")
	udpu.Networks = append(udpu.Networks, "10.10.2.0/24")
	delete(udpu.Fencing[0].Params, "ssl_insecure")
	return map[string]Cluster{"three-node": three, "udpu-two-rings": udpu}
}

func TestCIBsPassCrmVerify(t *testing.T) {
	all := cases()
	all["r2"] = r2()
	for name, c := range all {
		t.Run(name, func(t *testing.T) {
			cib, err := c.Render(true)
			if err != nil {
				t.Fatal(err)
			}
			crmVerify(t, name, cib)
			// Without the status section (what is pushed to a live
			// cluster) the document is still a valid CIB.
			bare, err := c.Render(false)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(bare), "have-quorum") || strings.Contains(string(bare), "node_state") {
				t.Errorf("the configuration-only CIB carries status:\n%s", bare)
			}
			// Without quorum and online nodes crm_verify only warns, with
			// exit 78: the check above would have seen it.
			f := filepath.Join(t.TempDir(), "bare.xml")
			if err := os.WriteFile(f, bare, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, errs, code := run(t, "", "crm_verify", "-x", f, "-V"); code != 78 || !strings.Contains(errs, "Warnings found") {
				t.Errorf("crm_verify on the CIB without status: exit %d %s, want 78 and warnings", code, errs)
			}
			var doc struct {
				FeatureSet string `xml:"crm_feature_set,attr"`
			}
			if err := xml.Unmarshal(cib, &doc); err != nil || doc.FeatureSet != FeatureSet {
				t.Errorf("crm_feature_set %q (%v), want %s", doc.FeatureSet, err, FeatureSet)
			}
		})
	}
}

// The R2 group, in order, with what each member needs.
func TestR2Group(t *testing.T) {
	g, err := r2Group().Group()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, m := range g.Members {
		types = append(types, m.Type)
	}
	want := "LVM-activate Filesystem nfsserver exportfs exportfs IPaddr2 nfsnotify"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("group order %q, want %q", got, want)
	}
	checks := map[string]map[string]string{
		"nfsgroup-lvm":      {"vgname": "vg_nfs", "vg_access_mode": "system_id"},
		"nfsgroup-fs":       {"device": "/dev/vg_nfs/lv_nfs", "directory": "/mnt/nfs", "fstype": "xfs"},
		"nfsgroup-server":   {"nfs_shared_infodir": "/mnt/nfs/nfsinfo", "nfs_ip": "10.10.0.100"},
		"nfsgroup-export-1": {"clientspec": "10.10.0.0/16", "options": "rw,sync,no_root_squash", "directory": "/mnt/nfs/export", "fsid": "1"},
		"nfsgroup-export-2": {"clientspec": "10.20.0.0/16", "fsid": "2"},
		"nfsgroup-ip":       {"ip": "10.10.0.100", "cidr_netmask": "16"},
		"nfsgroup-notify":   {"source_host": "10.10.0.100"},
	}
	for _, m := range g.Members {
		for k, v := range checks[m.ID] {
			if m.Params[k] != v {
				t.Errorf("%s %s = %q, want %q", m.ID, k, m.Params[k], v)
			}
		}
		delete(checks, m.ID)
	}
	if len(checks) > 0 {
		t.Errorf("members missing: %v", checks)
	}
}

// The fence devices: one per node, its BMC and system always named, the
// password only as a script that reads a root-only file.
func TestR2Fencing(t *testing.T) {
	cib, err := r2().Render(false)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Primitives []struct {
			ID     string `xml:"id,attr"`
			Class  string `xml:"class,attr"`
			Type   string `xml:"type,attr"`
			Params []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"instance_attributes>nvpair"`
		} `xml:"configuration>resources>primitive"`
		Locations []Location `xml:"configuration>constraints>rsc_location"`
	}
	if err := xml.Unmarshal(cib, &doc); err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"nfs1", "nfs2"} {
		id := FenceID(node)
		found := false
		for _, p := range doc.Primitives {
			if p.ID != id {
				continue
			}
			found = true
			params := map[string]string{}
			for _, nv := range p.Params {
				params[nv.Name] = nv.Value
			}
			if p.Class != "stonith" || p.Type != "fence_redfish" || params["systems_uri"] != "/redfish/v1/Systems/System.Embedded.1" ||
				params["ip"] != map[string]string{"nfs1": "10.10.0.11", "nfs2": "10.10.0.12"}[node] || params["ipport"] != "443" || params["pcmk_host_list"] != node || params["ssl_insecure"] != "1" ||
				params["password_script"] != "/bin/cat "+PasswordFile(id) {
				t.Errorf("%s: %s:%s %v", id, p.Class, p.Type, params)
			}
			if _, ok := params["password"]; ok {
				t.Errorf("%s: password in the CIB", id)
			}
		}
		if !found {
			t.Errorf("no fence device %s", id)
		}
	}
	if strings.Contains(string(cib), "secret") {
		t.Error("the CIB mentions a secret")
	}
}

// With nfs1 failed, the scheduler fences nfs1 (only fence-nfs1, which runs
// on nfs2, can) and then starts the whole group on nfs2 in group order.
func TestR2FailoverSimulated(t *testing.T) {
	c := r2()
	dir, first, up := startR2(t, c)
	startsInOrder(t, first, c.Groups[0], "nfs1")
	for dev, node := range map[string]string{"fence-nfs1": "nfs2", "fence-nfs2": "nfs1"} {
		if s := first.Find(dev, "start", ""); len(s) != 1 || s[0].Node != node {
			t.Fatalf("%s starts %v, want once on %s", dev, s, node)
		}
	}
	upCopy := filepath.Join(dir, "fail.xml")
	copyFile(t, up, upCopy)
	tr, after := simulate(t, upCopy, "--node-fail", "nfs1")
	var fences []graphAction
	for _, a := range tr.Actions {
		if a.XMLName.Local == "crm_event" && a.Operation == "stonith" {
			fences = append(fences, a)
		}
	}
	if len(fences) != 1 || fences[0].Node != "nfs1" {
		t.Fatalf("fencing %+v, want nfs1 fenced once", fences)
	}
	// The device that can fence nfs1 is fence-nfs1 (its pcmk_host_list),
	// which stays where it runs: nfs2.
	if out, errs, code := run(t, after, "crm_resource", "--locate", "--resource", "fence-nfs1"); code != 0 || !strings.Contains(out, "running on: nfs2") {
		t.Fatalf("fence-nfs1 after failover: exit %d %s %s", code, out, errs)
	}
	if s := tr.Find("fence-nfs1", "start", ""); len(s) != 0 {
		t.Errorf("fence-nfs1 restarts during the failover: %+v", s)
	}
	starts := startsInOrder(t, tr, c.Groups[0], "nfs2")
	if !tr.After(starts[0].ID, fences[0].ID) {
		t.Errorf("%s starts on nfs2 before nfs1 is fenced", starts[0].Primitive.ID)
	}
	for _, m := range c.Groups[0].Members {
		if out, _, code := run(t, after, "crm_resource", "--locate", "--resource", m.ID); code != 0 || !strings.Contains(out, "running on: nfs2") {
			t.Errorf("%s after failover: %s", m.ID, out)
		}
	}
}

// Standby of nfs1 moves the group to nfs2 (stopped in reverse order on
// nfs1 first); unstandby moves it back.
func TestR2StandbyAndBack(t *testing.T) {
	c := r2()
	dir, _, up := startR2(t, c)
	standby := filepath.Join(dir, "standby.xml")
	copyFile(t, up, standby)
	if out, errs, code := run(t, standby, "crm_attribute", "--node", "nfs1", "--name", "standby", "--update", "on"); code != 0 {
		t.Fatalf("crm_attribute: %d %s %s", code, out, errs)
	}
	tr, moved := simulate(t, standby)
	if len(tr.Find("nfsgroup-lvm", "stop", "nfs1")) != 1 {
		t.Fatal("standby does not stop the group on nfs1")
	}
	members := c.Groups[0].Members
	for i := 0; i+1 < len(members); i++ {
		later, earlier := tr.Find(members[i+1].ID, "stop", "nfs1"), tr.Find(members[i].ID, "stop", "nfs1")
		if len(later) != 1 || len(earlier) != 1 || !tr.After(earlier[0].ID, later[0].ID) {
			t.Errorf("%s does not stop after %s on nfs1", members[i].ID, members[i+1].ID)
		}
	}
	starts := startsInOrder(t, tr, c.Groups[0], "nfs2")
	last := tr.Find(members[0].ID, "stop", "nfs1")[0]
	if !tr.After(starts[0].ID, last.ID) {
		t.Error("the group starts on nfs2 before it has stopped on nfs1")
	}
	back := filepath.Join(dir, "back.xml")
	copyFile(t, moved, back)
	if out, errs, code := run(t, back, "crm_attribute", "--node", "nfs1", "--name", "standby", "--update", "off"); code != 0 {
		t.Fatalf("crm_attribute: %d %s %s", code, out, errs)
	}
	tr, home := simulate(t, back)
	startsInOrder(t, tr, c.Groups[0], "nfs1")
	if out, _, _ := run(t, home, "crm_resource", "--locate", "--resource", "nfsgroup"); !strings.Contains(out, "running on: nfs1") {
		t.Errorf("after unstandby the group is %s", out)
	}
}

// startR2 renders c and lets the scheduler start it from an empty status:
// the group on nfs1 (its preference), each fence device on the other node.
// It returns the folder, that transition and the CIB with everything up.
func startR2(t *testing.T, c Cluster) (string, transition, string) {
	t.Helper()
	cib, err := c.Render(true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := filepath.Join(dir, "r2.xml")
	if err := os.WriteFile(start, cib, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, up := simulate(t, start)
	return dir, tr, up
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every refusal names its field and says why.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Cluster)
		want   []string
	}{
		{"no fencing", func(c *Cluster) { c.Fencing = nil }, []string{"fence_devices: a cluster without fencing is refused"}},
		{"stonith disabled", func(c *Cluster) { c.Properties = map[string]string{"stonith-enabled": "false"} }, []string{"properties: stonith-enabled"}},
		{"one node without two_node", func(c *Cluster) { c.Nodes = c.Nodes[:1]; c.TwoNode = false; c.Fencing = c.Fencing[:1] },
			[]string{"two_node: a cluster of one node"}},
		{"cluster-name property", func(c *Cluster) { c.Properties = map[string]string{"cluster-name": "other"} }, []string{`properties: cluster-name = "other"`}},
		{"pair without two_node", func(c *Cluster) { c.TwoNode = false }, []string{"two_node: a two-node cluster without two_node"}},
		{"node without a fence device", func(c *Cluster) { c.Fencing = c.Fencing[:1] }, []string{`node "nfs2" has no fence device`}},
		{"fence device allowed on its node", func(c *Cluster) {
			c.Locations = append(c.Locations, Location{ID: "bad", Rsc: "fence-nfs1", Node: "nfs1", Score: "100"})
		}, []string{"locations[1]: fence device fence-nfs1 fences nfs1 and may never run there"}},
		{"fence device for another node", func(c *Cluster) { c.Fencing[0].Params["pcmk_host_list"] = "nfs2" }, []string{`fence_devices[0]: pcmk_host_list "nfs2"`}},
		{"password in clear", func(c *Cluster) { c.Fencing[1].Params["password"] = "calvin" }, []string{`fence_devices[1]: parameter "password" would keep the BMC password in the CIB in clear`}},
		{"no systems_uri", func(c *Cluster) { delete(c.Fencing[0].Params, "systems_uri") }, []string{`fence_devices[0]: systems_uri ""`}},
		{"no BMC address", func(c *Cluster) { c.Fencing[0].Params["ip"] = "" }, []string{`fence_devices[0]: ip ""`}},
		{"bad BMC port", func(c *Cluster) { c.Fencing[1].Params["ipport"] = "0" }, []string{`fence_devices[1]: ipport "0"`}},
		{"unknown agent", func(c *Cluster) { c.Groups[0].Members[1].Type = "FileSystem" }, []string{"groups[0].members[1]: unknown agent ocf:heartbeat:FileSystem"}},
		{"unknown fence agent", func(c *Cluster) { c.Fencing[0].Agent = "fence_redfsh" }, []string{"fence_devices[0]: unknown agent stonith:fence_redfsh"}},
		{"unknown parameter", func(c *Cluster) { c.Groups[0].Members[5].Params["ipaddress"] = "10.10.0.100" },
			[]string{`groups[0].members[5]: unknown parameter "ipaddress" of ocf:heartbeat:IPaddr2`}},
		{"misspelt parameter", func(c *Cluster) { c.Groups[0].Members[3].Params["clientspc"] = "x" }, []string{`(did you mean "clientspec"?)`}},
		{"missing required parameter", func(c *Cluster) { delete(c.Groups[0].Members[1].Params, "fstype") }, []string{`groups[0].members[1]: ocf:heartbeat:Filesystem needs parameter "fstype"`}},
		{"fence agent as a primitive", func(c *Cluster) {
			c.Primitives = []Primitive{{ID: "f", Class: "stonith", Type: "fence_redfish"}}
		}, []string{"primitives[0]: f: fence devices belong in fence_devices"}},
		{"systemd with parameters", func(c *Cluster) {
			c.Primitives = []Primitive{{ID: "u", Class: "systemd", Type: "nfs-server", Params: map[string]string{"x": "1"}}}
		}, []string{"primitives[0]: systemd resources take a unit name"}},
		{"id used twice", func(c *Cluster) { c.Groups[0].Members[2].ID = "nfsgroup-fs" }, []string{`groups[0].members[2]: id "nfsgroup-fs" is also used by groups[0].members[1]`}},
		{"constraint on an unknown resource", func(c *Cluster) {
			c.Colocations = []Colocation{{ID: "c1", Rsc: "nfsgroup", WithRsc: "nfs-group", Score: "INFINITY"}}
		}, []string{`colocations[0]: with_rsc "nfs-group" is not a resource`}},
		{"bad score", func(c *Cluster) { c.Locations[0].Score = "high" }, []string{`locations[0].score: score "high"`}},
		{"ring off the cluster network", func(c *Cluster) { c.Nodes[1].Addrs[0] = "10.10.9.12" }, []string{`nodes["nfs2"].addrs[0]: ring 0 address 10.10.9.12 is not on the cluster network 10.10.1.0/24`}},
		{"rings missing", func(c *Cluster) { c.Nodes[1].Addrs = nil }, []string{"nodes[1]: 0 ring addresses"}},
		{"unknown transport", func(c *Cluster) { c.Transport = "udp" }, []string{`transport: "udp"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := r2()
			tc.change(&c)
			_, err := c.Render(false)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if _, cerr := c.Corosync(); cerr == nil {
				t.Error("corosync.conf renders for a refused cluster")
			}
		})
	}
}

func TestNFSGroupRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(n *NFSGroup)
		want   string
	}{
		{"export without client spec", func(n *NFSGroup) { n.Exports[1].ClientSpec = " " }, "exports[1]: no client spec"},
		{"two clients in one spec", func(n *NFSGroup) { n.Exports[0].ClientSpec = "10.1.0.0/16 10.2.0.0/16" }, "exports[0]: client spec"},
		{"export off the file system", func(n *NFSGroup) { n.Exports[0].Directory = "/srv/export" }, `exports[0]: directory "/srv/export" is not on the shared file system /mnt/nfs`},
		{"fsid twice", func(n *NFSGroup) { n.Exports[1].FSID = 1 }, "exports[1]: fsid 1 is also used by exports[0]"},
		{"fsid zero", func(n *NFSGroup) { n.Exports[0].FSID = 0 }, "exports[0]: fsid 0"},
		{"info dir off the file system", func(n *NFSGroup) { n.InfoDir = "/var/lib/nfs" }, `info_dir: "/var/lib/nfs"`},
		{"no exports", func(n *NFSGroup) { n.Exports = nil }, "exports: an NFS service needs at least one export"},
		{"bad floating IP", func(n *NFSGroup) { n.FloatingIP = "10.10.0" }, `floating_ip: "10.10.0"`},
		{"bad netmask", func(n *NFSGroup) { n.CIDRNetmask = 33 }, "cidr_netmask: 33: want 1 to 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := r2Group()
			tc.change(&n)
			_, err := n.Group()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
