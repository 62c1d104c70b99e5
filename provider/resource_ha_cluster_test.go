package provider

import (
	"context"
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// haLab is the R2 lab (nfs1, nfs2 and their BMCs) with a corosync key.
type haLab struct {
	*lab.Lab
	dir, authkey, password string
}

const haLabPassword = "lab-bmc-password-r2"

func startHALab(t *testing.T) *haLab {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r2", Dir: dir, Password: haLabPassword, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for _, n := range l.State.Nodes {
		if !fileExists(filepath.Join(n.Root, "usr/lib/systemd/system/pacemaker.service")) {
			if err := fakenode.InstallUnits(n.Root, fakenode.ClusterUnits...); err != nil {
				t.Fatal(err)
			}
		}
	}
	key := make([]byte, 256)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	h := &haLab{Lab: l, dir: dir, authkey: filepath.Join(dir, "authkey"), password: haLabPassword}
	if err := os.WriteFile(h.authkey, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (l *haLab) node(name string) lab.NodeInfo {
	for _, n := range l.State.Nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

func (l *haLab) endpoint(name string) lab.Endpoint {
	for _, e := range l.State.Endpoints {
		if e.Name == name {
			return e
		}
	}
	panic("no endpoint " + name)
}

// haConfig is the provider with both BMCs and a two-node cluster whose
// group holds a Dummy and a floating IP; body adds to the resource.
type haConfig struct {
	netmask   string
	standby1  bool
	fence     bool
	nodes     []string
	twoNode   bool
	extraBody string
	group     string
	transport string
}

func (l *haLab) config(c haConfig) string {
	if c.netmask == "" {
		c.netmask = "24"
	}
	if c.nodes == nil {
		c.nodes = []string{"nfs1", "nfs2"}
	}
	if c.transport == "" {
		c.transport = "udpu"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `
provider "hpcstorage" {
  ssh = {
    private_key_file  = %q
    known_hosts_files = [%q]
  }
  endpoints = {
`, filepath.Join(l.dir, lab.KeyFile), filepath.Join(l.dir, lab.KnownHostsFile))
	for _, n := range []string{"nfs1", "nfs2"} {
		ep := l.endpoint(n + "-bmc")
		fmt.Fprintf(&b, "    %q = { url = %q, username = %q, password = %q, ca_certificate = %q }\n", ep.Name, ep.URL, ep.Username, l.password,
			l.State.CACertificate)
	}
	b.WriteString("  }\n}\n")
	for _, n := range []string{"nfs1", "nfs2"} {
		fmt.Fprintf(&b, "data \"hpcstorage_server\" %q { endpoint = %q }\n", n, n+"-bmc")
	}
	fmt.Fprintf(&b, `
resource "hpcstorage_ha_cluster" "c" {
  name         = "nfsha"
  transport    = %q
  two_node     = %v
  networks     = ["10.10.1.0/24"]
  authkey_file = %q
  nodes = {
`, c.transport, c.twoNode || len(c.nodes) == 2, l.authkey)
	for i, n := range c.nodes {
		fence := ""
		if c.fence {
			delay := ""
			if n == "nfs1" {
				delay = `, params = { pcmk_delay_base = "5s" }`
			}
			fence = fmt.Sprintf(`, fence = { endpoint = "%s-bmc", systems_uri = "/redfish/v1/Systems/${data.hpcstorage_server.%s.system_id}"%s }`, n, n, delay)
		}
		standby := n == "nfs1" && c.standby1
		fmt.Fprintf(&b, "    %s = { host = %q, addrs = [\"10.10.1.%d\"], standby = %v%s }\n", n, l.node(n).Host, 11+i, standby, fence)
	}
	b.WriteString("  }\n")
	group := c.group
	if group == "" {
		group = fmt.Sprintf(`[{ id = "svc", members = [
    { id = "svc-a", type = "Dummy" },
    { id = "svc-ip", type = "IPaddr2", params = { ip = "10.10.1.100", cidr_netmask = %q },
      ops = [{ name = "monitor", interval = "30s", timeout = "20s" }] },
  ] }]`, c.netmask)
	}
	fmt.Fprintf(&b, `
  properties        = { "no-quorum-policy" = "ignore" }
  resource_defaults = { "resource-stickiness" = "100" }
  groups            = %s
  locations         = [{ id = "svc-prefers-nfs1", rsc = "svc", node = "nfs1", score = "100" }]
%s
}
`, group, c.extraBody)
	return b.String()
}

func (l *haLab) shared(file string) string {
	b, err := os.ReadFile(filepath.Join(l.dir, lab.SharedDir, "pacemaker-nfsha", file))
	if err != nil && !os.IsNotExist(err) {
		panic(err)
	}
	return string(b)
}

// simTool runs a lab tool on a node as an administrator would by hand.
func (l *haLab) simTool(t *testing.T, node string, argv ...string) string {
	t.Helper()
	root, err := fsroot.Open(l.node(node).Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var out, errb strings.Builder
	if code := sim.Run(&sim.Env{Root: root, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, argv); code != 0 {
		t.Fatalf("%v on %s: exit %d %s", argv, node, code, errb.String())
	}
	return out.String()
}

const haRes = "hpcstorage_ha_cluster.c"

// The cluster end to end in the lab with the real terraform: created and
// pushed from one node, an empty plan after, a hand change shown as drift
// and put back, one changed parameter sent as a one-change patch, standby
// moving the group, destroy stopping the cluster.
func TestAccHAClusterLab(t *testing.T) {
	t.Parallel()
	l := startHALab(t)
	base := haConfig{fence: true}
	changed := base
	changed.netmask = "16"
	standby := changed
	standby.standby1 = true
	knet := changed
	knet.transport = "knet"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			for _, n := range []string{"nfs1", "nfs2"} {
				root := l.node(n).Root
				if fileExists(filepath.Join(root, "etc/corosync/corosync.conf")) || fileExists(filepath.Join(root, "etc/corosync/authkey")) ||
					fileExists(filepath.Join(root, strings.TrimPrefix(pacemaker.PasswordFile("fence-nfs1"), "/"))) {
					return fmt.Errorf("%s: cluster files left after destroy", n)
				}
				st, _ := os.ReadFile(filepath.Join(root, "run/hpcstorage-sim/systemd.json"))
				if strings.Contains(string(st), "pacemaker.service") || strings.Contains(string(st), "corosync.service") {
					return fmt.Errorf("%s: cluster units still enabled or running: %s", n, st)
				}
			}
			cib := l.shared("cib.xml")
			if strings.Contains(cib, "<primitive") && strings.Contains(cib, `id="svc-a"`) {
				return fmt.Errorf("the CIB still holds the resources after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: l.config(base),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc"), knownvalue.StringExact("nfs1")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc-ip"), knownvalue.StringExact("nfs1")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("fence-nfs1"), knownvalue.StringExact("nfs2")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("fence-nfs2"), knownvalue.StringExact("nfs1")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("push_node"), knownvalue.StringExact("nfs1")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("authkey_hash"), knownvalue.StringRegexp(regexp.MustCompile(`^scrypt:[0-9a-f]{64}$`))),
				},
				Check: func(s *terraform.State) error {
					// State keeps hashes, never the BMC password or the key.
					key, err := os.ReadFile(l.authkey)
					if err != nil {
						return err
					}
					for k, v := range s.RootModule().Resources[haRes].Primary.Attributes {
						if strings.Contains(v, l.password) || strings.Contains(v, string(key[:32])) {
							return fmt.Errorf("state attribute %s holds a secret", k)
						}
					}
					for _, n := range []string{"nfs1", "nfs2"} {
						root := l.node(n).Root
						st, err := os.Stat(filepath.Join(root, "etc/corosync/authkey"))
						if err != nil || st.Mode().Perm() != 0o400 {
							return fmt.Errorf("%s authkey: %v %v", n, err, st)
						}
						pw, err := os.ReadFile(filepath.Join(root, strings.TrimPrefix(pacemaker.PasswordFile("fence-nfs2"), "/")))
						if err != nil || strings.TrimSpace(string(pw)) != l.password {
							return fmt.Errorf("%s: fence-nfs2 password file: %v", n, err)
						}
					}
					// The CIB holds the password script, never the password.
					cib := l.shared("cib.xml")
					if strings.Contains(cib, l.password) || !strings.Contains(cib, "password_script") || !strings.Contains(cib, `name="systems_uri"`) {
						return fmt.Errorf("CIB fence devices:\n%s", cib)
					}
					return onlyFrom(l.shared(sim.OperationsLog), "nfs1")
				},
			},
			{
				// nfs1 crashes (its BMC restarts it): nfs2 fences it and takes
				// the group; nfs1 boots and joins again, the group stays on
				// nfs2 (stickiness 200 against a location score of 100). Then
				// svc-ip's monitor finds it dead on nfs2 (restarted there).
				// The plan shows the failover's history; the apply cleans it
				// up and moves the group home (pcs resource relocate run).
				PreConfig: func() {
					bmcPowerCycle(t, l.Lab, "nfs1", l.password)
					if tr := l.shared("transitions.log"); !strings.Contains(tr, "Fencing nfs1") || !strings.Contains(tr, "failed [nfs1]") {
						t.Fatalf("nfs1's crash did not fence it:\n%s", tr)
					}
					if err := sim.FailResource(l.node("nfs2").Root, "svc-ip"); err != nil {
						t.Fatal(err)
					}
				},
				Config: l.config(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(haRes, plancheck.ResourceActionUpdate),
					expectPriorDrift(haRes, "fence_history", "reboot of nfs1: success, by nfs2 at "),
					expectPriorDrift(haRes, "failed_actions", "svc-ip_monitor_30000 on nfs2: not running (rc 7)"),
					expectPriorDrift(haRes, "placement", "svc runs on nfs2, prefers nfs1"),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc"), knownvalue.StringExact("nfs1")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("failed_actions"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("fence_history"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: func(*terraform.State) error {
					ops := l.shared(sim.OperationsLog)
					for _, want := range []string{"nfs1: crm_resource --cleanup", "nfs1: stonith_admin --history * --cleanup",
						"nfs1: crm_resource --move --resource svc --node nfs1", "nfs1: crm_resource --clear --resource svc"} {
						if !strings.Contains(ops, want+"\n") {
							return fmt.Errorf("operations.log has no %q:\n%s", want, ops)
						}
					}
					if cib := l.shared("cib.xml"); strings.Contains(cib, "cli-prefer") {
						return fmt.Errorf("the relocation left its constraint:\n%s", cib)
					}
					return nil
				},
			},
			{
				// Cleaned up and home: the next plan is empty.
				Config: l.config(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				// A new authkey in the file: the plan shows the new key's
				// hash (a no-op plan keeps the state's hash once the nodes
				// say they hold the configured key), the apply puts it on
				// both nodes.
				PreConfig: func() {
					key := make([]byte, 512)
					if _, err := rand.Read(key); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(l.authkey, key, 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config: l.config(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(haRes, plancheck.ResourceActionUpdate),
					expectAuthkeyHash(l),
				}},
				Check: func(*terraform.State) error {
					key, err := os.ReadFile(l.authkey)
					if err != nil {
						return err
					}
					for _, n := range []string{"nfs1", "nfs2"} {
						got, err := os.ReadFile(filepath.Join(l.node(n).Root, "etc/corosync/authkey"))
						if err != nil || string(got) != string(key) {
							return fmt.Errorf("%s: the new authkey is not on the node (%v)", n, err)
						}
					}
					return nil
				},
			},
			{
				Config: l.config(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				// By hand, on nfs2: pcs resource update svc-ip cidr_netmask=20.
				PreConfig: func() {
					l.simTool(t, "nfs2", "crm_resource", "--resource", "svc-ip", "--set-parameter", "cidr_netmask", "--parameter-value", "20")
				},
				Config: l.config(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(haRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(haRes, tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					expectPriorDrift(haRes, "cib", `value="20"`),
				}},
				Check: func(*terraform.State) error {
					if cib := l.shared("cib.xml"); !strings.Contains(cib, `name="cidr_netmask" value="24"`) {
						return fmt.Errorf("the hand change was not put back")
					}
					return nil
				},
			},
			{
				Config: l.config(changed),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(haRes, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					patch, err := os.ReadFile(filepath.Join(l.node("nfs1").Root, "var/lib/hpcstorage/cluster/nfsha/cib-patch.xml"))
					if err != nil {
						return err
					}
					if err := onePatchChange(patch, "svc-ip-instance_attributes-cidr_netmask"); err != nil {
						return err
					}
					ops := l.shared(sim.OperationsLog)
					if strings.Contains(ops, "--replace") || strings.Count(ops, "cibadmin --patch") < 3 {
						return fmt.Errorf("the CIB was not changed by patches only:\n%s", ops)
					}
					return onlyFrom(ops, "nfs1")
				},
			},
			{
				Config: l.config(standby),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc"), knownvalue.StringExact("nfs2")),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc-a"), knownvalue.StringExact("nfs2")),
				},
			},
			{
				// Unstandby: stickiness alone would keep the group on nfs2;
				// the apply moves it home (failback, pcs resource relocate run).
				Config: l.config(changed),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc"), knownvalue.StringExact("nfs1")),
				},
			},
			{
				// corosync.conf changes (knet, with its crypto): corosync
				// restarts on both nodes, pacemaker with it, and the
				// cluster comes back with its configuration.
				Config: l.config(knet),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("placement").AtMapKey("svc-ip"), knownvalue.StringRegexp(regexp.MustCompile(`^nfs[12]$`))),
					statecheck.ExpectKnownValue(haRes, tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: func(*terraform.State) error {
					for _, n := range []string{"nfs1", "nfs2"} {
						conf, err := os.ReadFile(filepath.Join(l.node(n).Root, "etc/corosync/corosync.conf"))
						if err != nil || !strings.Contains(string(conf), "transport: knet") {
							return fmt.Errorf("%s corosync.conf: %v\n%s", n, err, conf)
						}
						// The restart: the node left and joined again.
						if tr := l.shared("transitions.log"); !strings.Contains(tr, "down ["+n+"]") {
							return fmt.Errorf("%s never left the cluster for the corosync restart:\n%s", n, tr)
						}
					}
					return nil
				},
			},
		},
	})
}

// expectAuthkeyHash checks that the plan holds the hash of the key now in
// the authkey file.
func expectAuthkeyHash(l *haLab) plancheck.PlanCheck {
	return planCheckFunc(func(req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
		key, err := os.ReadFile(l.authkey)
		if err != nil {
			resp.Error = err
			return
		}
		for _, rc := range req.Plan.ResourceChanges {
			if rc.Address != haRes {
				continue
			}
			after, _ := rc.Change.After.(map[string]any)
			if got := after["authkey_hash"]; got != secret.Hash(string(key)) {
				resp.Error = fmt.Errorf("planned authkey_hash %v, want the new key's hash", got)
			}
			return
		}
		resp.Error = fmt.Errorf("no change of %s in the plan", haRes)
	})
}

// onlyFrom checks that every CIB change the provider made (cibadmin; the
// test's own hand changes use crm_resource) came from node.
func onlyFrom(ops, node string) error {
	if !strings.Contains(ops, "cibadmin") {
		return fmt.Errorf("no CIB change was logged")
	}
	for _, line := range strings.Split(strings.TrimSpace(ops), "\n") {
		if strings.Contains(line, ": cibadmin ") && !strings.HasPrefix(line, node+": ") {
			return fmt.Errorf("a CIB change from another node than %s: %s", node, line)
		}
	}
	return nil
}

// onePatchChange checks that a crm_diff patch holds one change, on id.
func onePatchChange(patch []byte, id string) error {
	var p struct {
		Format  string `xml:"format,attr"`
		Changes []struct {
			Op   string `xml:"operation,attr"`
			Path string `xml:"path,attr"`
		} `xml:"change"`
	}
	if err := xml.Unmarshal(patch, &p); err != nil {
		return err
	}
	if p.Format != "2" || len(p.Changes) != 1 || p.Changes[0].Op != "modify" || !strings.Contains(p.Changes[0].Path, id) {
		return fmt.Errorf("want a v2 patch with one modify of %s:\n%s", id, patch)
	}
	return nil
}

// priorDrift checks the refreshed state the plan starts from: its drift
// has key, with want in the text.
type priorDrift struct{ addr, key, want string }

func expectPriorDrift(addr, key, want string) plancheck.PlanCheck { return priorDrift{addr, key, want} }

func (c priorDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if req.Plan.PriorState == nil || req.Plan.PriorState.Values == nil {
		resp.Error = fmt.Errorf("plan has no prior state")
		return
	}
	for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
		if r.Address != c.addr {
			continue
		}
		d, _ := r.AttributeValues["drift"].(map[string]any)
		s, _ := d[c.key].(string)
		if !strings.Contains(s, c.want) {
			resp.Error = fmt.Errorf("%s drift[%s] = %q, want it to contain %q (drift: %v)", c.addr, c.key, s, c.want, d)
		}
		return
	}
	resp.Error = fmt.Errorf("%s not in the prior state", c.addr)
}

// Bad clusters fail the plan, each naming its attribute, before any node
// is reached (the hosts below do not exist).
func TestAccHAClusterRefusedAtPlan(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "bmc.pw")
	key := filepath.Join(dir, "authkey")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 128)), 0o600); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	fence := func(n string) string {
		return fmt.Sprintf(`fence = { ip = "10.0.0.%s", username = "root", password_file = %q, systems_uri = "/redfish/v1/Systems/1" }`,
			strings.TrimPrefix(n, "nfs"), pw)
	}
	cfg := func(nodes map[string]bool, twoNode bool, body string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `
resource "hpcstorage_ha_cluster" "c" {
  name         = "bad"
  two_node     = %v
  authkey_file = %q
  nodes = {
`, twoNode, key)
		for _, n := range []string{"nfs1", "nfs2"} {
			withFence, ok := nodes[n]
			if !ok {
				continue
			}
			f := ""
			if withFence {
				f = ", " + fence(n)
			}
			fmt.Fprintf(&b, "    %s = { host = \"127.0.0.1:1\", addrs = [\"10.10.1.1%s\"]%s }\n", n, strings.TrimPrefix(n, "nfs"), f)
		}
		fmt.Fprintf(&b, "  }\n%s\n}\n", body)
		return b.String()
	}
	both := map[string]bool{"nfs1": true, "nfs2": true}
	group := func(members string) string { return `groups = [{ id = "g", members = [` + members + `] }]` }
	steps := []struct {
		name, config, want string
	}{
		{"no fencing", cfg(map[string]bool{"nfs1": false, "nfs2": false}, true, ""),
			`(?s)Attribute nodes.*a cluster without fencing is refused`},
		{"one node without two_node", cfg(map[string]bool{"nfs1": true}, false, ""),
			`(?s)Attribute two_node.*a cluster of one node has no node to fail over to`},
		{"two nodes without two_node", cfg(both, false, ""),
			`(?s)Attribute two_node.*loses quorum`},
		{"fence device on its own node", cfg(both, true, `locations = [{ id = "bad", rsc = "fence-nfs1", node = "nfs1", score = "100" }]`),
			`(?s)Attribute locations\[0\].*fence device fence-nfs1 fences nfs1 and may never run there`},
		{"unknown agent", cfg(both, true, group(`{ id = "a", type = "Dumy" }`)),
			`(?s)Attribute groups\[0\]\.members\[0\].*unknown agent ocf:heartbeat:Dumy`},
		{"unknown parameter", cfg(both, true, group(`{ id = "ip", type = "IPaddr2", params = { ip = "10.10.1.100", cidr_netmaks = "24" } }`)),
			`(?s)Attribute groups\[0\]\.members\[0\].*unknown parameter "cidr_netmaks".*did you mean "cidr_netmask"`},
		{"export without client spec", cfg(both, true, group(`{ id = "ex", type = "exportfs", params = { directory = "/srv/nfs", fsid = "1", clientspec = "" } }`)),
			`(?s)Attribute groups\[0\]\.members\[0\].*parameter "clientspec" of ocf:heartbeat:exportfs is required and empty`},
		{"export without clientspec at all", cfg(both, true, `primitives = [{ id = "ex", type = "exportfs", params = { directory = "/srv/nfs", fsid = "1" } }]`),
			`(?s)Attribute primitives\[0\].*needs parameter "clientspec"`},
		{"password in the CIB", strings.Replace(cfg(both, true, ""), `username = "root",`, `username = "root", params = { password = "x" },`, 1),
			`(?s)Attribute nodes\["nfs1"\]\.fence.*would keep the BMC password in the CIB in clear`},
		{"authkey too short", strings.Replace(cfg(both, true, ""), key, short, 1),
			`(?s)Attribute authkey_file.*The key has 10 bytes; corosync wants 128 to 4096`},
		{"fence without systems_uri target", strings.Replace(cfg(both, true, ""), `systems_uri = "/redfish/v1/Systems/1"`, `systems_uri = "/redfish/v1/Systems/"`, 1),
			`(?s)Attribute nodes\["nfs1"\]\.fence.*systems_uri`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: nodeProviderFactories,
				Steps:                    []resource.TestStep{{Config: s.config, PlanOnly: true, ExpectError: regexp.MustCompile(strings.ReplaceAll(s.want, " ", `\s+`))}},
			})
		})
	}
}

// TestHAClusterErrorsOnTheirAttribute: the renderer's locations, in the
// Cluster's terms, land on the resource's attributes: nodes[i] and
// fence_devices[i] on the nodes map (a fence device under its node's
// fence), the rules' node keys as they are, the rest unchanged, and what
// the schema does not have on the resource.
func TestHAClusterErrorsOnTheirAttribute(t *testing.T) {
	h := haCluster{
		c: pacemaker.Cluster{Nodes: []pacemaker.Node{{Name: "nfs2", ID: 2}, {Name: "nfs1", ID: 1}},
			Fencing: []pacemaker.FenceDevice{{ID: "fence-nfs1", Node: "nfs1"}, {ID: "fence-nfs2", Node: "nfs2"}}},
		names: []string{"nfs1", "nfs2"},
	}
	err := errors.Join(
		located.Errorf(located.At("nodes").Index(0), "name"),
		located.Errorf(located.At("fence_devices").Index(1).Name("params"), "ipport"),
		located.Errorf(located.At("nodes").Key("nfs1").Name("addrs").Index(0), "ring"),
		located.Errorf(located.At("groups").Index(0).Name("members").Index(2).Name("ops").Index(1), "op"),
		located.Errorf(located.At("fence_devices"), "no fencing"),
		located.Errorf(located.At("exports").Index(0), "not an attribute"),
	)
	var diags diag.Diagnostics
	h.invalidCluster(&diags, err)
	want := []path.Path{
		path.Root("nodes").AtMapKey("nfs2"),
		path.Root("nodes").AtMapKey("nfs2").AtName("fence").AtName("params"),
		path.Root("nodes").AtMapKey("nfs1").AtName("addrs").AtListIndex(0),
		path.Root("groups").AtListIndex(0).AtName("members").AtListIndex(2).AtName("ops").AtListIndex(1),
		path.Root("nodes"),
		path.Empty(),
	}
	if len(diags) != len(want) {
		t.Fatalf("%d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, d := range diags {
		got := path.Empty()
		if a, ok := d.(diag.DiagnosticWithPath); ok {
			got = a.Path()
		}
		if !got.Equal(want[i]) || d.Summary() != "Invalid Cluster Setting" {
			t.Errorf("diagnostic %d on %s (%s), want %s", i, got, d.Summary(), want[i])
		}
	}
}
