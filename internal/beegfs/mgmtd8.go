package beegfs

// The BeeGFS 8 management service: the Rust beegfs-mgmtd reads
// /etc/beegfs/beegfs-mgmtd.toml (its keys are the long options of
// `beegfs-mgmtd --help`; unknown keys are refused: the config struct is
// deny_unknown_fields, ThinkParQ/beegfs-rust mgmtd/src/config.rs), keeps
// its state in one SQLite file created once by `beegfs-mgmtd --init`, or
// by `--import-from-v7=<dir>` from a 7.x store, serves gRPC (8010) with TLS
// unless tls-disable, requires connection authentication unless
// auth-disable, and loads a license certificate. There is no
// beegfs-setup-mgmtd any more.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Files of a BeeGFS 8 management service (the package's defaults).
const (
	MgmtdTOML       = ConfDir + "/beegfs-mgmtd.toml"
	MgmtdBinary     = SetupDir + "/beegfs-mgmtd"
	TLSCertFile     = ConfDir + "/cert.pem"
	TLSKeyFile      = ConfDir + "/key.pem"
	LicenseFile     = ConfDir + "/license.pem"
	MgmtdDBName     = "mgmtd.sqlite"
	DefaultGRPCPort = 8010
	// V7FormatFile marks a 7.x management store: its presence makes the
	// one-time step an import instead of a new database.
	V7FormatFile = "format.conf"
)

// PEM is a certificate, key or license given as text. Unread renders the
// file with mode and owner only (refresh: write-only inputs are not in
// state).
type PEM struct {
	Text   string
	Unread bool
}

var rePEM = regexp.MustCompile(`(?s)^\s*-----BEGIN ([A-Z0-9 ]+)-----\r?\n.+\r?\n-----END ([A-Z0-9 ]+)-----\s*$`)

// checkPEM refuses text that is no PEM block of the kind want names
// ("CERTIFICATE", "PRIVATE KEY": any key type ends so).
func checkPEM(at located.Path, p PEM, want string) error {
	if p.Unread {
		return nil
	}
	m := rePEM.FindStringSubmatch(p.Text)
	if m == nil || m[1] != m[2] || !strings.HasSuffix(m[1], want) {
		return located.Errorf(at, "%w: want a PEM %s block (-----BEGIN ...%s-----)", ErrInvalid, want, want)
	}
	return nil
}

// TLS is the gRPC TLS of the management service. Disable must be set
// explicitly: without it a certificate and key are required (they are
// never generated here).
type TLS struct {
	Disable bool
	Cert    PEM
	Key     PEM
	// Given and KeyGiven report whether the certificate and the key were
	// supplied (or, on a refresh, were when applied).
	Given, KeyGiven bool
}

// Management8 is beegfs-mgmtd of BeeGFS 8 on one node.
type Management8 struct {
	// Directory holds the SQLite store (R1: a folder of metadata target
	// 1, so the store moves with the target under HA). A 7.x store in it
	// (format.conf) is imported once instead of a new database.
	Directory  string
	BeeMsgPort int
	GRPCPort   int
	Auth       Auth
	TLS        TLS
	License    PEM
	// LicenseGiven is false when no license was supplied.
	LicenseGiven bool
	Settings     map[string]string
}

// DBFile is the SQLite store.
func (m Management8) DBFile() string { return m.Directory + "/" + MgmtdDBName }

// mgmtdKinds are the TOML keys settings may set, with their value kinds;
// keys set from attributes are not among them.
var mgmtdKinds = map[string]string{
	"log-target": "target", "log-level": "level", "ipv6-disable": "bool", "connection-limit": "int",
	"registration-disable": "bool", "node-offline-timeout": "duration", "client-auto-remove-timeout": "duration",
	"license-lib-file": "path", "max-blocking-threads": "int", "quota-enable": "bool", "quota-enforce": "bool",
	"quota-update-interval": "duration", "quota-user-system-ids-min": "int", "quota-user-ids-file": "path",
	"quota-user-ids-range": "range", "quota-group-system-ids-min": "int", "quota-group-ids-file": "path",
	"quota-group-ids-range": "range",
}

// mgmtdOwned are keys attributes set: refused in settings.
var mgmtdOwned = map[string]string{"db-file": "directory", "beemsg-port": "port", "grpc-port": "grpc_port",
	"tls-disable": "tls_disable", "tls-cert-file": "tls_cert_pem", "tls-key-file": "tls_key_pem", "auth-disable": "conn_auth_secret",
	"auth-file": "conn_auth_secret", "license-cert-file": "license_pem"}

// Mgmtd8Settings are the defaults settings override: the R1 offline
// timeout of the 7.x services (sysTargetOfflineTimeoutSecs = 900), which
// must be the same on every node.
var Mgmtd8Settings = map[string]string{"node-offline-timeout": "900s"}

// MgmtdSettingKeys lists the keys settings may set, for docs.
func MgmtdSettingKeys() []string {
	out := make([]string, 0, len(mgmtdKinds))
	for k := range mgmtdKinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var (
	reRange = regexp.MustCompile(`^\d+-\d+$`)
	reDurTo = regexp.MustCompile(`^(\d+(ms|s|m|h|d))+$`)
)

// tomlValue renders one setting as a TOML value of its kind.
func tomlValue(at located.Path, key, v string) (string, error) {
	kind, ok := mgmtdKinds[key]
	if !ok {
		if attr, own := mgmtdOwned[key]; own {
			return "", located.Errorf(at, "%w: %s is set by the %s attribute", ErrInvalid, key, attr)
		}
		return "", located.Errorf(at, "%w: %q is no beegfs-mgmtd setting (beegfs-mgmtd refuses unknown keys); want one of %s",
			ErrInvalid, key, strings.Join(MgmtdSettingKeys(), ", "))
	}
	bad := func(want string) error {
		return located.Errorf(at, "%w: %s = %q: want %s", ErrInvalid, key, v, want)
	}
	switch kind {
	case "bool":
		if v != "true" && v != "false" {
			return "", bad("true or false")
		}
		return v, nil
	case "int":
		if n, err := strconv.ParseUint(v, 10, 32); err != nil || n == 0 && key == "connection-limit" {
			return "", bad("a positive whole number")
		}
		return v, nil
	case "duration":
		if !reDurTo.MatchString(v) {
			return "", bad(`a duration like "180s", "30m" or "1h"`)
		}
		return tomlString(v), nil
	case "range":
		if !reRange.MatchString(v) {
			return "", bad(`a range like "1000-1100"`)
		}
		return tomlString(v), nil
	case "level":
		if !contains([]string{"error", "warn", "info", "debug", "trace"}, v) {
			return "", bad("error, warn, info, debug or trace")
		}
		return tomlString(v), nil
	case "target":
		if v != "journald" && v != "stderr" {
			return "", bad("journald or stderr")
		}
		return tomlString(v), nil
	}
	if err := absPath(key, v); err != nil {
		return "", bad("an absolute path")
	}
	return tomlString(v), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Validate checks what beegfs-mgmtd would refuse at start, and what
// BeeGFS 8 needs before it: a license, and TLS material unless TLS is
// disabled explicitly.
func (m Management8) Validate() error {
	if err := absPath("directory", m.Directory); err != nil {
		return located.Wrap(located.At("directory"), err)
	}
	if err := checkPort("port", m.BeeMsgPort); err != nil {
		return located.Wrap(located.At("port"), err)
	}
	if err := checkPort("grpc_port", m.GRPCPort); err != nil {
		return located.Wrap(located.At("grpc_port"), err)
	}
	if m.GRPCPort == m.BeeMsgPort {
		return located.Errorf(located.At("grpc_port"), "%w: %d is also the BeeMsg port", ErrInvalid, m.GRPCPort)
	}
	if err := m.Auth.validate(); err != nil {
		return located.Wrap(located.At("conn_auth_secret"), err)
	}
	if !m.LicenseGiven {
		return located.Errorf(located.At("license_pem"), "%w: BeeGFS 8 enforces a license: set license_pem or license_file "+
			"(the license.pem ThinkParQ issued, a trial or community one included)", ErrInvalid)
	}
	if err := checkPEM(located.At("license_pem"), m.License, "CERTIFICATE"); err != nil {
		return err
	}
	if m.TLS.Disable {
		if m.TLS.Given || m.TLS.KeyGiven {
			return located.Errorf(located.At("tls_disable"), "%w: TLS is disabled but a certificate is given: unset one", ErrInvalid)
		}
	} else {
		if !m.TLS.Given {
			return located.Errorf(located.At("tls_cert_pem"), "%w: BeeGFS 8 serves gRPC with TLS: give the certificate and key "+
				"(tls_cert_pem or tls_cert_file, tls_key_pem or tls_key_file, e.g. from the tls provider; none is generated), "+
				"or set tls_disable = true", ErrInvalid)
		}
		if !m.TLS.KeyGiven {
			return located.Errorf(located.At("tls_key_pem"), "%w: the certificate's private key is missing: set tls_key_pem "+
				"or tls_key_file", ErrInvalid)
		}
		if err := checkPEM(located.At("tls_cert_pem"), m.TLS.Cert, "CERTIFICATE"); err != nil {
			return err
		}
		if err := checkPEM(located.At("tls_key_pem"), m.TLS.Key, "PRIVATE KEY"); err != nil {
			return err
		}
	}
	for _, k := range sortedStringKeys(m.Settings) {
		if _, err := tomlValue(located.At("settings").Key(k), k, m.Settings[k]); err != nil {
			return err
		}
	}
	return nil
}

// TOML renders the config file, keys sorted.
func (m Management8) TOML() (string, error) {
	if err := m.Validate(); err != nil {
		return "", err
	}
	kv := map[string]string{
		"db-file": tomlString(m.DBFile()), "beemsg-port": itoa(m.BeeMsgPort), "grpc-port": itoa(m.GRPCPort),
		"tls-disable": strconv.FormatBool(m.TLS.Disable), "auth-disable": "false", "auth-file": tomlString(authPath("beegfs-mgmtd")),
		"license-cert-file": tomlString(LicenseFile),
	}
	if !m.TLS.Disable {
		kv["tls-cert-file"], kv["tls-key-file"] = tomlString(TLSCertFile), tomlString(TLSKeyFile)
	}
	settings := map[string]string{}
	for k, v := range Mgmtd8Settings {
		settings[k] = v
	}
	for k, v := range m.Settings {
		settings[k] = v
	}
	for k, v := range settings {
		val, err := tomlValue(located.At("settings").Key(k), k, v)
		if err != nil {
			return "", err
		}
		kv[k] = val
	}
	var b strings.Builder
	b.WriteString("# beegfs-mgmtd (BeeGFS 8): managed by hpcstorage; local changes are reverted.\n")
	for _, k := range sortedStringKeys(kv) {
		fmt.Fprintf(&b, "%s = %s\n", k, kv[k])
	}
	return b.String(), nil
}

func sortedStringKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// initScript creates the store once: from the 7.x store in the directory
// when there is one (the 7.4 -> 8 upgrade: a new database there would lose
// every node, target, group and pool), else a new one. beegfs-mgmtd
// refuses either when the database file exists; the item's creates guard
// skips it then.
const mgmtdInitScript = `dir=$1; shift
if [ -e "$dir/` + V7FormatFile + `" ]; then
  exec "$@" --import-from-v7="$dir"
fi
exec "$@" --init`

// InitArgv is the one-time store step.
func (m Management8) InitArgv() []string {
	return []string{"/bin/sh", "-c", mgmtdInitScript, "hpcstorage-mgmtd-init", m.Directory, MgmtdBinary, "--config-file=" + MgmtdTOML}
}

// Items: auth file, TLS certificate and key, license, the TOML config,
// the one-time store step (guarded by the database file) and the service.
// The 7.x config (beegfs-mgmtd.conf) is not rendered: after an upgrade the
// agent puts back what 7.x's resource had overlaid.
func (m Management8) Items() ([]protocol.Item, error) {
	conf, err := m.TOML()
	if err != nil {
		return nil, err
	}
	const unit = "beegfs-mgmtd"
	items := []protocol.Item{authItem(unit, m.Auth)}
	if !m.TLS.Disable {
		items = append(items, pemItem(TLSCertFile, m.TLS.Cert, "0644", unit), pemItem(TLSKeyFile, m.TLS.Key, "0400", unit))
	}
	items = append(items, pemItem(LicenseFile, m.License, "0400", unit),
		protocol.Item{File: &protocol.File{Path: MgmtdTOML, Content: &conf, Mode: "0644", Owner: "root", Group: "root", Notify: []string{unit}}},
		protocol.Item{Command: &protocol.Command{Name: "beegfs-mgmtd-init", Argv: m.InitArgv(), Creates: m.DBFile()}},
		serviceItem(unit))
	return items, nil
}

func pemItem(p string, pem PEM, mode, unit string) protocol.Item {
	f := &protocol.File{Path: p, Mode: mode, Owner: "root", Group: "root", Notify: []string{unit}}
	if !pem.Unread {
		c := strings.TrimSpace(pem.Text) + "\n"
		f.Content = &c
	}
	return protocol.Item{File: f}
}
