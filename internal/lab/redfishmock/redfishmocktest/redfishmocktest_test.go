package redfishmocktest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewServesDesign(t *testing.T) {
	lab := New(t, "r2", nil)
	ep := lab.Endpoint(t, "nfs1-bmc")
	req, _ := http.NewRequest(http.MethodPost, ep.URL+"/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset",
		strings.NewReader(`{"ResetType":"ForceOff"}`))
	req.SetBasicAuth(ep.Username, ep.Password)
	resp, err := lab.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	svc := lab.Service(t, "nfs1-bmc")
	if got := svc.PowerState(); got != "PoweringOff" {
		t.Fatalf("power %s right after ForceOff", got)
	}
	lab.Clock.Advance(10 * time.Second)
	if got := svc.PowerState(); got != "Off" {
		t.Fatalf("power %s after the delay", got)
	}
}
