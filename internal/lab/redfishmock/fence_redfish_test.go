package redfishmock

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFenceRedfish drives the real fence_redfish (Debian fence-agents), as
// the NFS-HA design's Pacemaker does, against a lab iDRAC: Basic auth over
// TLS verified with the lab's CA (python-requests reads REQUESTS_CA_BUNDLE),
// --systems-uri given; status, off and on must each tell the truth.
func TestFenceRedfish(t *testing.T) {
	agent, err := exec.LookPath("fence_redfish")
	if err != nil {
		for _, p := range []string{"/usr/sbin/fence_redfish", "/sbin/fence_redfish"} {
			if _, serr := os.Stat(p); serr == nil {
				agent, err = p, nil
				break
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("fence_redfish is missing on CI: install the Debian package fence-agents")
		}
		t.Skip("fence_redfish not installed (apt-get install -y fence-agents); CI runs this test")
	}
	t.Parallel()

	d, err := NewDesign("r2", Options{Username: "fence", Password: "lab-fence-pw", PowerDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := d.Service("nfs1-bmc")
	if err != nil {
		t.Fatal(err)
	}
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(svc, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "lab-ca.pem")
	if err := os.WriteFile(caFile, ca.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	user, pass := svc.Credentials()
	systems := svc.sys.sysPath

	// fence agents exit 0 for success and for status "on", 2 for status "off".
	fence := func(action string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, agent, "--ip="+u.Hostname(), "--ipport="+u.Port(), "--username="+user,
			"--password-script=cat "+writeSecret(t, pass), "--ssl-secure", "--systems-uri="+systems,
			"--power-timeout=30", "--action="+action)
		cmd.Env = append(os.Environ(), "REQUESTS_CA_BUNDLE="+caFile)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("fence_redfish %s: %v\n%s", action, err, out)
		return -1, ""
	}
	want := func(action string, code int, power string) {
		t.Helper()
		got, out := fence(action)
		if got != code {
			t.Fatalf("fence_redfish %s: exit %d, want %d\n%s", action, got, code, out)
		}
		if action == "status" && !strings.Contains(out, "Status: "+strings.ToUpper(power)) {
			t.Errorf("fence_redfish status says %q, want %s", strings.TrimSpace(out), strings.ToUpper(power))
		}
		if s := svc.PowerState(); !strings.EqualFold(s, power) && !(power == "on" && s == PowerPoweringOn) {
			t.Errorf("after %s the host is %s, want %s", action, s, power)
		}
	}
	want("status", 0, "on")
	want("off", 0, "off")
	want("status", 2, "off")
	want("on", 0, "on")
	// The host boots; once it is up the agent still says on.
	svc.Advance(time.Second)
	want("status", 0, "on")

	// It authenticated every request with Basic auth, sent the reset to the
	// system's Reset action, and opened no session.
	st := svc.Stats()
	if n := st["POST "+systems+"/Actions/ComputerSystem.Reset"]; n != 2 {
		t.Errorf("%d reset requests, want 2 (ForceOff, On): %v", n, st)
	}
	if n := st["POST /redfish/v1/SessionService/Sessions"]; n != 0 {
		t.Errorf("fence_redfish opened %d sessions", n)
	}
}

// writeSecret puts a password in a 0600 file, so it is not on a command line.
func writeSecret(t *testing.T, secret string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
