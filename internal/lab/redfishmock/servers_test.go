package redfishmock

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBiosValidation(t *testing.T) {
	tests := []struct {
		name, personality string
		attrs             map[string]any
		applyTime         string
		status            int
		id                string
	}{
		{"dell unknown", PersonalityDell, map[string]any{"NoSuchAttr": "x"}, "", 400, "PropertyUnknown"},
		{"dell enum", PersonalityDell, map[string]any{"SysProfile": "Turbo"}, "", 400, "PropertyValueNotInList"},
		{"dell type", PersonalityDell, map[string]any{"LogicalProc": true}, "", 400, "PropertyValueTypeError"},
		{"dell read-only", PersonalityDell, map[string]any{"ProcTurboMode": "Disabled"}, "", 400, "PropertyNotWritable"},
		{"dell integer range", PersonalityDell, map[string]any{"AcPwrRcvryUserDelay": 5}, "", 400, "PropertyValueOutOfRange"},
		{"dell integer type", PersonalityDell, map[string]any{"AcPwrRcvryUserDelay": "60"}, "", 400, "PropertyValueTypeError"},
		{"dell no Immediate", PersonalityDell, map[string]any{"LogicalProc": "Disabled"}, "Immediate", 400, "PropertyValueNotInList"},
		{"dell ok", PersonalityDell, map[string]any{"SysProfile": "PerfOptimized", "SubNumaCluster": "Enabled", "AdddcSetting": "Disabled"}, "OnReset", 202, ""},
		{"hpe unknown (dell name)", PersonalityHPE, map[string]any{"LogicalProc": "Disabled"}, "", 400, "PropertyUnknown"},
		{"hpe enum", PersonalityHPE, map[string]any{"AdvancedMemProtection": "Disabled"}, "", 400, "PropertyValueNotInList"},
		{"hpe read-only", PersonalityHPE, map[string]any{"SerialNumber": "X"}, "", 400, "PropertyNotWritable"},
		{"hpe ok", PersonalityHPE, map[string]any{"WorkloadProfile": "HighPerformanceCompute", "ProcHyperthreading": "Disabled"}, "", 200, ""},
		{"generic enum", PersonalityGeneric, map[string]any{"MemoryADDDC": "On"}, "", 400, "PropertyValueNotInList"},
		{"generic read-only", PersonalityGeneric, map[string]any{"EmbeddedSata": "Raid"}, "", 400, "PropertyNotWritable"},
		{"generic bad apply time", PersonalityGeneric, map[string]any{"ProcHyperthreading": "Disabled"}, "AtMaintenanceWindowStart", 400, "PropertyValueNotInList"},
		{"generic ok", PersonalityGeneric, map[string]any{"SubNumaClustering": "Enabled"}, "OnReset", 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testService(t, "r1", "meta1-bmc", func(o *Options) { o.ServerPersonality = tt.personality })
			body := map[string]any{"Attributes": tt.attrs}
			if tt.applyTime != "" {
				body["@Redfish.SettingsApplyTime"] = map[string]any{"ApplyTime": tt.applyTime}
			}
			before, _ := s.BiosAttributes()
			r := call(t, s, http.MethodPatch, s.sys.settingsPath, body)
			if tt.id != "" {
				wantError(t, r, tt.status, tt.id)
				if _, pending := s.BiosAttributes(); len(pending) != 0 {
					t.Errorf("rejected PATCH left pending values %v", pending)
				}
			} else if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			after, _ := s.BiosAttributes()
			for k := range tt.attrs {
				if before[k] != after[k] {
					t.Errorf("current %s changed before any reboot: %v -> %v", k, before[k], after[k])
				}
			}
		})
	}
}

// TestDellBiosJobAppliesOnReboot follows the iDRAC flow end to end.
func TestDellBiosJobAppliesOnReboot(t *testing.T) {
	s, clk := testService(t, "r1", "stor1-bmc", nil)
	sys := s.sys
	r := call(t, s, http.MethodPatch, sys.settingsPath, map[string]any{
		"Attributes":                 map[string]any{"LogicalProc": "Disabled", "SubNumaCluster": "Enabled"},
		"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "OnReset"}})
	// iDRAC 9 points at a Task under TaskService named after the job.
	if r.status != http.StatusAccepted || !strings.HasPrefix(r.header.Get("Location"), tasksPath+"/JID_") {
		t.Fatalf("want 202 + task Location, got %d %q", r.status, r.header.Get("Location"))
	}
	taskURI := r.header.Get("Location")
	job := sys.jobsPath + "/" + lastSeg(taskURI)
	if got := call(t, s, http.MethodGet, job, nil).body["JobState"]; got != "Scheduled" {
		t.Errorf("job state before reboot %v", got)
	}
	dellState := func() any {
		t.Helper()
		return call(t, s, http.MethodGet, taskURI, nil).body["Oem"].(map[string]any)["Dell"].(map[string]any)["JobState"]
	}
	if tk := call(t, s, http.MethodGet, taskURI, nil).body; tk["TaskState"] != TaskPending || dellState() != "Scheduled" {
		t.Errorf("task before reboot %v / Dell %v", tk["TaskState"], dellState())
	}
	if got := call(t, s, http.MethodGet, sys.settingsPath, nil).body["Attributes"].(map[string]any)["LogicalProc"]; got != "Disabled" {
		t.Errorf("settings object shows %v, want the pending Disabled", got)
	}
	sysDoc := call(t, s, http.MethodGet, sys.sysPath, nil).body
	if lp := sysDoc["ProcessorSummary"].(map[string]any)["LogicalProcessorCount"]; lp != float64(80) {
		t.Errorf("logical processors before reboot %v, want 80", lp)
	}
	wantPower := func(state string) {
		t.Helper()
		if got := s.PowerState(); got != state {
			t.Fatalf("power %s, want %s", got, state)
		}
	}
	if r := call(t, s, http.MethodPost, sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "GracefulRestart"}); r.status != 204 {
		t.Fatalf("reset %d %s", r.status, r.raw)
	}
	wantPower(PowerPoweringOff)
	wantError(t, call(t, s, http.MethodPost, sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"}), 409, "ResourceInUse")
	clk.Advance(5 * time.Second)
	wantPower(PowerPoweringOn)
	if cur, _ := s.BiosAttributes(); cur["LogicalProc"] != "Enabled" {
		t.Errorf("applied before POST finished")
	}
	clk.Advance(5 * time.Second)
	wantPower(PowerOn)
	cur, pending := s.BiosAttributes()
	if cur["LogicalProc"] != "Disabled" || cur["SubNumaCluster"] != "Enabled" || len(pending) != 0 {
		t.Errorf("after reboot current %v pending %v", cur, pending)
	}
	jobDoc := call(t, s, http.MethodGet, job, nil).body
	if jobDoc["JobState"] != "Completed" || jobDoc["PercentComplete"] != float64(100) {
		t.Errorf("job after reboot %v %v", jobDoc["JobState"], jobDoc["PercentComplete"])
	}
	if tk := call(t, s, http.MethodGet, taskURI, nil).body; tk["TaskState"] != TaskCompleted || dellState() != "Completed" {
		t.Errorf("task after reboot %v / Dell %v", tk["TaskState"], dellState())
	}
	sysDoc = call(t, s, http.MethodGet, sys.sysPath, nil).body
	if lp := sysDoc["ProcessorSummary"].(map[string]any)["LogicalProcessorCount"]; lp != float64(40) {
		t.Errorf("logical processors after reboot %v, want 40", lp)
	}
	if numa := sysDoc["Oem"].(map[string]any)["HPCStorageMock"].(map[string]any)["NumaNodes"]; numa != float64(4) {
		t.Errorf("NUMA nodes with SNC %v, want 4", numa)
	}
}

// Without a config job iDRAC leaves pending values pending across reboots.
func TestDellPendingWithoutJobStaysPending(t *testing.T) {
	s, clk := testService(t, "r2", "nfs1-bmc", nil)
	r := call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": map[string]any{"SysProfile": "PerfOptimized"}})
	if r.status != 200 {
		t.Fatalf("PATCH %d", r.status)
	}
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	clk.Advance(time.Minute)
	if cur, pend := s.BiosAttributes(); cur["SysProfile"] == "PerfOptimized" || pend["SysProfile"] != "PerfOptimized" {
		t.Fatalf("without a job: current %v pending %v", cur["SysProfile"], pend["SysProfile"])
	}
	r = call(t, s, http.MethodPost, s.sys.jobsPath, map[string]any{"TargetSettingsURI": s.sys.settingsPath})
	if r.status != 200 || r.header.Get("Location") == "" {
		t.Fatalf("create job %d %s", r.status, r.raw)
	}
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	clk.Advance(time.Minute)
	if cur, _ := s.BiosAttributes(); cur["SysProfile"] != "PerfOptimized" {
		t.Fatalf("with a job the value applies at boot, got %v", cur["SysProfile"])
	}
}

func TestGenericImmediateTask(t *testing.T) {
	s, clk := testService(t, "r4", "osd1-bmc", nil)
	r := call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": map[string]any{"ProcHyperthreading": "Disabled"},
		"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "Immediate"}})
	mon := r.header.Get("Location")
	if r.status != 202 || r.header.Get("Retry-After") == "" || !strings.Contains(mon, "/TaskMonitors/") {
		t.Fatalf("want 202 + monitor + Retry-After, got %d %v", r.status, r.header)
	}
	if m := call(t, s, http.MethodGet, mon, nil); m.status != 202 {
		t.Fatalf("monitor while running %d", m.status)
	}
	clk.Advance(11 * time.Second)
	m := call(t, s, http.MethodGet, mon, nil)
	if m.status != 200 || m.body["TaskState"] != "Completed" {
		t.Fatalf("monitor after boot %d %v", m.status, m.body["TaskState"])
	}
	if cur, _ := s.BiosAttributes(); cur["ProcHyperthreading"] != "Disabled" {
		t.Errorf("not applied: %v", cur["ProcHyperthreading"])
	}
}

func TestHPEPathsAndWeakETags(t *testing.T) {
	s, _ := testService(t, "r1", "mgmt-bmc", func(o *Options) { o.ServerPersonality = PersonalityHPE })
	sys := call(t, s, http.MethodGet, "/redfish/v1/Systems/1", nil)
	if link := sys.body["Bios"].(map[string]any)["@odata.id"]; link != "/redfish/v1/systems/1/bios" {
		t.Errorf("bios link %v", link)
	}
	bios := call(t, s, http.MethodGet, "/redfish/v1/systems/1/bios/", nil)
	settings := bios.body["@Redfish.Settings"].(map[string]any)
	if settings["SettingsObject"].(map[string]any)["@odata.id"] != "/redfish/v1/systems/1/bios/settings/" {
		t.Errorf("settings object %v", settings["SettingsObject"])
	}
	if _, listed := settings["SupportedApplyTimes"]; listed {
		t.Errorf("iLO lists no apply times")
	}
	tag := call(t, s, http.MethodGet, "/redfish/v1/systems/1/bios/settings/", nil).header.Get("ETag")
	if !strings.HasPrefix(tag, `W/"`) {
		t.Fatalf("etag %q is not weak", tag)
	}
	r := call(t, s, http.MethodPatch, "/redfish/v1/systems/1/bios/settings/", map[string]any{"Attributes": map[string]any{"SubNumaClustering": "Enabled"}}, "If-Match", tag)
	if r.status != 200 {
		t.Fatalf("PATCH with weak tag %d %s", r.status, r.raw)
	}
}

func TestResetAndBootOverride(t *testing.T) {
	tests := []struct {
		personality, resetType string
		status                 int
		id                     string
	}{
		{PersonalityDell, "PowerCycle", 204, ""},
		{PersonalityDell, "ForceOn", 400, "ActionParameterValueNotInList"},
		{PersonalityHPE, "PowerCycle", 400, "ActionParameterValueNotInList"},
		{PersonalityGeneric, "Bogus", 400, "ActionParameterValueNotInList"},
		{PersonalityGeneric, "", 400, "ActionParameterMissing"},
	}
	for _, tt := range tests {
		t.Run(tt.personality+"/"+tt.resetType, func(t *testing.T) {
			s, _ := testService(t, "r1", "mgmt-bmc", func(o *Options) { o.ServerPersonality = tt.personality })
			body := map[string]any{"ResetType": tt.resetType}
			if tt.resetType == "" {
				body = map[string]any{}
			}
			r := call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", body)
			if tt.id != "" {
				wantError(t, r, tt.status, tt.id)
			} else if r.status != tt.status {
				t.Fatalf("status %d", r.status)
			}
		})
	}
	t.Run("off then on, override once", func(t *testing.T) {
		s, clk := testService(t, "r1", "mgmt-bmc", nil)
		path := s.sys.sysPath
		wantError(t, call(t, s, http.MethodPatch, path, map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Floppy"}}), 400, "PropertyValueNotInList")
		wantError(t, call(t, s, http.MethodPatch, path, map[string]any{"PowerState": "Off"}), 400, "PropertyNotWritable")
		wantError(t, call(t, s, http.MethodPatch, path, map[string]any{"Colour": "red"}), 400, "PropertyUnknown")
		if r := call(t, s, http.MethodPatch, path, map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Once"}}); r.status != 200 {
			t.Fatalf("boot PATCH %d %s", r.status, r.raw)
		}
		call(t, s, http.MethodPost, path+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceOff"})
		clk.Advance(5 * time.Second)
		if s.PowerState() != PowerOff {
			t.Fatalf("power %s after ForceOff", s.PowerState())
		}
		boot := call(t, s, http.MethodGet, path, nil).body["Boot"].(map[string]any)
		if boot["BootSourceOverrideEnabled"] != "Once" {
			t.Fatalf("override reverted without a boot: %v", boot)
		}
		call(t, s, http.MethodPost, path+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"})
		if s.PowerState() != PowerPoweringOn {
			t.Fatalf("power %s right after On", s.PowerState())
		}
		clk.Advance(5 * time.Second)
		boot = call(t, s, http.MethodGet, path, nil).body["Boot"].(map[string]any)
		if s.PowerState() != PowerOn || boot["BootSourceOverrideEnabled"] != "Disabled" {
			t.Fatalf("after boot: power %s boot %v", s.PowerState(), boot)
		}
	})
}

func TestDellJobsAlias(t *testing.T) {
	s, _ := testService(t, "r1", "meta2-bmc", nil)
	r := call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": map[string]any{"LogicalProc": "Disabled"},
		"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "OnReset"}})
	id := lastSeg(r.header.Get("Location"))
	alias := "/redfish/v1/Managers/iDRAC.Embedded.1/Oem/Dell/Jobs"
	if c := call(t, s, http.MethodGet, alias, nil); c.status != 200 || c.body["Members@odata.count"] != float64(1) {
		t.Fatalf("alias collection %d %s", c.status, c.raw)
	}
	if j := call(t, s, http.MethodGet, alias+"/"+id, nil); j.status != 200 || j.body["JobState"] != "Scheduled" {
		t.Fatalf("alias job %d %s", j.status, j.raw)
	}
}

func TestAPIErrors(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
		want error
	}{
		{"design", func() error { _, err := NewDesign("r6", Options{}); return err }, ErrUnknownDesign},
		{"endpoint", func() error { _, err := NewService("r1", "nope", Options{}); return err }, ErrUnknownEndpoint},
		{"design endpoint", func() error {
			d, _ := NewDesign("r2", Options{})
			_, err := d.Service("me4084-9")
			return err
		}, ErrUnknownEndpoint},
		{"seed", func() error { s, _ := NewService("r1", "mgmt-bmc", Options{}); return s.Seed("r2", "mgmt-bmc") }, ErrUnknownEndpoint},
		{"replay", func() error { _, err := NewReplay(t.TempDir(), Options{}); return err }, ErrBadMockup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.err(); !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := NewDesign("r1", Options{ServerPersonality: "ibm"}); err == nil || !strings.Contains(err.Error(), "ibm") {
		t.Errorf("bad personality: %v", err)
	}
}

func TestDesignResetAndCabling(t *testing.T) {
	d, err := NewDesign("r5", Options{Username: "admin", Password: "secret", Clock: NewManualClock(timeZero)})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.Services()); got != 10 {
		t.Errorf("r5 has %d endpoints, want 10", got)
	}
	if c := d.Cabling(); len(c) != 5 || len(c["me4084-3"]) != 2 || c["me4084-3"][0] != "nsd1" {
		t.Errorf("cabling %v", c)
	}
	a, _ := d.Service("me4084-1")
	if n := len(a.arr.drives); n != 168 {
		t.Errorf("ME4084 + ME484 hold %d drives, want 168", n)
	}
	populate(t, a)
	if err := d.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := call(t, a, http.MethodGet, st+"/StoragePools", nil); r.body["Members@odata.count"] != float64(0) {
		t.Errorf("pools after reset: %v", r.body["Members@odata.count"])
	}
}

// iDRAC refuses a second BIOS PATCH while a job is committed; deleting the
// job drops the pending values and unblocks it.
func TestDellCommittedJobBlocksPatch(t *testing.T) {
	s, clk := testService(t, "r1", "meta1-bmc", nil)
	patch := func(attrs map[string]any) result {
		return call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": attrs,
			"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "OnReset"}})
	}
	first := patch(map[string]any{"LogicalProc": "Disabled"})
	if first.status != 202 {
		t.Fatal(first.status)
	}
	second := patch(map[string]any{"SubNumaCluster": "Enabled"})
	wantError(t, second, 400, "ResourceInUse")
	if ids := messageIDs(second.body); len(ids) != 2 || ids[1] != "IDRAC.2.8.SYS011" {
		t.Errorf("ids %v", ids)
	}
	// The task cannot be deleted (iDRAC 9 has no DELETE on tasks); its job can.
	if r := call(t, s, http.MethodDelete, first.header.Get("Location"), nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("DELETE on the task: %d", r.status)
	}
	job := s.sys.jobsPath + "/" + lastSeg(first.header.Get("Location"))
	if r := call(t, s, http.MethodDelete, job, nil); r.status != 200 {
		t.Fatalf("delete job %d %s", r.status, r.raw)
	}
	if _, pend := s.BiosAttributes(); len(pend) != 0 {
		t.Errorf("pending after job delete: %v", pend)
	}
	if r := call(t, s, http.MethodGet, job, nil); r.status != 404 {
		t.Errorf("deleted job still served: %d", r.status)
	}
	third := patch(map[string]any{"SubNumaCluster": "Enabled", "LogicalProc": "Disabled"})
	if third.status != 202 {
		t.Fatalf("PATCH after delete %d", third.status)
	}
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	clk.Advance(6 * time.Second) // off, now booting: the job runs
	wantError(t, call(t, s, http.MethodDelete, s.sys.jobsPath+"/"+lastSeg(third.header.Get("Location")), nil), 400, "ResourceInUse")
	clk.Advance(time.Minute)
	if cur, _ := s.BiosAttributes(); cur["SubNumaCluster"] != "Enabled" || cur["LogicalProc"] != "Disabled" {
		t.Errorf("after reboot %v", cur)
	}
	if r := patch(map[string]any{"LogicalProc": "Enabled"}); r.status != 202 {
		t.Errorf("PATCH after the job completed: %d", r.status)
	}
}

func TestServerFaults(t *testing.T) {
	s, clk := testService(t, "r1", "stor2-bmc", nil)
	if err := s.SetServerFaults(true, true); err != nil {
		t.Fatal(err)
	}
	r := call(t, s, http.MethodPatch, s.sys.settingsPath, map[string]any{"Attributes": map[string]any{"LogicalProc": "Disabled"},
		"@Redfish.SettingsApplyTime": map[string]any{"ApplyTime": "OnReset"}})
	job := s.sys.jobsPath + "/" + lastSeg(r.header.Get("Location"))
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "GracefulRestart"})
	clk.Advance(time.Minute)
	if s.PowerState() != PowerOn || call(t, s, http.MethodGet, job, nil).body["JobState"] != "Scheduled" {
		t.Fatalf("graceful restart was not ignored")
	}
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	clk.Advance(time.Minute)
	j := call(t, s, http.MethodGet, job, nil).body
	if j["JobState"] != "Failed" || j["Message"] != "Job failed." {
		t.Errorf("job after failed boot: %v", j["JobState"])
	}
	if cur, pend := s.BiosAttributes(); cur["LogicalProc"] != "Enabled" || pend["LogicalProc"] != "Disabled" {
		t.Errorf("failed job applied values: current %v pending %v", cur["LogicalProc"], pend["LogicalProc"])
	}
	a, _ := testService(t, "r1", "me4084-1", nil)
	if err := a.SetServerFaults(true, false); !errors.Is(err, ErrBadFault) {
		t.Errorf("server faults on an array: %v", err)
	}
}
