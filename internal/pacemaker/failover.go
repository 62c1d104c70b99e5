package pacemaker

// After an unplanned failover: what `crm_mon -1 -X --fence-history=3`
// says happened (failed actions, fencing history, who is online), what an
// administrator of NetApp's BeeGFS HA role then runs (`pcs resource
// cleanup`, `pcs stonith history cleanup`) and the failback `pcs resource
// relocate run` does (each resource moved to the node its location
// constraints prefer, the temporary constraint removed once it is there).

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Status is what crm_mon's XML says beyond placement.
type Status struct {
	// Failed are the failed resource actions, one line each
	// ("svc-a_monitor_30000 on nfs1: not running (rc 7) at ...").
	Failed []string
	// Fenced is the fencing history, one line per event ("reboot of nfs1:
	// success, by nfs2 at ...").
	Fenced []string
	// Available are the nodes online and not in standby.
	Available map[string]bool
	// Online are the nodes online (standby or not), DC the designated
	// controller ("" while the cluster elects one).
	Online map[string]bool
	DC     string
}

// ReadStatus reads the failures, fence history and nodes of crm_mon's XML
// (pacemaker 2's --output-as=xml or 1.1's --as-xml: the same elements).
func ReadStatus(monXML []byte) (Status, error) {
	root, err := parseTree(monXML)
	if err != nil {
		return Status{}, err
	}
	if root.Name != "pacemaker-result" && root.Name != "crm_mon" {
		return Status{}, fmt.Errorf("%w: want crm_mon's XML, got <%s>", ErrLive, root.Name)
	}
	st := Status{Available: map[string]bool{}, Online: map[string]bool{}}
	if nodes := root.child("nodes"); nodes != nil {
		for _, n := range nodes.Children {
			if n.Name != "node" || n.attr("online") != "true" {
				continue
			}
			st.Online[n.attr("name")] = true
			if n.attr("standby") != "true" && n.attr("maintenance") != "true" {
				st.Available[n.attr("name")] = true
			}
		}
	}
	if sum := root.child("summary"); sum != nil {
		if dc := sum.child("current_dc"); dc != nil && dc.attr("present") == "true" {
			st.DC = dc.attr("name")
		}
	}
	if f := root.child("failures"); f != nil {
		for _, x := range f.Children {
			if x.Name != "failure" {
				continue
			}
			line := fmt.Sprintf("%s on %s: %s (rc %s)", x.attr("op_key"), x.attr("node"), x.attr("exitstatus"), x.attr("exitcode"))
			if r := x.attr("exitreason"); r != "" {
				line += " " + strconv.Quote(r)
			}
			if t := x.attr("last-rc-change"); t != "" {
				line += " at " + t
			}
			st.Failed = append(st.Failed, line)
		}
	}
	if f := root.child("fence_history"); f != nil {
		for _, x := range f.Children {
			if x.Name != "fence_event" {
				continue
			}
			line := fmt.Sprintf("%s of %s: %s", x.attr("action"), x.attr("target"), x.attr("status"))
			if d := x.attr("delegate"); d != "" {
				line += ", by " + d
			}
			if r := x.attr("exit-reason"); r != "" {
				line += " " + strconv.Quote(r)
			}
			if t := x.attr("completed"); t != "" {
				line += " at " + t
			}
			st.Fenced = append(st.Fenced, line)
		}
	}
	return st, nil
}

// score reads a constraint score; ok is false for a score that keeps the
// resource away or cannot be read.
func score(s string) (int, bool) {
	switch strings.TrimPrefix(s, "+") {
	case "INFINITY", "infinity":
		return 1000000, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// Away are the resources and groups that run elsewhere than the node
// their location constraints prefer most while that node is available:
// resource id -> preferred node. Stickiness keeps a group on the node it
// failed over to after its own node comes back; this is what `pcs
// resource relocate run` moves back.
func (c Cluster) Away(placement map[string]string, available map[string]bool) map[string]string {
	best := map[string]string{}
	top := map[string]int{}
	for _, l := range c.Locations {
		s, ok := score(l.Score)
		if !ok || !available[l.Node] {
			continue
		}
		if s > top[l.Rsc] || (s == top[l.Rsc] && l.Node < best[l.Rsc]) {
			top[l.Rsc], best[l.Rsc] = s, l.Node
		}
	}
	out := map[string]string{}
	for rsc, node := range best {
		if at := placement[rsc]; at != "" && at != node {
			out[rsc] = node
		}
	}
	return out
}

// Cleanups: crm_resource --cleanup clears the failed actions and fail
// counts (what pcs resource cleanup runs), stonith_admin's cleanup the
// fencer's history (pcs stonith history cleanup). Each runs unless
// crm_mon shows nothing of its kind any more, so a re-run after a killed
// apply does only what is left.
const (
	cleanupFailures = `crm_resource --cleanup
crm_resource --wait --timeout=120s`
	noFailures = `out=$(crm_mon -1 -X) && ! printf '%s' "$out" | grep -q '<failure '`
	noFencing  = `out=$(crm_mon -1 -X --fence-history=3) && ! printf '%s' "$out" | grep -q '<fence_event '`
)

// CleanupItems clear failed actions (failures) and the fencing history
// (fenced).
func CleanupItems(failures, fenced bool) []protocol.Item {
	var out []protocol.Item
	if failures {
		out = append(out, protocol.Item{Command: &protocol.Command{Name: "resource-cleanup",
			Argv: []string{"sh", "-c", cleanupFailures}, Unless: []string{"sh", "-c", noFailures}}})
	}
	if fenced {
		out = append(out, protocol.Item{Command: &protocol.Command{Name: "stonith-history-cleanup",
			Argv: []string{"stonith_admin", "--history", "*", "--cleanup"}, Unless: []string{"sh", "-c", noFencing}}})
	}
	return out
}

// relocateScript moves one resource to its preferred node and, once the
// transition has ended, removes the temporary cli-prefer constraint
// (pcs resource relocate run): stickiness then keeps it there.
const relocateScript = `set -e
crm_resource --move --resource "$1" --node "$2"
crm_resource --wait --timeout=300s
crm_resource --clear --resource "$1"
crm_resource --wait --timeout=120s`

// RelocateItems move each resource of moves (id -> node) home, in id
// order.
func RelocateItems(moves map[string]string) []protocol.Item {
	ids := make([]string, 0, len(moves))
	for id := range moves {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []protocol.Item
	for _, id := range ids {
		// Unless it already runs there (a killed run left the move done;
		// a cli-prefer left behind is drift the next apply removes).
		out = append(out, protocol.Item{Command: &protocol.Command{Name: "relocate-" + id,
			Argv:        []string{"sh", "-c", relocateScript, "relocate", id, moves[id]},
			Unless:      []string{"crm_resource", "--locate", "--resource", id, "--quiet"},
			UnlessMatch: []string{"^" + regexp.QuoteMeta(moves[id]) + `\s*$`}}})
	}
	return out
}
