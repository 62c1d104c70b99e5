package beegfs

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

const (
	testCert    = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n"
	testKey     = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIA\n-----END EC PRIVATE KEY-----\n"
	testLicense = "-----BEGIN CERTIFICATE-----\nMIIlicense\n-----END CERTIFICATE-----\n"
)

func mgmtd8() Management8 {
	return Management8{Directory: "/data/mdt01/mgmtd", BeeMsgPort: 8008, GRPCPort: 8010, Auth: Auth{Secret: "0123456789abcdef0123"},
		TLS: TLS{Cert: PEM{Text: testCert}, Key: PEM{Text: testKey}, Given: true, KeyGiven: true}, License: PEM{Text: testLicense}, LicenseGiven: true}
}

// mgmtdConfig mirrors the keys of beegfs-mgmtd's config struct that the
// renderer may write (ThinkParQ/beegfs-rust mgmtd/src/config.rs); the
// decode refuses any other key, as the daemon's deny_unknown_fields does.
type mgmtdConfig struct {
	DBFile                  string `toml:"db-file"`
	BeemsgPort              int    `toml:"beemsg-port"`
	GRPCPort                int    `toml:"grpc-port"`
	TLSDisable              bool   `toml:"tls-disable"`
	TLSCertFile             string `toml:"tls-cert-file"`
	TLSKeyFile              string `toml:"tls-key-file"`
	AuthDisable             bool   `toml:"auth-disable"`
	AuthFile                string `toml:"auth-file"`
	LicenseCertFile         string `toml:"license-cert-file"`
	NodeOfflineTimeout      string `toml:"node-offline-timeout"`
	QuotaEnable             bool   `toml:"quota-enable"`
	QuotaEnforce            bool   `toml:"quota-enforce"`
	QuotaUserIDsRange       string `toml:"quota-user-ids-range"`
	LogLevel                string `toml:"log-level"`
	ConnectionLimit         int    `toml:"connection-limit"`
	ClientAutoRemoveTimeout string `toml:"client-auto-remove-timeout"`
}

func decodeStrict(t *testing.T, text string) mgmtdConfig {
	t.Helper()
	var c mgmtdConfig
	md, err := toml.Decode(text, &c)
	if err != nil {
		t.Fatalf("TOML does not parse: %v\n%s", err, text)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("keys beegfs-mgmtd does not know: %v\n%s", u, text)
	}
	return c
}

func TestMgmtd8TOMLParsesBack(t *testing.T) {
	m := mgmtd8()
	m.Settings = map[string]string{"quota-enable": "true", "quota-enforce": "true", "quota-user-ids-range": "1000-1100",
		"log-level": "info", "connection-limit": "24", "client-auto-remove-timeout": "1h30m"}
	text, err := m.TOML()
	if err != nil {
		t.Fatal(err)
	}
	c := decodeStrict(t, text)
	want := mgmtdConfig{DBFile: "/data/mdt01/mgmtd/mgmtd.sqlite", BeemsgPort: 8008, GRPCPort: 8010, TLSCertFile: TLSCertFile,
		TLSKeyFile: TLSKeyFile, AuthFile: "/etc/beegfs/beegfs-mgmtd.auth", LicenseCertFile: LicenseFile, NodeOfflineTimeout: "900s",
		QuotaEnable: true, QuotaEnforce: true, QuotaUserIDsRange: "1000-1100", LogLevel: "info", ConnectionLimit: 24,
		ClientAutoRemoveTimeout: "1h30m"}
	if c != want {
		t.Errorf("decoded\n%+v\nwant\n%+v", c, want)
	}
	// A directory with characters TOML must escape still round-trips.
	m = mgmtd8()
	m.Directory = `/data/a"b\c`
	m.Settings = nil
	text, err = m.TOML()
	if err != nil {
		t.Fatal(err)
	}
	if c := decodeStrict(t, text); c.DBFile != `/data/a"b\c/mgmtd.sqlite` {
		t.Errorf("db-file %q", c.DBFile)
	}
}

func TestMgmtd8TLSDisabled(t *testing.T) {
	m := mgmtd8()
	m.TLS = TLS{Disable: true}
	items, err := m.Items()
	if err != nil {
		t.Fatal(err)
	}
	var conf string
	for _, it := range items {
		if it.File != nil && (it.File.Path == TLSCertFile || it.File.Path == TLSKeyFile) {
			t.Errorf("TLS disabled but %s rendered", it.File.Path)
		}
		if it.File != nil && it.File.Path == MgmtdTOML {
			conf = *it.File.Content
		}
	}
	c := decodeStrict(t, conf)
	if !c.TLSDisable || c.TLSCertFile != "" {
		t.Errorf("tls-disable %v cert %q", c.TLSDisable, c.TLSCertFile)
	}
}

func TestMgmtd8Items(t *testing.T) {
	items, err := mgmtd8().Items()
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]string{}
	var init *protocol.Command
	for _, it := range items {
		if it.File != nil {
			modes[it.File.Path] = it.File.Mode
		}
		if it.Command != nil {
			init = it.Command
		}
	}
	for p, m := range map[string]string{"/etc/beegfs/beegfs-mgmtd.auth": "0400", TLSKeyFile: "0400", LicenseFile: "0400", TLSCertFile: "0644", MgmtdTOML: "0644"} {
		if modes[p] != m {
			t.Errorf("%s mode %q, want %s", p, modes[p], m)
		}
	}
	if init == nil || init.Creates != "/data/mdt01/mgmtd/mgmtd.sqlite" || !strings.Contains(strings.Join(init.Argv, " "), "--config-file="+MgmtdTOML) {
		t.Fatalf("init step %+v", init)
	}
	if last := items[len(items)-1]; last.Service == nil || last.Service.Name != "beegfs-mgmtd" {
		t.Errorf("last item %+v", last)
	}
}

// Refusals name their attribute through a location, never the message.
func TestMgmtd8Refusals(t *testing.T) {
	cases := []struct {
		name string
		edit func(m *Management8)
		at   string
	}{
		{"no license", func(m *Management8) { m.License, m.LicenseGiven = PEM{}, false }, "license_pem"},
		{"license not PEM", func(m *Management8) { m.License = PEM{Text: "trial"} }, "license_pem"},
		{"no TLS", func(m *Management8) { m.TLS = TLS{} }, "tls_cert_pem"},
		{"no key", func(m *Management8) { m.TLS.Key, m.TLS.KeyGiven = PEM{}, false }, "tls_key_pem"},
		{"key is a cert", func(m *Management8) { m.TLS.Key = PEM{Text: testCert} }, "tls_key_pem"},
		{"cert and disable", func(m *Management8) { m.TLS.Disable = true }, "tls_disable"},
		{"unknown key", func(m *Management8) { m.Settings = map[string]string{"storeMgmtdDirectory": "/x"} }, `settings["storeMgmtdDirectory"]`},
		{"owned key", func(m *Management8) { m.Settings = map[string]string{"grpc-port": "9000"} }, `settings["grpc-port"]`},
		{"bad bool", func(m *Management8) { m.Settings = map[string]string{"quota-enable": "yes"} }, `settings["quota-enable"]`},
		{"bad duration", func(m *Management8) { m.Settings = map[string]string{"node-offline-timeout": "900"} }, `settings["node-offline-timeout"]`},
		{"same ports", func(m *Management8) { m.GRPCPort = 8008 }, "grpc_port"},
		{"short secret", func(m *Management8) { m.Auth.Secret = "short" }, "conn_auth_secret"},
	}
	for _, c := range cases {
		m := mgmtd8()
		c.edit(&m)
		_, err := m.Items()
		le, ok := located.Find(err)
		if !ok || le.Path.String() != c.at || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want an error located at %s", c.name, err, c.at)
		}
	}
	// A refresh renders without the write-only inputs.
	m := mgmtd8()
	m.Auth, m.License, m.TLS.Key = Auth{Unread: true}, PEM{Unread: true}, PEM{Unread: true}
	if _, err := m.Items(); err != nil {
		t.Errorf("unread inputs: %v", err)
	}
}

func TestVersionRules(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{{"7.2", "7.4", true}, {"7.4", "8", true}, {"", "7.4", true}, {"7.2", "8", false}, {"", "8", false}, {"8", "7.4", false}, {"7.4", "7.2", false}} {
		err := CheckUpgrade(c.from, c.to)
		if (err == nil) != c.ok {
			t.Errorf("%q -> %q: %v", c.from, c.to, err)
		}
		if le, ok := located.Find(err); err != nil && (!ok || le.Path.String() != "version") {
			t.Errorf("%q -> %q not located at version: %v", c.from, c.to, err)
		}
	}
	if CheckMix("7.4", "8", "x") == nil || CheckMix("8", "", "x") == nil || CheckMix("7.2", "7.4", "x") != nil {
		t.Error("CheckMix: 7.x and 8 must clash, 7.2 and 7.4 not")
	}
	if CheckVersion("9") == nil || CheckVersion("") != nil {
		t.Error("CheckVersion")
	}
}

func confOf(t *testing.T, items []protocol.Item, suffix string) map[string]string {
	t.Helper()
	for _, it := range items {
		if it.File == nil || !strings.HasSuffix(it.File.Path, suffix) {
			continue
		}
		out := map[string]string{}
		if it.File.Content != nil {
			for _, l := range strings.Split(*it.File.Content, "\n") {
				if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
					out[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
		}
		for k, v := range it.File.Set {
			out[k] = string(v)
		}
		return out
	}
	t.Fatalf("no %s", suffix)
	return nil
}

// Version 8 services use one key per port; 7.x keeps TCP and UDP keys.
func TestV8PortKeys(t *testing.T) {
	auth := Auth{Secret: "0123456789abcdef0123"}
	for _, v := range []string{"", "7.4", "8"} {
		meta, err := Metadata{MgmtdHost: "m", MgmtdPort: 8008, Auth: auth, Version: v,
			Instances: []MetaInstance{{Name: "a", Directory: "/data/a/meta", NodeID: 1, Port: 8005}}}.Items()
		if err != nil {
			t.Fatal(err)
		}
		stor, err := Storage{MgmtdHost: "m", MgmtdPort: 8008, Auth: auth, Version: v, NodeID: 1, Port: 8003,
			Targets: []StorageTarget{{ID: 1, Directory: "/data/s/storage", Pool: 1}}}.Items()
		if err != nil {
			t.Fatal(err)
		}
		cli, err := Client{MgmtdHost: "m", MgmtdPort: 8008, Auth: auth, MountPoint: "/mnt/beegfs", CacheType: "buffered", Release: v}.Items()
		if err != nil {
			t.Fatal(err)
		}
		for what, conf := range map[string]map[string]string{"meta": confOf(t, meta, "beegfs-meta.conf"),
			"storage": confOf(t, stor, "beegfs-storage.conf"), "client": confOf(t, cli, "beegfs-client.conf")} {
			_, v7 := conf["connMgmtdPortTCP"]
			_, v8 := conf["connMgmtdPort"]
			if v7 == IsV8(v) || v8 != IsV8(v) {
				t.Errorf("version %q %s: mgmtd port keys %v", v, what, conf)
			}
		}
		for _, it := range stor {
			if it.File != nil && strings.HasSuffix(it.File.Path, "beegfs-storage.conf") && (it.File.Content != nil) != IsV8(v) {
				t.Errorf("version %q: 8 writes the whole storage config (no 7.x key survives), 7.x overlays it: %+v", v, it.File)
			}
		}
		helperd := false
		for _, it := range cli {
			helperd = helperd || it.Service != nil && it.Service.Name == "beegfs-helperd"
		}
		if helperd == IsV8(v) {
			t.Errorf("version %q: helperd %v", v, helperd)
		}
	}
}

func TestV8MirrorAndStripeCommands(t *testing.T) {
	g := MirrorGroup{NodeType: MirrorStorage, GroupID: 1, Primary: MirrorMember{ID: 101, SizeBytes: 1, Pool: 1},
		Secondary: MirrorMember{ID: 102, SizeBytes: 1, Pool: 1}, Version: Version8}
	if got := strings.Join(g.AddArgv(), " "); got != "beegfs --tls-cert-file=/etc/beegfs/cert.pem mirror create storage_group_1 --node-type=storage --primary=storage:101 --secondary=storage:102 --num-id=1" {
		t.Errorf("create argv %q", got)
	}
	// beegfs mirror list's table (beegfs-go buddygroup/list.go columns).
	list := "ALIAS            ID   TYPE     PRIMARY_TARGET  PRIMARY_CONSISTENCY  SECONDARY_TARGET  SECONDARY_CONSISTENCY\n" +
		"storage_group_1  s:1  storage  s:102           good                 s:101             good\n"
	groups, err := ParseMirrorGroups(list)
	if err != nil || len(groups) != 1 || groups[0] != (ListedGroup{ID: 1, Primary: 102, Secondary: 101}) {
		t.Fatalf("parsed %v %v", groups, err)
	}
	if found, same := g.Listed(groups); !found || !same {
		t.Error("a swapped group is the defined one")
	}
	if !regexp.MustCompile(g.matcher()).MatchString(list) {
		t.Error("matcher misses the swapped group")
	}
	if got := ParseClients("ID   TYPE    ALIAS\nc:1  client  client01\nc:2  client  client02\n"); strings.Join(got, ",") != "client01,client02" {
		t.Errorf("clients %v", got)
	}
	s := Stripe{MountPoint: "/mnt/beegfs", Path: "bench", ChunkSize: 1 << 20, NumTargets: 2, Pool: 1, BuddyMirror: true, Version: Version8}
	if got := strings.Join(s.SetPatternArgv(), " "); got != "beegfs --tls-cert-file=/etc/beegfs/cert.pem entry set --pattern=mirrored --chunk-size=1048576 --num-targets=2 --pool=1 /mnt/beegfs/bench" {
		t.Errorf("entry set %q", got)
	}
	// beegfs entry info --retro prints IEC prefixes (beegfs-go entry/info.go).
	retro := "Entry type: directory\nStripe pattern details:\n+ Type: Buddy Mirror\n+ Chunksize: 1Mi\n" +
		"+ Number of storage targets: desired: 2\n+ Storage Pool: 1  (default)\n"
	for _, m := range s.Matchers() {
		if !regexp.MustCompile(m).MatchString(retro) {
			t.Errorf("%s does not match the retro output", m)
		}
	}
	p, err := ParseEntryInfo(retro)
	if err != nil || p.ChunkSize != 1<<20 || p.NumTargets != 2 || p.Pool != 1 || !p.IsBuddyMirror() {
		t.Errorf("parsed %+v %v", p, err)
	}
}
