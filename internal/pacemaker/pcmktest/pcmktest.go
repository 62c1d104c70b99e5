// Package pcmktest runs pacemaker's own tools (Debian pacemaker-cli-utils)
// on files for tests: crm_verify, and crm_simulate's transition graph
// parsed so a test asserts on actions and their order, not on text.
package pcmktest

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

// Tool finds a pacemaker or corosync program or fails the test naming the
// package that ships it.
func Tool(t *testing.T, name string) string {
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

// Run runs a tool with CIB_file pointing at cib (when set) and returns
// stdout, stderr and the exit code.
func Run(t *testing.T, cib string, name string, args ...string) (string, string, int) {
	t.Helper()
	var env []string
	if cib != "" {
		env = append(env, "CIB_file="+cib)
	}
	return RunWith(t, "", env, name, args...)
}

// RunWith runs a tool with stdin and extra environment.
func RunWith(t *testing.T, stdin string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Tool(t, name), args...)
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

// CRMVerify fails the test unless crm_verify finds neither errors nor
// warnings (it exits 78 for either, with the details on stderr only).
func CRMVerify(t *testing.T, name string, cib []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), name+".xml")
	if err := os.WriteFile(f, cib, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := Run(t, "", "crm_verify", "-x", f, "-V")
	if code != 0 || strings.TrimSpace(errs) != "" {
		t.Fatalf("%s: crm_verify exit %d\nstdout: %s\nstderr: %s\nCIB:\n%s", name, code, out, errs, cib)
	}
}

// The transition graph crm_simulate writes with -G.
type graph struct {
	Synapses []struct {
		Actions []Action `xml:"action_set>rsc_op"`
		Events  []Action `xml:"action_set>crm_event"`
		Pseudo  []Action `xml:"action_set>pseudo_event"`
		Inputs  []struct {
			Actions []Action `xml:",any"`
		} `xml:"inputs>trigger"`
	} `xml:"synapse"`
}

type Action struct {
	XMLName   xml.Name
	ID        string `xml:"id,attr"`
	Operation string `xml:"operation,attr"`
	Key       string `xml:"operation_key,attr"`
	Node      string `xml:"on_node,attr"`
	Primitive struct {
		ID string `xml:"id,attr"`
	} `xml:"primitive"`
}

// Transition is a parsed graph: its actions by id and what each waits for.
type Transition struct {
	Actions map[string]Action
	Inputs  map[string][]string
}

// ParseGraph reads a graph file crm_simulate wrote.
func ParseGraph(t *testing.T, file string) Transition {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var g graph
	if err := xml.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := Transition{Actions: map[string]Action{}, Inputs: map[string][]string{}}
	for _, s := range g.Synapses {
		var in []string
		for _, trig := range s.Inputs {
			for _, a := range trig.Actions {
				in = append(in, a.ID)
			}
		}
		for _, set := range [][]Action{s.Actions, s.Events, s.Pseudo} {
			for _, a := range set {
				tr.Actions[a.ID] = a
				tr.Inputs[a.ID] = append(tr.Inputs[a.ID], in...)
			}
		}
	}
	if len(tr.Actions) == 0 {
		t.Fatalf("%s: no actions in the transition graph", file)
	}
	return tr
}

// Find returns the rsc_op of operation on rsc (any node when node is "").
func (tr Transition) Find(rsc, operation, node string) []Action {
	var out []Action
	for _, a := range tr.Actions {
		if a.XMLName.Local == "rsc_op" && a.Primitive.ID == rsc && a.Operation == operation && (node == "" || a.Node == node) {
			out = append(out, a)
		}
	}
	return out
}

// After reports whether action a waits, directly or through others, for b.
func (tr Transition) After(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{a}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range tr.Inputs[x] {
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

// Simulate runs crm_simulate on cib (a file) with extra arguments and
// returns the transition graph and the resulting CIB.
func Simulate(t *testing.T, cib string, args ...string) (Transition, string) {
	t.Helper()
	dir := filepath.Dir(cib)
	base := strings.TrimSuffix(filepath.Base(cib), ".xml")
	graphFile, outFile := filepath.Join(dir, base+".graph.xml"), filepath.Join(dir, base+".out.xml")
	out, errs, code := Run(t, "", "crm_simulate", append([]string{"-x", cib, "-S", "-G", graphFile, "-O", outFile}, args...)...)
	if code != 0 {
		t.Fatalf("crm_simulate %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return ParseGraph(t, graphFile), outFile
}
