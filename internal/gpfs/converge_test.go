package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func r5ClusterSpec() ClusterSpec {
	srv := []string{RoleQuorum, RoleManager, RoleNSDServer}
	return ClusterSpec{Name: "r5", Dir: "/d",
		Nodes: []Node{{Name: "nsd1", Roles: srv}, {Name: "nsd2", Roles: srv}, {Name: "mgmt", Roles: []string{RoleQuorum}},
			{Name: "gw1", Roles: []string{RoleGateway}}, {Name: "gw2", Roles: []string{RoleGateway}}},
		Classes: map[string][]string{"nsdServers": {"nsd1", "nsd2"}},
		Config:  map[string]map[string]string{AllNodes: {"maxblocksize": "8M", "cesSharedRoot": "/gpfs/fs1/.ces"}, "nsdServers": {"pagepool": "16G"}}}
}

func lines(steps []Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, strings.Join(s.Argv, " "))
	}
	return strings.Join(out, "\n")
}

// seenFrom builds what the -Y queries would print for a converged spec.
func seenFrom(t *testing.T, spec ClusterSpec) ClusterSeen {
	t.Helper()
	var cl, st, cf strings.Builder
	cl.WriteString("mmlscluster:clusterSummary:HEADER:version:reserved:reserved:clusterName:clusterId:\n" +
		"mmlscluster:clusterSummary:0:1:::" + spec.Name + ":1:\n" +
		"mmlscluster:clusterNode:HEADER:version:reserved:reserved:nodeNumber:daemonNodeName:ipAddress:adminNodeName:designation:\n")
	st.WriteString("mmgetstate::HEADER:version:reserved:reserved:nodeName:nodeNumber:state:\n")
	for i, n := range spec.Nodes {
		cl.WriteString("mmlscluster:clusterNode:0:1:::" + string(rune('1'+i)) + ":" + n.Name + ":10.0.0.1:" + n.Name + ":quorum:\n")
		st.WriteString("mmgetstate::0:1:::" + n.Name + ":1:active:\n")
	}
	cf.WriteString("mmlsconfig::HEADER:version:reserved:reserved:configParameter:value:nodeList:\n")
	for scope, kv := range spec.Config {
		if scope == AllNodes {
			scope = ""
		}
		for k, v := range kv {
			cf.WriteString("mmlsconfig::0:1:::" + k + ":" + v + ":" + scope + ":\n")
		}
	}
	c, err := ParseCluster(cl.String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseStates(st.String())
	if err != nil {
		t.Fatal(err)
	}
	conf, err := ParseConfig(cf.String())
	if err != nil {
		t.Fatal(err)
	}
	return ClusterSeen{Exists: true, Cluster: c, States: s, Config: conf, Classes: spec.Classes}
}

func TestClusterStepsFresh(t *testing.T) {
	steps, err := ClusterSteps(r5ClusterSpec(), ClusterSeen{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "mmcrcluster -N /d/nodes -C r5 -r /usr/bin/ssh -R /usr/bin/scp -A\n" +
		"mmchlicense server --accept -N gw1,gw2,mgmt,nsd1,nsd2\n" +
		"mmcrnodeclass nsdServers -N nsd1,nsd2\n" +
		"mmchconfig cesSharedRoot=/gpfs/fs1/.ces,maxblocksize=8M\n" +
		"mmchconfig pagepool=16G -N nsdServers\n" +
		"mmstartup -a"
	if got := lines(steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if f := steps[0].Files["/d/nodes"]; f != "gw1:client\ngw2:client\nmgmt:quorum\nnsd1:quorum-manager\nnsd2:quorum-manager\n" {
		t.Errorf("node file:\n%s", f)
	}
}

func TestClusterStepsConverged(t *testing.T) {
	spec := r5ClusterSpec()
	seen := seenFrom(t, spec)
	if d := ClusterDrift(spec, seen); len(d) != 0 {
		t.Errorf("drift of a converged cluster: %v", d)
	}
	if steps, err := ClusterSteps(spec, seen, nil); err != nil || len(steps) != 0 {
		t.Errorf("converged: %s %v", lines(steps), err)
	}
}

func TestClusterStepsDrift(t *testing.T) {
	spec := r5ClusterSpec()
	seen := seenFrom(t, spec)
	// pagepool changed by hand on the NSD servers.
	seen.Config["pagepool"] = map[string]string{"nsdServers": "8G"}
	d := ClusterDrift(spec, seen)
	if d["config:nsdServers:pagepool"] != "8G, want 16G" || len(d) != 1 {
		t.Errorf("drift = %v", d)
	}
	steps, _ := ClusterSteps(spec, seen, nil)
	if got := lines(steps); got != "mmchconfig pagepool=16G -N nsdServers -i" {
		t.Errorf("steps = %s", got)
	}
	// maxblocksize needs every daemon down: refused on a running cluster
	// (on allow_downtime) unless the outage is accepted; then shut down,
	// change, start.
	seen = seenFrom(t, spec)
	seen.Config["maxblocksize"] = map[string]string{"": "4M"}
	_, err := ClusterSteps(spec, seen, nil)
	if le, ok := located.Find(err); !ok || le.Path.String() != "allow_downtime" || !strings.Contains(err.Error(), "maxblocksize changes only while GPFS is down") {
		t.Errorf("maxblocksize on a running cluster without allow_downtime: %v", err)
	}
	spec.AllowDowntime = true
	steps, _ = ClusterSteps(spec, seen, nil)
	if got := lines(steps); got != "mmshutdown -a\nmmchconfig maxblocksize=8M\nmmstartup -a" {
		t.Errorf("maxblocksize steps = %s", got)
	}
}

// TestClusterStepsRestart: a value read only at daemon start (no -i) on a
// running cluster is recorded for a rolling restart of its scope's
// running members before mmchconfig; immediate values and stopped nodes
// need none.
func TestClusterStepsRestart(t *testing.T) {
	spec := r5ClusterSpec()
	seen := seenFrom(t, spec)
	spec.Config["nsdServers"]["workerThreads"] = "1024"
	seen.States["nsd2"] = "down"
	if got := RestartNodes(spec, seen); !slices.Equal(got, []string{"nsd1"}) {
		t.Errorf("restart nodes = %v, want the running NSD server", got)
	}
	seen.States["nsd2"] = "active"
	if got := RestartNodes(spec, seen); !slices.Equal(got, []string{"nsd1", "nsd2"}) {
		t.Errorf("restart nodes = %v", got)
	}
	steps, err := ClusterSteps(spec, seen, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Name != "restart-pending" || !slices.Equal(steps[0].Argv[len(steps[0].Argv)-2:], []string{"nsd1", "nsd2"}) ||
		steps[1].Argv[0] != "mmchconfig" || slices.Contains(steps[1].Argv, "-i") {
		t.Errorf("steps = %v", steps)
	}
	// The record is written only while mmchconfig has not run (its guard
	// is mmchconfig's).
	if !slices.Equal(steps[0].Unless, []string{"mmlsconfig", "-Y"}) || len(steps[0].Match) != 1 {
		t.Errorf("record guard = %v %v", steps[0].Unless, steps[0].Match)
	}
	// An immediate value restarts nothing.
	spec = r5ClusterSpec()
	spec.Config["nsdServers"]["pagepool"] = "32G"
	if got := RestartNodes(spec, seen); len(got) != 0 {
		t.Errorf("pagepool restarts %v", got)
	}
	if got := ScopeNodes(spec, "cesNodes"); !slices.Equal(got, []string{"gw1", "gw2"}) {
		t.Errorf("cesNodes = %v", got)
	}
}

func TestClusterStepsNodes(t *testing.T) {
	spec := r5ClusterSpec()
	seen := seenFrom(t, spec)
	seen.States["gw2"] = "down"
	want := "mmshutdown -N gw1\nmmdelnode -N gw1\nmmaddnode -N /d/added-nodes\nmmchlicense client --accept -N cn1\nmmstartup -N cn1,gw2"
	// gw1 dropped from the configuration (the prior state names it), cn1
	// added, gw2 found down.
	spec.Nodes = spec.Nodes[:0:0]
	for _, n := range r5ClusterSpec().Nodes {
		if n.Name != "gw1" {
			spec.Nodes = append(spec.Nodes, n)
		}
	}
	spec.Nodes = append(spec.Nodes, Node{Name: "cn1", Roles: []string{RoleClient}})
	steps, err := ClusterSteps(spec, seen, []string{"gw1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if f := steps[2].Files["/d/added-nodes"]; f != "cn1:client\n" {
		t.Errorf("added nodes file = %q", f)
	}
	seen.Cluster.Name = "other"
	if _, err := ClusterSteps(spec, seen, nil); err == nil || !strings.Contains(err.Error(), "cluster other") {
		t.Errorf("other cluster: %v", err)
	}
}

// TestGuards: every step but the Once ones carries a query whose output,
// once the step took effect, matches all its expressions; checked on
// -Y output as the converged cluster prints it.
func TestGuards(t *testing.T) {
	spec := r5ClusterSpec()
	steps, _ := ClusterSteps(spec, ClusterSeen{}, nil)
	done := map[string]string{
		"mmlscluster": "mmlscluster:clusterSummary:HEADER:version:reserved:reserved:clusterName:clusterId:\n" +
			"mmlscluster:clusterSummary:0:1:::r5:1:\n" +
			"mmlscluster:clusterNode:HEADER:version:reserved:reserved:nodeNumber:daemonNodeName:\n" +
			"mmlscluster:clusterNode:0:1:::1:nsd1.hpc.example:\nmmlscluster:clusterNode:0:1:::2:nsd2:\n",
		"mmlsnodeclass": fixture(t, "mmlsnodeclass.Y"),
		"mmlsconfig":    fixture(t, "mmlsconfig.Y"),
		"mmgetstate": "mmgetstate::HEADER:version:reserved:reserved:nodeName:nodeNumber:state:\n" +
			"mmgetstate::0:1:::nsd1:1:active:\nmmgetstate::0:1:::nsd2:2:active:\nmmgetstate::0:1:::mgmt:3:active:\n" +
			"mmgetstate::0:1:::gw1:4:active:\nmmgetstate::0:1:::gw2:5:active:\n",
	}
	for _, s := range steps {
		if s.Once {
			if s.Argv[0] != "mmchlicense" {
				t.Errorf("%s is Once", s.Name)
			}
			continue
		}
		out, ok := done[s.Unless[0]]
		if !ok || len(s.Match) == 0 {
			t.Fatalf("%s: guard %v %v", s.Name, s.Unless, s.Match)
		}
		for _, m := range s.Match {
			if !regexp.MustCompile(m).MatchString(out) {
				t.Errorf("%s: %s does not match the converged %s output", s.Name, m, s.Unless[0])
			}
		}
	}
	// Not done: pagepool 8G does not satisfy pagepool=16G.
	q, m := guardConfig("nsdServers", map[string]string{"pagepool": "16G"})
	if q[0] != "mmlsconfig" || regexp.MustCompile(m[0]).MatchString("mmlsconfig::0:1:::pagepool:8G:nsdServers:\n") ||
		!regexp.MustCompile(m[0]).MatchString("mmlsconfig::0:1:::pagepool:16384M:gwNodes,nsdServers:\n") {
		t.Errorf("pagepool guard %s", m[0])
	}
	f := r5FS()
	for _, s := range f.FSSteps(FSSeen{}, nil, false, "/d") {
		if s.Once || len(s.Unless) == 0 {
			t.Errorf("%s has no guard", s.Name)
		}
	}
	_, m = guardExport(NFSExport{Path: "/gpfs/fs1", Clients: []NFSClient{{Spec: "10.20.0.0/16"}}})
	if !regexp.MustCompile(m[0]).MatchString(fixture(t, "mmnfs-export.Y")) {
		t.Errorf("export guard %s", m[0])
	}
}
