package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

const (
	testLicensePEM = "-----BEGIN CERTIFICATE-----\nMIIlabLicense0123\n-----END CERTIFICATE-----\n"
	testCertPEM    = "-----BEGIN CERTIFICATE-----\nMIIlabCert0123\n-----END CERTIFICATE-----\n"
	testKeyPEM     = "-----BEGIN PRIVATE KEY-----\nMIIlabKey0123\n-----END PRIVATE KEY-----\n"
)

// beegfsMgmtdConfig is a management service on host; extra holds the
// version and BeeGFS 8 attributes.
func beegfsMgmtdConfig(host, extra string) string {
	return fmt.Sprintf(`
resource "hpcstorage_beegfs_management" "m" {
  host             = %q
  directory        = "/data/mdt01/mgmtd"
  conn_auth_secret = %q
%s
}
`, host, testSecret, extra)
}

// TestBeegfs8PlanRefusals: BeeGFS 8 without a license or TLS material, a
// 7.x client with 8 services, and version changes BeeGFS cannot make are
// refused at plan on the attribute, with the real terraform CLI; the
// supported path 7.2 -> 7.4 -> 8 applies (the 8 step imports the 7.x
// store), and 8 -> 7.4 is refused again.
func TestBeegfs8PlanRefusals(t *testing.T) {
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r1Lab{Lab: l, dir: dir}
	p := r.providerBlock()
	meta1, client := r.node("meta1").Host, r.node("client01").Host
	license := fmt.Sprintf("license_pem = %q\n", testLicensePEM)
	tls := fmt.Sprintf("tls_cert_pem = %q\ntls_key_pem = %q\n", testCertPEM, testKeyPEM)
	mix := fmt.Sprintf(`
resource "hpcstorage_beegfs_metadata" "m" {
  host             = %q
  mgmtd_host       = "meta1"
  version          = "8"
  conn_auth_secret = %q
  instances        = [{ name = "metaA-numa0-1", directory = "/data/mdt01/meta", node_id = 1, port = 8005 }]
}

resource "hpcstorage_beegfs_client" "c" {
  host             = %q
  mgmtd_host       = "meta1"
  version          = %%q
  conn_auth_secret = %q
}
`, meta1, testSecret, client, testSecret)
	onMeta1 := func(p, want string) statecheck.StateCheck {
		return stateCheck(func(*tfjson.State) error {
			if got := r.read(t, "meta1", p); !strings.Contains(got, want) {
				return fmt.Errorf("meta1 %s:\n%s\nwant %q", p, got, want)
			}
			return nil
		})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{ // 8 without a license
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+tls),
				ExpectError: regexp.MustCompile(`(?s)Attribute license_pem.*enforces\s+a\s+license`),
			},
			{ // 8 with a license but neither TLS material nor tls_disable
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+license),
				ExpectError: regexp.MustCompile(`(?s)Attribute tls_cert_pem.*serves\s+gRPC\s+with\s+TLS`),
			},
			{ // a certificate without its key
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+license+fmt.Sprintf("tls_cert_pem = %q\n", testCertPEM)),
				ExpectError: regexp.MustCompile(`(?s)Attribute tls_key_pem.*private\s+key\s+is\s+missing`),
			},
			{ // a license that is no PEM
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+tls+`license_pem = "trial"`),
				ExpectError: regexp.MustCompile(`(?s)Attribute license_pem.*PEM\s+CERTIFICATE`),
			},
			{ // a BeeGFS 8 input on a 7.x service
				Config:      p + beegfsMgmtdConfig(meta1, license),
				ExpectError: regexp.MustCompile(`(?s)Attribute license_pem.*BeeGFS\s+8\s+setting`),
			},
			{ // a key mgmtd does not know
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+license+"tls_disable = true\nsettings = { storeMgmtdDirectory = \"/x\" }"),
				ExpectError: regexp.MustCompile(`(?s)Attribute settings\["storeMgmtdDirectory"\].*refuses\s+unknown\s+keys`),
			},
			{ // a 7.x client with BeeGFS 8 services of the same file system
				Config:      p + fmt.Sprintf(mix, "7.4"),
				ExpectError: regexp.MustCompile(`(?s)BeeGFS Releases Mixed.*Attribute version.*cannot\s+talk`),
			},
			{ // the paper's version applies
				Config:            p + beegfsMgmtdConfig(meta1, ""),
				ConfigStateChecks: []statecheck.StateCheck{onMeta1("data/mdt01/mgmtd/format.conf", "version=5")},
			},
			{ // 7.2 straight to 8
				Config:      p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+license+"tls_disable = true"),
				ExpectError: regexp.MustCompile(`(?s)Unsupported BeeGFS Upgrade.*Attribute version.*7\.2\s+to\s+8`),
			},
			{ // 7.2 -> 7.4: the same 7.x service
				Config: p + beegfsMgmtdConfig(meta1, `version = "7.4"`),
			},
			{ // 7.4 -> 8: the store is imported, the TOML config replaces the 7.x one
				Config: p + beegfsMgmtdConfig(meta1, `version = "8"`+"\n"+license+"tls_disable = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					onMeta1("data/mdt01/mgmtd/mgmtd.sqlite", `"imported_from":"/data/mdt01/mgmtd"`),
					onMeta1("etc/beegfs/beegfs-mgmtd.toml", "tls-disable = true"),
				},
			},
			{ // and back is refused
				Config:      p + beegfsMgmtdConfig(meta1, `version = "7.4"`),
				ExpectError: regexp.MustCompile(`(?s)Attribute version.*does\s+not\s+go\s+back`),
			},
		},
	})
}
