//go:build realnodes

package realnode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// TestBMCPowersRealNode drives R2's two real nodes through their mock
// BMCs: every ComputerSystem.Reset type acts on the container (checked
// from the host: its nspawn and PID 1) and PowerState follows; then the
// real fence_redfish on nfs2 reads and powers nfs1 through the mock over
// the lab bridge, as pacemaker's fencer would.
func TestBMCPowersRealNode(t *testing.T) {
	l := upLab(t, []string{"nfs1", "nfs2"}, 1)
	d, err := redfishmock.NewDesign("r2", redfishmock.Options{Username: "admin", Password: "real-node-pw", PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.OnPower(l.PowerHook(ctx, testLog{t}))
	mock, err := d.Start(redfishmock.StartConfig{Host: l.Gateway})
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	var bmc redfishmock.Endpoint
	for _, ep := range mock.Endpoints {
		if ep.Node == "nfs1" {
			bmc = ep
		}
	}
	n := l.Node("nfs1")
	client := mock.CA.Client()
	sysURL := bmc.URL + "/redfish/v1/Systems/System.Embedded.1"
	power := func() string {
		req, _ := http.NewRequest(http.MethodGet, sysURL, nil)
		req.SetBasicAuth(bmc.Username, bmc.Password)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s struct{ PowerState string }
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s.PowerState
	}
	reset := func(kind string) {
		body, _ := json.Marshal(map[string]string{"ResetType": kind})
		req, _ := http.NewRequest(http.MethodPost, sysURL+"/Actions/ComputerSystem.Reset", bytes.NewReader(body))
		req.SetBasicAuth(bmc.Username, bmc.Password)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: HTTP %d", kind, resp.StatusCode)
		}
	}
	// until waits for the container and the BMC to agree on a state.
	wait := BootTimeout
	until := func(what string, cond func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for deadline := start.Add(wait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if cond() {
				return time.Since(start)
			}
		}
		t.Fatalf("%s: not after %s (BMC %s, container running %v)", what, wait, power(), n.Running())
		return 0
	}
	up := func() bool {
		if power() != redfishmock.PowerOn || !n.Running() {
			return false
		}
		c, err := l.Dial(ctx, n)
		if err != nil {
			return false
		}
		defer c.Close()
		out, _ := Run(ctx, c, "systemctl is-system-running")
		return strings.TrimSpace(out) == "running"
	}
	// power() first: the mock's timers (its power delay) advance on requests.
	down := func() bool { return power() == redfishmock.PowerOff && !n.Running() }
	if !up() {
		t.Fatal("nfs1 not up with its BMC On")
	}
	for _, step := range []struct {
		reset string
		off   bool // ends off; else on, with a new PID 1
	}{
		{"ForceOff", true}, {"On", false}, {"GracefulRestart", false}, {"GracefulShutdown", true}, {"On", false}, {"ForceRestart", false},
	} {
		init := n.InitPID()
		reset(step.reset)
		var took time.Duration
		if step.off {
			took = until(step.reset+": off", down)
		} else {
			took = until(step.reset+": booted again", func() bool { return up() && n.InitPID() != init })
		}
		t.Logf("measured: %s -> %s in %s", step.reset, power(), took.Round(100*time.Millisecond))
	}

	// The real fence agent, on the peer, through the bridge.
	peer, err := l.Dial(ctx, l.Node("nfs2"))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	u, _ := url.Parse(bmc.URL)
	fence := fmt.Sprintf("fence_redfish --ip=%s --ipport=%s --username=%s --password=%s --ssl-insecure --systems-uri=/redfish/v1/Systems/System.Embedded.1 -o ",
		u.Hostname(), u.Port(), bmc.Username, bmc.Password)
	if out, err := Run(ctx, peer, fence+"status"); err != nil || !strings.Contains(out, "Status: ON") {
		t.Fatalf("fence_redfish status: %v: %s", err, out)
	}
	init := n.InitPID()
	out, err := Run(ctx, peer, fence+"reboot")
	if err != nil || !strings.Contains(out, "Success") {
		t.Fatalf("fence_redfish reboot: %v: %s", err, out)
	}
	took := until("fenced nfs1 booted again", func() bool { return up() && n.InitPID() != init })
	t.Logf("measured: fence_redfish reboot from nfs2, nfs1 running again after %s", took.Round(100*time.Millisecond))
}
