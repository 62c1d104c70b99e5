package beegfs

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

func monitor() Monitor {
	return Monitor{MgmtdHost: "meta1", MgmtdPort: DefaultMgmtPort, DBHost: DefaultMonDBHost, DBPort: DefaultMonDBPort,
		DBDatabase: DefaultMonDatabase, Auth: auth}
}

func TestMonitor(t *testing.T) {
	m := monitor()
	m.Settings = map[string]string{"collectClientOpsByUser": "false", "statsRequestIntervalSecs": "10"}
	items, err := m.Items()
	if err != nil {
		t.Fatal(err)
	}
	valid(t, items)
	if len(items) != 3 {
		t.Fatalf("%d items, want conn auth, conf, service: %+v", len(items), items)
	}
	conn := items[0].File
	if conn.Path != "/etc/beegfs/beegfs-mon-conn.auth" || conn.Mode != "0400" || conn.Owner != "root" || *conn.Content != auth.Secret+"\n" ||
		strings.Join(conn.Notify, ",") != "beegfs-mon" {
		t.Errorf("conn auth %+v", conn)
	}
	f := items[1].File
	want := map[string]protocol.Scalar{"sysMgmtdHost": "meta1", "connMgmtdPortTCP": "8008", "connMgmtdPortUDP": "8008",
		"connAuthFile": "/etc/beegfs/beegfs-mon-conn.auth", "dbType": "influxdb", "dbHostName": "localhost", "dbHostPort": "8086",
		"dbDatabase": "beegfs_mon", "dbAuthFile": "", "collectClientOpsByUser": "false", "statsRequestIntervalSecs": "10"}
	if f.Path != "/etc/beegfs/beegfs-mon.conf" || f.Content != nil || len(f.Set) != len(want) || strings.Join(f.Notify, ",") != "beegfs-mon" {
		t.Errorf("conf %+v", f)
	}
	for k, v := range want {
		if f.Set[k] != v {
			t.Errorf("conf %s = %q, want %q", k, f.Set[k], v)
		}
	}
	if s := items[2].Service; s == nil || s.Name != "beegfs-mon" || s.State != "started" || s.Enabled == nil || !*s.Enabled {
		t.Errorf("service %+v", items[2])
	}
}

func TestMonitorDBAuth(t *testing.T) {
	m := monitor()
	m.DBHost, m.DBPort, m.DBDatabase = "https://influx.example.org", 443, "r1_mon"
	m.DBAuth = &MonDBAuth{Username: "beegfs_mon", Password: "p=ss #word"}
	items, err := m.Items()
	if err != nil {
		t.Fatal(err)
	}
	valid(t, items)
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	set := items[1].File.Set
	if set["dbAuthFile"] != "/etc/beegfs/beegfs-mon.auth" || set["dbHostName"] != "https://influx.example.org" || set["dbHostPort"] != "443" ||
		set["dbDatabase"] != "r1_mon" {
		t.Errorf("conf %v", set)
	}
	a := items[2].File
	// '=' and '#' inside a value are kept: beegfs-mon splits at the first
	// '=' and only skips lines that start with '#'.
	if a.Path != "/etc/beegfs/beegfs-mon.auth" || a.Mode != "0400" || a.Owner != "root" || a.Group != "root" || !a.Sensitive ||
		!strings.HasSuffix(*a.Content, "\nusername = beegfs_mon\npassword = p=ss #word\n") || !strings.HasPrefix(*a.Content, "# ") ||
		strings.Join(a.Notify, ",") != "beegfs-mon" {
		t.Errorf("db auth %+v %q", a, *a.Content)
	}
	if items[3].Service.Name != "beegfs-mon" {
		t.Errorf("last item %+v", items[3])
	}

	// Refreshes: mode and owner only, no content; the password is not
	// needed (nor checked).
	m.DBAuth = &MonDBAuth{Username: "beegfs_mon", Unread: true}
	m.Auth = Auth{Unread: true}
	items, err = m.Items()
	if err != nil {
		t.Fatal(err)
	}
	valid(t, items)
	if a := items[2].File; a.Content != nil || a.Mode != "0400" || !a.Sensitive || items[0].File.Content != nil {
		t.Errorf("unread items %+v %+v", items[0].File, a)
	}
}

func TestMonitorInvalid(t *testing.T) {
	const secret = "s3cret with\nnewline"
	tests := []struct {
		name string
		edit func(*Monitor)
		want string
	}{
		{"mgmtd host", func(m *Monitor) { m.MgmtdHost = "meta 1" }, "mgmtd_host"},
		{"mgmtd port", func(m *Monitor) { m.MgmtdPort = 80 }, "mgmtd_port"},
		{"db host", func(m *Monitor) { m.DBHost = "influx/db" }, "influxdb_host"},
		{"db host scheme", func(m *Monitor) { m.DBHost = "ftp://influx" }, "influxdb_host"},
		{"db host empty", func(m *Monitor) { m.DBHost = "" }, "influxdb_host"},
		{"db port", func(m *Monitor) { m.DBPort = 0 }, "influxdb_port"},
		{"db port high", func(m *Monitor) { m.DBPort = 70000 }, "influxdb_port"},
		{"database", func(m *Monitor) { m.DBDatabase = "beegfs mon;" }, "influxdb_database"},
		{"database empty", func(m *Monitor) { m.DBDatabase = "" }, "influxdb_database"},
		{"secret", func(m *Monitor) { m.Auth = Auth{Secret: "short"} }, "conn_auth_secret"},
		{"username", func(m *Monitor) { m.DBAuth = &MonDBAuth{Username: " admin", Password: "x"} }, "influxdb_username"},
		{"no username", func(m *Monitor) { m.DBAuth = &MonDBAuth{Password: "x"} }, "influxdb_username"},
		{"no password", func(m *Monitor) { m.DBAuth = &MonDBAuth{Username: "admin"} }, "influxdb_password"},
		{"password", func(m *Monitor) { m.DBAuth = &MonDBAuth{Username: "admin", Password: secret} }, "influxdb_password"},
		{"password blanks", func(m *Monitor) { m.DBAuth = &MonDBAuth{Username: "admin", Password: "pw "} }, "influxdb_password"},
		{"owned key", func(m *Monitor) { m.Settings = map[string]string{"dbHostName": "other"} }, "settings key \"dbHostName\": set by influxdb_host"},
		{"db type", func(m *Monitor) { m.Settings = map[string]string{"dbType": "cassandra"} }, "settings key \"dbType\""},
		{"bad key", func(m *Monitor) { m.Settings = map[string]string{"bad key": "1"} }, "settings key"},
		{"bad value", func(m *Monitor) { m.Settings = map[string]string{"logLevel": "3\n4"} }, "settings[\"logLevel\"]"},
	}
	for _, tc := range tests {
		m := monitor()
		tc.edit(&m)
		_, err := m.Items()
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "), tc.want) {
			t.Errorf("%s: %v, want an error starting with %s", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
	if err := CheckMonPassword("ok-password"); err != nil {
		t.Errorf("good password: %v", err)
	}
	if err := CheckMonPassword(secret); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("bad password: %v", err)
	}
}
