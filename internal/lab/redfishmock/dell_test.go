package redfishmock

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDellManagerOem reads the iDRAC manager the way Dell's gofish
// extension does before any BIOS change: Actions.Oem, Links.Oem.Dell and
// Oem.Dell must be objects, every DellAttributes link must resolve, and the
// iDRAC set must carry Info.1.ServerGen.
func TestDellManagerOem(t *testing.T) {
	s, _ := testService(t, "r1", "meta1-bmc", nil)
	mgr := call(t, s, http.MethodGet, s.sys.mgrPath, nil).body
	actions, _ := mgr["Actions"].(map[string]any)
	if _, isObj := actions["Oem"].(map[string]any); !isObj {
		t.Fatalf("Actions.Oem is %v", actions["Oem"])
	}
	dellOem, _ := mgr["Oem"].(map[string]any)["Dell"].(map[string]any)
	if card, _ := dellOem["DelliDRACCard"].(map[string]any); card["IPMIVersion"] != "2.0" {
		t.Errorf("Oem.Dell.DelliDRACCard %v", dellOem)
	}
	links, _ := mgr["Links"].(map[string]any)["Oem"].(map[string]any)["Dell"].(map[string]any)
	attrLinks, _ := links["DellAttributes"].([]any)
	if len(attrLinks) != 3 || links["DellAttributes@odata.count"] != float64(3) {
		t.Fatalf("Links.Oem.Dell.DellAttributes %v", links["DellAttributes"])
	}
	gen := ""
	for _, l := range attrLinks {
		p, _ := idOf(l)
		r := call(t, s, http.MethodGet, p, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", p, r.status)
		}
		if id, _ := r.body["Id"].(string); strings.Contains(id, "iDRAC") {
			gen, _ = r.body["Attributes"].(map[string]any)["Info.1.ServerGen"].(string)
		}
	}
	if gen != dellServerGen {
		t.Errorf("Info.1.ServerGen %q, want %q", gen, dellServerGen)
	}
	if jobs, _ := idOf(links["Jobs"]); call(t, s, http.MethodGet, jobs, nil).status != http.StatusOK {
		t.Errorf("Links.Oem.Dell.Jobs %q does not resolve", jobs)
	}

	// The BMC reset the manager advertises is accepted; other types are not.
	target := actions["#Manager.Reset"].(map[string]any)["target"].(string)
	if r := call(t, s, http.MethodPost, target, map[string]any{"ResetType": "GracefulRestart"}); r.status != http.StatusNoContent {
		t.Errorf("Manager.Reset: %d %s", r.status, r.raw)
	}
	wantError(t, call(t, s, http.MethodPost, target, map[string]any{"ResetType": "ForceRestart"}), 400, "ActionParameterValueNotInList")

	// Other personalities carry no Dell OEM data.
	h, _ := testService(t, "r1", "meta1-bmc", func(o *Options) { o.ServerPersonality = PersonalityHPE })
	if m := call(t, h, http.MethodGet, h.sys.mgrPath, nil).body; m["Oem"] != nil || m["Actions"] != nil {
		t.Errorf("HPE manager has Dell extras: %v", m)
	}
}

// TestDellJobDocumentsConform follows one BIOS job through its states and
// checks the job (DellJob) and its Task against their schemas at each one,
// and that both tell the same Dell state.
func TestDellJobDocumentsConform(t *testing.T) {
	ss := newSchemaSet(t)
	s, clk := testService(t, "r1", "meta2-bmc", nil)
	r := call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": map[string]any{"SubNumaCluster": "Enabled"},
		"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "OnReset"}})
	taskURI := r.header.Get("Location")
	job := s.sys.jobsPath + "/" + lastSeg(taskURI)
	check := func(stage, want string) {
		t.Helper()
		j := call(t, s, http.MethodGet, job, nil).body
		tk := call(t, s, http.MethodGet, taskURI, nil).body
		for what, doc := range map[string]map[string]any{"job": j, "task": tk} {
			if err := ss.validate(doc); err != nil {
				t.Errorf("%s, %s: %v", stage, what, err)
			}
		}
		if j["JobState"] != want || tk["Oem"].(map[string]any)["Dell"].(map[string]any)["JobState"] != want {
			t.Errorf("%s: job %v, task's Dell job %v, want %s", stage, j["JobState"], tk["Oem"].(map[string]any)["Dell"].(map[string]any)["JobState"], want)
		}
	}
	check("scheduled", "Scheduled")
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	clk.Advance(6 * time.Second)
	check("booting", "Running")
	clk.Advance(time.Minute)
	check("booted", "Completed")
}
