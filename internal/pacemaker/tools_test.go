package pacemaker

// Checks with pacemaker's and corosync's own tools (Debian:
// pacemaker-cli-utils, resource-agents, fence-agents; .ci/run installs
// them). They run on files only: no cluster is started.

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/pcmktest"
	"testing"
)

var (
	tool       = pcmktest.Tool
	run        = pcmktest.Run
	runWith    = pcmktest.RunWith
	crmVerify  = pcmktest.CRMVerify
	parseGraph = pcmktest.ParseGraph
	simulate   = pcmktest.Simulate
)

type (
	transition  = pcmktest.Transition
	graphAction = pcmktest.Action
)

// startsInOrder checks that every member of the group starts on node, each
// after the one before it, and nowhere else.
func startsInOrder(t *testing.T, tr transition, g Group, node string) []graphAction {
	t.Helper()
	var starts []graphAction
	for _, m := range g.Members {
		s := tr.Find(m.ID, "start", node)
		if len(s) != 1 {
			t.Fatalf("%s: %d starts on %s, want 1", m.ID, len(s), node)
		}
		if all := tr.Find(m.ID, "start", ""); len(all) != 1 {
			t.Fatalf("%s starts %d times in the transition, want once on %s", m.ID, len(all), node)
		}
		if len(starts) > 0 && !tr.After(s[0].ID, starts[len(starts)-1].ID) {
			t.Errorf("%s starts without waiting for %s: the group order is lost", m.ID, starts[len(starts)-1].Primitive.ID)
		}
		starts = append(starts, s[0])
	}
	return starts
}
