package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// startMonLab is the R1 lab without volumes: the management server
// (mgmt) is the node beegfs-mon runs on.
func startMonLab(t *testing.T) *r1Lab {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &r1Lab{Lab: l, dir: dir}
}

// planCheck runs f on the plan.
type planCheck func(*tfjson.Plan) error

func (f planCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f(req.Plan)
}

// confKey matches one key = value line of a BeeGFS config file.
func confKey(key, value string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*=[ \t]*` + regexp.QuoteMeta(value) + `[ \t]*$`)
}

// TestBeegfsMonitor applies beegfs-mon with an InfluxDB login to the R1
// management server: config, 0400 credentials and auth files, the unit;
// an empty re-plan; a key changed by hand shows in the plan and is put
// back; a new password (from a file) is an update; dropping the login
// restores the packaged credentials file; destroy restores the node.
func TestBeegfsMonitor(t *testing.T) {
	r := startMonLab(t)
	const (
		conf      = "etc/beegfs/beegfs-mon.conf"
		login     = "etc/beegfs/beegfs-mon.auth"
		connAuth  = "etc/beegfs/beegfs-mon-conn.auth"
		password1 = "Infl=ux #pass-0001"
		password2 = "second-influx-password"
		addr      = "hpcstorage_beegfs_monitor.mon"
	)
	pwFile := filepath.Join(t.TempDir(), "influx-password")
	if err := os.WriteFile(pwFile, []byte(password2+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := r.tree(t, "mgmt")
	packagedLogin := r.read(t, "mgmt", login)
	config := func(credentials string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_monitor" "mon" {
  host             = %q
  mgmtd_host       = "meta1"
  settings         = { collectClientOpsByUser = "false", statsRequestIntervalSecs = "10" }
  conn_auth_secret = %q
  %s
}
`, r.node("mgmt").Host, testSecret, credentials)
	}
	withPassword := config(fmt.Sprintf(`influxdb_username = "beegfs_mon"
  influxdb_password = %q`, password1))
	withFile := config(fmt.Sprintf(`influxdb_username = "beegfs_mon"
  influxdb_password_file = %q`, pwFile))

	mode := func(p string) fs.FileMode {
		fi, err := os.Stat(filepath.Join(r.node("mgmt").Root, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	// secretsOnlyIn fails when a secret is in state or in any node file
	// other than the one that must hold it.
	secretsOnlyIn := func(s *tfjson.State, secret, file string) error {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), secret) || strings.Contains(string(b), testSecret) {
			return fmt.Errorf("state holds a secret in clear")
		}
		root := r.node("mgmt").Root
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if rel != file && strings.Contains(string(b), secret) {
				return fmt.Errorf("the InfluxDB password is in %s", rel)
			}
			return nil
		})
	}
	unitRunning := func() error {
		var sd struct {
			Units map[string]struct{ Enabled, Active bool } `json:"units"`
		}
		if err := json.Unmarshal([]byte(r.read(t, "mgmt", "run/hpcstorage-sim/systemd.json")), &sd); err != nil {
			return err
		}
		if u := sd.Units["beegfs-mon.service"]; !u.Enabled || !u.Active {
			return fmt.Errorf("beegfs-mon.service %+v, want enabled and active", u)
		}
		return nil
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: withPassword,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("influxdb_password_hash"), knownvalue.StringExact(beegfs.SecretHash(password1))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("conn_auth_secret_hash"), knownvalue.StringExact(beegfs.SecretHash(testSecret))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("influxdb_password"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("influxdb_port"), knownvalue.Int64Exact(8086)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("service"), knownvalue.StringExact("beegfs-mon")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("drift"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					stateCheck(func(s *tfjson.State) error {
						c := r.read(t, "mgmt", conf)
						for k, v := range map[string]string{"sysMgmtdHost": "meta1", "connMgmtdPortTCP": "8008", "connMgmtdPortUDP": "8008",
							"connAuthFile": "/etc/beegfs/beegfs-mon-conn.auth", "dbType": "influxdb", "dbHostName": "localhost",
							"dbHostPort": "8086", "dbDatabase": "beegfs_mon", "dbAuthFile": "/etc/beegfs/beegfs-mon.auth",
							"collectClientOpsByUser": "false", "statsRequestIntervalSecs": "10",
							// packaged values no attribute sets are kept
							"collectClientOpsByNode": "true", "dbRetentionDuration": "1d"} {
							if !confKey(k, v).MatchString(c) {
								return fmt.Errorf("beegfs-mon.conf lacks %s = %s:\n%s", k, v, c)
							}
						}
						if !strings.HasPrefix(c, "# This is a config file for BeeGFS (beegfs-mon).") {
							return fmt.Errorf("packaged comments not kept:\n%s", c)
						}
						if got := r.read(t, "mgmt", login); !strings.HasSuffix(got, "\nusername = beegfs_mon\npassword = "+password1+"\n") {
							return fmt.Errorf("credentials file:\n%s", got)
						}
						if m := mode(login); m != 0o400 {
							return fmt.Errorf("credentials file mode %o, want 400", m)
						}
						if got, m := r.read(t, "mgmt", connAuth), mode(connAuth); got != testSecret+"\n" || m != 0o400 {
							return fmt.Errorf("connection auth file mode %o, secret written: %v", m, got == testSecret+"\n")
						}
						if err := unitRunning(); err != nil {
							return err
						}
						return secretsOnlyIn(s, password1, login)
					}),
				},
			},
			{
				// A key changed by hand: the refresh reports it in drift, the
				// plan updates, the apply puts it back.
				PreConfig: func() {
					p := filepath.Join(r.node("mgmt").Root, conf)
					c := r.read(t, "mgmt", conf)
					if err := os.WriteFile(p, []byte(confKey("dbHostName", "localhost").ReplaceAllString(c, "dbHostName = influx.elsewhere")), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: withPassword,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						planCheck(func(p *tfjson.Plan) error {
							for _, rc := range p.ResourceChanges {
								if rc.Address != addr {
									continue
								}
								drift, _ := dig(rc.Change.Before, []any{"drift"}).(map[string]any)
								d, _ := drift["file:/etc/beegfs/beegfs-mon.conf"].(string)
								if len(drift) != 1 || !strings.Contains(d, "dbHostName = influx.elsewhere") {
									return fmt.Errorf("drift before the update %v, want the one changed key of beegfs-mon.conf", drift)
								}
								return nil
							}
							return fmt.Errorf("%s not in the plan", addr)
						}),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if c := r.read(t, "mgmt", conf); !confKey("dbHostName", "localhost").MatchString(c) || strings.Contains(c, "elsewhere") {
						return fmt.Errorf("hand change not put back:\n%s", c)
					}
					return nil
				})},
			},
			{
				// A new password, from a file this time: the hash changes, so
				// the plan updates; the file on the node gets it.
				Config: withFile,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("influxdb_password_hash"), knownvalue.StringExact(beegfs.SecretHash(password2))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(s *tfjson.State) error {
					if got := r.read(t, "mgmt", login); !strings.HasSuffix(got, "\npassword = "+password2+"\n") || mode(login) != 0o400 {
						return fmt.Errorf("credentials file after the new password:\n%s", got)
					}
					return secretsOnlyIn(s, password2, login)
				})},
			},
			{
				// No login: dbAuthFile is emptied and the packaged
				// credentials file comes back.
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("influxdb_password_hash"), knownvalue.Null()),
					stateCheck(func(*tfjson.State) error {
						if c := r.read(t, "mgmt", conf); !confKey("dbAuthFile", "").MatchString(c) {
							return fmt.Errorf("dbAuthFile not emptied:\n%s", c)
						}
						if got := r.read(t, "mgmt", login); got != packagedLogin || mode(login) != 0o600 {
							return fmt.Errorf("packaged credentials file not restored (mode %o):\n%s", mode(login), got)
						}
						return unitRunning()
					}),
				},
			},
		},
	})
	// Destroy stopped the unit and put every file back.
	if err := sameTree(before, r.tree(t, "mgmt")); err != nil {
		t.Errorf("mgmt after destroy: %v", err)
	}
}

// TestBeegfsMonitorBadInput: each mistake fails at plan time with an error
// on its attribute, and the node is not touched.
func TestBeegfsMonitorBadInput(t *testing.T) {
	r := startMonLab(t)
	before := r.tree(t, "mgmt")
	config := func(extra string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_monitor" "mon" {
  host             = %q
  mgmtd_host       = "meta1"
  conn_auth_secret = %q
  %s
}
`, r.node("mgmt").Host, testSecret, extra)
	}
	steps := []struct {
		extra string
		want  string
	}{
		{`influxdb_port = 0`, `(?s)influxdb_port.*between\s+1\s+and\s+65535`},
		{`mgmtd_port = 80`, `(?s)mgmtd_port.*between\s+1024\s+and\s+65535`},
		{`influxdb_database = "beegfs mon"`, `(?s)Attribute influxdb_database.*influxdb_database\s+"beegfs\s+mon"`},
		{`influxdb_host = "influx db"`, `(?s)Attribute influxdb_host.*want\s+a\s+host\s+name`},
		{`influxdb_host = "ftp://influx"`, `(?s)Attribute influxdb_host.*http://\s+or\s+https://`},
		{`settings = { dbHostName = "other" }`, `(?s)Attribute settings.*set\s+by\s+influxdb_host`},
		{`settings = { dbType = "cassandra" }`, `(?s)Attribute settings.*"dbType"`},
		{`influxdb_username = "beegfs_mon"`, `(?s)Missing InfluxDB Password.*Attribute influxdb_username`},
		{`influxdb_password = "secret-password"`, `(?s)influxdb_username.*must\s+be\s+specified`},
		{"influxdb_username = \"beegfs_mon\"\n  influxdb_password = \"trailing-blank \"", `(?s)Attribute influxdb_password.*value\s+not\s+shown`},
		{"influxdb_username = \"beegfs_mon\"\n  influxdb_password_file = \"/nonexistent/influx-password\"",
			`(?s)Unreadable Password File.*Attribute influxdb_password_file`},
		{"influxdb_username = \"beegfs_mon\"\n  influxdb_password = \"a\"\n  influxdb_password_file = \"/x\"",
			`(?s)influxdb_password_file.*cannot\s+be\s+specified\s+when`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: config(s.extra), ExpectError: regexp.MustCompile(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: nodeProviderFactories, Steps: ts})
	if err := sameTree(before, r.tree(t, "mgmt")); err != nil {
		t.Errorf("mgmt touched by failed plans: %v", err)
	}
	if cmds := r.commands(t, "mgmt"); len(cmds) > 0 {
		t.Errorf("mgmt ran commands: %v", cmds)
	}
}

// TestBeegfsMonitorSchemaSecrets: the password is write-only and
// sensitive; the file path and the hash are not secrets.
func TestBeegfsMonitorSchemaSecrets(t *testing.T) {
	var resp fwresource.SchemaResponse
	NewBeegfsMonitorResource().Schema(context.Background(), fwresource.SchemaRequest{}, &resp)
	pw, ok := resp.Schema.Attributes["influxdb_password"].(schema.StringAttribute)
	if !ok || !pw.Sensitive || !pw.WriteOnly || pw.Required {
		t.Errorf("influxdb_password %+v: want optional, sensitive and write-only", pw)
	}
	if h := resp.Schema.Attributes["influxdb_password_hash"]; h == nil || !h.IsComputed() || h.IsOptional() {
		t.Errorf("influxdb_password_hash %+v: want computed only", h)
	}
}
