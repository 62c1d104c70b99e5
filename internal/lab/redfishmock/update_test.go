package redfishmock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

// httpMock serves s over loopback TLS; do sends one request with the
// endpoint's credentials and decodes the answer.
func httpMock(t *testing.T, s *Service) func(method, path, ctype string, body []byte) result {
	t.Helper()
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(s, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c := srv.Client()
	return func(method, path, ctype string, body []byte) result {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
		req.SetBasicAuth("admin", "secret")
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := result{status: resp.StatusCode, header: resp.Header, raw: raw}
		_ = json.Unmarshal(raw, &r.body)
		return r
	}
}

// conforms validates the update and task documents s serves against
// their schemas (staged, updated and failed states publish documents that
// seeding, which TestSchemaConformance covers, does not).
func conforms(t *testing.T, ss *schemaSet, s *Service) {
	t.Helper()
	docs := crawl(t, s)
	for _, p := range sortedPaths(docs) {
		if !strings.HasPrefix(p, updateServicePath) && !strings.HasPrefix(p, taskServicePath) {
			continue
		}
		if err := ss.validate(docs[p]); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func jsonBody(v any) []byte { b, _ := json.Marshal(v); return b }

// inventoryVersions maps inventory member ids to their versions.
func inventoryVersions(t *testing.T, do func(string, string, string, []byte) result) map[string]string {
	t.Helper()
	coll := do(http.MethodGet, inventoryPath, "", nil)
	out := map[string]string{}
	for _, m := range memberPaths(coll.body) {
		d := do(http.MethodGet, m, "", nil)
		out[lastSeg(m)] = d.body["Version"].(string)
	}
	return out
}

func TestUpdateServiceSimpleUpdate(t *testing.T) {
	ss := newSchemaSet(t)
	for _, p := range []string{PersonalityDell, PersonalityGeneric, PersonalityHPE} {
		t.Run(p, func(t *testing.T) {
			s, clk := testService(t, "r2", "nfs1-bmc", func(o *Options) { o.ServerPersonality = p })
			do := httpMock(t, s)
			bios := "http://repo.lab/r740/bios-2.12.2.bin"
			bmc := "https://repo.lab/r740/bmc-9.9.9.bin"
			for _, img := range []Image{{URI: bios, Component: ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}},
				{URI: bmc, Component: ComponentBMC, Version: "9.9.9", Models: []string{"PowerEdge R740", "PowerEdge R640"}}} {
				if r := do(http.MethodPost, "/_mock/images", "application/json", jsonBody(img)); r.status != http.StatusCreated {
					t.Fatalf("register image: %d %s", r.status, r.raw)
				}
			}
			us := do(http.MethodGet, updateServicePath, "", nil)
			if _, has := us.body["MultipartHttpPushUri"]; has != (p == PersonalityDell) {
				t.Errorf("MultipartHttpPushUri published: %v, want only on iDRAC", has)
			}
			before := inventoryVersions(t, do)

			// BIOS: the task completes once staged; the running version
			// moves only with the next reset.
			r := do(http.MethodPost, simpleUpdatePath, "application/json", jsonBody(map[string]any{"ImageURI": bios, "TransferProtocol": "HTTP"}))
			if r.status != http.StatusAccepted || r.header.Get("Location") == "" {
				t.Fatalf("SimpleUpdate: %d %s", r.status, r.raw)
			}
			monitor := r.header.Get("Location")
			if m := do(http.MethodGet, monitor, "", nil); m.status != http.StatusAccepted || m.body["TaskState"] != TaskRunning {
				t.Fatalf("task monitor before the flash: %d %v", m.status, m.body["TaskState"])
			}
			clk.Advance(2 * 5 * time.Second)
			m := do(http.MethodGet, monitor, "", nil)
			if p == PersonalityDell {
				// iDRAC: the job stays Scheduled until the host resets.
				job, _ := m.body["Oem"].(map[string]any)["Dell"].(map[string]any)
				if m.status != http.StatusAccepted || m.body["TaskState"] != TaskPending || job["JobState"] != "Scheduled" {
					t.Fatalf("iDRAC job after the flash: %d %s", m.status, m.raw)
				}
			} else if m.status != http.StatusOK || m.body["TaskState"] != TaskCompleted {
				t.Fatalf("task after the flash: %d %s", m.status, m.raw)
			}
			if !strings.Contains(string(m.raw), "Update.1.1.AwaitToActivate") {
				t.Errorf("a staged BIOS task should say it awaits activation: %s", m.raw)
			}
			if got, _, pending := s.Firmware(); got != "2.10.2" || pending != "2.12.2" {
				t.Fatalf("before reset: running %s pending %s, want 2.10.2 and 2.12.2 pending", got, pending)
			}
			if v := do(http.MethodGet, s.sys.sysPath, "", nil).body["BiosVersion"]; v != "2.10.2" {
				t.Errorf("BiosVersion %v before the reset", v)
			}
			conforms(t, ss, s)
			mid := inventoryVersions(t, do)
			for id, v := range before {
				if mid[id] != v {
					t.Errorf("inventory %s moved to %s before the reset", id, mid[id])
				}
			}
			if r := do(http.MethodPost, s.sys.sysPath+"/Actions/ComputerSystem.Reset", "application/json", jsonBody(map[string]any{"ResetType": "ForceRestart"})); r.status != http.StatusNoContent {
				t.Fatalf("reset: %d %s", r.status, r.raw)
			}
			clk.Advance(2 * 5 * time.Second)
			if v := do(http.MethodGet, s.sys.sysPath, "", nil).body["BiosVersion"]; v != "2.12.2" {
				t.Errorf("BiosVersion %v after the reset, want 2.12.2", v)
			}
			if m := do(http.MethodGet, monitor, "", nil); m.status != http.StatusOK || m.body["TaskState"] != TaskCompleted {
				t.Errorf("update task after the reset: %d %s", m.status, m.raw)
			}
			after := inventoryVersions(t, do)
			if !hasVersion(after, "2.12.2") || (p != PersonalityDell && hasVersion(after, "2.10.2")) {
				t.Errorf("inventory after the reset: %v", after)
			}

			// BMC: applies by itself, no reset; Targets names the entry.
			var bmcEntry string
			for id := range after {
				if s.componentOf(inventoryPath+"/"+id) == ComponentBMC && !strings.HasPrefix(id, "Previous-") {
					bmcEntry = inventoryPath + "/" + id
				}
			}
			boots := s.sys.bootCount
			r = do(http.MethodPost, simpleUpdatePath, "application/json", jsonBody(map[string]any{"ImageURI": bmc, "Targets": []string{bmcEntry}}))
			if r.status != http.StatusAccepted {
				t.Fatalf("SimpleUpdate BMC: %d %s", r.status, r.raw)
			}
			clk.Advance(2 * 5 * time.Second)
			if m := do(http.MethodGet, r.header.Get("Location"), "", nil); m.body["TaskState"] != TaskCompleted {
				t.Fatalf("BMC task: %s", m.raw)
			}
			if _, v, _ := s.Firmware(); v != "9.9.9" || s.sys.bootCount != boots {
				t.Errorf("BMC %s after its update (boots %d -> %d), want 9.9.9 without a host boot", v, boots, s.sys.bootCount)
			}
			if fv := do(http.MethodGet, s.sys.mgrPath, "", nil).body["FirmwareVersion"].(string); !strings.HasSuffix(fv, "9.9.9") {
				t.Errorf("manager FirmwareVersion %s", fv)
			}
			conforms(t, ss, s)
		})
	}
}

// Deleting iDRAC's scheduled update job drops the staged BIOS.
func TestUpdateServiceDellJobDelete(t *testing.T) {
	s, clk := testService(t, "r2", "nfs1-bmc", nil)
	do := httpMock(t, s)
	uri := "http://repo.lab/r740/bios.bin"
	if err := s.RegisterImage(Image{URI: uri, Component: ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}}); err != nil {
		t.Fatal(err)
	}
	r := do(http.MethodPost, simpleUpdatePath, "application/json", jsonBody(map[string]any{"ImageURI": uri}))
	clk.Advance(2 * 5 * time.Second)
	if _, _, pending := s.Firmware(); pending != "2.12.2" {
		t.Fatalf("not staged: %q", pending)
	}
	job := s.sys.jobsPath + "/" + lastSeg(r.header.Get("Location"))
	if d := do(http.MethodDelete, job, "", nil); d.status != http.StatusOK {
		t.Fatalf("delete %s: %d %s", job, d.status, d.raw)
	}
	if _, _, pending := s.Firmware(); pending != "" || hasVersion(inventoryVersions(t, do), "2.12.2") {
		t.Errorf("the deleted job left %q staged", pending)
	}
}

func hasVersion(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

func TestUpdateServiceRefusals(t *testing.T) {
	ss := newSchemaSet(t)
	s, clk := testService(t, "r2", "nfs1-bmc", nil)
	do := httpMock(t, s)
	r640 := "http://repo.lab/r640/bios-2.12.2.bin"
	if err := s.RegisterImage(Image{URI: r640, Component: ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R640"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterImage(Image{URI: "x", Component: "NIC", Version: "1", Models: []string{"m"}}); err == nil {
		t.Error("an image of an unknown component was registered")
	}
	bad := []struct {
		body map[string]any
		id   string
	}{
		{map[string]any{}, "ActionParameterMissing"},
		{map[string]any{"ImageURI": r640, "TransferProtocol": "GOPHER"}, "ActionParameterValueNotInList"},
		{map[string]any{"ImageURI": r640, "Targets": []string{"/redfish/v1/Chassis/1"}}, "ActionParameterValueNotInList"},
		{map[string]any{"ImageURI": r640, "Reboot": true}, "ActionParameterUnknown"},
	}
	for _, b := range bad {
		wantError(t, do(http.MethodPost, simpleUpdatePath, "application/json", jsonBody(b.body)), http.StatusBadRequest, b.id)
	}
	ends := func(uri, msg string) {
		t.Helper()
		r := do(http.MethodPost, simpleUpdatePath, "application/json", jsonBody(map[string]any{"ImageURI": uri}))
		if r.status != http.StatusAccepted {
			t.Fatalf("%s: %d %s", uri, r.status, r.raw)
		}
		clk.Advance(2 * 5 * time.Second)
		m := do(http.MethodGet, r.header.Get("Location"), "", nil)
		if m.body["TaskState"] != TaskException || m.body["TaskStatus"] != "Critical" || !strings.Contains(string(m.raw), msg) {
			t.Errorf("%s: task %s, want Exception saying %q", uri, m.raw, msg)
		}
	}
	ends(r640, "the image is for PowerEdge R640") // another model's image
	ends("http://repo.lab/nowhere.bin", "Update.1.1.TransferFailed")
	if err := s.RegisterImage(Image{URI: "http://repo.lab/r740/bios.bin", Component: ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}}); err != nil {
		t.Fatal(err)
	}
	if r := do(http.MethodPost, "/_mock/config", "application/json", jsonBody(map[string]any{"fail_next_update": true})); r.status != http.StatusNoContent {
		t.Fatalf("config: %d %s", r.status, r.raw)
	}
	ends("http://repo.lab/r740/bios.bin", "Update.1.1.ApplyFailed")
	if bios, _, pending := s.Firmware(); bios != "2.10.2" || pending != "" {
		t.Errorf("after refusals: running %s pending %q", bios, pending)
	}
	conforms(t, ss, s)
}

func TestUpdateServiceMultipartPush(t *testing.T) {
	s, clk := testService(t, "r2", "nfs2-bmc", nil)
	do := httpMock(t, s)
	payload := []byte("iDRAC firmware 7.00.00.00")
	sum := sha256.Sum256(payload)
	if err := s.RegisterImage(Image{Component: ComponentBMC, Version: "7.00.00.00", Models: []string{"PowerEdge R740"}, SHA256: hex.EncodeToString(sum[:])}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("UpdateParameters", `{"Targets":[],"@Redfish.OperationApplyTime":"Immediate"}`)
	fw, _ := mw.CreateFormFile("UpdateFile", "iDRAC_7.00.00.00.d9")
	_, _ = fw.Write(payload)
	_ = mw.Close()
	r := do(http.MethodPost, multipartPushPath, mw.FormDataContentType(), buf.Bytes())
	if r.status != http.StatusAccepted {
		t.Fatalf("multipart push: %d %s", r.status, r.raw)
	}
	clk.Advance(2 * 5 * time.Second)
	if m := do(http.MethodGet, r.header.Get("Location"), "", nil); m.body["TaskState"] != TaskCompleted {
		t.Fatalf("push task: %s", m.raw)
	}
	if _, bmc, _ := s.Firmware(); bmc != "7.00.00.00" {
		t.Errorf("BMC %s after the push", bmc)
	}
	wantError(t, do(http.MethodPost, multipartPushPath, "application/json", []byte(`{}`)), http.StatusUnsupportedMediaType, "GeneralError")
}
