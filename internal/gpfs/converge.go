package gpfs

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Step is one command of a convergence, with the files it reads (path ->
// content) written before it.
type Step struct {
	Name  string
	Argv  []string
	Files map[string]string
	// Unless is the read-only query and Match the regular expressions its
	// output matches once the step took effect (guards.go).
	Unless []string
	Match  []string
	// Once steps have no such query: they run a single time.
	Once bool
	// Pending, when set, is a record file on the node: the step runs
	// while the file is not empty and empties it once it succeeded (work
	// decided by an earlier step that a killed run may not have done).
	Pending string
}

// ClusterSpec is the cluster as configured.
type ClusterSpec struct {
	Name    string
	Nodes   []Node
	Classes map[string][]string
	// Config by scope (AllNodes, a class or a node), key -> value.
	Config map[string]map[string]string
	// Dir is where node files are written.
	Dir string
	// AllowDowntime accepts a cluster-wide outage (mmshutdown -a) for
	// values that change only with every daemon down.
	AllowDowntime bool
	// Version is the Storage Scale version the nodes run ("": the
	// default); a cluster whose minReleaseLevel is below it gets
	// mmchconfig release=LATEST (the upgrade's finishing step).
	Version string
}

// ClusterSeen is the cluster as read back (-Y); Exists false when
// mmlscluster says this node is in no cluster.
type ClusterSeen struct {
	Exists  bool
	Cluster Cluster
	Config  Config
	States  map[string]string
	Classes map[string][]string
}

func (s ClusterSeen) nodeSet() map[string]bool {
	set := map[string]bool{}
	for _, n := range s.Cluster.Nodes {
		set[ShortName(n.DaemonName)] = true
	}
	return set
}

// running is true when some node's daemon is up.
func (s ClusterSeen) running() bool {
	for _, st := range s.States {
		if st == "active" || st == "arbitrating" {
			return true
		}
	}
	return false
}

// ClusterDrift lists what differs between spec and seen, by key
// ("node:nsd1", "class:nsdNodes", "config:nsdNodes:pagepool", "state:gw1").
func ClusterDrift(spec ClusterSpec, seen ClusterSeen) map[string]string {
	d := map[string]string{}
	if !seen.Exists {
		d["cluster"] = "not found: mmlscluster lists no cluster on the admin node"
		return d
	}
	if seen.Cluster.Name != "" && ShortName(seen.Cluster.Name) != ShortName(spec.Name) && seen.Cluster.Name != spec.Name {
		d["cluster"] = fmt.Sprintf("the admin node is in cluster %s, not %s", seen.Cluster.Name, spec.Name)
	}
	have := seen.nodeSet()
	for _, n := range spec.Nodes {
		if !have[n.Name] {
			d["node:"+n.Name] = "not a node of the cluster"
		}
	}
	if lvl, ok := seen.Config.Value("minReleaseLevel", AllNodes); ok && ReleaseBelow(lvl, spec.Version) {
		d["release"] = fmt.Sprintf("minReleaseLevel %s is below version %s: the upgrade is not finished (mmchconfig release=LATEST)",
			lvl, spec.Version)
	}
	for c, members := range spec.Classes {
		got, ok := seen.Classes[c]
		switch {
		case !ok:
			d["class:"+c] = "node class missing"
		case !sameSet(got, members):
			d["class:"+c] = fmt.Sprintf("members %s, want %s", strings.Join(sorted(got), ","), strings.Join(sorted(members), ","))
		}
	}
	for scope, kv := range spec.Config {
		for k, want := range kv {
			got, ok := seen.Config.Value(k, scope)
			if !ok {
				d["config:"+scope+":"+k] = fmt.Sprintf("not set, want %s", want)
			} else if !SameValue(k, want, got) {
				d["config:"+scope+":"+k] = fmt.Sprintf("%s, want %s", got, want)
			}
		}
	}
	for _, n := range spec.Nodes {
		if st, ok := seen.States[n.Name]; have[n.Name] && (!ok || st != "active") {
			if st == "" {
				st = "unknown"
			}
			d["state:"+n.Name] = fmt.Sprintf("GPFS %s, want active", st)
		}
	}
	return d
}

// ClusterSteps are the commands that bring seen to spec, in the order GPFS
// needs: create the cluster (or add the missing nodes, remove those the
// configuration dropped), accept licences, node classes, configuration
// (maxblocksize with every daemon down), then start the daemons.
func ClusterSteps(spec ClusterSpec, seen ClusterSeen, dropped []string) ([]Step, error) {
	var steps []Step
	have := seen.nodeSet()
	running := seen.running()
	var added []Node
	if !seen.Exists {
		f := spec.Dir + "/nodes"
		q, m := guardCluster(spec.Name)
		steps = append(steps, guarded(Step{Name: "mmcrcluster", Argv: MmcrclusterArgv(f, spec.Name), Files: map[string]string{f: NodeFile(spec.Nodes)}}, q, m))
		added = spec.Nodes
		have = map[string]bool{}
		running = false
	} else {
		if d := ClusterDrift(spec, seen)["cluster"]; d != "" {
			return nil, located.Errorf(located.At("name"), "%w: %s; this provider never moves a node between clusters", ErrInvalid, d)
		}
		var gone []string
		for _, n := range sorted(dropped) {
			if have[n] {
				gone = append(gone, n)
			}
		}
		if len(gone) > 0 {
			list := strings.Join(gone, ",")
			steps = append(steps, once(Step{Name: "mmshutdown " + list, Argv: []string{"mmshutdown", "-N", list}}),
				once(Step{Name: "mmdelnode", Argv: []string{"mmdelnode", "-N", list}}))
		}
		for _, n := range sortedNodes(spec.Nodes) {
			if !have[n.Name] {
				added = append(added, n)
			}
		}
		if len(added) > 0 {
			f := spec.Dir + "/added-nodes"
			q, m := guardNodes(added)
			steps = append(steps, guarded(Step{Name: "mmaddnode", Argv: []string{"mmaddnode", "-N", f}, Files: map[string]string{f: NodeFile(added)}}, q, m))
		}
	}
	lic := Licences(added)
	for _, l := range []string{"server", "client"} {
		if len(lic[l]) > 0 {
			steps = append(steps, once(Step{Name: "mmchlicense " + l, Argv: MmchlicenseArgv(l, lic[l])}))
		}
	}
	for _, c := range sortedKeys(spec.Classes) {
		if _, ok := seen.Classes[c]; ok && seen.Exists {
			if !sameSet(seen.Classes[c], spec.Classes[c]) {
				steps = append(steps, once(Step{Name: "mmchnodeclass " + c, Argv: []string{"mmchnodeclass", c, "replace", "-N",
					strings.Join(sorted(spec.Classes[c]), ",")}}))
			}
			continue
		}
		q, m := guardClass(c)
		steps = append(steps, guarded(Step{Name: "mmcrnodeclass " + c, Argv: []string{"mmcrnodeclass", c, "-N", strings.Join(sorted(spec.Classes[c]), ",")}}, q, m))
	}
	down, live := configChanges(spec, seen)
	if len(down) > 0 && running && !spec.AllowDowntime {
		var keys []string
		for _, scope := range sortedKeys(down) {
			for _, k := range sortedKeys(down[scope]) {
				keys = append(keys, k)
			}
		}
		return nil, located.Errorf(located.At("allow_downtime"), "%s %s only while GPFS is down on every node, and it "+
			"runs: the change takes every file system down (mmshutdown -a). Set allow_downtime = true to accept the outage, "+
			"or put the value back", strings.Join(keys, ", "), map[bool]string{true: "changes", false: "change"}[len(keys) == 1])
	}
	if len(down) > 0 && running {
		// Not needed once the values are in (a re-run after a kill); the
		// values that need it are cluster-wide (maxblocksize).
		s := once(Step{Name: "mmshutdown", Argv: []string{"mmshutdown", "-a"}})
		if kv, ok := down[AllNodes]; ok && len(down) == 1 {
			q, m := guardConfig(AllNodes, kv)
			s = guarded(s, q, m)
		}
		steps = append(steps, s)
		running = false
	}
	for _, scope := range sortedKeys(down) {
		q, m := guardConfig(scope, down[scope])
		steps = append(steps, guarded(Step{Name: "mmchconfig " + scope + " (daemons down)", Argv: mmchconfig(scope, down[scope], false)}, q, m))
	}
	if restart := RestartNodes(spec, seen); running && len(restart) > 0 {
		// Recorded before the values go in, so a run killed after
		// mmchconfig still restarts them (RestartPending).
		var match []string
		for _, scope := range sortedKeys(live) {
			if kv := restartKeys(live[scope]); len(kv) > 0 {
				_, m := guardConfig(scope, kv)
				match = append(match, m...)
			}
		}
		f := spec.RestartFile()
		steps = append(steps, guarded(Step{Name: "restart-pending", Argv: append([]string{"/bin/sh", "-c",
			`f=$1; shift; mkdir -p "${f%/*}" && printf '%s\n' "$@" >>"$f"`, "gpfs-record", f}, restart...)},
			[]string{"mmlsconfig", "-Y"}, match))
	}
	for _, scope := range sortedKeys(live) {
		q, m := guardConfig(scope, live[scope])
		steps = append(steps, guarded(Step{Name: "mmchconfig " + scope, Argv: mmchconfig(scope, live[scope], running)}, q, m))
	}
	if lvl, ok := seen.Config.Value("minReleaseLevel", AllNodes); seen.Exists && ok && ReleaseBelow(lvl, spec.Version) {
		steps = append(steps, ReleaseLatestStep())
	}
	// Start every daemon that is not up.
	var stopped []string
	for _, n := range sortedNodes(spec.Nodes) {
		if st := seen.States[n.Name]; !running || !have[n.Name] || st != "active" && st != "arbitrating" {
			stopped = append(stopped, n.Name)
		}
	}
	switch {
	case !running || len(stopped) == len(spec.Nodes):
		q, m := guardActive(nodeNames(spec.Nodes))
		steps = append(steps, guarded(Step{Name: "mmstartup", Argv: []string{"mmstartup", "-a"}}, q, m))
	case len(stopped) > 0:
		q, m := guardActive(stopped)
		steps = append(steps, guarded(Step{Name: "mmstartup " + strings.Join(stopped, ","), Argv: []string{"mmstartup", "-N", strings.Join(stopped, ",")}}, q, m))
	}
	return steps, nil
}

// configChanges are the values to change, by scope: those that need
// every daemon down apart from the others.
func configChanges(spec ClusterSpec, seen ClusterSeen) (down, live map[string]map[string]string) {
	down, live = map[string]map[string]string{}, map[string]map[string]string{}
	for _, scope := range sortedKeys(spec.Config) {
		for k, want := range spec.Config[scope] {
			if got, ok := seen.Config.Value(k, scope); seen.Exists && ok && SameValue(k, want, got) {
				continue
			}
			into := live
			if Attributes[k].NeedsDown {
				into = down
			}
			if into[scope] == nil {
				into[scope] = map[string]string{}
			}
			into[scope][k] = want
		}
	}
	return down, live
}

// restartKeys are the values of kv that a running daemon reads only when
// it starts (no -i).
func restartKeys(kv map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range kv {
		if a := Attributes[k]; !a.Immediate && !a.NeedsDown {
			out[k] = v
		}
	}
	return out
}

// RestartNodes are the nodes whose daemon must restart to read the values
// this apply changes that take no -i: the running members of their
// scopes, in name order (empty when the cluster is new or stopped).
func RestartNodes(spec ClusterSpec, seen ClusterSeen) []string {
	if !seen.Exists {
		return nil
	}
	_, live := configChanges(spec, seen)
	set := map[string]bool{}
	for scope, kv := range live {
		if len(restartKeys(kv)) == 0 {
			continue
		}
		for _, n := range ScopeNodes(spec, scope) {
			if st := seen.States[n]; st == "active" || st == "arbitrating" {
				set[n] = true
			}
		}
	}
	return sortedKeys(set)
}

// ChangedConfig lists the values that differ between two configurations
// (before: the state's, after: the plan's), by scope then key.
func ChangedConfig(before, after map[string]map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, scope := range sortedKeys(after) {
		for _, k := range sortedKeys(after[scope]) {
			if was, ok := before[scope][k]; !ok || !SameValue(k, after[scope][k], was) {
				out[scope] = append(out[scope], k)
			}
		}
	}
	return out
}

// ScopeNodes are the nodes a config scope reaches: every node (all), a
// class's members, a node, or the members of a system class GPFS derives
// from the roles (quorumNodes, nsdNodes, cesNodes...; one this provider
// does not derive counts as every node).
func ScopeNodes(spec ClusterSpec, scope string) []string {
	if members, ok := spec.Classes[scope]; ok {
		return sorted(members)
	}
	var pick func(Node) bool
	switch strings.ToLower(scope) {
	case "quorumnodes":
		pick = func(n Node) bool { return n.Has(RoleQuorum) }
	case "nonquorumnodes":
		pick = func(n Node) bool { return !n.Has(RoleQuorum) }
	case "managernodes":
		pick = func(n Node) bool { return n.Has(RoleManager) }
	case "clientnodes", "nonmanagernodes":
		pick = func(n Node) bool { return !n.Has(RoleManager) }
	case "nsdnodes":
		pick = func(n Node) bool { return n.Has(RoleNSDServer) }
	case "cesnodes":
		pick = func(n Node) bool { return n.Has(RoleGateway) }
	case "serverlicense":
		pick = func(n Node) bool { return n.Licence() == "server" }
	case "clientlicense":
		pick = func(n Node) bool { return n.Licence() == "client" }
	default:
		for _, n := range spec.Nodes {
			if n.Name == scope {
				return []string{scope}
			}
		}
		pick = func(Node) bool { return true }
	}
	var out []string
	for _, n := range sortedNodes(spec.Nodes) {
		if pick(n) {
			out = append(out, n.Name)
		}
	}
	return out
}

// RestartFile records the nodes still to restart (one name a line).
func (s ClusterSpec) RestartFile() string { return s.Dir + "/restart.pending" }

// ReadRestartArgv prints the restart record (nothing when there is none):
// shell built-ins only, so it reads the same on any node.
func (s ClusterSpec) ReadRestartArgv() []string {
	return []string{"/bin/sh", "-c", `[ -e "$1" ] || exit 0; while IFS= read -r l; do [ -n "$l" ] && echo "$l"; done <"$1"; exit 0`,
		"gpfs-record", s.RestartFile()}
}

// RestartDoneStep takes node out of the record once it restarted.
func (s ClusterSpec) RestartDoneStep(node string) Step {
	f := s.RestartFile()
	return guarded(Step{Name: "restarted " + node, Argv: []string{"/bin/sh", "-c",
		`f=$1; n=$2; keep=""; while IFS= read -r l; do [ "$l" = "$n" ] || keep="$keep$l
"; done <"$f"; printf '%s' "$keep" >"$f"`, "gpfs-record", f, node}},
		[]string{"/bin/sh", "-c", `[ -e "$1" ] || exit 0; while IFS= read -r l; do [ "$l" = "$2" ] && exit 1; done <"$1"; exit 0`,
			"gpfs-record", f, node}, nil)
}

// mmchconfig is MmchconfigArgv with -i only while the daemons run.
func mmchconfig(scope string, kv map[string]string, running bool) []string {
	argv := MmchconfigArgv(scope, kv)
	if !running && argv[len(argv)-1] == "-i" {
		argv = argv[:len(argv)-1]
	}
	return argv
}

func sameSet(a, b []string) bool {
	return slices.Equal(sorted(a), sorted(b))
}

func sorted(l []string) []string {
	out := slices.Clone(l)
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nodeNames(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}
