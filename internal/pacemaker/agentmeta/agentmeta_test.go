package agentmeta

import "testing"

// What Parse keeps of an agent's meta-data: deprecated parameters (either
// form), what replaces what, defaults, the fencer's pcmk_* parameters for
// stonith agents, and depth-0 actions only.
func TestParse(t *testing.T) {
	agent := []byte(`<?xml version="1.0"?>
<resource-agent name="fence_x">
<parameters>
	<parameter name="login" unique="0" required="1" deprecated="1"><content type="string"/></parameter>
	<parameter name="username" unique="0" required="1" obsoletes="login"><content type="string"/></parameter>
	<parameter name="old"><deprecated/><content type="string" default="7"/></parameter>
</parameters>
<actions>
	<action name="start" timeout="20s"/>
	<action name="monitor" depth="0" timeout="20s" interval="10s"/>
	<action name="monitor" depth="10" timeout="60s" interval="1h"/>
</actions>
</resource-agent>`)
	fencer := []byte(`<resource-agent name="pacemaker-fenced"><parameters>
	<parameter name="pcmk_host_list" unique="0"><content type="string"/></parameter>
	<parameter name="username"><content type="string"/></parameter>
</parameters></resource-agent>`)
	a, err := Parse("stonith:fence_x", agent, fencer)
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{
		{Name: "login", Required: true, Deprecated: true},
		{Name: "old", Deprecated: true, Default: "7"},
		{Name: "pcmk_host_list"},
		{Name: "username", Required: true, Obsoletes: "login"},
	}
	if len(a.Params) != len(want) {
		t.Fatalf("params %+v", a.Params)
	}
	for i := range want {
		if a.Params[i] != want[i] {
			t.Errorf("param %d: %+v, want %+v", i, a.Params[i], want[i])
		}
	}
	if len(a.Actions) != 2 || a.Actions[1] != (Action{Name: "monitor", Timeout: "20s", Interval: "10s"}) {
		t.Errorf("actions %+v", a.Actions)
	}
	if _, err := Parse("ocf:x:y", []byte("<resource-agent/>"), nil); err == nil {
		t.Error("empty meta-data parses")
	}
	if _, err := Parse("ocf:x:y", []byte("not xml"), nil); err == nil {
		t.Error("garbage parses")
	}
}
