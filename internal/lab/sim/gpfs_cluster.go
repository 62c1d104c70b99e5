package sim

// Cluster, node, licence, node-class and configuration commands, after IBM
// Storage Scale 5.1's mmcrcluster, mmaddnode, mmdelnode, mmchlicense,
// mmchnode, mmcrnodeclass/mmlsnodeclass, mmchconfig/mmlsconfig,
// mmlscluster, mmgetstate, mmstartup and mmshutdown:
//
//   - mmcrcluster -N NODEFILE -C NAME [-r RSH] [-R RCP] [-A]: NODEFILE lines
//     "host:designations[:adminName]" (designations quorum|nonquorum and
//     manager|client joined by '-'); refused on a node already in a
//     cluster, for a duplicate node, a bad designation, no quorum node.
//     Nodes start without a licence: 6027-1254 warns, as GPFS does.
//   - mmaddnode -N NODEFILE refuses members; mmdelnode -N refuses a node
//     whose daemon is active or that serves an NSD or is the last quorum
//     node.
//   - mmchlicense server|client --accept -N: a quorum or manager node needs
//     a server licence (refused with client).
//   - mmstartup refuses a node without a licence, and a node that is an
//     NSD server, quorum, manager or CES node without a server licence (the
//     licensing rule GPFS enforces when the daemon starts). A started node
//     is active once a majority of the quorum nodes is up, else
//     arbitrating. The daemon reads the configuration when it starts:
//     mmchconfig changes made without -i (and maxblocksize, which has no
//     -i) take effect at the next mmstartup of each node.
//   - mmchconfig key=value[,...] [-N nodes|class] [-i|-I]: keys from the
//     table below, as written (GPFS's attribute names, case included); an
//     unknown key is refused naming it; a value that is not of the
//     attribute's kind is refused; value DEFAULT deletes the setting; -i on
//     an attribute that cannot change immediately is refused.
//   - mmcrnodeclass refuses an existing class, a system class name, a
//     non-member.
//   - mmchnode --ces-enable|--ces-disable -N (not in the contract list but
//     the only way GPFS makes protocol nodes): needs cesSharedRoot set.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gpfsAttr describes one mmchconfig attribute.
type gpfsAttr struct {
	def       string
	kind      string // size, int, bool (yes/no), string
	immediate bool   // accepts -i / -I
}

// gpfsAttrs are the configuration attributes the simulator knows (IBM's
// mmchconfig table; defaults of 5.1 where the simulator shows them).
var gpfsAttrs = map[string]gpfsAttr{
	"pagepool":                     {"1G", "size", true},
	"pagepoolMaxPhysMemPct":        {"75", "int", false},
	"maxblocksize":                 {"4M", "size", false}, // 5.x: the default -B is 4M as well
	"maxMBpS":                      {"2048", "int", true},
	"maxFilesToCache":              {"4000", "int", false},
	"maxStatCache":                 {"1000", "int", false},
	"workerThreads":                {"48", "int", false},
	"worker1Threads":               {"48", "int", true},
	"nsdMaxWorkerThreads":          {"512", "int", false},
	"nsdMinWorkerThreads":          {"16", "int", false},
	"nsdThreadsPerQueue":           {"3", "int", false},
	"nsdSmallThreadRatio":          {"0", "int", false},
	"nsdThreadsPerDisk":            {"3", "int", false},
	"scatterBufferSize":            {"32K", "size", false},
	"socketMaxListenConnections":   {"512", "int", false},
	"nsdbufspace":                  {"30", "int", false},
	"nsdMultiQueue":                {"256", "int", false},
	"nsdInlineWriteMax":            {"1K", "size", false},
	"nsdServerWaitTimeForMount":    {"300", "int", true},
	"maxReceiverThreads":           {"16", "int", false},
	"maxBufferDescs":               {"-1", "int", false},
	"maxInodeDeallocPrefetch":      {"8", "int", true},
	"prefetchPct":                  {"20", "int", false},
	"prefetchThreads":              {"72", "int", false},
	"ignorePrefetchLUNCount":       {"no", "bool", true},
	"scatterBuffers":               {"yes", "bool", false},
	"numaMemoryInterleave":         {"no", "bool", false},
	"verbsRdma":                    {"disable", "string", false},
	"verbsPorts":                   {"", "string", false},
	"verbsRdmaSend":                {"no", "bool", false},
	"verbsRdmaCm":                  {"disable", "string", false},
	"verbsRdmasPerConnection":      {"16", "int", false},
	"verbsRdmasPerNode":            {"1000", "int", false},
	"autoload":                     {"no", "bool", false},
	"cesSharedRoot":                {"", "string", false},
	"tiebreakerDisks":              {"", "string", false},
	"unmountOnDiskFail":            {"no", "string", true},
	"readReplicaPolicy":            {"DEFAULT", "string", true},
	"restripeOnDiskFailure":        {"no", "bool", true},
	"failureDetectionTime":         {"35", "int", false},
	"leaseRecoveryWait":            {"35", "int", false},
	"minMissedPingTimeout":         {"3", "int", false},
	"maxMissedPingTimeout":         {"60", "int", false},
	"idleSocketTimeout":            {"3600", "int", true},
	"maxTcpConnsPerNodeConn":       {"2", "int", false},
	"seqDiscardThreshold":          {"1G", "size", true},
	"syncIntervalStrict":           {"no", "bool", true},
	"enforceFilesetQuotaOnRoot":    {"no", "bool", true},
	"ignoreReplicationOnStatfs":    {"no", "bool", true},
	"ignoreReplicationForQuota":    {"no", "bool", true},
	"logBufferCount":               {"3", "int", false},
	"logWrapThreads":               {"16", "int", false},
	"sharedMemLimit":               {"0", "size", false},
	"dmapiFileHandleSize":          {"32", "int", false},
	"tscCmdPortRange":              {"", "string", false},
	"maxFcntlRangesPerFile":        {"200", "int", false},
	"nfsPrefetchStrategy":          {"0", "int", true},
	"release":                      {"", "string", false},
	"adminMode":                    {"central", "string", false},
	"cipherList":                   {"AUTHONLY", "string", false},
	"sdrNotifyAuthEnabled":         {"yes", "bool", false},
	"tscCmdAllowRemoteConnections": {"no", "bool", false},
}

// gpfsAttrNames are the attribute names, sorted (for suggestions).
func gpfsAttrNames() []string { return sortedKeys(gpfsAttrs) }

var (
	nodeNameRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*$`)
	classNameRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
)

// nodeDesc is one line of a mmcrcluster/mmaddnode node file.
type nodeDesc struct {
	name            string
	quorum, manager bool
}

func (g *gpfsRun) readNodeFile(p string) ([]nodeDesc, error) {
	if p == "" {
		return nil, fmt.Errorf("6027-1268 Missing arguments.")
	}
	data, err := g.e.Root.ReadFile(p)
	if err != nil {
		// -N also takes a node list; the contract's form is a file.
		return nil, fmt.Errorf("Cannot read file %s: %v", p, err)
	}
	var out []nodeDesc
	for _, line := range splitLines(string(data)) {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		parts := strings.Split(line, ":")
		name, _, _ := strings.Cut(parts[0], ".")
		if !nodeNameRe.MatchString(parts[0]) {
			return nil, fmt.Errorf("Incorrect node name %q in %s.", parts[0], p)
		}
		d := nodeDesc{name: name}
		if len(parts) > 1 && parts[1] != "" {
			seenQ, seenM := false, false
			for _, w := range strings.Split(parts[1], "-") {
				switch w {
				case "quorum", "nonquorum":
					if seenQ {
						return nil, fmt.Errorf("Incorrect node designation %q for node %s.", parts[1], parts[0])
					}
					seenQ, d.quorum = true, w == "quorum"
				case "manager", "client":
					if seenM {
						return nil, fmt.Errorf("Incorrect node designation %q for node %s.", parts[1], parts[0])
					}
					seenM, d.manager = true, w == "manager"
				default:
					return nil, fmt.Errorf("Incorrect node designation %q for node %s.", parts[1], parts[0])
				}
			}
		}
		for _, o := range out {
			if o.name == d.name {
				return nil, fmt.Errorf("Node %s is specified more than once.", parts[0])
			}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("6027-1268 Missing arguments: %s lists no node.", p)
	}
	return out, nil
}

func (g *gpfsRun) addNodes(ds []nodeDesc) {
	next := 1
	for _, n := range g.st.Nodes {
		next = max(next, n.Number+1)
	}
	for _, d := range ds {
		g.st.Nodes = append(g.st.Nodes, &gpfsNode{Number: next, Name: d.name, Quorum: d.quorum, Manager: d.manager})
		next++
	}
	g.dirty = true
}

func mmcrcluster(e *Env, args []string) int {
	return gpfsCmd(e, false, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N", "-C", "-r", "-R", "-U", "-c", "-p", "-s", "--profile")
		if err != nil {
			return g.fail("%v", err)
		}
		if g.st.Cluster != nil {
			return g.fail("Node %s is already a member of cluster %s.", g.host, g.st.Cluster.Name)
		}
		ds, err := g.readNodeFile(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		quorum := 0
		for _, d := range ds {
			if d.quorum {
				quorum++
			}
		}
		if quorum == 0 {
			return g.fail("At least one quorum node must be specified.")
		}
		name := f.vals["-C"]
		if name == "" {
			name = ds[0].name
		}
		rsh, rcp := f.vals["-r"], f.vals["-R"]
		if rsh == "" {
			rsh = "/usr/bin/ssh"
		}
		if rcp == "" {
			rcp = "/usr/bin/scp"
		}
		g.st.Cluster = &gpfsCluster{Name: name, ID: strconv.FormatUint(hash64("gpfs/"+name), 10), Rsh: rsh, Rcp: rcp}
		g.st.MinReleaseLevel = gpfsCodeLevel(e)
		g.addNodes(ds)
		if f.set["-A"] {
			g.st.Config = append(g.st.Config, gpfsConfig{Key: "autoload", Value: "yes"})
		}
		fmt.Fprintf(e.Stderr, "mmcrcluster: Performing preliminary node verification ...\nmmcrcluster: Processing quorum and other critical nodes ...\nmmcrcluster: Finalizing the cluster data structures ...\n")
		fmt.Fprintf(e.Stderr, "mmcrcluster: Command successfully completed\n")
		fmt.Fprintf(e.Stderr, "mmcrcluster: 6027-1254 Warning: Not all nodes have proper GPFS license designations.\n    Use the mmchlicense command to designate licenses as needed.\n")
		return 0
	})
}

func mmaddnode(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		ds, err := g.readNodeFile(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		for _, d := range ds {
			if g.node(d.name) != nil {
				return g.fail("Node %s is already a member of cluster %s.", d.name, g.st.Cluster.Name)
			}
		}
		g.addNodes(ds)
		fmt.Fprintf(e.Stderr, "mmaddnode: Command successfully completed\nmmaddnode: 6027-1254 Warning: Not all nodes have proper GPFS license designations.\n")
		return 0
	})
}

func mmdelnode(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		names, err := g.resolveNodes(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		quorumLeft := 0
		for _, n := range g.st.Nodes {
			if n.Quorum && !slices.Contains(names, n.Name) {
				quorumLeft++
			}
		}
		for _, name := range names {
			n := g.node(name)
			if n.Active {
				return g.fail("GPFS is still active on node %s: run mmshutdown first.", name)
			}
			if g.isNSDServer(name) {
				return g.fail("Node %s is an NSD server: change the NSDs' server lists or delete them first.", name)
			}
		}
		if quorumLeft == 0 {
			return g.fail("The last quorum node cannot be deleted.")
		}
		g.st.Nodes = slices.DeleteFunc(g.st.Nodes, func(n *gpfsNode) bool { return slices.Contains(names, n.Name) })
		for c, members := range g.st.Classes {
			g.st.Classes[c] = slices.DeleteFunc(members, func(m string) bool { return slices.Contains(names, m) })
		}
		g.dirty = true
		fmt.Fprintf(e.Stderr, "mmdelnode: Command successfully completed\n")
		return 0
	})
}

func mmchlicense(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 || !slices.Contains([]string{"server", "client", "fpo"}, f.pos[0]) {
			return g.fail("6027-1268 Missing arguments: want server, client or fpo.")
		}
		if !f.set["--accept"] {
			// Without --accept GPFS prompts for the licence terms; the
			// agent's stdin is empty, so it declines.
			return g.fail("The licence terms were not accepted (use --accept).")
		}
		names, err := g.resolveNodes(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		lic := f.pos[0]
		if lic == "client" {
			for _, name := range names {
				if n := g.node(name); n.Quorum || n.Manager {
					return g.fail("Node %s is a quorum or manager node and requires a server license.", name)
				}
			}
		}
		for _, name := range names {
			g.node(name).License = lic
		}
		g.dirty = true
		return 0
	})
}

// needServer says why a node needs a server licence ("" when it does not).
func (g *gpfsRun) needServer(n *gpfsNode) string {
	switch {
	case n.Quorum:
		return "a quorum node"
	case n.Manager:
		return "a manager node"
	case g.isNSDServer(n.Name):
		return "an NSD server"
	case n.CES:
		return "a CES node"
	}
	return ""
}

func mmchnode(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		names, err := g.resolveNodes(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		switch {
		case f.set["--ces-enable"]:
			if g.configValue("cesSharedRoot", g.host) == "" {
				return g.fail("cesSharedRoot is not set: run mmchconfig cesSharedRoot=DIR first.")
			}
			for _, name := range names {
				g.node(name).CES = true
			}
		case f.set["--ces-disable"]:
			for _, name := range names {
				g.node(name).CES = false
			}
		case f.set["--quorum"], f.set["--nonquorum"], f.set["--manager"], f.set["--client"]:
			for _, name := range names {
				n := g.node(name)
				if f.set["--quorum"] {
					n.Quorum = true
				}
				if f.set["--nonquorum"] {
					n.Quorum = false
				}
				if f.set["--manager"] {
					n.Manager = true
				}
				if f.set["--client"] {
					n.Manager = false
				}
			}
		default:
			return g.fail("6027-1268 Missing arguments: this simulator knows --ces-enable, --ces-disable, --quorum, --nonquorum, --manager, --client.")
		}
		g.dirty = true
		return 0
	})
}

func mmcrnodeclass(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		class := f.pos[0]
		if !classNameRe.MatchString(class) {
			return g.fail("Incorrect node class name %s.", class)
		}
		if _, sys := g.systemClass(class); sys {
			return g.fail("%s is a system-defined node class (mmlsnodeclass --system): use it with -N as it is.", class)
		}
		if _, ok := g.st.Classes[class]; ok {
			return g.fail("Node class %s already exists.", class)
		}
		if g.node(class) != nil {
			return g.fail("%s is the name of a node.", class)
		}
		members, err := g.classMembers(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		if g.st.Classes == nil {
			g.st.Classes = map[string][]string{}
		}
		g.st.Classes[class] = members
		g.dirty = true
		return 0
	})
}

// classMembers reads a member list: node names only.
func (g *gpfsRun) classMembers(list string) ([]string, error) {
	var members []string
	for _, item := range strings.Split(list, ",") {
		item, _, _ = strings.Cut(strings.TrimSpace(item), ".")
		if item == "" {
			continue
		}
		if g.node(item) == nil {
			return nil, fmt.Errorf("Incorrect node %s specified for command.", item)
		}
		if !slices.Contains(members, item) {
			members = append(members, item)
		}
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("6027-1268 Missing arguments.")
	}
	return members, nil
}

// mmchnodeclass CLASS add|delete|replace -N nodes changes a user-defined
// class; deleting its last member is refused (mmdelnodeclass deletes a
// class), as is a system-defined or missing class.
func mmchnodeclass(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 2 {
			return g.fail("6027-1268 Missing arguments: mmchnodeclass CLASS add|delete|replace -N NODES.")
		}
		class, op := f.pos[0], f.pos[1]
		if _, sys := g.systemClass(class); sys {
			return g.fail("%s is a system-defined node class and cannot be changed.", class)
		}
		cur, ok := g.st.Classes[class]
		if !ok {
			return g.fail("Node class %s does not exist.", class)
		}
		members, err := g.classMembers(f.vals["-N"])
		if err != nil {
			return g.fail("%v", err)
		}
		switch op {
		case "add":
			for _, m := range members {
				if !slices.Contains(cur, m) {
					cur = append(cur, m)
				}
			}
		case "delete":
			for _, m := range members {
				if !slices.Contains(cur, m) {
					return g.fail("Node %s is not a member of node class %s.", m, class)
				}
			}
			cur = slices.DeleteFunc(cur, func(m string) bool { return slices.Contains(members, m) })
			if len(cur) == 0 {
				return g.fail("Node class %s cannot be left empty: delete it with mmdelnodeclass.", class)
			}
		case "replace":
			cur = members
		default:
			return g.fail("Incorrect operation %s (want add, delete or replace).", op)
		}
		g.st.Classes[class] = cur
		g.dirty = true
		return 0
	})
}

// mmdelnodeclass ClassName deletes a user node class (not its nodes).
func mmdelnodeclass(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		class := f.pos[0]
		if _, sys := g.systemClass(class); sys {
			return g.fail("%s is a system-defined node class and cannot be deleted.", class)
		}
		if _, ok := g.st.Classes[class]; !ok {
			return g.fail("Node class %s does not exist.", class)
		}
		delete(g.st.Classes, class)
		g.dirty = true
		return 0
	})
}

func mmlsnodeclass(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		var b strings.Builder
		names := sortedKeys(g.st.Classes)
		system := []string{"cesNodes", "clientLicense", "clientNodes", "managerNodes", "nonQuorumNodes", "nsdNodes", "quorumNodes", "serverLicense"}
		switch {
		case f.set["--system"]:
			names = system
		case f.set["--all"]:
			names = append(names, system...)
		}
		if len(f.pos) > 0 {
			names = f.pos
		}
		if f.set["-Y"] {
			yHeader(&b, "mmlsnodeclass", "", "nodeclassName", "type", "memberDefinition", "members")
		} else {
			b.WriteString("Node Class Name       Members\n--------------------- -----------------------------------------------------------\n")
		}
		for _, c := range names {
			members, ok := g.st.Classes[c]
			typ := "user"
			if !ok {
				if members, ok = g.systemClass(c); !ok {
					return g.fail("Node class %s does not exist.", c)
				}
				typ = "system"
			}
			list := strings.Join(members, ",")
			if f.set["-Y"] {
				yData(&b, "mmlsnodeclass", "", false, c, typ, list, list)
			} else {
				fmt.Fprintf(&b, "%-21s %s\n", c, list)
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

// configValue is the value of key for node: the latest setting naming
// the node (directly or through a class), else the cluster-wide one,
// else the attribute's default.
func (g *gpfsRun) configValue(key, node string) string {
	val, nodeVal, hasNode := "", "", false
	if a, ok := gpfsAttrs[key]; ok {
		val = a.def
	}
	for _, c := range g.st.Config {
		if c.Key != key {
			continue
		}
		if len(c.Nodes) == 0 {
			val = c.Value
			continue
		}
		if list, err := g.resolveNodes(strings.Join(c.Nodes, ",")); err == nil && slices.Contains(list, node) {
			nodeVal, hasNode = c.Value, true
		}
	}
	if hasNode {
		return nodeVal
	}
	return val
}

// effective is the value key has in node's running daemon.
func (g *gpfsRun) effective(n *gpfsNode, key string) string {
	if v, ok := n.Effective[key]; ok {
		return v
	}
	return gpfsAttrs[key].def
}

// gpfsLimits are the ranges mmchconfig enforces (sizes in bytes), from
// the mmchconfig reference; values outside are refused naming the range.
var gpfsLimits = map[string][2]int64{
	"pagepool": {4 << 20, 1 << 62}, "maxblocksize": {64 << 10, 16 << 20}, "workerThreads": {1, 8192},
	"worker1Threads": {1, 8192}, "nsdbufspace": {10, 70}, "prefetchPct": {0, 60}, "pagepoolMaxPhysMemPct": {10, 90},
	"maxTcpConnsPerNodeConn": {1, 8}, "failureDetectionTime": {10, 300}, "maxMBpS": {1, 1 << 62},
}

// gpfsEnums are the words of the attributes that take one of a list.
var gpfsEnums = map[string][]string{
	"verbsRdma": {"enable", "disable"}, "verbsRdmaCm": {"enable", "disable"}, "readReplicaPolicy": {"DEFAULT", "local", "fastest"},
	"unmountOnDiskFail": {"yes", "no", "meta"}, "adminMode": {"allToAll", "central"},
}

func checkAttrValue(key, val string) error {
	a := gpfsAttrs[key]
	lim, limited := gpfsLimits[key]
	if words, ok := gpfsEnums[key]; ok && !slices.Contains(words, val) {
		return fmt.Errorf("Incorrect value %s for attribute %s (want one of %s).", val, key, strings.Join(words, ", "))
	}
	switch a.kind {
	case "size":
		n, err := parseSize(val)
		if err != nil {
			return fmt.Errorf("Incorrect value %s for attribute %s (want a size such as 16G).", val, key)
		}
		if key == "maxblocksize" && n&(n-1) != 0 {
			return fmt.Errorf("Incorrect value %s for attribute maxblocksize: the block size must be a power of 2.", val)
		}
		if limited && (n < lim[0] || n > lim[1]) {
			return fmt.Errorf("Incorrect value %s for attribute %s: valid range is %s to %s.", val, key, sizeString(lim[0]), sizeString(lim[1]))
		}
	case "int":
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("Incorrect value %s for attribute %s (want an integer).", val, key)
		}
		if limited && (n < lim[0] || n > lim[1]) {
			return fmt.Errorf("Incorrect value %s for attribute %s: valid range is %d to %d.", val, key, lim[0], lim[1])
		}
	case "bool":
		if val != "yes" && val != "no" {
			return fmt.Errorf("Incorrect value %s for attribute %s (want yes or no).", val, key)
		}
	}
	return nil
}

func mmchconfig(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 {
			return g.fail("6027-1268 Missing arguments.")
		}
		if f.pos[0] == "release=LATEST" && len(f.set) == 0 {
			return g.releaseLatest()
		}
		var nodes []string
		if nl := f.vals["-N"]; nl != "" {
			// Classes are kept by name (an empty one, such as nsdNodes
			// before the NSDs exist, is fine); nodes must be members.
			for _, item := range strings.Split(nl, ",") {
				if item = strings.TrimSpace(item); item == "" || strings.EqualFold(item, "all") {
					continue
				}
				if _, sys := g.systemClass(item); !sys && g.st.Classes[item] == nil {
					if _, err := g.resolveNodes(item); err != nil {
						return g.fail("%v", err)
					}
				}
				nodes = append(nodes, item)
			}
			slices.Sort(nodes)
		}
		immediate := f.set["-i"] || f.set["-I"]
		type kv struct{ k, v string }
		var pairs []kv
		for _, p := range strings.Split(f.pos[0], ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok || k == "" {
				return g.fail("6027-1268 Missing arguments: %q is not attribute=value.", p)
			}
			a, known := gpfsAttrs[k]
			if !known {
				hint := ""
				for _, name := range gpfsAttrNames() {
					if strings.EqualFold(name, k) {
						hint = " (did you mean " + name + "?)"
					}
				}
				return g.fail("Unknown attribute %s%s.", k, hint)
			}
			if v != "DEFAULT" {
				if err := checkAttrValue(k, v); err != nil {
					return g.fail("%v", err)
				}
			}
			if immediate && !a.immediate {
				return g.fail("Attribute %s cannot be changed with -i or -I: it takes effect when the daemon restarts.", k)
			}
			if k == "maxblocksize" {
				// The block size limit is read when the daemons start:
				// GPFS changes it only while they are all down.
				for _, n := range g.st.Nodes {
					if n.Active {
						return g.fail("Attribute maxblocksize cannot be changed while GPFS is active (node %s): stop GPFS on all nodes (mmshutdown -a) first.", n.Name)
					}
				}
			}
			if k == "cesSharedRoot" && v != "DEFAULT" && !strings.HasPrefix(v, "/") {
				return g.fail("Incorrect value %s for attribute cesSharedRoot (want an absolute path).", v)
			}
			pairs = append(pairs, kv{k, v})
		}
		for _, p := range pairs {
			same := func(c gpfsConfig) bool { return c.Key == p.k && slices.Equal(c.Nodes, nodes) }
			g.st.Config = slices.DeleteFunc(g.st.Config, same)
			if p.v != "DEFAULT" {
				g.st.Config = append(g.st.Config, gpfsConfig{Key: p.k, Value: p.v, Nodes: nodes})
			}
			if immediate {
				targets, _ := g.resolveNodes(strings.Join(append([]string{}, orAll(nodes)...), ","))
				for _, t := range targets {
					if n := g.node(t); n != nil && n.Active {
						n.Effective[p.k] = g.configValue(p.k, t)
					}
				}
			}
		}
		g.dirty = true
		fmt.Fprintf(e.Stderr, "mmchconfig: Command successfully completed\nmmchconfig: 6027-1371 Propagating the cluster configuration data to all\n  affected nodes.  This is an asynchronous process.\n")
		return 0
	})
}

func orAll(nodes []string) []string {
	if len(nodes) == 0 {
		return []string{"all"}
	}
	return nodes
}

func mmlsconfig(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		autoload := "no"
		type row struct{ k, v, nodes string }
		rows := []row{{"clusterName", g.st.Cluster.Name, ""}, {"clusterId", g.st.Cluster.ID, ""}}
		var set []row
		for _, c := range g.st.Config {
			if c.Key == "autoload" && len(c.Nodes) == 0 {
				autoload = c.Value
				continue
			}
			set = append(set, row{c.Key, c.Value, strings.Join(c.Nodes, ",")})
		}
		rows = append(rows, row{"autoload", autoload, ""}, row{"dmapiFileHandleSize", "32", ""},
			row{"minReleaseLevel", g.minReleaseLevel(), ""}, row{"ccrEnabled", "yes", ""}, row{"cipherList", "AUTHONLY", ""})
		rows = append(rows, set...)
		rows = append(rows, row{"adminMode", "central", ""})
		if len(f.pos) > 0 {
			var picked []row
			for _, r := range rows {
				if slices.Contains(f.pos, r.k) {
					picked = append(picked, r)
				}
			}
			rows = picked
		}
		var b strings.Builder
		if f.set["-Y"] {
			yHeader(&b, "mmlsconfig", "", "configParameter", "value", "nodeList")
			for _, r := range rows {
				yData(&b, "mmlsconfig", "", false, r.k, r.v, r.nodes)
			}
		} else {
			b.WriteString("Configuration data for cluster " + g.st.Cluster.Name + ":\n" + strings.Repeat("-", 40) + "\n")
			for _, r := range rows {
				if r.nodes != "" {
					fmt.Fprintf(&b, "%s %s [%s]\n", r.k, r.v, r.nodes)
				} else {
					fmt.Fprintf(&b, "%s %s\n", r.k, r.v)
				}
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func (n *gpfsNode) designation() string {
	switch {
	case n.Quorum && n.Manager:
		return "quorumManager"
	case n.Quorum:
		return "quorum"
	case n.Manager:
		return "manager"
	}
	return ""
}

func mmlscluster(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, _ := parseFlags(args)
		c := g.st.Cluster
		var b strings.Builder
		if !f.set["-Y"] {
			fmt.Fprintf(&b, "\nGPFS cluster information\n========================\n  GPFS cluster name:         %s\n  GPFS cluster id:           %s\n  GPFS UID domain:           %s\n  Remote shell command:      %s\n  Remote file copy command:  %s\n  Repository type:           CCR\n\n Node  Daemon node name  IP address  Admin node name  Designation\n", c.Name, c.ID, c.Name, c.Rsh, c.Rcp)
			for _, n := range g.st.Nodes {
				fmt.Fprintf(&b, "%5d   %-16s  %-10s  %-15s  %s\n", n.Number, n.Name, nodeIP(n.Number), n.Name, strings.ReplaceAll(n.designation(), "quorumManager", "quorum-manager"))
			}
			fmt.Fprint(e.Stdout, b.String())
			return 0
		}
		yHeader(&b, "mmlscluster", "clusterSummary", "clusterName", "clusterId", "uidDomain", "rshPath", "rshSudoWrapper", "rcpPath", "rcpSudoWrapper", "repositoryType", "primaryServer", "secondaryServer")
		yHeader(&b, "mmlscluster", "clusterNode", "nodeNumber", "daemonNodeName", "ipAddress", "adminNodeName", "designation", "otherNodeRoles", "adminLoginName", "otherNodeRolesAlias")
		yHeader(&b, "mmlscluster", "cnfsSummary", "cnfsSharedRoot", "cnfsMoundPort", "cnfsNFSDprocs", "cnfsReboot", "cnfsMonitorEnabled", "cnfsGanesha")
		yHeader(&b, "mmlscluster", "cnfsNode", "nodeNumber", "daemonNodeName", "ipAddress", "cnfsState", "cnfsGroupId", "cnfsIplist")
		yHeader(&b, "mmlscluster", "cesSummary", "cesSharedRoot", "EnabledServices", "logLevel", "addressPolicy")
		yHeader(&b, "mmlscluster", "cesNode", "nodeNumber", "daemonNodeName", "ipAddress", "cesGroup", "cesState", "cesIpList")
		yHeader(&b, "mmlscluster", "cloudGatewayNode", "nodeNumber", "daemonNodeName")
		yData(&b, "mmlscluster", "clusterSummary", false, c.Name, c.ID, c.Name, c.Rsh, "no", c.Rcp, "no", "CCR", "", "")
		for _, n := range g.st.Nodes {
			roles, alias := "", ""
			if n.CES {
				roles, alias = "X", "ces"
			}
			yData(&b, "mmlscluster", "clusterNode", false, strconv.Itoa(n.Number), n.Name, nodeIP(n.Number), n.Name, n.designation(), roles, "", alias)
		}
		ces := g.cesNodes()
		if len(ces) > 0 {
			yData(&b, "mmlscluster", "cesSummary", false, g.configValue("cesSharedRoot", g.host), strings.Join(g.st.CES.Services, ","), "0", "even-coverage")
			for i, n := range ces {
				yData(&b, "mmlscluster", "cesNode", false, strconv.Itoa(n.Number), n.Name, nodeIP(n.Number), "", "e", strings.Join(g.cesIPs(i, len(ces)), ","))
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

// quorumState says whether a majority of the quorum nodes is up, and the
// numbers mmgetstate shows.
func (g *gpfsRun) quorumState() (need, up int, ok bool) {
	q := 0
	for _, n := range g.st.Nodes {
		if n.Quorum {
			q++
			if n.Active {
				up++
			}
		}
	}
	need = q/2 + 1
	return need, up, up >= need
}

func (g *gpfsRun) state(n *gpfsNode) string {
	if !n.Active {
		return "down"
	}
	if _, _, ok := g.quorumState(); !ok {
		return "arbitrating"
	}
	return "active"
}

func mmgetstate(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		names := []string{g.host}
		if f.set["-a"] {
			names, _ = g.resolveNodes("all")
		} else if f.vals["-N"] != "" {
			if names, err = g.resolveNodes(f.vals["-N"]); err != nil {
				return g.fail("%v", err)
			}
		}
		need, _, _ := g.quorumState()
		upNodes := 0
		for _, n := range g.st.Nodes {
			if g.state(n) == "active" {
				upNodes++
			}
		}
		var b strings.Builder
		if f.set["-Y"] {
			yHeader(&b, "mmgetstate", "", "nodeName", "nodeNumber", "state", "quorum", "nodesUp", "totalNodes", "remarks", "cnfsState", "daemonShortName", "daemonNodeName")
		} else {
			b.WriteString("\n Node number  Node name        GPFS state\n-------------------------------------------\n")
		}
		for _, name := range names {
			n := g.node(name)
			st := g.state(n)
			remarks := ""
			if n.Quorum {
				remarks = "quorum node"
			}
			if f.set["-Y"] {
				q, up, total := strconv.Itoa(need), strconv.Itoa(upNodes), strconv.Itoa(len(g.st.Nodes))
				if st == "down" {
					q, up = "0", "0"
				}
				yData(&b, "mmgetstate", "", false, n.Name, strconv.Itoa(n.Number), st, q, up, total, remarks, "(undefined)", n.Name, n.Name)
			} else {
				fmt.Fprintf(&b, "%12d  %-15s  %s\n", n.Number, n.Name, st)
			}
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

func (g *gpfsRun) startStopNodes(f flags) ([]string, error) {
	if f.set["-a"] {
		return g.resolveNodes("all")
	}
	if f.vals["-N"] != "" {
		return g.resolveNodes(f.vals["-N"])
	}
	return []string{g.host}, nil
}

func mmstartup(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		names, err := g.startStopNodes(f)
		if err != nil {
			return g.fail("%v", err)
		}
		var bad []string
		for _, name := range names {
			n := g.node(name)
			if n.Off {
				bad = append(bad, fmt.Sprintf("%s is not reachable (powered off)", name))
			} else if n.License == "" {
				bad = append(bad, fmt.Sprintf("%s has no GPFS license designation", name))
			} else if why := g.needServer(n); why != "" && n.License != "server" {
				bad = append(bad, fmt.Sprintf("%s is %s and needs a server license, not %s", name, why, n.License))
			}
		}
		if len(bad) > 0 {
			return g.fail("The daemon cannot start on every node (unreachable nodes, or no proper license: use mmchlicense):\n  %s", strings.Join(bad, "\n  "))
		}
		for _, name := range names {
			n := g.node(name)
			if n.Active {
				continue
			}
			g.startDaemon(n)
			// The daemon mounts the file systems with -A yes as it starts.
			for _, f := range g.st.FS {
				if f.AutoMount == "yes" && !slices.Contains(f.Mounted, name) {
					f.Mounted = append(f.Mounted, name)
					g.showMount(name, f, true)
				}
			}
		}
		g.dirty = true
		fmt.Fprintf(e.Stdout, "%s: Starting GPFS ...\n", time.Now().UTC().Format("Mon Jan _2 15:04:05 UTC 2006"))
		return 0
	})
}

func mmshutdown(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-N")
		if err != nil {
			return g.fail("%v", err)
		}
		names, err := g.startStopNodes(f)
		if err != nil {
			return g.fail("%v", err)
		}
		for _, name := range names {
			n := g.node(name)
			n.Active = false
			n.Effective = nil
			g.markDaemon(name, false)
			for _, fsys := range g.st.FS {
				if slices.Contains(fsys.Mounted, name) {
					fsys.Mounted = slices.DeleteFunc(fsys.Mounted, func(m string) bool { return m == name })
					g.showMount(name, fsys, false)
				}
			}
		}
		g.dirty = true
		fmt.Fprintf(e.Stdout, "%s: mmshutdown: Starting force unmount of GPFS file systems\n%s: mmshutdown: Shutting down GPFS daemons\n", time.Now().UTC().Format("Mon Jan _2 15:04:05 UTC 2006"), time.Now().UTC().Format("Mon Jan _2 15:04:05 UTC 2006"))
		return 0
	})
}
