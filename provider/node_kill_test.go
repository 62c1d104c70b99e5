//go:build faults

package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// cmdWatch follows the command logs of a lab's nodes as they grow: the
// kill tests stop terraform on the command of interest, not after a
// guessed time.
type cmdWatch struct {
	mu    sync.Mutex
	roots map[string]string
	off   map[string]int64
	part  map[string][]byte
	seen  []loggedCmd
}

// loggedCmd is one command a node ran.
type loggedCmd struct {
	node string
	argv []string
}

func newCmdWatch(l *lab.Lab) *cmdWatch {
	w := &cmdWatch{roots: map[string]string{}, off: map[string]int64{}, part: map[string][]byte{}}
	for _, n := range l.Nodes().Nodes {
		w.roots[n.Name] = n.Root
	}
	return w
}

// poll reads what the logs gained and returns every command so far.
func (w *cmdWatch) poll() []loggedCmd {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, root := range w.roots {
		f, err := os.Open(filepath.Join(root, "var/lib/hpcstorage-agent/commands.log"))
		if err != nil {
			continue
		}
		if _, err := f.Seek(w.off[name], io.SeekStart); err == nil {
			b, _ := io.ReadAll(f)
			w.off[name] += int64(len(b))
			b = append(w.part[name], b...)
			for {
				i := bytes.IndexByte(b, '\n')
				if i < 0 {
					break
				}
				var e struct {
					Argv []string `json:"argv"`
				}
				if json.Unmarshal(b[:i], &e) == nil {
					w.seen = append(w.seen, loggedCmd{name, e.Argv})
				}
				b = b[i+1:]
			}
			w.part[name] = slices.Clone(b)
		}
		f.Close()
	}
	return w.seen
}

// count is how many commands so far match.
func (w *cmdWatch) count(match func(loggedCmd) bool) int {
	n := 0
	for _, c := range w.poll() {
		if match(c) {
			n++
		}
	}
	return n
}

// nodeKill is one kill point: terraform is killed once the lab's nodes
// have started the at-th command that match accepts, or, with cond, once
// the lab's shared state (in the lab folder) shows a stage.
type nodeKill struct {
	name  string
	match func(loggedCmd) bool
	at    int
	cond  func(labDir string) bool
}

// reached tells whether the lab is at p.
func (p nodeKill) reached(w *cmdWatch, labDir string) bool {
	if p.cond != nil {
		return p.cond(labDir)
	}
	return w.count(p.match) >= p.at
}

// killDesign applies example on a fresh lab of design for each kill
// point, SIGKILLs terraform's process group there, then runs one plain
// apply that must converge, a plan that must be empty, and checks that
// the nodes did nothing twice (checkNothingTwice). It logs what each
// re-apply did. With keeper, the provider's session keeper (outside the
// group) finishes the requests in flight; without, the kill cuts their
// connections and the nodes stop the agents in the middle of them.
func killDesign(t *testing.T, c lab.Config, example string, modules []string, points []nodeKill, keeper bool) {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	c.Dir = filepath.Join(dir, "lab")
	c.Simulator = simtest.Binary(t)
	cfg := copyExample(t, dir, example, modules...)
	state := startStateServer(t)
	backend := fmt.Sprintf("terraform {\n  backend \"http\" {\n    address = %q\n  }\n}\n", state.url)
	if err := os.WriteFile(filepath.Join(cfg, "backend.tf"), []byte(backend), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := pluginCLIIn(t, dir, cfg)
	if !keeper {
		cli.env = append(cli.env, "HPCSTORAGE_SESSION_KEEPER=off")
	}
	base := cli.env
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	created := regexp.MustCompile(`(?m): Creation complete`)
	modified := regexp.MustCompile(`(?m): Modifications complete`)
	warning := regexp.MustCompile(`(?m)^(?:│ )?Warning: (.+)$`)
	for i, p := range points {
		l, err := lab.Up(c)
		if err != nil {
			t.Fatal(err)
		}
		cli.env = slices.Clone(base)
		for k, v := range labEnv(t, c.Dir) {
			cli.env = append(cli.env, k+"="+v)
		}
		state.clear()
		w := newCmdWatch(l)
		t0 := time.Now()
		killed := killWhen(t, cli, func() bool { return p.reached(w, c.Dir) })
		atKill := len(w.poll())
		inState := len(parseResources(t, state.snapshot()))
		t1 := time.Now()
		again, code := cli.run("apply", "-auto-approve")
		if code != 0 {
			l.Close()
			t.Fatalf("kill %d (%s): the next apply failed (exit %d):\n%s\nkilled run:\n%s", i+1, p, code, again, killed)
		}
		after := w.poll()
		var byReapply []string
		for _, lc := range after[atKill:] {
			if createsSomething(lc.argv) || p.match != nil && p.match(lc) {
				byReapply = append(byReapply, lc.node+": "+commandLabel(lc.argv))
			}
		}
		var warnings []string
		for _, m := range warning.FindAllStringSubmatch(again, -1) {
			warnings = append(warnings, m[1])
		}
		t.Logf("kill %d at %s after %s (%d resources in state, %d node commands run); the re-apply (%s) created %d and changed %d resources, warned %s, and ran %d node commands, of them: %s",
			i+1, p, t1.Sub(t0).Round(100*time.Millisecond), inState, atKill, time.Since(t1).Round(100*time.Millisecond),
			len(created.FindAllString(again, -1)), len(modified.FindAllString(again, -1)), summarize(warnings),
			len(after)-atKill, summarize(byReapply))
		if os.Getenv("HPCSTORAGE_KILL_TRACE") != "" {
			var labels []string
			for _, lc := range after {
				labels = append(labels, lc.node+":"+commandLabel(lc.argv))
			}
			t.Logf("commands (kill after #%d): %s", atKill, strings.Join(labels, ", "))
		}
		if plan, code := cli.run("plan", "-detailed-exitcode"); code != 0 {
			l.Close()
			t.Fatalf("kill %d (%s): the plan after the re-apply is not empty (exit %d):\n%s", i+1, p, code, plan)
		}
		checkNothingTwice(t, l)
		l.Close()
		if t.Failed() {
			return
		}
	}
}

func (p nodeKill) String() string {
	if p.cond != nil {
		return p.name
	}
	return fmt.Sprintf("%s #%d", p.name, p.at)
}

// starts: systemctl starts unit (named with or without .service).
func starts(unit string) func(loggedCmd) bool {
	return func(c loggedCmd) bool {
		return len(c.argv) == 3 && filepath.Base(c.argv[0]) == "systemctl" && c.argv[1] == "start" &&
			strings.TrimSuffix(c.argv[2], ".service") == unit
	}
}

// parseResources lists the managed resource instances of a state snapshot.
func parseResources(t *testing.T, raw []byte) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	var st struct {
		Resources []struct {
			Module    string            `json:"module"`
			Mode      string            `json:"mode"`
			Type      string            `json:"type"`
			Name      string            `json:"name"`
			Instances []json.RawMessage `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("state: %v", err)
	}
	var out []string
	for _, r := range st.Resources {
		if r.Mode != "managed" {
			continue
		}
		for i := range r.Instances {
			out = append(out, fmt.Sprintf("%s.%s.%s[%d]", r.Module, r.Type, r.Name, i))
		}
	}
	return out
}

// commandLabel names a logged command briefly: the program, or the label
// ($0) of a shell step, and the subcommand.
func commandLabel(argv []string) string {
	if len(argv) >= 4 && filepath.Base(argv[0]) == "sh" && argv[1] == "-c" {
		return argv[3]
	}
	if m := lab.MkfsArgv(argv); m != nil {
		return m[0]
	}
	if filepath.Base(argv[0]) == "systemctl" && len(argv) == 3 {
		return strings.Join(argv, " ")
	}
	out := filepath.Base(argv[0])
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") || len(out) > 40 {
			break
		}
		out += " " + a
	}
	return out
}

// isFormat: a BeeGFS target's format step.
func isFormat(c loggedCmd) bool { return lab.MkfsArgv(c.argv) != nil }

// isShellStep: the labelled shell step ($0 label) of an agent command.
func isShellStep(label string) func(loggedCmd) bool {
	return func(c loggedCmd) bool {
		return len(c.argv) >= 4 && filepath.Base(c.argv[0]) == "sh" && c.argv[1] == "-c" && c.argv[3] == label
	}
}

// TestR1NodeKilled kills terraform during examples/r1 on the R1 lab at
// five points of the BeeGFS targets' formatting (the 1st, 11th, 22nd,
// 33rd and 44th, last, format started on the nodes) and five of the HA
// clusters' creation, which puts the BeeGFS groups in the CIB: corosync
// starting, pacemaker starting on the first and the last node, and each
// cluster's CIB push. HPCSTORAGE_KILL_POINTS=1,9 runs some points only;
// HPCSTORAGE_KILL_KEEPER=off kills without the session keeper, so the
// requests in flight are cut on the nodes too.
func TestR1NodeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs R1 applies")
	}
	t.Parallel()
	points := []nodeKill{
		{"format", isFormat, 1, nil}, {"format", isFormat, 11, nil}, {"format", isFormat, 22, nil}, {"format", isFormat, 33, nil},
		{"format", isFormat, 44, nil},
		{"corosync start", starts("corosync"), 1, nil},
		{"pacemaker start", starts("pacemaker"), 1, nil},
		{"pacemaker start", starts("pacemaker"), 4, nil},
		{"CIB push", isShellStep("cib-push"), 1, nil},
		{"CIB push", isShellStep("cib-push"), 2, nil},
	}
	if p := os.Getenv("HPCSTORAGE_KILL_POINTS"); p != "" {
		points = pickPoints(t, points, p)
	}
	killDesign(t, lab.Config{Design: "r1", Clients: 2, PowerDelay: 500 * time.Millisecond}, "r1",
		[]string{"modules/beegfs-high-capacity"}, points, os.Getenv("HPCSTORAGE_KILL_KEEPER") != "off")
}

// pickPoints keeps the kill points numbered (from 1) in the comma list
// sel: HPCSTORAGE_KILL_POINTS=3,4 replays two.
func pickPoints(t *testing.T, all []nodeKill, sel string) []nodeKill {
	t.Helper()
	var out []nodeKill
	for _, f := range strings.Split(sel, ",") {
		var i int
		if _, err := fmt.Sscan(f, &i); err != nil || i < 1 || i > len(all) {
			t.Fatalf("HPCSTORAGE_KILL_POINTS: %q is not a point between 1 and %d", f, len(all))
		}
		out = append(out, all[i-1])
	}
	return out
}

// TestR2NodeKilled kills terraform during examples/r2 on the R2 lab at
// five points of the cluster's creation and CIB push (corosync starting,
// pacemaker starting on each node, the push, the CIB holding the NFS
// group) and five of the HA-LVM volume group's creation (its step
// starting, then each stage seen in the lab's shared LVM metadata: the
// physical volumes, the volume group, the logical volume, the file
// system). HPCSTORAGE_KILL_POINTS and HPCSTORAGE_KILL_KEEPER as for R1.
func TestR2NodeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs R2 applies")
	}
	t.Parallel()
	points := []nodeKill{
		{"corosync start", starts("corosync"), 1, nil},
		{"pacemaker start", starts("pacemaker"), 1, nil},
		{"pacemaker start", starts("pacemaker"), 2, nil},
		{"CIB push", isShellStep("cib-push"), 1, nil},
		{"the CIB holding the NFS group", nil, 0, func(dir string) bool {
			b, _ := lab.ClusterCIB(dir, "nfsha")
			return bytes.Contains(b, []byte("<group "))
		}},
		{"HA-LVM creation", isShellStep("hpcstorage-halvm"), 1, nil},
		{"HA-LVM: physical volumes labelled", nil, 0, lvmStage(func(st lvmSnapshot) bool { return len(st.PVs) > 0 })},
		{"HA-LVM: volume group made", nil, 0, lvmStage(func(st lvmSnapshot) bool { return len(st.VGs) > 0 })},
		{"HA-LVM: logical volume made", nil, 0, lvmStage(func(st lvmSnapshot) bool {
			for _, vg := range st.VGs {
				if len(vg.LVs) > 0 {
					return true
				}
			}
			return false
		})},
		{"HA-LVM: file system made", nil, 0, lvmStage(func(st lvmSnapshot) bool {
			for _, vg := range st.VGs {
				for _, lv := range vg.LVs {
					if lv.FSType != "" {
						return true
					}
				}
			}
			return false
		})},
	}
	if p := os.Getenv("HPCSTORAGE_KILL_POINTS"); p != "" {
		points = pickPoints(t, points, p)
	}
	killDesign(t, lab.Config{Design: "r2", PowerDelay: 500 * time.Millisecond}, "r2", []string{"modules/nfs-ha"}, points,
		os.Getenv("HPCSTORAGE_KILL_KEEPER") != "off")
}

// lvmSnapshot is what the lab's LVM simulator keeps of the shared volumes
// (internal/lab/sim/lvm.go).
type lvmSnapshot struct {
	PVs map[string]json.RawMessage `json:"pvs"`
	VGs map[string]struct {
		Tags []string `json:"tags"`
		PVs  []string `json:"pvs"`
		LVs  []struct {
			FSType string `json:"fstype"`
		} `json:"lvs"`
	} `json:"vgs"`
}

// lvmStage reads the lab's shared LVM metadata (written by rename, so a
// read sees a whole snapshot) for a kill point.
func lvmStage(at func(lvmSnapshot) bool) func(labDir string) bool {
	return func(labDir string) bool {
		b, err := os.ReadFile(filepath.Join(labDir, lab.SharedDir, "lvm", "lvm.json"))
		var st lvmSnapshot
		return err == nil && json.Unmarshal(b, &st) == nil && at(st)
	}
}
