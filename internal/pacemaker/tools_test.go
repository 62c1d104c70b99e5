package pacemaker

// Checks with pacemaker's and corosync's own tools (Debian:
// pacemaker-cli-utils, resource-agents, fence-agents; .ci/run installs
// them). They run on files only: no cluster is started.

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tool finds a pacemaker or corosync program or fails the test naming the
// package that ships it.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		for _, dir := range []string{"/usr/sbin", "/sbin"} {
			if _, serr := os.Stat(filepath.Join(dir, name)); serr == nil {
				return filepath.Join(dir, name)
			}
		}
		t.Fatalf("%s not found: apt-get install -y pacemaker-cli-utils resource-agents fence-agents", name)
	}
	return p
}

// run runs a tool with CIB_file pointing at cib (when set) and returns
// stdout, stderr and the exit code.
func run(t *testing.T, cib string, name string, args ...string) (string, string, int) {
	t.Helper()
	var env []string
	if cib != "" {
		env = append(env, "CIB_file="+cib)
	}
	return runWith(t, "", env, name, args...)
}

// runWith runs a tool with stdin and extra environment.
func runWith(t *testing.T, stdin string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), code
}

// crmVerify fails the test unless crm_verify finds neither errors nor
// warnings (it exits 78 for either, with the details on stderr only).
func crmVerify(t *testing.T, name string, cib []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), name+".xml")
	if err := os.WriteFile(f, cib, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "", "crm_verify", "-x", f, "-V")
	if code != 0 || strings.TrimSpace(errs) != "" {
		t.Fatalf("%s: crm_verify exit %d\nstdout: %s\nstderr: %s\nCIB:\n%s", name, code, out, errs, cib)
	}
}

// The transition graph crm_simulate writes with -G.
type graph struct {
	Synapses []struct {
		Actions []graphAction `xml:"action_set>rsc_op"`
		Events  []graphAction `xml:"action_set>crm_event"`
		Pseudo  []graphAction `xml:"action_set>pseudo_event"`
		Inputs  []struct {
			Actions []graphAction `xml:",any"`
		} `xml:"inputs>trigger"`
	} `xml:"synapse"`
}

type graphAction struct {
	XMLName   xml.Name
	ID        string `xml:"id,attr"`
	Operation string `xml:"operation,attr"`
	Key       string `xml:"operation_key,attr"`
	Node      string `xml:"on_node,attr"`
	Primitive struct {
		ID string `xml:"id,attr"`
	} `xml:"primitive"`
}

// transition is a parsed graph: its actions by id and what each waits for.
type transition struct {
	actions map[string]graphAction
	inputs  map[string][]string
}

func parseGraph(t *testing.T, file string) transition {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var g graph
	if err := xml.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := transition{actions: map[string]graphAction{}, inputs: map[string][]string{}}
	for _, s := range g.Synapses {
		var in []string
		for _, trig := range s.Inputs {
			for _, a := range trig.Actions {
				in = append(in, a.ID)
			}
		}
		for _, set := range [][]graphAction{s.Actions, s.Events, s.Pseudo} {
			for _, a := range set {
				tr.actions[a.ID] = a
				tr.inputs[a.ID] = append(tr.inputs[a.ID], in...)
			}
		}
	}
	if len(tr.actions) == 0 {
		t.Fatalf("%s: no actions in the transition graph", file)
	}
	return tr
}

// find returns the rsc_op of operation on rsc (any node when node is "").
func (tr transition) find(rsc, operation, node string) []graphAction {
	var out []graphAction
	for _, a := range tr.actions {
		if a.XMLName.Local == "rsc_op" && a.Primitive.ID == rsc && a.Operation == operation && (node == "" || a.Node == node) {
			out = append(out, a)
		}
	}
	return out
}

// after reports whether action a waits, directly or through others, for b.
func (tr transition) after(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{a}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range tr.inputs[x] {
			if in == b {
				return true
			}
			if !seen[in] {
				seen[in] = true
				stack = append(stack, in)
			}
		}
	}
	return false
}

// simulate runs crm_simulate on cib (a file) with extra arguments and
// returns the transition graph and the resulting CIB.
func simulate(t *testing.T, cib string, args ...string) (transition, string) {
	t.Helper()
	dir := filepath.Dir(cib)
	base := strings.TrimSuffix(filepath.Base(cib), ".xml")
	graphFile, outFile := filepath.Join(dir, base+".graph.xml"), filepath.Join(dir, base+".out.xml")
	out, errs, code := run(t, "", "crm_simulate", append([]string{"-x", cib, "-S", "-G", graphFile, "-O", outFile}, args...)...)
	if code != 0 {
		t.Fatalf("crm_simulate %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return parseGraph(t, graphFile), outFile
}

// startsInOrder checks that every member of the group starts on node, each
// after the one before it, and nowhere else.
func startsInOrder(t *testing.T, tr transition, g Group, node string) []graphAction {
	t.Helper()
	var starts []graphAction
	for _, m := range g.Members {
		s := tr.find(m.ID, "start", node)
		if len(s) != 1 {
			t.Fatalf("%s: %d starts on %s, want 1", m.ID, len(s), node)
		}
		if all := tr.find(m.ID, "start", ""); len(all) != 1 {
			t.Fatalf("%s starts %d times in the transition, want once on %s", m.ID, len(all), node)
		}
		if len(starts) > 0 && !tr.after(s[0].ID, starts[len(starts)-1].ID) {
			t.Errorf("%s starts without waiting for %s: the group order is lost", m.ID, starts[len(starts)-1].Primitive.ID)
		}
		starts = append(starts, s[0])
	}
	return starts
}
