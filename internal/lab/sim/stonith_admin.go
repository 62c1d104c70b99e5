package sim

// stonith_admin follows pacemaker's stonith_admin(8) for the fencer's
// history, which lives in the fencer (pacemaker-fenced), not in the CIB:
// the real tools cannot read it from a CIB file, so the lab keeps it in
// the cluster's shared folder (fence_history.json), one event per fencing
// the scheduler ran (a failed node: settleWith). `--history NODE|'*'`
// lists the events of a node or all (text, or pacemaker's fence_event
// XML with --output-as=xml), `--history ... --cleanup` forgets them, what
// `pcs stonith history cleanup` runs. --cleanup without --history is
// refused as the real one refuses it; other commands are not simulated.
// Without a running pacemaker on the node it fails with exit 102.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

const fenceHistoryFile = "fence_history.json"

// fenceEvent is one fencing, with the fields of pacemaker's fence_event.
type fenceEvent struct {
	Action    string `json:"action"`
	Target    string `json:"target"`
	Delegate  string `json:"delegate"`
	Origin    string `json:"origin"`
	Client    string `json:"client"`
	Completed string `json:"completed"`
}

func readFenceHistory(dir string) []fenceEvent {
	var h []fenceEvent
	if data, err := os.ReadFile(filepath.Join(dir, fenceHistoryFile)); err == nil {
		_ = json.Unmarshal(data, &h)
	}
	return h
}

func writeFenceHistory(dir string, h []fenceEvent) error {
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fenceHistoryFile), data, 0o600)
}

// reFencing is how crm_simulate's transition lists a fencing it ran.
var reFencing = regexp.MustCompile(`(?m)^\s*\* Fencing (\S+) \((\w+)\)`)

// recordFencing adds the fencings of a transition to the history: carried
// out by the lowest-id node still online (the DC, which also asked).
func recordFencing(dir string, c corosyncConf, online []string, transition string) error {
	ms := reFencing.FindAllStringSubmatch(transition, -1)
	if len(ms) == 0 {
		return nil
	}
	dc := ""
	best := 0
	for _, n := range c.nodes {
		if slices.Contains(online, n.name) && (dc == "" || n.id < best) {
			dc, best = n.name, n.id
		}
	}
	h := readFenceHistory(dir)
	for _, m := range ms {
		h = append(h, fenceEvent{Action: m[2], Target: m[1], Delegate: dc, Origin: dc,
			Client:    "pacemaker-controld." + strconv.Itoa(os.Getpid()),
			Completed: time.Now().Format("2006-01-02 15:04:05Z07:00")})
	}
	return writeFenceHistory(dir, h)
}

// fenceEventXML is pacemaker's fence_event element (fence-event-2.15.rng).
func fenceEventXML(ev fenceEvent) string {
	return fmt.Sprintf(`<fence_event status="success" delegate="%s" action="%s" target="%s" client="%s" origin="%s" completed="%s"/>`,
		xmlEscape(ev.Delegate), xmlEscape(ev.Action), xmlEscape(ev.Target), xmlEscape(ev.Client), xmlEscape(ev.Origin), xmlEscape(ev.Completed))
}

func stonithAdmin(e *Env, args []string) int {
	var node string
	history, cleanup, asXML := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-H" || a == "--history":
			if i+1 == len(args) {
				return e.fail(64, "stonith_admin: option %s needs a node name (or '*')", a)
			}
			i++
			history, node = true, args[i]
		case strings.HasPrefix(a, "--history="):
			history, node = true, strings.TrimPrefix(a, "--history=")
		case a == "-c" || a == "--cleanup":
			cleanup = true
		case a == "--output-as=xml":
			asXML = true
		case a == "--output-as" && i+1 < len(args):
			i++
			asXML = args[i] == "xml"
		case a == "-b" || a == "--broadcast" || a == "-q" || a == "--quiet" || strings.HasPrefix(a, "--timeout"):
		default:
			return e.fail(64, "stonith_admin: %s: the lab simulates only --history [--cleanup]", a)
		}
	}
	if !history {
		if cleanup {
			return e.fail(64, "stonith_admin: --cleanup requires --history")
		}
		return e.fail(64, "stonith_admin: the lab simulates only --history [--cleanup]")
	}
	if !e.pcmkConnected() {
		return exitNotConnected
	}
	c, _, err := e.localCluster()
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to fencer: %v", err)
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer unlock()
	h := readFenceHistory(dir)
	match := func(ev fenceEvent) bool { return node == "*" || ev.Target == node }
	if cleanup {
		if err := writeFenceHistory(dir, slices.DeleteFunc(h, match)); err != nil {
			return e.fail(1, "%v", err)
		}
		logChange(dir, e, "stonith_admin", args)
		return 0
	}
	var shown []fenceEvent
	for _, ev := range h {
		if match(ev) {
			shown = append(shown, ev)
		}
	}
	if asXML {
		fmt.Fprintf(e.Stdout, "<pacemaker-result api-version=\"2.15\" request=\"stonith_admin %s\">\n  <fence_history>\n", xmlEscape(strings.Join(args, " ")))
		for _, ev := range shown {
			fmt.Fprintf(e.Stdout, "    %s\n", fenceEventXML(ev))
		}
		fmt.Fprint(e.Stdout, "  </fence_history>\n  <status code=\"0\" message=\"OK\"/>\n</pacemaker-result>\n")
		return 0
	}
	for _, ev := range shown {
		fmt.Fprintf(e.Stdout, "%s of %s successful: delegate=%s, client=%s, origin=%s, completed='%s'\n",
			ev.Action, ev.Target, ev.Delegate, ev.Client, ev.Origin, ev.Completed)
	}
	return 0
}
