package pacemaker

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// The real fence_redfish, given exactly the fence device parameters of the
// generated CIB the way pacemaker's fencer hands them over (name=value
// lines on stdin, without the fencer's own pcmk_* ones), powers the lab's
// nfs1 off and on through its iDRAC, and the mock's power state follows.
// The password file the CIB's password_script reads is relocated to a
// temporary folder; the BMC certificate is verified against the lab's CA.
func TestFenceRedfishWithCIBParameters(t *testing.T) {
	tool(t, "fence_redfish")
	d, err := redfishmock.NewDesign("r2", redfishmock.Options{Username: "fence", Password: "lab-fence-pw", PowerDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := d.Service("nfs1-bmc")
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
	defer srv.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "lab-ca.pem")
	if err := os.WriteFile(caFile, ca.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	user, pass := svc.Credentials()

	c := r2()
	c.Fencing[0] = RedfishFence(RedfishBMC{Node: "nfs1", Address: u.Host, SystemsURI: firstSystem(t, srv.URL, ca.PEM(), user, pass), Username: user})
	cib, err := c.Render(false)
	if err != nil {
		t.Fatal(err)
	}
	params := deviceParams(t, cib, FenceID("nfs1"))
	if params["ipport"] != u.Port() || params["systems_uri"] == "" || params["ssl_insecure"] != "" {
		t.Fatalf("CIB parameters %v", params)
	}
	pwFile := filepath.Join(dir, "fence-nfs1.password")
	if err := os.WriteFile(pwFile, []byte(pass+"\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	script := params["password_script"]
	if !strings.Contains(script, PasswordFile(FenceID("nfs1"))) {
		t.Fatalf("password_script %q does not read %s", script, PasswordFile(FenceID("nfs1")))
	}
	params["password_script"] = strings.Replace(script, PasswordFile(FenceID("nfs1")), pwFile, 1)

	// fence agents exit 0 for success and for status "on", 2 for "off".
	var stdin strings.Builder
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !strings.HasPrefix(k, "pcmk_") {
			stdin.WriteString(k + "=" + params[k] + "\n")
		}
	}
	stdin.WriteString("nodename=nfs1\npower_timeout=30\n")
	env := []string{"REQUESTS_CA_BUNDLE=" + caFile}
	want := func(action string, code int, power string) {
		t.Helper()
		out, errs, got := runWith(t, stdin.String()+"action="+action+"\n", env, "fence_redfish")
		if got != code {
			t.Fatalf("fence_redfish %s: exit %d, want %d\n%s%s", action, got, code, out, errs)
		}
		if s := svc.PowerState(); !strings.EqualFold(s, power) && !(power == "on" && s == redfishmock.PowerPoweringOn) {
			t.Errorf("after %s the host is %s, want %s", action, s, power)
		}
	}
	want("status", 0, "on")
	want("off", 0, "off")
	want("status", 2, "off")
	want("on", 0, "on")
	svc.Advance(time.Second)
	want("status", 0, "on")
	if n := svc.RequestCount("POST", params["systems_uri"]+"/Actions/ComputerSystem.Reset"); n != 2 {
		t.Errorf("%d resets of %s, want 2 (ForceOff, On): %v", n, params["systems_uri"], svc.Stats())
	}
}

// firstSystem reads the BMC's system, as the provider's hpcstorage_server
// does, to name it in systems_uri.
func firstSystem(t *testing.T, base string, caPEM []byte, user, pass string) string {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(http.MethodGet, base+"/redfish/v1/Systems", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, pass)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var col struct {
		Members []struct {
			ID string `json:"@odata.id"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&col); err != nil || len(col.Members) == 0 {
		t.Fatalf("systems of %s: %v %+v", base, err, col)
	}
	return col.Members[0].ID
}

// deviceParams reads a primitive's instance attributes from a CIB.
func deviceParams(t *testing.T, cib []byte, id string) map[string]string {
	t.Helper()
	var doc struct {
		Primitives []struct {
			ID     string `xml:"id,attr"`
			Params []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"instance_attributes>nvpair"`
		} `xml:"configuration>resources>primitive"`
	}
	if err := xml.NewDecoder(bytes.NewReader(cib)).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Primitives {
		if p.ID == id {
			out := map[string]string{}
			for _, nv := range p.Params {
				out[nv.Name] = nv.Value
			}
			return out
		}
	}
	t.Fatalf("no primitive %s in the CIB", id)
	return nil
}
