package pacemaker

import (
	"maps"
	"testing"
)

// Away: the highest positive score among available nodes wins; a stopped
// resource, a preferred node down or in standby, and negative scores move
// nothing.
func TestAway(t *testing.T) {
	c := Cluster{Locations: []Location{
		{ID: "a1", Rsc: "a", Node: "n1", Score: "100"}, {ID: "a2", Rsc: "a", Node: "n2", Score: "50"},
		{ID: "b1", Rsc: "b", Node: "n2", Score: "INFINITY"}, {ID: "b2", Rsc: "b", Node: "n1", Score: "1000"},
		{ID: "c1", Rsc: "c", Node: "n1", Score: "-INFINITY"},
		{ID: "d1", Rsc: "d", Node: "n3", Score: "100"},
		{ID: "e1", Rsc: "e", Node: "n1", Score: "10"},
	}}
	pl := map[string]string{"a": "n2", "b": "n1", "c": "n2", "d": "n1", "e": ""}
	both := map[string]bool{"n1": true, "n2": true}
	if got, want := c.Away(pl, both), map[string]string{"a": "n1", "b": "n2"}; !maps.Equal(got, want) {
		t.Errorf("both nodes up: %v, want %v", got, want)
	}
	// n1 in standby: a's best available node is n2, where it runs.
	if got, want := c.Away(pl, map[string]bool{"n2": true}), map[string]string{"b": "n2"}; !maps.Equal(got, want) {
		t.Errorf("n1 unavailable: %v, want %v", got, want)
	}
}

// ReadStatus reads pacemaker 2's crm_mon XML: failures, fence events,
// nodes online and not in standby.
func TestReadStatus(t *testing.T) {
	st, err := ReadStatus([]byte(`<pacemaker-result api-version="2.25" request="crm_mon">
  <nodes>
    <node name="n1" id="1" online="true" standby="false" maintenance="false"/>
    <node name="n2" id="2" online="true" standby="true" maintenance="false"/>
    <node name="n3" id="3" online="false" standby="false" maintenance="false"/>
  </nodes>
  <failures>
    <failure op_key="ip_monitor_30000" node="n1" exitstatus="not running" exitreason="" exitcode="7" call="4" status="complete" last-rc-change="2026-12-02 00:48:52Z" queued="0" exec="0" interval="30000" task="monitor"/>
  </failures>
  <fence_history>
    <fence_event status="success" delegate="n1" action="reboot" target="n3" client="pacemaker-controld.1" origin="n1" completed="2026-12-02 00:49:00Z"/>
  </fence_history>
  <status code="0" message="OK"/>
</pacemaker-result>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failed) != 1 || st.Failed[0] != "ip_monitor_30000 on n1: not running (rc 7) at 2026-12-02 00:48:52Z" {
		t.Errorf("failed: %q", st.Failed)
	}
	if len(st.Fenced) != 1 || st.Fenced[0] != "reboot of n3: success, by n1 at 2026-12-02 00:49:00Z" {
		t.Errorf("fenced: %q", st.Fenced)
	}
	if !maps.Equal(st.Available, map[string]bool{"n1": true}) {
		t.Errorf("available: %v", st.Available)
	}
	if _, err := ReadStatus([]byte(`<cib/>`)); err == nil {
		t.Error("a CIB read as crm_mon's output")
	}
}
