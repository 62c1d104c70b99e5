package redfishmock

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/dellpeer"
)

// peerTerraform finds the terraform CLI for tests that drive another
// provider: TF_ACC_TERRAFORM_PATH, else the one on PATH.
func peerTerraform(t testing.TB) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC not set: the Dell provider run is an acceptance test (it builds the provider and waits its fixed 180 s)")
	}
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("TF_ACC is set but no terraform CLI: set TF_ACC_TERRAFORM_PATH")
	}
	return p
}

// TestDellProviderConverges runs dell/terraform-provider-redfish v1.6.1,
// unmodified, against the R1 lab's iDRACs: redfish_bios sets LogicalProc
// and SubNumaCluster (PATCH with OnReset, reboot, wait for the job's Task)
// and redfish_power keeps the hosts on; the next plan is empty, and the
// mock's BIOS holds the values, applied by the reboot.
func TestDellProviderConverges(t *testing.T) {
	tfPath := peerTerraform(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	pluginDir, err := dellpeer.Build(ctx, "")
	if err != nil {
		t.Fatal(err)
	}

	d, err := NewDesign("r1", Options{Username: "root", Password: "lab-calvin", PowerDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	lab, err := d.Start(StartConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "lab-ca.pem")
	if err := os.WriteFile(caFile, lab.CA.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}

	targets := map[string]*Service{}
	var servers []dellpeer.Server
	for i, ep := range lab.Endpoints {
		if ep.Name == "meta1-bmc" || ep.Name == "stor1-bmc" {
			targets[ep.Name] = lab.Servers[i].Service
			servers = append(servers, dellpeer.Server{Name: strings.TrimSuffix(ep.Name, "-bmc"), Endpoint: ep.URL, Username: ep.Username, Password: ep.Password})
		}
	}
	want := map[string]string{"LogicalProc": "Disabled", "SubNumaCluster": "Enabled"}
	for name, s := range targets {
		if cur, _ := s.BiosAttributes(); cur["LogicalProc"] == want["LogicalProc"] || cur["SubNumaCluster"] == want["SubNumaCluster"] {
			t.Fatalf("%s already has the values the test sets: %v", name, cur)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(dellpeer.BiosConfig(servers, want, true)), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := dellpeer.NewWorkspace(dir, tfPath, pluginDir, caFile)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if out, err := ws.Run(ctx, "apply", "-auto-approve", "-no-color"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("Dell provider apply: %s", time.Since(start).Round(time.Second))
	if out, err := ws.Run(ctx, "plan", "-detailed-exitcode", "-no-color"); err != nil {
		t.Fatalf("second plan is not empty: %v\n%s", err, out)
	}

	for name, s := range targets {
		cur, pending := s.BiosAttributes()
		for k, v := range want {
			if cur[k] != v {
				t.Errorf("%s: BIOS %s = %v, want %s", name, k, cur[k], v)
			}
		}
		if len(pending) != 0 {
			t.Errorf("%s: values still pending: %v", name, pending)
		}
		s.mu.Lock()
		boots := s.sys.bootCount
		s.mu.Unlock()
		if boots != 1 {
			t.Errorf("%s: %d boots, want the one reboot that applied the job", name, boots)
		}
		if s.PowerState() != PowerOn {
			t.Errorf("%s: power %s", name, s.PowerState())
		}
		// The provider followed the PATCH's Location to the job's Task.
		polled := 0
		for k, n := range s.Stats() {
			if strings.HasPrefix(k, "GET "+tasksPath+"/JID_") {
				polled += n
			}
		}
		if polled == 0 {
			t.Errorf("%s: the job's Task was never read: %v", name, s.Stats())
		}
	}
}
