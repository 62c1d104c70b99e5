package pacemaker

// The rules a cluster's values must keep with each other: what corosync,
// pacemaker or the agents would refuse or misuse although every value is
// well formed on its own. Each broken rule is a RuleError located on the
// attribute at fault, so a plan fails there. On a cluster not fully known
// yet (Rules), a value that is "" (a map value: a key holding "") is not
// known yet: the rules that need it wait, the others run.

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// broken is one broken rule, located at the attribute of the value at
// fault as the resource spells it (nodes["nfs2"].addrs[0],
// groups[0].members[3].params["fsid"]); it is ErrInvalid (errors.Is).
func broken(at located.Path, format string, args ...any) error {
	return located.Wrap(at, invalidErr(fmt.Sprintf(format, args...)))
}

// FenceTarget is what one node's fence device is aimed at, as configured:
// the BMC (a provider endpoint's name and/or its address, host or
// host:port) and the Redfish system on it.
type FenceTarget struct {
	Node       string
	Endpoint   string
	Address    string
	SystemsURI string
}

// ScoreInfinity is pacemaker's INFINITY: scores beyond it are cut to it.
const ScoreInfinity = 1000000

// reScoreWord is a score in the CIB schema's grammar (an xsd:integer or
// INFINITY with an optional sign).
var reScoreWord = regexp.MustCompile(`^[+-]?(INFINITY|[0-9]+)$`)

// CheckScore checks a constraint or meta-attribute score: an integer from
// -1000000 to 1000000, INFINITY, +INFINITY or -INFINITY (the CIB schema's
// spelling: crm_verify refuses "inf" or "infinity"; pacemaker silently
// cuts 5000000 to INFINITY, which hides a typo).
func CheckScore(s string) error {
	// xsd:integer collapses white space around the value, so does crm_verify.
	s = strings.Trim(s, " \t\r\n")
	if !reScoreWord.MatchString(s) {
		hint := ""
		if strings.EqualFold(strings.TrimLeft(s, "+-"), "INFINITY") || strings.EqualFold(strings.TrimLeft(s, "+-"), "inf") {
			hint = " (INFINITY is spelt in capitals)"
		}
		return fmt.Errorf("score %q: want an integer, INFINITY, +INFINITY or -INFINITY%s", s, hint)
	}
	if digits := strings.TrimLeft(s, "+-"); digits != "INFINITY" {
		n, _ := new(big.Int).SetString(digits, 10)
		if n.Cmp(big.NewInt(ScoreInfinity)) > 0 {
			return fmt.Errorf("score %q: beyond pacemaker's limit of %d, where it is cut to INFINITY; write INFINITY "+
				"(or -INFINITY) when that is meant", s, ScoreInfinity)
		}
	}
	return nil
}

// scoreMeta are the meta attributes (and resource defaults) that pacemaker
// reads as scores; anything else there is read as 0.
var scoreMeta = []string{"resource-stickiness", "migration-threshold", "priority"}

// Rules checks the relations between the cluster's values: ring addresses
// on their cluster networks and unique; each floating address (IPaddr2)
// on a cluster network with its netmask and not a node's; one exportfs per
// fsid and per directory and client; each fence device aimed at the node it
// fences (fences, from the configuration; nil: the devices' own ip and
// systems_uri); scores. A score that is "" is taken as not known yet.
func (c Cluster) Rules(fences []FenceTarget) []error { return c.rules(fences, false) }

// rules are Rules; complete says every value is known, so "" is a value.
func (c Cluster) rules(fences []FenceTarget, complete bool) []error {
	if fences == nil {
		fences = FenceTargets(c.Fencing)
	}
	var errs []error
	nets := c.networkRules(&errs)
	ring := c.ringRules(nets, &errs)
	c.primitiveRules(nets, ring, complete, &errs)
	fenceRules(c.Nodes, fences, ring, &errs)
	for i, l := range c.Locations {
		if l.Score != "" || complete {
			scoreRule(located.At("locations").Index(i).Name("score"), l.Score, &errs)
		}
	}
	for i, l := range c.Colocations {
		if l.Score != "" || complete {
			scoreRule(located.At("colocations").Index(i).Name("score"), l.Score, &errs)
		}
	}
	metaScores(located.At("resource_defaults"), c.ResourceDefaults, complete, &errs)
	return errs
}

func scoreRule(attr located.Path, s string, errs *[]error) {
	if err := CheckScore(s); err != nil {
		*errs = append(*errs, broken(attr, "%v", err))
	}
}

// metaScores checks the score-valued keys of a meta attribute map (at is
// the map's attribute path).
func metaScores(at located.Path, m map[string]string, complete bool, errs *[]error) {
	for _, k := range scoreMeta {
		if v, ok := m[k]; ok && (v != "" || complete) {
			scoreRule(at.Key(k), v, errs)
		}
	}
}

// networkRules parses the cluster networks; an unknown or invalid one is
// an invalid prefix (and the rules that need it wait).
func (c Cluster) networkRules(errs *[]error) []netip.Prefix {
	out := make([]netip.Prefix, len(c.Networks))
	for i, s := range c.Networks {
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			*errs = append(*errs, broken(located.At("networks").Index(i), "%q: want a CIDR like 10.10.0.0/24", s))
			continue
		}
		out[i] = p.Masked()
	}
	return out
}

// ringRules checks every node's ring addresses against their ring's network
// and each other; it returns the node of each ring address.
func (c Cluster) ringRules(nets []netip.Prefix, errs *[]error) map[netip.Addr]string {
	owner := map[netip.Addr]string{}
	for _, n := range c.Nodes {
		for i, a := range n.Addrs {
			ip, err := netip.ParseAddr(a)
			if err != nil {
				continue // the node's own check names a malformed address
			}
			at := located.At("nodes").Key(n.Name).Name("addrs").Index(i)
			if i < len(nets) && nets[i].IsValid() && !nets[i].Contains(ip) {
				*errs = append(*errs, broken(at, "ring %d address %s is not on the cluster network %s (networks[%d])", i, a, nets[i], i))
			}
			if other, ok := owner[ip]; ok {
				if other == n.Name {
					*errs = append(*errs, broken(at, "ring address %s is already this node's address on another ring: each "+
						"ring needs its own address", a))
				} else {
					*errs = append(*errs, broken(at, "ring address %s is also node %s's: corosync would see one node twice", a, other))
				}
				continue
			}
			owner[ip] = n.Name
		}
	}
	return owner
}

// primitiveRules checks the floating addresses, the exports and the
// score-valued meta attributes of every resource.
func (c Cluster) primitiveRules(nets []netip.Prefix, ring map[netip.Addr]string, complete bool, errs *[]error) {
	floating := map[netip.Addr]string{}
	fsids := map[string][2]string{} // fsid -> directory, attribute path
	exports := map[[2]string]string{}
	each := func(at located.Path, p Primitive) {
		metaScores(at.Name("meta"), p.Meta, complete, errs)
		if p.Class != "ocf" || p.Provider != "heartbeat" {
			return
		}
		switch p.Type {
		case "IPaddr2", "IPaddr":
			floatingRules(at, p.Params, nets, ring, floating, complete, errs)
		case "exportfs":
			exportRules(at, p.Params, fsids, exports, errs)
		}
	}
	for i, g := range c.Groups {
		metaScores(located.At("groups").Index(i).Name("meta"), g.Meta, complete, errs)
		for j, p := range g.Members {
			each(located.At("groups").Index(i).Name("members").Index(j), p)
		}
	}
	for i, p := range c.Primitives {
		each(located.At("primitives").Index(i), p)
	}
}

// floatingRules: IPaddr2 brings its address up as ip/cidr_netmask (findif
// takes a prefix length of 1 to 32, or 128 for IPv6). Without nic, findif
// picks the interface of the nodes' network the address lies on, so that
// network must hold a cluster network, the only one the nodes are known to
// be on: the address inside one (with a netmask no narrower), or its
// network around one (R2: 10.10.0.100/16 around 10.10.1.0/24). With nic
// (BeeGFS HA's data network) the interface is named. The address must be
// no network or broadcast address, no node's and no other floating one.
func floatingRules(at located.Path, params map[string]string, nets []netip.Prefix, ring map[netip.Addr]string, floating map[netip.Addr]string,
	complete bool, errs *[]error) {
	ipAt, maskAt := at.Name("params").Key("ip"), at.Name("params").Key("cidr_netmask")
	ip, err := netip.ParseAddr(params["ip"])
	if params["ip"] != "" && err != nil {
		*errs = append(*errs, broken(ipAt, "%q: want an IP address (the agent's validate-all refuses anything else)", params["ip"]))
	}
	bits := -1
	if m := params["cidr_netmask"]; m != "" {
		max := 32
		if ip.Is6() {
			max = 128
		}
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > max {
			*errs = append(*errs, broken(maskAt, "%q: want a prefix length from 1 to %d (24, not 255.255.255.0)", m, max))
			bits = 0 // no network to place the address on until it is fixed
		} else {
			bits = n
		}
	}
	if !ip.IsValid() {
		return
	}
	if node, ok := ring[ip]; ok {
		*errs = append(*errs, broken(ipAt, "floating address %s is node %s's ring address: it must be an address of its own, "+
			"which moves with the service", ip, node))
	}
	if other, ok := floating[ip]; ok {
		*errs = append(*errs, broken(ipAt, "floating address %s is also %s's: two resources would bring up one address", ip, other))
	}
	floating[ip] = at.String()
	known := len(nets) > 0
	for _, n := range nets {
		known = known && n.IsValid()
	}
	var own netip.Prefix // ip/cidr_netmask
	if bits > 0 {
		own, _ = ip.Prefix(bits)
	}
	// A netmask or nic not known yet may place the address anywhere.
	_, maskSet := params["cidr_netmask"]
	nic, nicSet := params["nic"]
	pending := !complete && (maskSet && params["cidr_netmask"] == "" || nicSet && nic == "")
	if nic != "" || pending || !known || bits == 0 {
		if own.IsValid() && isEdge(ip, own) {
			*errs = append(*errs, broken(ipAt, "floating address %s is the network or broadcast address of %s", ip, own.Masked()))
		}
		return
	}
	var in, around netip.Prefix
	near := 0 // the longest prefix ip shares with a network it is not on
	for _, n := range nets {
		switch {
		case n.Contains(ip) && !in.IsValid():
			in = n
		case own.IsValid() && own.Bits() <= n.Bits() && own.Contains(n.Addr()) && !around.IsValid():
			around = n
		case n.Addr().Is4() == ip.Is4():
			near = max(near, commonBits(ip, n.Addr()))
		}
	}
	switch {
	case in.IsValid() && own.IsValid() && own.Bits() > in.Bits():
		*errs = append(*errs, broken(maskAt, "%d: the floating address %s is on cluster network %s, whose prefix length is %d; "+
			"a narrower netmask leaves nodes of that network off the service's network", bits, ip, in, in.Bits()))
	case in.IsValid() || around.IsValid():
		net := own
		if !net.IsValid() {
			net = in
		}
		if isEdge(ip, net) {
			*errs = append(*errs, broken(ipAt, "floating address %s is the network or broadcast address of %s", ip, net.Masked()))
		}
	case own.IsValid() && near >= 16 && near < own.Bits():
		// One netmask short of a cluster network: the netmask is the mistake.
		*errs = append(*errs, broken(maskAt, "%d puts the floating address on %s, which holds none of the cluster networks (%s): "+
			"IPaddr2 would find no interface of the nodes for it", bits, own.Masked(), prefixList(nets)))
	default:
		*errs = append(*errs, broken(ipAt, "floating address %s is on none of the cluster networks (%s): IPaddr2 would find "+
			"no interface of the nodes for it (set nic to the interface when the nodes have it on another network)", ip, prefixList(nets)))
	}
}

// commonBits is how many leading bits two addresses of a family share.
func commonBits(a, b netip.Addr) int {
	x, y := a.AsSlice(), b.AsSlice()
	n := 0
	for i := range x {
		d := x[i] ^ y[i]
		if d == 0 {
			n += 8
			continue
		}
		for d&0x80 == 0 {
			n++
			d <<= 1
		}
		break
	}
	return n
}

func prefixList(nets []netip.Prefix) string {
	s := make([]string, len(nets))
	for i, n := range nets {
		s[i] = n.String()
	}
	return strings.Join(s, ", ")
}

// isEdge says whether ip is the network or broadcast address of an IPv4
// network that has both (up to /30).
func isEdge(ip netip.Addr, p netip.Prefix) bool {
	p = p.Masked()
	return ip.Is4() && p.Bits() <= 30 && (ip == p.Addr() || ip == lastAddr(p))
}

// lastAddr is an IPv4 network's broadcast address.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= 1<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

var reUUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// FSID is the canonical form of an exportfs fsid (exports(5): a 32-bit
// number, root, which is 0, or a UUID); ok is false for anything else.
func FSID(s string) (string, bool) {
	if s == "root" {
		return "0", true
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return strconv.FormatUint(n, 10), true
	}
	if reUUID.MatchString(s) {
		return strings.ToLower(strings.ReplaceAll(s, "-", "")), true
	}
	return "", false
}

// exportRules: the fsid names the exported file system to the clients,
// so one fsid is one directory (two directories under one fsid hand a
// client the other's file handles after a failover); one directory is
// exported once to each client spec.
func exportRules(at located.Path, params map[string]string, fsids map[string][2]string, exports map[[2]string]string, errs *[]error) {
	dir := params["directory"]
	if dir != "" {
		dir = path.Clean(dir)
	}
	if f := params["fsid"]; f != "" {
		id, ok := FSID(f)
		switch other, seen := fsids[id]; {
		case !ok:
			*errs = append(*errs, broken(at.Name("params").Key("fsid"), "%q: want a number from 0 to 4294967295, root or a UUID", f))
		case seen && dir != "" && other[0] != "" && other[0] != dir:
			*errs = append(*errs, broken(at.Name("params").Key("fsid"), "fsid %s is also %s's, which exports %s: one fsid names one "+
				"file system to the clients", f, other[1], other[0]))
		case !seen:
			fsids[id] = [2]string{dir, at.String()}
		}
	}
	if cs := params["clientspec"]; dir != "" && cs != "" {
		k := [2]string{dir, cs}
		if other, ok := exports[k]; ok {
			*errs = append(*errs, broken(at.Name("params").Key("clientspec"), "%s is already exported to %s by %s: exportfs would "+
				"replace one export with the other", dir, cs, other))
		} else {
			exports[k] = at.String()
		}
	}
}

// FenceTargets are the targets the fence devices' own parameters name.
func FenceTargets(fs []FenceDevice) []FenceTarget {
	out := make([]FenceTarget, 0, len(fs))
	for _, f := range fs {
		a := f.Params["ip"]
		if p := f.Params["ipport"]; p != "" && a != "" {
			a = net.JoinHostPort(a, p)
		}
		out = append(out, FenceTarget{Node: f.Node, Address: a, SystemsURI: f.Params["systems_uri"]})
	}
	return out
}

// bmcKey is the BMC a target names, comparable across targets: its
// address with the port fence_redfish defaults to, else its endpoint.
func (t FenceTarget) bmcKey() string {
	if t.Address != "" {
		host, port := t.Address, "443"
		if h, p, err := net.SplitHostPort(t.Address); err == nil {
			host, port = h, p
		}
		return strings.ToLower(host) + ":" + port
	}
	if t.Endpoint != "" {
		return "endpoint " + t.Endpoint
	}
	return ""
}

// bmcAttr is the attribute that picks the target's BMC: its endpoint
// when it names one (ip then only overrides the address), else ip.
func (t FenceTarget) bmcAttr() located.Path {
	if t.Endpoint != "" {
		return located.At("nodes").Key(t.Node).Name("fence").Name("endpoint")
	}
	return located.At("nodes").Key(t.Node).Name("fence").Name("ip")
}

// namesNode says whether s names node as a whole word ("bmc-nfs2",
// "nfs2.ipmi.example.com", "/redfish/v1/Systems/nfs2").
func namesNode(s, node string) bool {
	if node == "" {
		return false
	}
	re := regexp.MustCompile(`(^|[^A-Za-z0-9])` + regexp.QuoteMeta(node) + `($|[^A-Za-z0-9])`)
	return re.MatchString(s)
}

// fenceRules: a fence device powers off what it is aimed at, so each must
// be aimed at its own node: no two at one system of one BMC, none at a
// node's own address (its operating system, not its BMC), none at a BMC or
// system whose name is another node's.
func fenceRules(nodes []Node, fences []FenceTarget, ring map[netip.Addr]string, errs *[]error) {
	seen := map[string]string{}
	for _, t := range fences {
		at := located.At("nodes").Key(t.Node).Name("fence")
		if key := t.bmcKey(); key != "" && t.SystemsURI != "" {
			k := key + " " + strings.TrimSuffix(t.SystemsURI, "/")
			if other, ok := seen[k]; ok {
				*errs = append(*errs, broken(t.bmcAttr(), "node %s's fence device is aimed at the BMC and system node %s's is "+
					"(%s, %s): fencing %s would power off %s. Point it at %s's own BMC and system", t.Node, other,
					strings.TrimPrefix(key, "endpoint "), t.SystemsURI, t.Node, other, t.Node))
			} else {
				seen[k] = t.Node
			}
		}
		host := t.Address
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if n, ok := ring[ip]; ok {
				*errs = append(*errs, broken(t.bmcAttr(), "BMC address %s is node %s's ring address: a fence device talks to "+
					"the node's BMC, not to its operating system", host, n))
			}
		}
		for _, n := range nodes {
			if n.Name == t.Node {
				continue
			}
			for _, w := range []struct {
				attr located.Path
				val  string
			}{
				{at.Name("endpoint"), t.Endpoint}, {t.bmcAttr(), host}, {at.Name("systems_uri"), t.SystemsURI},
			} {
				if w.val != "" && namesNode(w.val, n.Name) && !namesNode(w.val, t.Node) {
					*errs = append(*errs, broken(w.attr, "%q names node %s, but this device fences node %s: aim it at %s's "+
						"own BMC and system", w.val, n.Name, t.Node, t.Node))
					break
				}
			}
		}
	}
}

// FenceSystemRules: hostNames are the HostName each fence device's system
// reports on its BMC (by the node the device fences; "" or absent: not
// reported). A system that calls itself another node of the cluster is
// that node: the device would fence the wrong one.
func FenceSystemRules(nodes []Node, fences []FenceTarget, hostNames map[string]string) []error {
	var errs []error
	for _, t := range fences {
		hn := strings.ToLower(hostNames[t.Node])
		if hn == "" || sameHost(hn, t.Node) {
			continue
		}
		for _, n := range nodes {
			if n.Name != t.Node && sameHost(hn, n.Name) {
				errs = append(errs, broken(t.bmcAttr(), "the system this device powers (%s on %s) reports host name %s: it is "+
					"node %s, not %s. Point the fence block at %s's own BMC and system", t.SystemsURI,
					strings.TrimPrefix(t.bmcKey(), "endpoint "), hostNames[t.Node], n.Name, t.Node, t.Node))
				break
			}
		}
	}
	return errs
}

// sameHost compares a reported host name with a node name, with or
// without the domain.
func sameHost(hostName, node string) bool {
	node = strings.ToLower(node)
	short, _, _ := strings.Cut(hostName, ".")
	return hostName == node || !strings.Contains(node, ".") && short == node
}
