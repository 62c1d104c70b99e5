package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"

	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest"
)

// Roles a node may have. quorum and manager are node file designations;
// nsd_server and gateway (CES protocol node) need a server licence too.
const (
	RoleQuorum    = "quorum"
	RoleManager   = "manager"
	RoleNSDServer = "nsd_server"
	RoleGateway   = "gateway"
	RoleClient    = "client"
)

// Roles lists the node roles.
var Roles = []string{RoleQuorum, RoleManager, RoleNSDServer, RoleGateway, RoleClient}

// Node is one cluster node.
type Node struct {
	Name  string
	Roles []string
}

// Has reports whether the node has role r.
func (n Node) Has(r string) bool { return slices.Contains(n.Roles, r) }

// Designation is the node file's designation field: manager or client,
// then quorum or nonquorum, joined by "-" ("quorum-manager").
func (n Node) Designation() string {
	d := []string{}
	if n.Has(RoleQuorum) {
		d = append(d, "quorum")
	}
	if n.Has(RoleManager) {
		d = append(d, "manager")
	}
	if len(d) == 0 {
		return "client"
	}
	return strings.Join(d, "-")
}

// Licence is "server" for quorum, manager, NSD server and CES nodes (IBM's
// licensing rules), "client" otherwise.
func (n Node) Licence() string {
	for _, r := range []string{RoleQuorum, RoleManager, RoleNSDServer, RoleGateway} {
		if n.Has(r) {
			return "server"
		}
	}
	return "client"
}

// NodeFile is the node file mmcrcluster -N and mmaddnode -N read: one
// "name:designation" a line, in name order.
func NodeFile(nodes []Node) string {
	var b strings.Builder
	for _, n := range sortedNodes(nodes) {
		fmt.Fprintf(&b, "%s:%s\n", n.Name, n.Designation())
	}
	return b.String()
}

func sortedNodes(nodes []Node) []Node {
	out := slices.Clone(nodes)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Licences maps "server"/"client" to the sorted node names that need it.
func Licences(nodes []Node) map[string][]string {
	out := map[string][]string{}
	for _, n := range sortedNodes(nodes) {
		out[n.Licence()] = append(out[n.Licence()], n.Name)
	}
	return out
}

// MmcrclusterArgv creates the cluster from a node file, with ssh/scp as
// remote commands and daemons started at boot (-A).
func MmcrclusterArgv(nodeFile, name string) []string {
	return []string{"mmcrcluster", "-N", nodeFile, "-C", name, "-r", "/usr/bin/ssh", "-R", "/usr/bin/scp", "-A"}
}

// MmchlicenseArgv accepts a licence for nodes.
func MmchlicenseArgv(licence string, nodes []string) []string {
	return []string{"mmchlicense", licence, "--accept", "-N", strings.Join(nodes, ",")}
}

// ValidateCluster checks the cluster's name, nodes, node classes and
// configuration (by class; AllNodes is cluster-wide).
func ValidateCluster(name string, nodes []Node, classes map[string][]string, config map[string]map[string]string) Problems {
	var ps Problems
	if !validName(name, ".-") {
		ps.add(located.At("name"), "%q is not a cluster name: letters, digits, dots, dashes and underscores", name)
	}
	if len(nodes) == 0 {
		ps.add(located.At("nodes"), "a cluster needs at least one node")
	}
	quorum := 0
	names := map[string]bool{}
	for _, n := range nodes {
		at := located.At("nodes").Key(n.Name).Name("roles")
		names[n.Name] = true
		if !validName(n.Name, ".-") {
			ps.add(located.At("nodes").Key(n.Name), "%q is not a node name", n.Name)
		}
		for _, r := range n.Roles {
			if !slices.Contains(Roles, r) {
				ps.add(at, "role %q is not one of %s%s", r, strings.Join(Roles, ", "), didYouMean(r, Roles))
			}
		}
		if n.Has(RoleClient) && len(n.Roles) > 1 {
			ps.add(at, "node %s is a client: it cannot have other roles", n.Name)
		}
		if n.Has(RoleQuorum) {
			quorum++
		}
	}
	gateways := false
	for _, n := range nodes {
		gateways = gateways || n.Has(RoleGateway)
	}
	if _, ok := config[AllNodes]["cesSharedRoot"]; gateways && !ok {
		ps.add(located.At("config").Key(AllNodes), "gateway nodes need cesSharedRoot (the CES shared folder, e.g. /gpfs/fs1/.ces): "+
			"GPFS makes no protocol node without it")
	}
	if len(nodes) > 0 && quorum == 0 {
		ps.add(located.At("nodes"), "no quorum node: give at least one node the quorum role")
	}
	if quorum > 0 && quorum%2 == 0 {
		ps.warn(located.At("nodes"), "%d quorum nodes: an odd number (1, 3, 5 or 7) is recommended, or tiebreaker disks with an even one", quorum)
	}
	for c, members := range classes {
		at := located.At("node_classes").Key(c)
		switch {
		case IsSystemClass(c):
			ps.add(at, "%s is a node class GPFS defines itself (its members follow the nodes' roles): name yours otherwise, e.g. %sServers",
				c, strings.TrimSuffix(c, "Nodes"))
		case !validName(c, "-"):
			ps.add(at, "%q is not a node class name (letters, digits, dashes, underscores)", c)
		}
		for _, m := range members {
			if !names[m] {
				ps.add(at, "member %s is not a node of the cluster", m)
			}
		}
	}
	for c, kv := range config {
		if classes[c] == nil && !names[c] && !IsSystemClass(c) {
			ps.add(located.At("config").Key(c), "%q is neither a node class of node_classes, a system node class (%s), nor a node",
				c, strings.Join(SystemClasses, ", "))
		}
		for k, v := range kv {
			if err := CheckConfig(k, v); err != nil {
				ps.add(located.At("config").Key(c).Key(k), "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
			}
		}
		if k, err := CheckPairs(kv); err != nil {
			ps.add(located.At("config").Key(c).Key(k), "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
		}
	}
	return ps
}

// AllNodes is the config scope without -N (cluster-wide).
const AllNodes = "all"

// SystemClasses are the node classes GPFS defines (mmcrnodeclass refuses
// their names; mmchconfig -N takes them).
var SystemClasses = []string{"all", "aixNodes", "cesNodes", "clientLicense", "clientNodes", "cloudGatewayNodes", "cnfsNodes",
	"gatewayNodes", "linuxNodes", "managerNodes", "mountNodes", "nonAixNodes", "nonCesNodes", "nonCnfsNodes", "nonLinuxNodes",
	"nonManagerNodes", "nonQuorumNodes", "nonWindowsNodes", "nsdNodes", "quorumNodes", "serverLicense", "windowsNodes"}

// IsSystemClass reports whether name is a system node class (GPFS compares
// them case-insensitively).
func IsSystemClass(name string) bool {
	for _, c := range SystemClasses {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

func didYouMean(got string, options []string) string {
	return suggest.DidYouMean(got, options, 3)
}
