package pacemaker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// r2Fences are R2's fence devices as the provider sees them: each node's
// own BMC endpoint and the system on it.
func r2Fences() []FenceTarget {
	return []FenceTarget{
		{Node: "nfs1", Endpoint: "r740-1", Address: "10.10.0.11:443", SystemsURI: "/redfish/v1/Systems/System.Embedded.1"},
		{Node: "nfs2", Endpoint: "r740-2", Address: "10.10.0.12:443", SystemsURI: "/redfish/v1/Systems/System.Embedded.1"},
	}
}

// member returns the R2 group's member of type typ (the tests change its
// parameters).
func member(c *Cluster, typ string, nth int) *Primitive {
	for i := range c.Groups[0].Members {
		if c.Groups[0].Members[i].Type == typ {
			if nth == 0 {
				return &c.Groups[0].Members[i]
			}
			nth--
		}
	}
	panic("no " + typ)
}

// TestRules: each mistake is refused on the attribute at fault, alone
// (R2 itself breaks no rule).
func TestRules(t *testing.T) {
	if errs := r2().Rules(r2Fences()); len(errs) > 0 {
		t.Fatalf("R2 breaks rules: %v", errs)
	}
	for _, tc := range []struct {
		name   string
		change func(c *Cluster, f []FenceTarget)
		attr   string
		says   string
	}{
		// Rings.
		{"ring off its network", func(c *Cluster, _ []FenceTarget) { c.Nodes[1].Addrs[0] = "10.10.2.12" },
			`nodes["nfs2"].addrs[0]`, "not on the cluster network 10.10.1.0/24"},
		{"ring address of two nodes", func(c *Cluster, _ []FenceTarget) { c.Nodes[1].Addrs[0] = "10.10.1.11" },
			`nodes["nfs2"].addrs[0]`, "also node nfs1's"},
		{"one address on two rings", func(c *Cluster, _ []FenceTarget) {
			c.Networks = []string{"10.10.1.0/24", "10.10.0.0/16"}
			c.Nodes[0].Addrs = []string{"10.10.1.11", "10.10.1.11"}
			c.Nodes[1].Addrs = []string{"10.10.1.12", "10.10.0.22"}
		}, `nodes["nfs1"].addrs[1]`, "already this node's address on another ring"},
		{"network not a CIDR", func(c *Cluster, _ []FenceTarget) { c.Networks[0] = "10.10.1.0/33" }, `networks[0]`, "want a CIDR"},
		// The floating address.
		{"floating address off every network", func(c *Cluster, _ []FenceTarget) { member(c, "IPaddr2", 0).Params["ip"] = "192.168.7.100" },
			`groups[0].members[5].params["ip"]`, "on none of the cluster networks (10.10.1.0/24)"},
		{"netmask too narrow to reach the cluster network", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Params["cidr_netmask"] = "24"
		}, `groups[0].members[5].params["cidr_netmask"]`, "24 puts the floating address on 10.10.0.0/24"},
		{"netmask narrower than the network it is on", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Params["ip"] = "10.10.1.100"
			member(c, "IPaddr2", 0).Params["cidr_netmask"] = "28"
		}, `groups[0].members[5].params["cidr_netmask"]`, "whose prefix length is 24"},
		{"dotted netmask", func(c *Cluster, _ []FenceTarget) { member(c, "IPaddr2", 0).Params["cidr_netmask"] = "255.255.0.0" },
			`groups[0].members[5].params["cidr_netmask"]`, "want a prefix length from 1 to 32"},
		{"netmask 33", func(c *Cluster, _ []FenceTarget) { member(c, "IPaddr2", 0).Params["cidr_netmask"] = "33" },
			`groups[0].members[5].params["cidr_netmask"]`, "from 1 to 32"},
		{"floating address is a ring address", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Params["ip"] = "10.10.1.12"
			member(c, "IPaddr2", 0).Params["cidr_netmask"] = "24"
		}, `groups[0].members[5].params["ip"]`, "node nfs2's ring address"},
		{"floating address not an address", func(c *Cluster, _ []FenceTarget) { member(c, "IPaddr2", 0).Params["ip"] = "10.10.0.300" },
			`groups[0].members[5].params["ip"]`, "want an IP address"},
		{"floating address is the broadcast address", func(c *Cluster, _ []FenceTarget) { member(c, "IPaddr2", 0).Params["ip"] = "10.10.255.255" },
			`groups[0].members[5].params["ip"]`, "network or broadcast address of 10.10.0.0/16"},
		{"floating address on a named nic is its network's address", func(c *Cluster, _ []FenceTarget) {
			p := member(c, "IPaddr2", 0).Params
			p["ip"], p["cidr_netmask"], p["nic"] = "100.127.0.0", "16", "ib0"
		}, `groups[0].members[5].params["ip"]`, "network or broadcast address of 100.127.0.0/16"},
		{"floating address on a named nic is a ring address", func(c *Cluster, _ []FenceTarget) {
			p := member(c, "IPaddr2", 0).Params
			p["ip"], p["nic"] = "10.10.1.11", "ib0"
		}, `groups[0].members[5].params["ip"]`, "node nfs1's ring address"},
		{"two resources, one floating address", func(c *Cluster, _ []FenceTarget) {
			c.Primitives = []Primitive{{ID: "ip2", Class: "ocf", Provider: "heartbeat", Type: "IPaddr2",
				Params: map[string]string{"ip": "10.10.0.100", "cidr_netmask": "16"}}}
		}, `primitives[0].params["ip"]`, "also groups[0].members[5]'s"},
		// Exports.
		{"one fsid, two directories", func(c *Cluster, _ []FenceTarget) { member(c, "exportfs", 1).Params["fsid"] = "1" },
			`groups[0].members[4].params["fsid"]`, "fsid 1 is also groups[0].members[3]'s, which exports /mnt/nfs/export"},
		{"fsid root twice", func(c *Cluster, _ []FenceTarget) {
			member(c, "exportfs", 0).Params["fsid"] = "0"
			member(c, "exportfs", 1).Params["fsid"] = "root"
		}, `groups[0].members[4].params["fsid"]`, "fsid root is also"},
		{"fsid not a number", func(c *Cluster, _ []FenceTarget) { member(c, "exportfs", 1).Params["fsid"] = "two" },
			`groups[0].members[4].params["fsid"]`, "want a number from 0 to 4294967295, root or a UUID"},
		{"one directory exported twice to one client spec", func(c *Cluster, _ []FenceTarget) {
			member(c, "exportfs", 1).Params["directory"] = "/mnt/nfs/export/"
			member(c, "exportfs", 1).Params["clientspec"] = "10.10.0.0/16"
			member(c, "exportfs", 1).Params["fsid"] = "1"
		}, `groups[0].members[4].params["clientspec"]`, "/mnt/nfs/export is already exported to 10.10.0.0/16"},
		// Fencing.
		{"fence device on the other node's BMC", func(_ *Cluster, f []FenceTarget) { f[1].Endpoint, f[1].Address = "r740-1", "10.10.0.11" },
			`nodes["nfs2"].fence.endpoint`, "fencing nfs2 would power off nfs1"},
		{"fence device by ip on the other node's BMC", func(_ *Cluster, f []FenceTarget) { f[1].Endpoint, f[1].Address = "", "10.10.0.11:443" },
			`nodes["nfs2"].fence.ip`, "aimed at the BMC and system node nfs1's is"},
		{"fence device on the node's own address", func(_ *Cluster, f []FenceTarget) { f[0].Endpoint, f[0].Address = "", "10.10.1.11" },
			`nodes["nfs1"].fence.ip`, "node nfs1's ring address"},
		{"fence endpoint named after the other node", func(_ *Cluster, f []FenceTarget) { f[0].Endpoint, f[0].Address = "idrac-nfs2", "" },
			`nodes["nfs1"].fence.endpoint`, `"idrac-nfs2" names node nfs2`},
		{"fence system named after the other node", func(_ *Cluster, f []FenceTarget) { f[1].SystemsURI = "/redfish/v1/Systems/nfs1" },
			`nodes["nfs2"].fence.systems_uri`, "names node nfs1"},
		{"BMC host name of the other node", func(_ *Cluster, f []FenceTarget) { f[0].Endpoint, f[0].Address = "", "nfs2-bmc.example.com" },
			`nodes["nfs1"].fence.ip`, "names node nfs2"},
		// Scores.
		{"score word", func(c *Cluster, _ []FenceTarget) { c.Locations[0].Score = "high" }, `locations[0].score`, `score "high"`},
		{"infinity in small letters", func(c *Cluster, _ []FenceTarget) { c.Locations[0].Score = "-infinity" }, `locations[0].score`, "spelt in capitals"},
		{"score beyond INFINITY", func(c *Cluster, _ []FenceTarget) { c.Locations[0].Score = "5000000" }, `locations[0].score`, "beyond pacemaker's limit"},
		{"colocation score", func(c *Cluster, _ []FenceTarget) {
			c.Colocations = []Colocation{{ID: "c", Rsc: "nfsgroup", WithRsc: "nfsgroup", Score: "1.5"}}
		}, `colocations[0].score`, `score "1.5"`},
		{"stickiness not a score", func(c *Cluster, _ []FenceTarget) {
			c.ResourceDefaults = map[string]string{"resource-stickiness": "sticky"}
		}, `resource_defaults["resource-stickiness"]`, `score "sticky"`},
		{"member meta score", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Meta = map[string]string{"migration-threshold": "three"}
		}, `groups[0].members[5].meta["migration-threshold"]`, `score "three"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, f := r2(), r2Fences()
			tc.change(&c, f)
			errs := c.Rules(f)
			if len(errs) != 1 {
				t.Fatalf("%d errors, want 1: %v", len(errs), errs)
			}
			var re *located.Error
			if !errors.As(errs[0], &re) || !errors.Is(errs[0], ErrInvalid) {
				t.Fatalf("%v: not a located ErrInvalid", errs[0])
			}
			if re.Path.String() != tc.attr || !strings.Contains(re.Err.Error(), tc.says) {
				t.Errorf("got %s: %v\nwant %s: ...%s...", re.Path.String(), re.Err, tc.attr, tc.says)
			}
		})
	}
}

// TestRulesAccept: setups that look like the mistakes above but are
// right pass.
func TestRulesAccept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Cluster, f []FenceTarget)
	}{
		{"floating address inside the cluster network", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Params["ip"], member(c, "IPaddr2", 0).Params["cidr_netmask"] = "10.10.1.100", "24"
		}},
		{"floating address without a netmask", func(c *Cluster, _ []FenceTarget) {
			member(c, "IPaddr2", 0).Params["ip"] = "10.10.1.100"
			delete(member(c, "IPaddr2", 0).Params, "cidr_netmask")
		}},
		{"no cluster networks declared", func(c *Cluster, _ []FenceTarget) { c.Networks = nil }},
		{"floating address on a data network, nic named (BeeGFS HA)", func(c *Cluster, _ []FenceTarget) {
			p := member(c, "IPaddr2", 0).Params
			p["ip"], p["cidr_netmask"], p["nic"] = "100.127.0.1", "16", "ib0"
		}},
		{"one directory to two client specs under one fsid", func(c *Cluster, _ []FenceTarget) {
			member(c, "exportfs", 1).Params["directory"] = "/mnt/nfs/export"
			member(c, "exportfs", 1).Params["fsid"] = "1"
		}},
		{"UUID fsids", func(c *Cluster, _ []FenceTarget) {
			member(c, "exportfs", 0).Params["fsid"] = "6f1ed6a6-5ad4-4bb6-9d59-6ef6b4f0e4a1"
			member(c, "exportfs", 1).Params["fsid"] = "6f1ed6a6-5ad4-4bb6-9d59-6ef6b4f0e4a2"
		}},
		{"blade chassis: one BMC, two systems", func(_ *Cluster, f []FenceTarget) {
			f[0].Endpoint, f[1].Endpoint = "cmc", "cmc"
			f[0].Address, f[1].Address = "10.10.0.10", "10.10.0.10:443"
			f[0].SystemsURI, f[1].SystemsURI = "/redfish/v1/Systems/Blade1", "/redfish/v1/Systems/Blade2"
		}},
		{"endpoints named after their own nodes", func(_ *Cluster, f []FenceTarget) { f[0].Endpoint, f[1].Endpoint = "bmc-nfs1", "bmc-nfs2" }},
		{"node name inside a longer word", func(_ *Cluster, f []FenceTarget) { f[0].Endpoint = "nfs21-bmc" }},
		{"scores at the limits", func(c *Cluster, _ []FenceTarget) {
			c.Locations = append(c.Locations, Location{ID: "a", Rsc: "nfsgroup", Node: "nfs2", Score: "-1000000"},
				Location{ID: "b", Rsc: "nfsgroup", Node: "nfs2", Score: "+INFINITY"})
			c.ResourceDefaults = map[string]string{"resource-stickiness": "INFINITY", "migration-threshold": "3"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, f := r2(), r2Fences()
			tc.change(&c, f)
			if errs := c.Rules(f); len(errs) > 0 {
				t.Errorf("refused: %v", errs)
			}
		})
	}
}

// TestRulesPartlyKnown: values not known yet ("") hold back only the
// rules that need them.
func TestRulesPartlyKnown(t *testing.T) {
	c, f := r2(), r2Fences()
	c.Nodes[0].Addrs[0] = ""                       // ring address from another resource
	member(&c, "IPaddr2", 0).Params["ip"] = ""     // floating address too
	member(&c, "exportfs", 1).Params["fsid"] = "1" // but the fsids are written out
	f[0].SystemsURI = ""                           // the system id is read at apply
	f[1].Endpoint, f[1].Address = "r740-1", ""     // and nfs2's fence names nfs1's endpoint
	f[0].Address = ""
	c.Locations[0].Score = "inf"
	var got []string
	for _, err := range c.Rules(f) {
		var re *located.Error
		if errors.As(err, &re) {
			got = append(got, re.Path.String())
		}
	}
	want := []string{`groups[0].members[4].params["fsid"]`, `locations[0].score`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("refused %q, want %q", got, want)
	}
	// Once nfs1's system is known, the two devices aim at one system.
	f[0].SystemsURI = "/redfish/v1/Systems/System.Embedded.1"
	c.Locations[0].Score = "INFINITY"
	member(&c, "exportfs", 1).Params["fsid"] = "2"
	if errs := c.Rules(f); len(errs) != 1 || !strings.Contains(errs[0].Error(), `nodes["nfs2"].fence.endpoint`) {
		t.Errorf("with the system known: %v", errs)
	}
	// A netmask not known yet may put the floating address on the
	// cluster network; a meta score not known yet waits too.
	c = r2()
	member(&c, "IPaddr2", 0).Params["ip"], member(&c, "IPaddr2", 0).Params["cidr_netmask"] = "10.10.0.100", ""
	c.ResourceDefaults = map[string]string{"resource-stickiness": ""}
	f = r2Fences()
	if errs := c.Rules(f); len(errs) > 0 {
		t.Errorf("with the netmask and stickiness not known: %v", errs)
	}
	member(&c, "IPaddr2", 0).Params["ip"] = "192.168.7.100"
	delete(member(&c, "IPaddr2", 0).Params, "cidr_netmask")
	if errs := c.Rules(f); len(errs) != 1 || !strings.Contains(errs[0].Error(), "on none of the cluster networks") {
		t.Errorf("with no netmask: %v", errs)
	}
	// Once everything is known (Validate), an empty score is a mistake.
	c = r2()
	c.Locations[0].Score = ""
	c.ResourceDefaults = map[string]string{"resource-stickiness": ""}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `locations[0].score: score ""`) ||
		!strings.Contains(err.Error(), `resource_defaults["resource-stickiness"]: score ""`) {
		t.Errorf("Validate with empty scores: %v", err)
	}
}

// TestScoresAgainstCrmVerify: the score syntax is the CIB schema's, as
// crm_verify reads it; what it accepts beyond INFINITY is refused here,
// as pacemaker would silently cut it.
func TestScoresAgainstCrmVerify(t *testing.T) {
	cib, err := r2().Render(true)
	if err != nil {
		t.Fatal(err)
	}
	const at = `score="100"`
	if !strings.Contains(string(cib), at) {
		t.Fatalf("no %s in the CIB", at)
	}
	for _, s := range []string{"100", "+100", "-100", "0", "007", "1000000", "-1000000", "INFINITY", "+INFINITY", "-INFINITY",
		"high", "infinity", "-inf", "1e3", "1.5", "10 ", "", "5000000", "-99999999999"} {
		f := filepath.Join(t.TempDir(), "cib.xml")
		if err := os.WriteFile(f, []byte(strings.Replace(string(cib), at, `score="`+s+`"`, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errs, code := run(t, "", "crm_verify", "-x", f)
		schemaOK := code == 0
		ours := CheckScore(s)
		beyond := ours != nil && strings.Contains(ours.Error(), "beyond")
		switch {
		case beyond && !schemaOK:
			t.Errorf("%q: refused as beyond INFINITY, but crm_verify refuses its syntax: %s", s, errs)
		case !beyond && schemaOK != (ours == nil):
			t.Errorf("%q: crm_verify exit %d (%s), CheckScore %v", s, code, strings.TrimSpace(errs), ours)
		}
	}
}

// TestFenceSystemRules: a system that reports another node's host name
// is that node; its own name (with or without the domain), another name
// or none says nothing.
func TestFenceSystemRules(t *testing.T) {
	c, f := r2(), r2Fences()
	for _, tc := range []struct {
		names map[string]string
		want  string
	}{
		{map[string]string{"nfs1": "nfs1", "nfs2": "NFS2.example.com"}, ""},
		{map[string]string{"nfs1": "", "nfs2": "localhost"}, ""},
		{nil, ""},
		{map[string]string{"nfs1": "nfs2", "nfs2": "nfs1"}, `nodes["nfs1"].fence.endpoint nodes["nfs2"].fence.endpoint`},
		{map[string]string{"nfs1": "nfs1", "nfs2": "nfs1.hpc.example.com"}, `nodes["nfs2"].fence.endpoint`},
	} {
		var got []string
		for _, err := range FenceSystemRules(c.Nodes, f, tc.names) {
			var re *located.Error
			if !errors.As(err, &re) || !strings.Contains(re.Err.Error(), "reports host name") {
				t.Fatalf("%v", err)
			}
			got = append(got, re.Path.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("host names %v: refused %q, want %q", tc.names, got, tc.want)
		}
	}
}
