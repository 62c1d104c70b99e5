package redfishmock

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestReplayWrites(t *testing.T) {
	tests := []struct{ capture, system string }{
		{"dmtf-public-rackmount1", "/redfish/v1/Systems/437XR1138R2"}, // short form
		{"libredfish-dell", "/redfish/v1/Systems/System.Embedded.1"},  // tall form
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			s, err := NewReplay(filepath.Join(sharedDir(t), "mockups", tt.capture), Options{Username: "admin", Password: "secret"})
			if err != nil {
				t.Fatal(err)
			}
			if r := call(t, s, http.MethodGet, tt.system, nil); r.status != 200 || r.header.Get("ETag") == "" {
				t.Fatalf("GET %d etag %q", r.status, r.header.Get("ETag"))
			}
			r := call(t, s, http.MethodPatch, tt.system, map[string]any{"AssetTag": "rack-7", "Boot": map[string]any{"BootSourceOverrideTarget": "Pxe"}})
			if r.status != 200 || r.body["AssetTag"] != "rack-7" {
				t.Fatalf("PATCH %d %v", r.status, r.body["AssetTag"])
			}
			if boot := call(t, s, http.MethodGet, tt.system, nil).body["Boot"].(map[string]any); boot["BootSourceOverrideTarget"] != "Pxe" || len(boot) < 2 {
				t.Errorf("deep merge lost sibling Boot fields: %v", boot)
			}
			login := call(t, s, http.MethodPost, s.sessionsPath, map[string]any{"UserName": "admin", "Password": "secret"}, "Authorization", "")
			if login.status != 201 || login.header.Get("X-Auth-Token") == "" {
				t.Fatalf("login %d", login.status)
			}
			if r := call(t, s, http.MethodPost, tt.system+"/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"}); r.status != 204 {
				t.Errorf("action %d", r.status)
			}
			acc := "/redfish/v1/AccountService/Accounts"
			if s.get(acc) != nil {
				r := call(t, s, http.MethodPost, acc, map[string]any{"UserName": "ci", "RoleId": "ReadOnly"})
				loc := r.header.Get("Location")
				if r.status != 201 || loc == "" || call(t, s, http.MethodGet, loc, nil).status != 200 {
					t.Fatalf("POST member %d %q", r.status, loc)
				}
				if r := call(t, s, http.MethodDelete, loc, nil); r.status != 204 || call(t, s, http.MethodGet, loc, nil).status != 404 {
					t.Errorf("DELETE %d", r.status)
				}
			}
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
			if call(t, s, http.MethodGet, tt.system, nil).body["AssetTag"] == "rack-7" {
				t.Errorf("Reset kept in-memory writes")
			}
		})
	}
	if _, err := NewReplay(t.TempDir(), Options{}); !errors.Is(err, ErrBadMockup) {
		t.Errorf("empty folder: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.json"), []byte("[1]"), 0o644)
	if _, err := NewReplay(dir, Options{}); !errors.Is(err, ErrBadMockup) {
		t.Errorf("non-object document: %v", err)
	}
}

// A vendor capture with documents that are not valid JSON (the Lenovo XCC
// capture has telemetry reports with trailing commas) is served: the rest
// answers normally, the broken documents answer 500 and are listed.
func TestReplayServesCaptureWithBrokenFiles(t *testing.T) {
	s, err := NewReplay(filepath.Join(sharedDir(t), "mockups", "libredfish-lenovo"), Options{Username: "admin", Password: "secret"})
	if err != nil {
		t.Fatalf("the capture is refused: %v", err)
	}
	broken := s.BrokenDocuments()
	const report = "/redfish/v1/TelemetryService/MetricReports/PowerMetrics"
	if _, ok := broken[report]; !ok || len(broken) != 2 {
		t.Errorf("broken documents %v, want 2 including %s", broken, report)
	}
	if r := call(t, s, http.MethodGet, report, nil); r.status != http.StatusInternalServerError {
		t.Errorf("GET %s: %d, want 500", report, r.status)
	}
	if r := call(t, s, http.MethodGet, "/redfish/v1/Systems/1", nil); r.status != http.StatusOK || r.body["Id"] != "1" {
		t.Errorf("GET system: %d %v", r.status, r.body["Id"])
	}

	// The same rule on a small tree; a broken service root is still refused.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "Systems", "1"), 0o755)
	os.WriteFile(filepath.Join(dir, "index.json"), []byte(`{"@odata.id":"/redfish/v1","Systems":{"@odata.id":"/redfish/v1/Systems"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "Systems", "index.json"), []byte(`{"Members":[{"@odata.id":"/redfish/v1/Systems/1"}],}`), 0o644)
	os.WriteFile(filepath.Join(dir, "Systems", "1", "index.json"), []byte(`{"Id":"1"}`), 0o644)
	s, err = NewReplay(dir, Options{Username: "admin", Password: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, s, http.MethodGet, "/redfish/v1/Systems", nil); r.status != http.StatusInternalServerError {
		t.Errorf("broken collection: %d", r.status)
	}
	if r := call(t, s, http.MethodGet, "/redfish/v1/Systems/1", nil); r.status != http.StatusOK {
		t.Errorf("member of a broken collection: %d", r.status)
	}
	os.WriteFile(filepath.Join(dir, "index.json"), []byte(`{"@odata.id":"/redfish/v1",}`), 0o644)
	if _, err := NewReplay(dir, Options{}); !errors.Is(err, ErrBadMockup) {
		t.Errorf("broken service root: %v", err)
	}
}
