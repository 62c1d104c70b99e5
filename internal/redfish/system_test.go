package redfish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// mockEndpoint serves one endpoint of a design over TLS and returns a
// client endpoint trusting only the mock's CA.
func mockEndpoint(t *testing.T, design, name string, opts redfishmock.Options) (*Endpoint, *redfishmock.Service) {
	t.Helper()
	if opts.Username == "" {
		opts.Username, opts.Password = "root", "calvin-test"
	}
	if opts.PowerDelay == 0 {
		opts.PowerDelay = 30 * time.Millisecond
	}
	svc, err := redfishmock.NewService(design, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	user, pass := svc.Credentials()
	ep, err := NewEndpoint(Config{Name: name, URL: srv.URL, Username: user, Password: pass, CACertPEM: ca.PEM(),
		Retry: Retry{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return ep, svc
}

// mockEndpointFor is a second client of the same mock service as ep.
func mockEndpointFor(t *testing.T, _ *redfishmock.Service, ep *Endpoint) (*Endpoint, error) {
	t.Helper()
	cfg := ep.cfg
	cfg.Name += "-2"
	other, err := NewEndpoint(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return other, nil
}

func fastWaiter() Waiter { return Waiter{Interval: 10 * time.Millisecond, Timeout: 5 * time.Second} }

func TestApplyBiosOneRebootPerPersonality(t *testing.T) {
	// The HPC profile under each vendor's own attribute names.
	hpc := map[string]map[string]string{
		redfishmock.PersonalityDell:    {"SysProfile": "PerfOptimized", "LogicalProc": "Disabled", "SubNumaCluster": "Enabled"},
		redfishmock.PersonalityHPE:     {"WorkloadProfile": "HighPerformanceCompute", "ProcHyperthreading": "Disabled", "SubNumaClustering": "Enabled"},
		redfishmock.PersonalityGeneric: {"PowerProfile": "MaxPerformance", "ProcHyperthreading": "Disabled", "SubNumaClustering": "Enabled"},
	}
	for p, attrs := range hpc {
		t.Run(p, func(t *testing.T) {
			ep, svc := mockEndpoint(t, "r1", "meta1-bmc", redfishmock.Options{ServerPersonality: p})
			ctx := context.Background()
			sys := onlySystem(t, ep)
			if sys.Model != "PowerEdge R740" || sys.CPUCount != 2 || sys.MemoryGiB <= 0 || sys.SerialNumber == "" {
				t.Errorf("inventory: %+v", sys)
			}
			b, err := ep.GetBios(ctx, sys.BiosURI)
			if err != nil {
				t.Fatal(err)
			}
			reg, err := ep.BiosRegistry(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			for k, v := range attrs {
				tv, err := reg.Convert(k, v)
				if err != nil {
					t.Fatal(err)
				}
				want[k] = tv
			}
			svc.ResetStats()
			ch, err := ep.ApplyBios(ctx, sys, want, fastWaiter())
			if err != nil {
				t.Fatal(err)
			}
			if !ch.Rebooted || len(ch.Changed) != 3 {
				t.Errorf("change = %+v", ch)
			}
			// iDRAC creates a configuration job for OnReset settings; it ends Completed.
			if p == redfishmock.PersonalityDell {
				if ch.Task == "" {
					t.Fatal("no job or task recorded")
				}
				task, err := ep.WaitTask(ctx, ch.Task, fastWaiter())
				if err != nil || !task.Done || task.Failed {
					t.Errorf("task %s = %+v, %v", ch.Task, task, err)
				}
			}
			resets := svc.RequestCount("POST", sys.ResetTarget)
			if resets > 1 {
				t.Errorf("%d resets, want at most 1", resets)
			}
			cur, pending := svc.BiosAttributes()
			for k, v := range attrs {
				if cur[k] != v {
					t.Errorf("%s = %v, want %s", k, cur[k], v)
				}
			}
			if len(pending) != 0 {
				t.Errorf("still pending: %v", pending)
			}
			// Applying the same values again changes nothing and reboots nothing.
			svc.ResetStats()
			ch, err = ep.ApplyBios(ctx, sys, want, fastWaiter())
			if err != nil || ch.Rebooted || len(ch.Changed) != 0 {
				t.Errorf("second apply: %+v %v", ch, err)
			}
			if n := svc.RequestCount("POST", sys.ResetTarget); n != 0 {
				t.Errorf("second apply reset %d times", n)
			}
		})
	}
}

func TestRegistryConvert(t *testing.T) {
	ep, _ := mockEndpoint(t, "r1", "meta1-bmc", redfishmock.Options{})
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "System.Embedded.1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ep.GetBios(ctx, sys.BiosURI)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ep.BiosRegistry(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, value string
		want        any
		err         error
	}{
		{"SysProfile", "PerfOptimized", "PerfOptimized", nil},
		{"SysProfile", "Fast", nil, ErrBadValue},
		{"sysprofile", "PerfOptimized", nil, ErrUnknownAttribute},
		{"NoSuchThing", "x", nil, ErrUnknownAttribute},
		{"AcPwrRcvryUserDelay", "120", int64(120), nil},
		{"AcPwrRcvryUserDelay", "soon", nil, ErrBadValue},
		{"AcPwrRcvryUserDelay", "100000", nil, ErrBadValue},
	}
	for _, tc := range tests {
		got, err := reg.Convert(tc.name, tc.value)
		if !errors.Is(err, tc.err) || (tc.err == nil && got != tc.want) {
			t.Errorf("Convert(%s, %s) = %v, %v; want %v, %v", tc.name, tc.value, got, err, tc.want, tc.err)
		}
	}
	// A wrong case or a near miss names the registry's attribute; a name
	// far from all of them names none.
	for name, want := range map[string]string{"sysprofile": `(did you mean "SysProfile"?)`, "SysProfil": `(did you mean "SysProfile"?)`,
		"NoSuchThing": ""} {
		_, err := reg.Convert(name, "x")
		if err == nil || (want != "" && !strings.Contains(err.Error(), want)) || (want == "" && strings.Contains(err.Error(), "did you mean")) {
			t.Errorf("Convert(%s): %v; want %q", name, err, want)
		}
	}
}

func TestSetPowerAndBootOverride(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "stor1-bmc", redfishmock.Options{})
	ctx := context.Background()
	id, err := ep.FindSystem(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.SetPower(ctx, id, "Off", fastWaiter()); err != nil {
		t.Fatal(err)
	}
	if svc.PowerState() != "Off" {
		t.Fatalf("power = %s", svc.PowerState())
	}
	if err := ep.SetPower(ctx, id, "On", fastWaiter()); err != nil {
		t.Fatal(err)
	}
	sys, err := ep.GetSystem(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.SetBootOverride(ctx, sys, BootOverride{Target: "Pxe", Enabled: "Continuous", Mode: "UEFI"}); err != nil {
		t.Fatal(err)
	}
	sys, _ = ep.GetSystem(ctx, id)
	if sys.Boot.Target != "Pxe" || sys.Boot.Enabled != "Continuous" {
		t.Errorf("boot = %+v", sys.Boot)
	}
	// A stale ETag is refused, not silently applied.
	stale := *sys
	stale.ETag = `"stale"`
	if err := ep.SetBootOverride(ctx, &stale, BootOverride{Target: "Hdd", Enabled: "Once"}); !errors.Is(err, ErrPreconditionFailed) {
		t.Errorf("stale ETag: err = %v, want ErrPreconditionFailed", err)
	}
}

// A 412 (someone changed the settings since they were read) is answered by
// reading again and patching once more, not by failing the apply.
func TestApplyBiosConvergesAfter412(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "meta2-bmc", redfishmock.Options{})
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "System.Embedded.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.InjectFault(redfishmock.Fault{Method: "PATCH", Path: "/redfish/v1/Systems/System.Embedded.1/Bios/Settings",
		Kind: redfishmock.FaultStatus, Status: 412, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.ApplyBios(ctx, sys, map[string]any{"LogicalProc": "Disabled"}, fastWaiter()); err != nil {
		t.Fatal(err)
	}
	if cur, _ := svc.BiosAttributes(); cur["LogicalProc"] != "Disabled" {
		t.Errorf("LogicalProc = %v", cur["LogicalProc"])
	}
	if n := svc.RequestCount("PATCH", "/redfish/v1/Systems/System.Embedded.1/Bios/Settings"); n != 2 {
		t.Errorf("PATCHes = %d, want 2 (412, then the retry)", n)
	}
}

// A BMC that accepts the settings and reboots but never applies them: the
// apply fails with ErrPending naming what did not land, after one reboot.
func TestApplyBiosReportsPending(t *testing.T) {
	var resets int
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/SessionService/Sessions", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	mux.HandleFunc("/redfish/v1/Systems/1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"@odata.id":"/redfish/v1/Systems/1","Id":"1","PowerState":"On","Bios":{"@odata.id":"/redfish/v1/Systems/1/Bios"},
			"Actions":{"#ComputerSystem.Reset":{"target":"/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"}}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Bios", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Attributes":{"LogicalProc":"Enabled"},"@Redfish.Settings":{"SettingsObject":{"@odata.id":"/redfish/v1/Systems/1/Bios/Settings"},"SupportedApplyTimes":["OnReset"]}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Bios/Settings", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		fmt.Fprint(w, `{"Attributes":{"LogicalProc":"Disabled"}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", func(w http.ResponseWriter, _ *http.Request) {
		resets++
		w.WriteHeader(http.StatusNoContent)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "stuck", URL: ts.URL, Username: "root", Password: "x", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ep.ApplyBios(ctx, sys, map[string]any{"LogicalProc": "Disabled"}, Waiter{Interval: time.Millisecond, Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrPending) || !strings.Contains(err.Error(), "LogicalProc=Disabled (now Enabled)") {
		t.Errorf("err = %v, want ErrPending naming LogicalProc", err)
	}
	if resets != 1 {
		t.Errorf("%d resets, want exactly 1", resets)
	}
	b, err := ep.GetBios(ctx, sys.BiosURI)
	if err != nil || FormatValue(b.Pending["LogicalProc"]) != "Disabled" {
		t.Errorf("pending = %v, %v", b, err)
	}
}

// With the URIs of an earlier read the system and BIOS are read in one
// round of parallel GETs, with the same result as the plain way.
func TestSystemAndBiosParallel(t *testing.T) {
	for _, p := range []string{redfishmock.PersonalityDell, redfishmock.PersonalityHPE, redfishmock.PersonalityGeneric} {
		t.Run(p, func(t *testing.T) {
			ep, svc := mockEndpoint(t, "r1", "meta1-bmc", redfishmock.Options{ServerPersonality: p})
			ctx := context.Background()
			id, err := ep.FindSystem(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			sys1, b1, err := ep.SystemAndBios(ctx, id, "", "")
			if err != nil {
				t.Fatal(err)
			}
			svc.ResetStats()
			sys2, b2, err := ep.SystemAndBios(ctx, id, b1.URI, b1.SettingsURI)
			if err != nil {
				t.Fatal(err)
			}
			if sys2.BiosURI != sys1.BiosURI || fmt.Sprint(b2.Current) != fmt.Sprint(b1.Current) || b2.SettingsETag != b1.SettingsETag {
				t.Errorf("parallel read differs:\n%+v\n%+v", b1, b2)
			}
			gets := 0
			for k, n := range svc.Stats() {
				if strings.HasPrefix(k, "GET ") {
					gets += n
				}
			}
			if gets != 3 {
				t.Errorf("%d GETs, want 3: %v", gets, svc.Stats())
			}
		})
	}
}

// Asking for a power state while the host is between states waits for the
// transition instead of sending a reset the BMC would refuse.
func TestSetPowerDuringTransition(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "stor2-bmc", redfishmock.Options{PowerDelay: 200 * time.Millisecond})
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "System.Embedded.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Reset(ctx, sys, "ForceOff"); err != nil {
		t.Fatal(err)
	}
	if err := ep.SetPower(ctx, "System.Embedded.1", "On", fastWaiter()); err != nil {
		t.Fatal(err)
	}
	if svc.PowerState() != "On" {
		t.Errorf("power = %s", svc.PowerState())
	}
}

// A BMC with several systems (a multi-node chassis) or an endpoint with
// several storage services never gets "the first one" picked.
func TestFindNeverGuesses(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/Systems", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Members":[{"@odata.id":"/redfish/v1/Systems/Node1"},{"@odata.id":"/redfish/v1/Systems/Node2"}]}`)
	})
	mux.HandleFunc("/redfish/v1/Storage", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Members":[{"@odata.id":"/redfish/v1/Storage/a"},{"@odata.id":"/redfish/v1/Storage/b"}]}`)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "xr", URL: ts.URL, HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ep.FindSystem(ctx, ""); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Node1, Node2") {
		t.Errorf("FindSystem: %v", err)
	}
	if id, err := ep.FindSystem(ctx, "Node2"); err != nil || id != "Node2" {
		t.Errorf("FindSystem(Node2) = %q, %v", id, err)
	}
	if _, err := ep.FindStorage(ctx, ""); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("FindStorage: %v", err)
	}
}

// iDRAC registries publish upper bounds of 2^64 as 18446744073709552000,
// which gofish's uint64 field rejects; the registry must still load.
func TestRegistryWithHugeBounds(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/Registries/R.v1", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	mux.HandleFunc("/redfish/v1/Systems/1/Bios/BiosRegistry", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Id":"R.v1","RegistryEntries":{"Attributes":[
			{"AttributeName":"Big","Type":"Integer","LowerBound":0,"UpperBound":18446744073709552000},
			{"AttributeName":"Mode","Type":"Enumeration","Value":[{"ValueName":"A"},{"ValueName":"B"}]}]}}`)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "idrac", URL: ts.URL, HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ep.BiosRegistry(context.Background(), &Bios{URI: "/redfish/v1/Systems/1/Bios", RegistryID: "R.v1"})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := reg.Convert("Big", "4096"); err != nil || v != int64(4096) {
		t.Errorf("Big = %v, %v", v, err)
	}
	if _, err := reg.Convert("Mode", "C"); !errors.Is(err, ErrBadValue) {
		t.Errorf("Mode=C: %v", err)
	}
}

func TestConvertLikeCurrent(t *testing.T) {
	b := &Bios{Current: map[string]any{"Cores": float64(8), "Flag": true, "Mode": "A"}}
	tests := []struct {
		name, value string
		want        any
		err         error
	}{
		{"Cores", "4", int64(4), nil},
		{"Cores", "four", nil, ErrBadValue},
		{"Flag", "false", false, nil},
		{"Flag", "no", nil, ErrBadValue},
		{"Mode", "B", "B", nil},
		{"Missing", "x", nil, ErrUnknownAttribute},
	}
	for _, tc := range tests {
		got, err := b.ConvertLike(tc.name, tc.value)
		if !errors.Is(err, tc.err) || (tc.err == nil && got != tc.want) {
			t.Errorf("ConvertLike(%s, %s) = %v, %v; want %v, %v", tc.name, tc.value, got, err, tc.want, tc.err)
		}
	}
}

// An iDRAC that publishes no apply times takes the PATCH but applies nothing
// at reboot without a configuration job: the provider creates one.
func TestApplyBiosCreatesDellJob(t *testing.T) {
	var mu sync.Mutex
	current, pending, jobs := "Enabled", "", 0
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/SessionService/Sessions", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	mux.HandleFunc("/redfish/v1/Systems/S1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Id":"S1","PowerState":"On","Bios":{"@odata.id":"/redfish/v1/Systems/S1/Bios"},
			"Links":{"ManagedBy":[{"@odata.id":"/redfish/v1/Managers/M1"}]},
			"Actions":{"#ComputerSystem.Reset":{"target":"/redfish/v1/Systems/S1/Actions/ComputerSystem.Reset"}}}`)
	})
	mux.HandleFunc("/redfish/v1/Managers/M1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Links":{"Oem":{"Dell":{"Jobs":{"@odata.id":"/redfish/v1/Managers/M1/Jobs"}}}}}`)
	})
	mux.HandleFunc("/redfish/v1/Managers/M1/Jobs", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		jobs++
		mu.Unlock()
		w.Header().Set("Location", "/redfish/v1/Managers/M1/Jobs/JID_1")
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("/redfish/v1/Managers/M1/Jobs/JID_1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"JobState":"Scheduled","PercentComplete":0}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/S1/Bios", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, `{"Attributes":{"LogicalProc":%q},"@Redfish.Settings":{"SettingsObject":{"@odata.id":"/redfish/v1/Systems/S1/Bios/Settings"}}}`, current)
	})
	mux.HandleFunc("/redfish/v1/Systems/S1/Bios/Settings", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodPatch {
			pending = "Disabled"
			w.WriteHeader(http.StatusOK)
			return
		}
		fmt.Fprint(w, `{"Attributes":{}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/S1/Actions/ComputerSystem.Reset", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if jobs > 0 && pending != "" { // only a scheduled job applies settings
			current, pending = pending, ""
		}
		w.WriteHeader(http.StatusNoContent)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "idrac8", URL: ts.URL, Username: "root", Password: "x", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ep.ApplyBios(ctx, sys, map[string]any{"LogicalProc": "Disabled"}, Waiter{Interval: time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if jobs != 1 || ch.Task != "/redfish/v1/Managers/M1/Jobs/JID_1" || current != "Disabled" {
		t.Errorf("jobs %d, task %q, LogicalProc %s", jobs, ch.Task, current)
	}
}

// A BMC that only offers Immediate applies (and reboots) by itself: no
// reset is sent, the values are verified.
func TestApplyBiosImmediateOnly(t *testing.T) {
	var mu sync.Mutex
	current, resets := "Enabled", 0
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/SessionService/Sessions", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	mux.HandleFunc("/redfish/v1/Systems/1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Id":"1","PowerState":"On","Bios":{"@odata.id":"/redfish/v1/Systems/1/Bios"},
			"Actions":{"#ComputerSystem.Reset":{"target":"/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"}}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Bios", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, `{"Attributes":{"LogicalProc":%q},"@Redfish.Settings":{"SettingsObject":{"@odata.id":"/redfish/v1/Systems/1/Bios/Settings"},"SupportedApplyTimes":["Immediate"]}}`, current)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Bios/Settings", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodPatch {
			var body struct {
				Attributes map[string]string
				ApplyTime  struct{ ApplyTime string } `json:"@Redfish.SettingsApplyTime"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body.ApplyTime.ApplyTime == "Immediate" {
				current = body.Attributes["LogicalProc"]
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		fmt.Fprint(w, `{"Attributes":{}}`)
	})
	mux.HandleFunc("/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		resets++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "imm", URL: ts.URL, Username: "root", Password: "x", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sys, err := ep.GetSystem(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ep.ApplyBios(ctx, sys, map[string]any{"LogicalProc": "Disabled"}, Waiter{Interval: time.Millisecond, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if resets != 0 || current != "Disabled" {
		t.Errorf("resets %d, LogicalProc %s; want 0 and Disabled", resets, current)
	}
}
