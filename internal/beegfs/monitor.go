package beegfs

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// beegfs-mon (BeeGFS 7.x): what the package ships and what it defaults to.
//
// Checked against the BeeGFS sources (ThinkParQ/beegfs: mon/source/app/
// Config.cpp, common MapTk.cpp, the packaged mon/build/dist/etc/
// beegfs-mon.conf and beegfs-mon.auth, and the package spec that installs
// the latter with mode 0600): beegfs-mon.conf names the InfluxDB credentials
// file with `dbAuthFile` (empty: no authentication); the package puts it at
// /etc/beegfs/beegfs-mon.auth. beegfs-mon reads it as `key = value` lines
// (split at the first '=', both sides trimmed, lines starting with '#'
// skipped) and, for InfluxDB 1.x, accepts only the keys `username` and
// `password`; any other key is a config error. So values cannot keep
// leading or trailing blanks and must fit on one line. The InfluxDB 2 setup
// of later releases (dbType = influxdb2, dbBucket, organization and token
// in that file) is not rendered. Not checked against a running beegfs-mon.
const (
	MonService         = "beegfs-mon"
	MonConf            = ConfDir + "/beegfs-mon.conf"
	MonDBAuthFile      = ConfDir + "/beegfs-mon.auth"
	DefaultMonDBHost   = "localhost"
	DefaultMonDBPort   = 8086
	DefaultMonDatabase = "beegfs_mon"
	// MonDBType is the only backend rendered: InfluxDB 1.x.
	MonDBType = "influxdb"
)

// monConnAuthPath is the connAuthFile of beegfs-mon. Not authPath
// ("beegfs-mon.auth"): that name is the package's InfluxDB credentials
// file.
const monConnAuthPath = ConfDir + "/beegfs-mon-conn.auth"

// monOwnedKeys are the config keys attributes set; settings cannot
// override them (key -> attribute).
var monOwnedKeys = map[string]string{
	"sysMgmtdHost":     "mgmtd_host",
	"connMgmtdPortTCP": "mgmtd_port",
	"connMgmtdPortUDP": "mgmtd_port",
	"connMgmtdPort":    "mgmtd_port",
	"connAuthFile":     "conn_auth_secret",
	"dbType":           "the resource (InfluxDB 1.x only)",
	"dbHostName":       "influxdb_host",
	"dbHostPort":       "influxdb_port",
	"dbDatabase":       "influxdb_database",
	"dbAuthFile":       "influxdb_username and influxdb_password",
}

var (
	// InfluxDB 1.x database names: a conservative subset (they go into
	// HTTP query strings and CREATE DATABASE).
	reMonDatabase = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`)
	reURLScheme   = regexp.MustCompile(`^https?://`)
)

// MonDBAuth is the InfluxDB login of beegfs-mon, written to
// MonDBAuthFile (mode 0400). The provider keeps only a hash of Password.
type MonDBAuth struct {
	Username string
	Password string
	// Unread renders the file with mode and owner only (refreshes and
	// plans without the password).
	Unread bool
}

// Monitor is beegfs-mon: it polls mgmtd, meta and storage for statistics
// and writes them to InfluxDB, which ready-made Grafana dashboards read.
type Monitor struct {
	MgmtdHost  string
	MgmtdPort  int
	DBHost     string // name, address or http(s):// URL
	DBPort     int
	DBDatabase string
	// DBAuth is nil for an InfluxDB without authentication.
	DBAuth   *MonDBAuth
	Auth     Auth
	Settings map[string]string
	// Version is the BeeGFS release ("" is the paper's, 7.2).
	Version string
}

// Items: connection auth file, config overlay, the InfluxDB credentials
// file when there is a login, the service. Every file notifies the unit.
func (m Monitor) Items() ([]protocol.Item, error) {
	if err := checkHost("mgmtd_host", m.MgmtdHost); err != nil {
		return nil, err
	}
	if err := checkPort("mgmtd_port", m.MgmtdPort); err != nil {
		return nil, err
	}
	if !reHost.MatchString(reURLScheme.ReplaceAllString(m.DBHost, "")) {
		return nil, fmt.Errorf("%w: influxdb_host %q: want a host name or address, or an http:// or https:// URL of one", ErrInvalid, m.DBHost)
	}
	if m.DBPort < 1 || m.DBPort > 65535 {
		return nil, fmt.Errorf("%w: influxdb_port %d: want 1 to 65535", ErrInvalid, m.DBPort)
	}
	if !reMonDatabase.MatchString(m.DBDatabase) {
		return nil, fmt.Errorf("%w: influxdb_database %q: want 1-64 of A-Z a-z 0-9 _ . - starting with a letter or _", ErrInvalid, m.DBDatabase)
	}
	if err := m.Auth.validate(); err != nil {
		return nil, err
	}
	if err := m.DBAuth.validate(); err != nil {
		return nil, err
	}
	for k := range m.Settings {
		if attr, owned := monOwnedKeys[k]; owned {
			return nil, fmt.Errorf("%w: settings key %q: set by %s, not by settings", ErrInvalid, k, attr)
		}
	}
	dbAuthFile := ""
	if m.DBAuth != nil {
		dbAuthFile = MonDBAuthFile
	}
	base := map[string]string{"sysMgmtdHost": m.MgmtdHost, "connAuthFile": monConnAuthPath, "dbType": MonDBType, "dbHostName": m.DBHost,
		"dbHostPort": itoa(m.DBPort), "dbDatabase": m.DBDatabase, "dbAuthFile": dbAuthFile}
	portKeys(m.Version, "Mgmtd", m.MgmtdPort, base)
	conf, err := merge(base, m.Settings)
	if err != nil {
		return nil, err
	}
	conn := authItem(MonService, m.Auth)
	conn.File.Path = monConnAuthPath
	items := []protocol.Item{
		conn,
		confFile(m.Version, MonConf, MonService, conf),
	}
	if m.DBAuth != nil {
		items = append(items, m.DBAuth.item())
	}
	return append(items, serviceItem(MonService)), nil
}

// validate checks the login; the password is never put in an error.
func (a *MonDBAuth) validate() error {
	if a == nil {
		return nil
	}
	if a.Username == "" {
		return fmt.Errorf("%w: influxdb_username: required with influxdb_password", ErrInvalid)
	}
	if !authValue(a.Username) {
		return fmt.Errorf("%w: influxdb_username %q: one line of printable characters without leading or trailing blanks "+
			"(beegfs-mon trims them)", ErrInvalid, a.Username)
	}
	if a.Unread {
		return nil
	}
	if a.Password == "" {
		return fmt.Errorf("%w: influxdb_password: required with influxdb_username (or influxdb_password_file)", ErrInvalid)
	}
	if !authValue(a.Password) {
		return fmt.Errorf("%w: influxdb_password: one line of printable characters without leading or trailing blanks "+
			"(beegfs-mon trims them); value not shown", ErrInvalid)
	}
	return nil
}

// CheckMonPassword validates a password on its own (for plan-time checks
// of a write-only value); the error never shows it.
func CheckMonPassword(p string) error {
	return (&MonDBAuth{Username: "x", Password: p}).validate()
}

func authValue(s string) bool {
	if len(s) > 1024 || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

func (a *MonDBAuth) item() protocol.Item {
	f := &protocol.File{Path: MonDBAuthFile, Mode: "0400", Owner: "root", Group: "root", Notify: []string{MonService}, Sensitive: true}
	if !a.Unread {
		content := "# beegfs-mon InfluxDB login (dbAuthFile): managed by hpcstorage; local changes are reverted.\n" +
			"username = " + a.Username + "\npassword = " + a.Password + "\n"
		f.Content = &content
	}
	return protocol.Item{File: f}
}
