package redfishmock

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSessions(t *testing.T) {
	s, clk := testService(t, "r1", "meta1-bmc", func(o *Options) { o.SessionLimit = 2; o.SessionTimeout = 10 * time.Minute })
	login := func() result {
		return call(t, s, http.MethodPost, "/redfish/v1/SessionService/Sessions", map[string]any{"UserName": "admin", "Password": "secret"}, "Authorization", "")
	}
	a, b := login(), login()
	for _, r := range []result{a, b} {
		if r.status != 201 || r.header.Get("X-Auth-Token") == "" || !strings.HasPrefix(r.header.Get("Location"), "/redfish/v1/SessionService/Sessions/") {
			t.Fatalf("login %d %v", r.status, r.header)
		}
	}
	if a.header.Get("X-Auth-Token") == b.header.Get("X-Auth-Token") {
		t.Fatal("tokens are not unique")
	}
	wantError(t, login(), 503, "SessionLimitExceeded")
	wantError(t, call(t, s, http.MethodPost, "/redfish/v1/SessionService/Sessions", map[string]any{"UserName": "admin", "Password": "wrong"}, "Authorization", ""), 401, "NoValidSession")
	tok := a.header.Get("X-Auth-Token")
	if r := call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", "", "X-Auth-Token", tok); r.status != 200 {
		t.Fatalf("token GET %d", r.status)
	}
	wantError(t, call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", ""), 401, "NoValidSession")
	if r := call(t, s, http.MethodGet, "/redfish/v1", nil, "Authorization", ""); r.status != 200 {
		t.Fatalf("service root must be public, got %d", r.status)
	}
	if r := call(t, s, http.MethodDelete, a.header.Get("Location"), nil, "Authorization", "", "X-Auth-Token", tok); r.status != 204 {
		t.Fatalf("logout %d", r.status)
	}
	wantError(t, call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", "", "X-Auth-Token", tok), 401, "NoValidSession")
	// Idle expiry on the clock frees the other slot.
	c := login()
	clk.Advance(9 * time.Minute)
	if r := call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", "", "X-Auth-Token", c.header.Get("X-Auth-Token")); r.status != 200 {
		t.Fatalf("session expired early: %d", r.status)
	}
	clk.Advance(10 * time.Minute)
	wantError(t, call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", "", "X-Auth-Token", c.header.Get("X-Auth-Token")), 401, "NoValidSession")
	wantError(t, call(t, s, http.MethodGet, "/redfish/v1/Systems", nil, "Authorization", "", "X-Auth-Token", b.header.Get("X-Auth-Token")), 401, "NoValidSession")
}

func TestETags(t *testing.T) {
	s, _ := testService(t, "r1", "me4084-1", nil)
	drive := st + "/Drives/0.5"
	tag := call(t, s, http.MethodGet, drive, nil).header.Get("ETag")
	if !strings.HasPrefix(tag, `"`) {
		t.Fatalf("strong ETag expected, got %q", tag)
	}
	if r := call(t, s, http.MethodGet, drive, nil, "If-None-Match", tag); r.status != 304 {
		t.Errorf("If-None-Match: %d", r.status)
	}
	wantError(t, call(t, s, http.MethodPatch, drive, map[string]any{"HotspareType": "Global"}, "If-Match", `"stale"`), 412, "PreconditionFailed")
	r := call(t, s, http.MethodPatch, drive, map[string]any{"HotspareType": "Global"}, "If-Match", tag)
	if r.status != 200 {
		t.Fatalf("PATCH with good tag %d", r.status)
	}
	tag2 := call(t, s, http.MethodGet, drive, nil).header.Get("ETag")
	if tag2 == tag || r.header.Get("ETag") != tag2 {
		t.Errorf("ETag did not change on mutation or PATCH reply differs: %s %s %s", tag, tag2, r.header.Get("ETag"))
	}
	if body := call(t, s, http.MethodGet, drive, nil).body; body["@odata.etag"] != tag2 {
		t.Errorf("@odata.etag %v, header %s", body["@odata.etag"], tag2)
	}
	s.SetRequireIfMatch(true)
	wantError(t, call(t, s, http.MethodPatch, drive, map[string]any{"HotspareType": "None"}), 428, "PreconditionRequired")
	if r := call(t, s, http.MethodPatch, drive, map[string]any{"HotspareType": "None"}, "If-Match", tag2); r.status != 200 {
		t.Errorf("with If-Match in require mode: %d", r.status)
	}
	for _, p := range []string{"/redfish/v1", st, st + "/Drives", "/redfish/v1/Chassis/enclosure_0"} {
		if call(t, s, http.MethodGet, p, nil).header.Get("ETag") == "" {
			t.Errorf("no ETag on GET %s", p)
		}
	}
}

func TestQueryOptions(t *testing.T) {
	s, _ := testService(t, "r1", "me4084-1", nil)
	r := call(t, s, http.MethodGet, st+"/Drives?$top=10&$skip=5", nil)
	ms := r.body["Members"].([]any)
	if len(ms) != 10 || ms[0].(map[string]any)["@odata.id"] != st+"/Drives/0.5" || r.body["Members@odata.count"] != float64(84) {
		t.Fatalf("$top/$skip: %d members, first %v, count %v", len(ms), ms[0], r.body["Members@odata.count"])
	}
	if nl := r.body["Members@odata.nextLink"]; nl != st+"/Drives?$skip=15&$top=10" {
		t.Errorf("nextLink %v", nl)
	}
	s.SetPageSize(50)
	var all []any
	next := st + "/Drives"
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatal("paging does not end")
		}
		r := call(t, s, http.MethodGet, next, nil)
		all = append(all, r.body["Members"].([]any)...)
		next, _ = r.body["Members@odata.nextLink"].(string)
	}
	if len(all) != 84 {
		t.Errorf("pages gave %d drives", len(all))
	}
	s.SetPageSize(0)
	r = call(t, s, http.MethodGet, st+"/Drives?$expand=.($levels=1)", nil)
	first := r.body["Members"].([]any)[0].(map[string]any)
	if first["MediaType"] != "HDD" {
		t.Errorf("$expand did not inline members: %v", first)
	}
	r = call(t, s, http.MethodGet, "/redfish/v1/Chassis/enclosure_0?$expand=~", nil)
	if ms := r.body["Links"].(map[string]any)["Storage"].([]any); ms[0].(map[string]any)["Id"] != "controller_a" {
		t.Errorf("$expand=~ did not inline Links: %v", ms)
	}
	wantError(t, call(t, s, http.MethodGet, st+"/Drives?$top=x", nil), 400, "QueryParameterValueTypeError")
	wantError(t, call(t, s, http.MethodGet, st+"?$top=1", nil), 400, "QueryNotSupported")
	h, _ := testService(t, "r1", "mgmt-bmc", func(o *Options) { o.ServerPersonality = PersonalityHPE })
	wantError(t, call(t, h, http.MethodGet, "/redfish/v1/Systems?$expand=*", nil), 501, "QueryNotSupported")
	wantError(t, call(t, s, http.MethodGet, "/redfish/v1/Nope", nil), 404, "InvalidURI")
	wantError(t, call(t, s, http.MethodPost, st+"/Volumes", nil, "Content-Type", "application/json"), 400, "CreateFailedMissingReqProperties")
	r = call(t, s, http.MethodPut, st, map[string]any{})
	if r.status != 405 || r.header.Get("Allow") == "" {
		t.Errorf("PUT: %d allow %q", r.status, r.header.Get("Allow"))
	}
	if e, ok := r.body["error"].(map[string]any); !ok || e["code"] == nil || e["message"] == nil {
		t.Errorf("error body not in Redfish format: %s", r.raw)
	}
}

func TestFaults(t *testing.T) {
	t.Run("http", func(t *testing.T) { testFaults(t, false) })
	t.Run("https", func(t *testing.T) { testFaults(t, true) })
}

func testFaults(t *testing.T, useTLS bool) {
	s, _ := testService(t, "r1", "meta1-bmc", nil)
	var ca *CA
	if useTLS {
		var err error
		if ca, err = NewCA(); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := Start(s, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client()
	get := func(path string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.SetBasicAuth("admin", "secret")
		resp, err := c.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 1 {
			t.Errorf("protocol %s: BMCs speak HTTP/1.1", resp.Proto)
		}
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	bad := []Fault{{Path: "/x", Kind: "explode"}, {Kind: FaultStatus, Status: 503}, {Path: "/x", Kind: FaultStatus, Status: 200},
		{Path: "/x", Kind: FaultLatency}, {Path: "/x", Kind: FaultReset, Count: -1}}
	for _, f := range bad {
		if err := s.InjectFault(f); !errors.Is(err, ErrBadFault) {
			t.Errorf("fault %+v accepted: %v", f, err)
		}
	}
	sys := "/redfish/v1/Systems/System.Embedded.1"
	if err := s.InjectFault(Fault{Method: "GET", Path: sys, Kind: FaultStatus, Status: 503, RetryAfter: 7, Count: 2}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		resp, body, err := get(sys)
		if err != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(body), "ServiceTemporarilyUnavailable") {
			t.Fatalf("try %d: %v %v %s", i, err, resp, body)
		}
	}
	if resp, _, _ := get(sys); resp.StatusCode != 200 {
		t.Fatalf("after 2 faults: %d", resp.StatusCode)
	}
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Managers*", Kind: FaultStatus, Status: 429, Count: 1})
	if resp, _, _ := get("/redfish/v1/Managers/iDRAC.Embedded.1"); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("429 fault: %v", resp)
	}
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Chassis", Kind: FaultStatus, Status: 500, Count: 1})
	if resp, _, _ := get("/redfish/v1/Chassis"); resp.StatusCode != 500 {
		t.Errorf("500 fault: %v", resp)
	}
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Chassis", Kind: FaultTruncate, Count: 1})
	if _, body, err := get("/redfish/v1/Chassis"); err != nil || json.Valid(body) || len(body) == 0 {
		t.Errorf("truncated fault: err %v valid %v", err, json.Valid(body))
	}
	// Count 2: Go's transport silently retries a GET once when a reused
	// connection drops, so the fault must outlast that retry.
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Chassis", Kind: FaultReset, Count: 2})
	if _, _, err := get("/redfish/v1/Chassis"); err == nil {
		t.Errorf("connection reset fault: no client error")
	}
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Chassis", Kind: FaultLatency, Latency: 150 * time.Millisecond, Count: 1})
	start := time.Now()
	if resp, _, err := get("/redfish/v1/Chassis"); err != nil || resp.StatusCode != 200 || time.Since(start) < 150*time.Millisecond {
		t.Errorf("latency fault: %v %v after %s", err, resp, time.Since(start))
	}
	if n := s.RequestCount("GET", sys); n != 3 {
		t.Errorf("request count %d, want 3", n)
	}
	if len(s.Faults()) != 0 {
		t.Errorf("spent faults still listed: %+v", s.Faults())
	}
}

// TestControlHTTP drives the control API over HTTP.
func TestControlHTTP(t *testing.T) {
	s, _ := testService(t, "r1", "meta1-bmc", nil)
	do := func(method, path, body string, auth bool) (int, string) {
		req, _ := http.NewRequest(method, path, strings.NewReader(body))
		if auth {
			req.SetBasicAuth("admin", "secret")
		}
		w := newRecorder()
		s.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	if code, _ := do("GET", "/_mock/stats", "", false); code != 401 {
		t.Fatalf("control API without credentials: %d", code)
	}
	call(t, s, http.MethodGet, "/redfish/v1/Systems", nil)
	call(t, s, http.MethodGet, "/redfish/v1/Systems", nil)
	code, body := do("GET", "/_mock/stats", "", true)
	if code != 200 || !strings.Contains(body, `"GET /redfish/v1/Systems":2`) {
		t.Fatalf("stats %d %s", code, body)
	}
	if code, body := do("POST", "/_mock/faults", `{"method":"GET","path":"/redfish/v1","kind":"status","status":503,"retry_after":3,"count":1}`, true); code != 201 {
		t.Fatalf("add fault %d %s", code, body)
	}
	if code, _ := do("POST", "/_mock/faults", `{"path":"/redfish/v1","kind":"nope"}`, true); code != 400 {
		t.Errorf("bad fault accepted: %d", code)
	}
	if r := call(t, s, http.MethodGet, "/redfish/v1", nil); r.status != 503 {
		t.Errorf("HTTP-injected fault not applied: %d", r.status)
	}
	call(t, s, http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceOff"})
	if code, body := do("POST", "/_mock/clock/advance", `{"seconds":6}`, true); code != 200 {
		t.Fatalf("advance %d %s", code, body)
	}
	if s.PowerState() != PowerOff {
		t.Errorf("clock advance did not complete ForceOff: %s", s.PowerState())
	}
	if code, _ := do("POST", "/_mock/reset", "", true); code != 204 || s.PowerState() != PowerOn {
		t.Errorf("reset: %d power %s", code, s.PowerState())
	}
	if code, body := do("POST", "/_mock/seed", `{"design":"r4","endpoint":"osd2-bmc"}`, true); code != 204 {
		t.Fatalf("seed %d %s", code, body)
	}
	if got := call(t, s, http.MethodGet, "/redfish/v1/Systems/1", nil).body["Model"]; got != "AS-2124US-TNRP" {
		t.Errorf("seeded model %v", got)
	}
	if code, body := do("POST", "/_mock/seed", `{"design":"r9","endpoint":"x"}`, true); code != 400 || !strings.Contains(body, "unknown design") {
		t.Errorf("bad seed %d %s", code, body)
	}
	if code, _ := do("POST", "/_mock/config", `{"require_if_match":true,"page_size":5,"session_limit":1}`, true); code != 204 {
		t.Errorf("config %d", code)
	}
	if code, body := do("GET", "/_mock/events", "", true); code != 200 || strings.TrimSpace(body) != "null" {
		t.Errorf("events %d %s", code, body)
	}
}

// TestConcurrentClients runs ten clients at once over TLS (run with -race).
func TestConcurrentClients(t *testing.T) {
	d, err := NewDesign("r1", Options{Username: "admin", Password: "secret", Clock: NewManualClock(timeZero)})
	if err != nil {
		t.Fatal(err)
	}
	lab, err := d.Start(StartConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	arr, _ := d.Service("me4084-1")
	var url string
	for _, ep := range lab.Endpoints {
		if ep.Name == "me4084-1" {
			url = ep.URL
		}
	}
	var events sync.Map
	d.OnMapping(func(e MappingEvent) { events.Store(e.VolumeName, e) })
	client := lab.Client()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			post := func(path string, body any) (int, error) {
				b, _ := json.Marshal(body)
				req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(string(b)))
				req.SetBasicAuth("admin", "secret")
				resp, err := client.Do(req)
				if err != nil {
					return 0, err
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode, nil
			}
			name := "dgw" + string(rune('0'+w))
			if code, err := post(st+"/StoragePools", poolBody(name, "RAID1", driveRefs(arr, seqDrives(0, 2*w, 2)...))); err != nil || code != 201 {
				errs <- errors.New(name + ": pool " + http.StatusText(code))
				return
			}
			vol := "vw" + string(rune('0'+w))
			if code, err := post(st+"/Volumes", map[string]any{"Name": vol, "Links": map[string]any{"ProvidingStoragePool": map[string]any{"@odata.id": st + "/StoragePools/" + name}}}); err != nil || code != 201 {
				errs <- errors.New(vol + ": volume " + http.StatusText(code))
				return
			}
			if code, err := post(st+"/StorageGroups", map[string]any{"MappedVolumes": []any{map[string]any{"Volume": map[string]any{"@odata.id": st + "/Volumes/" + vol}, "LogicalUnitNumber": w + 1}},
				"ClientEndpointGroups": []any{map[string]any{"@odata.id": st + "/EndpointGroups/stor1"}}}); err != nil || code != 201 {
				errs <- errors.New(vol + ": map " + http.StatusText(code))
			}
			for i := 0; i < 20; i++ {
				req, _ := http.NewRequest(http.MethodGet, url+st+"/Drives?$expand=.", nil)
				req.SetBasicAuth("admin", "secret")
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	events.Range(func(_, _ any) bool { n++; return true })
	if n != 10 {
		t.Errorf("%d mapping events, want 10", n)
	}
	if got := arr.RequestCount("GET", st+"/Drives"); got != 200 {
		t.Errorf("stats counted %d drive listings, want 200", got)
	}
}

// TestErrorBodiesValidate checks that every kind of error the mock produces
// validates against the official redfish-error schema.
func TestErrorBodiesValidate(t *testing.T) {
	ss := newSchemaSet(t)
	s, _ := testService(t, "r1", "me4084-1", func(o *Options) { o.SessionLimit = 1 })
	b, _ := testService(t, "r1", "meta1-bmc", nil)
	login := map[string]any{"UserName": "admin", "Password": "secret"}
	call(t, s, http.MethodPost, "/redfish/v1/SessionService/Sessions", login)
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Chassis", Kind: FaultStatus, Status: 503})
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Managers", Kind: FaultStatus, Status: 429})
	_ = s.InjectFault(Fault{Path: "/redfish/v1/Fabrics", Kind: FaultStatus, Status: 500})
	errs := []result{
		call(t, s, http.MethodGet, "/redfish/v1/Nope", nil),
		call(t, s, http.MethodGet, "/redfish/v1/Storage", nil, "Authorization", ""),
		call(t, s, http.MethodPost, "/redfish/v1/SessionService/Sessions", login),
		call(t, s, http.MethodPatch, st+"/Drives/0.1", map[string]any{"HotspareType": "x"}, "If-Match", `"x"`),
		call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg", "RAID6", driveRefs(s, "0.1"))),
		call(t, s, http.MethodPut, st, map[string]any{}),
		call(t, s, http.MethodGet, "/redfish/v1/Chassis", nil),
		call(t, s, http.MethodGet, "/redfish/v1/Managers", nil),
		call(t, s, http.MethodGet, "/redfish/v1/Fabrics", nil),
		call(t, s, http.MethodGet, "/redfish/v1/Storage?$filter=x", nil),
		call(t, b, http.MethodPatch, b.sys.settingsPath, map[string]any{"Attributes": map[string]any{"A": 1, "SysProfile": "x", "LogicalProc": 2}}),
	}
	url := "http://redfish.dmtf.org/schemas/v1/redfish-error.v1_0_2.json#/definitions/RedfishError"
	sch, err := ss.compiler.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range errs {
		if r.status < 400 {
			t.Errorf("case %d: status %d is not an error", i, r.status)
			continue
		}
		v, err := jsonschemaValue(r.raw)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("case %d (%d): %v\n%s", i, r.status, err, r.raw)
		}
	}
	if ids := messageIDs(errs[len(errs)-1].body); len(ids) != 3 {
		t.Errorf("a PATCH with three bad attributes reported %v", ids)
	}
}
