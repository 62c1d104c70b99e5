package pacemaker

// Day-2 maintenance of one cluster member, as an administrator runs it
// with pcs: `pcs node standby` (crm_attribute --name standby), wait until
// nothing runs there, work, wait until the node is back, `pcs node
// unstandby`, and the failback. What is read comes from crm_mon's XML;
// the maintenance lock is a cluster property set the CIB manager creates
// only once (cibadmin --create refuses an existing id: "File exists",
// exit 108), so two Terraform runs on two machines cannot both take a
// member of the same cluster out.

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// MaintenanceLockPrefix starts the id of every maintenance lock's
// property set: the HA cluster's drift ignores them and its pushes keep
// them, so a lock left by an interrupted run survives until that run is
// resumed.
const MaintenanceLockPrefix = "hpcstorage-day2-"

// Names inside a maintenance lock's property set.
const (
	lockHolder  = "holder"
	lockHome    = "home"
	lockStandby = "standby"
)

// NotConnected is how pacemaker's tools fail where the cluster does not
// run (CRM_EX_DISCONNECT).
const NotConnected = "Transport endpoint is not connected"

// NodeState is one node as crm_mon reports it.
type NodeState struct {
	Online  bool
	Standby bool
}

// Members reads crm_mon's XML: every node's state, and where each
// top-level service (a primitive outside groups, or a group; fence devices
// aside) runs ("" when stopped). A group's members are not listed: they
// move with it.
func Members(monXML []byte) (map[string]NodeState, map[string]string, error) {
	root, err := parseTree(monXML)
	if err != nil {
		return nil, nil, err
	}
	if root.Name != "pacemaker-result" && root.Name != "crm_mon" {
		return nil, nil, fmt.Errorf("%w: want crm_mon's XML, got <%s>", ErrLive, root.Name)
	}
	nodes := map[string]NodeState{}
	if ns := root.child("nodes"); ns != nil {
		for _, n := range ns.Children {
			if n.Name == "node" {
				nodes[n.attr("name")] = NodeState{Online: n.attr("online") == "true", Standby: n.attr("standby") == "true"}
			}
		}
	}
	pl, err := Placement(monXML)
	if err != nil {
		return nil, nil, err
	}
	top := map[string]string{}
	if res := root.child("resources"); res != nil {
		for _, r := range res.Children {
			// Fence devices are not services: one that may only run on the
			// peer of the node it fences has nowhere to go while that peer
			// is out, by design.
			if r.Name == "group" || r.Name == "resource" && !strings.HasPrefix(r.attr("resource_agent"), "stonith:") {
				top[r.attr("id")] = pl[r.attr("id")]
			}
		}
	}
	return nodes, top, nil
}

// Running lists the top-level resources that run on node, sorted.
func Running(top map[string]string, node string) []string {
	var out []string
	for id, at := range top {
		if at == node {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Lock is a maintenance lock as the CIB holds it.
type Lock struct {
	Holder string   // the member in maintenance
	Home   []string // the resources that ran on it before, to fail back
	// Standby: the member was in standby already (the configuration keeps
	// it there), so the sequence leaves it in standby.
	Standby bool
}

// lockID is the property set of a domain's lock; domain names are
// checked by the provider (XML ids: letters, digits, '-', '_', '.').
func lockID(domain string) string { return MaintenanceLockPrefix + domain }

// ValidDomain is what a failure domain's name may be: an XML id tail.
var ValidDomain = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,62}$`)

// ReadLock finds a domain's lock in `cibadmin --query --scope crm_config`
// output; nil when there is none.
func ReadLock(crmConfig []byte, domain string) (*Lock, error) {
	root, err := parseTree(crmConfig)
	if err != nil {
		return nil, err
	}
	if root.Name != "crm_config" {
		if c := root.child("configuration"); c != nil {
			root = c
		}
		if c := root.child("crm_config"); c != nil {
			root = c
		}
	}
	for _, set := range root.Children {
		if set.Name != "cluster_property_set" || set.attr("id") != lockID(domain) {
			continue
		}
		l := &Lock{}
		for _, nv := range set.Children {
			switch strings.TrimPrefix(nv.attr("name"), lockID(domain)+"-") {
			case lockHolder:
				l.Holder = nv.attr("value")
			case lockHome:
				l.Home = strings.Fields(nv.attr("value"))
			case lockStandby:
				l.Standby = nv.attr("value") == "on"
			}
		}
		return l, nil
	}
	return nil, nil
}

// QueryCRMConfigItem reads the cluster's properties (read-only).
func QueryCRMConfigItem() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "crm-config",
		Argv: []string{"cibadmin", "--query", "--scope", "crm_config"}, ReadOnly: true}}
}

// QueryMembersItem reads crm_mon's XML once (read-only), for Members.
func QueryMembersItem() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "crm-mon", Argv: []string{"crm_mon", "-1", "-X"}, ReadOnly: true}}
}

// TakeLockItem creates a domain's lock for holder; the CIB manager
// refuses it ("File exists", exit 108) when any run holds the domain already.
func TakeLockItem(domain string, l Lock) protocol.Item {
	id := lockID(domain)
	sb := "off"
	if l.Standby {
		sb = "on"
	}
	set := &tree{Name: "cluster_property_set", Attrs: []xml.Attr{{Name: xml.Name{Local: "id"}, Value: id}}}
	for _, nv := range [][2]string{{lockHolder, l.Holder}, {lockHome, strings.Join(l.Home, " ")}, {lockStandby, sb}} {
		name := id + "-" + nv[0]
		set.Children = append(set.Children, &tree{Name: "nvpair", Attrs: []xml.Attr{
			{Name: xml.Name{Local: "id"}, Value: name}, {Name: xml.Name{Local: "name"}, Value: name}, {Name: xml.Name{Local: "value"}, Value: nv[1]}}})
	}
	return protocol.Item{Command: &protocol.Command{Name: "day2-lock",
		Argv:   []string{"cibadmin", "--create", "--scope", "crm_config", "--xml-text", string(set.marshal())},
		Unless: []string{"cibadmin", "--query", "--scope", "crm_config", "--xpath", lockXPath(domain)}}}
}

func lockXPath(domain string) string { return "//cluster_property_set[@id='" + lockID(domain) + "']" }

// absent runs a query and succeeds when it finds nothing.
const absent = `! cibadmin --query --scope crm_config --xpath "$1" >/dev/null 2>&1`

// ReleaseLockItem deletes a domain's lock (nothing when it is gone).
func ReleaseLockItem(domain string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "day2-unlock",
		Argv:   []string{"cibadmin", "--delete", "--scope", "crm_config", "--xml-text", `<cluster_property_set id="` + lockID(domain) + `"/>`},
		Unless: []string{"sh", "-c", absent, "day2-unlock", lockXPath(domain)}}}
}

// StandbyItem puts node in standby (on) or takes it out, as pcs node
// standby/unstandby do: the permanent node attribute (a reboot keeps the
// node in standby until it is cleared), left "off" afterwards as pcs
// leaves it and the HA cluster renders it.
func StandbyItem(node string, on bool) protocol.Item {
	val, name := "off", "unstandby-"+node
	if on {
		val, name = "on", "standby-"+node
	}
	return protocol.Item{Command: &protocol.Command{Name: name,
		Argv:        []string{"crm_attribute", "--node", node, "--name", "standby", "--update", val},
		Unless:      []string{"crm_attribute", "--node", node, "--name", "standby", "--query", "--quiet"},
		UnlessMatch: []string{"^" + val + `\s*$`}}}
}

// RelocateHomeItems moves each of ids back to node unless it runs there.
func RelocateHomeItems(ids []string, node string) []protocol.Item {
	moves := map[string]string{}
	for _, id := range ids {
		moves[id] = node
	}
	return RelocateItems(moves)
}

// isLockSet reports whether a crm_config child is a maintenance lock.
func isLockSet(parents []*tree, n *tree) bool {
	return n.Name == "cluster_property_set" && len(parents) > 0 && parents[len(parents)-1].Name == "crm_config" &&
		strings.HasPrefix(n.attr("id"), MaintenanceLockPrefix)
}
