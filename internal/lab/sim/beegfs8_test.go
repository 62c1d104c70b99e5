package sim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

const (
	b8Cert    = "-----BEGIN CERTIFICATE-----\nMIIBsim\n-----END CERTIFICATE-----\n"
	b8Key     = "-----BEGIN PRIVATE KEY-----\nMIIEsim\n-----END PRIVATE KEY-----\n"
	b8License = "-----BEGIN CERTIFICATE-----\nMIIlicense\n-----END CERTIFICATE-----\n"
	b8Secret  = "0123456789abcdef-secret"
)

// b8Nodes seeds a management server and a client sharing one lab.
func b8Nodes(t *testing.T) (mgmt, client *node) {
	t.Helper()
	shared := t.TempDir()
	var nodes []*node
	for _, h := range []string{"meta1", "client01"} {
		dir := t.TempDir()
		profile := fakenode.Metadata
		if h == "client01" {
			profile = fakenode.Client
		}
		if err := fakenode.SeedWith(dir, profile, fakenode.Options{Hostname: h, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, newNodeAt(t, dir))
	}
	return nodes[0], nodes[1]
}

// writeFiles writes the file items the agent would.
func (n *node) writeFiles(items []protocol.Item) {
	n.t.Helper()
	for _, it := range items {
		if it.File != nil && it.File.Content != nil {
			n.write(strings.TrimPrefix(it.File.Path, "/"), *it.File.Content)
		}
	}
}

func mgmtd8Items(t *testing.T, dir string, tlsOff bool) (beegfs.Management8, []protocol.Item) {
	t.Helper()
	m := beegfs.Management8{Directory: dir, BeeMsgPort: 8008, GRPCPort: 8010, Auth: beegfs.Auth{Secret: b8Secret},
		License: beegfs.PEM{Text: b8License}, LicenseGiven: true,
		TLS: beegfs.TLS{Cert: beegfs.PEM{Text: b8Cert}, Key: beegfs.PEM{Text: b8Key}, Given: true, KeyGiven: true}}
	if tlsOff {
		m.TLS = beegfs.TLS{Disable: true}
	}
	items, err := m.Items()
	if err != nil {
		t.Fatal(err)
	}
	return m, items
}

// The management daemon of BeeGFS 8: its store is created once, it starts
// only with its config, store, TLS material and license, and the beegfs
// command reaches it only with the right certificate and secret.
func TestBeegfs8Mgmtd(t *testing.T) {
	mgmt, client := b8Nodes(t)
	m, items := mgmtd8Items(t, "/data/mdt01/mgmtd", false)
	mgmt.writeFiles(items)
	mgmt.refused("does not exist: initialize it with --init", "systemctl", "start", "beegfs-mgmtd")
	mgmt.ok(m.InitArgv()...)
	if db := mgmt.read("data/mdt01/mgmtd/mgmtd.sqlite"); !strings.Contains(db, `"schema_version"`) || strings.Contains(db, "imported") {
		t.Fatalf("database %q", db)
	}
	mgmt.refused("File exists", m.InitArgv()...)
	// An unknown key is refused as the daemon's strict config is.
	good := mgmt.read("etc/beegfs/beegfs-mgmtd.toml")
	mgmt.write("etc/beegfs/beegfs-mgmtd.toml", good+"storeMgmtdDirectory = \"/x\"\n")
	mgmt.refused("unknown field `storeMgmtdDirectory`", "systemctl", "start", "beegfs-mgmtd")
	mgmt.write("etc/beegfs/beegfs-mgmtd.toml", good+"quota-enforce = true\n")
	mgmt.refused("Quota enforcement requires quota being enabled", "systemctl", "start", "beegfs-mgmtd")
	mgmt.write("etc/beegfs/beegfs-mgmtd.toml", good)
	lic := mgmt.read("etc/beegfs/license.pem")
	mgmt.write("etc/beegfs/license.pem", "")
	mgmt.refused("loading a license is mandatory", "systemctl", "start", "beegfs-mgmtd")
	mgmt.write("etc/beegfs/license.pem", lic)
	mgmt.ok("systemctl", "start", "beegfs-mgmtd")

	// The client mounts; the beegfs command auto-configures from it.
	cl, err := beegfs.Client{MgmtdHost: "meta1", MgmtdPort: 8008, MountPoint: "/mnt/beegfs", CacheType: "buffered",
		Auth: beegfs.Auth{Secret: b8Secret}, Release: beegfs.Version8}.Items()
	if err != nil {
		t.Fatal(err)
	}
	client.writeFiles(cl)
	for _, it := range cl {
		if it.File != nil && it.File.Set != nil {
			var b strings.Builder
			for k, v := range it.File.Set {
				b.WriteString(k + " = " + string(v) + "\n")
			}
			client.write(strings.TrimPrefix(it.File.Path, "/"), b.String())
		}
	}
	client.ok("systemctl", "start", "beegfs-client")
	s := beegfs.Stripe{MountPoint: "/mnt/beegfs", Path: "bench", ChunkSize: 1 << 20, NumTargets: 1, Pool: 1, Version: beegfs.Version8}
	client.ok("mkdir", "-p", "/mnt/beegfs/bench")
	client.refused("reading certificate file failed", s.SetPatternArgv()...)
	client.write("etc/beegfs/cert.pem", "-----BEGIN CERTIFICATE-----\nother\n-----END CERTIFICATE-----\n")
	client.refused("x509: certificate signed by unknown authority", s.SetPatternArgv()...)
	client.write("etc/beegfs/cert.pem", b8Cert)
	client.refused("connection closed", append([]string{"beegfs", "--tls-disable"}, s.SetPatternArgv()[1:]...)...)
	client.write("etc/beegfs/conn.auth", "another-secret-0123\n")
	client.refused("authentication failed", s.SetPatternArgv()...)
	client.write("etc/beegfs/conn.auth", b8Secret+"\n")
	client.ok(s.SetPatternArgv()...)
	out, code := client.query(s.GetEntryInfoArgv()...)
	if code != 0 {
		t.Fatalf("entry info: exit %d", code)
	}
	for _, re := range s.Matchers() {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("%s does not match:\n%s", re, out)
		}
	}
	client.refused("chunksize is not a power of 2", "beegfs", "entry", "set", "--chunk-size=1000000", "/mnt/beegfs/bench")
	client.refused("valid patterns: raid0, mirrored", "beegfs", "entry", "set", "--pattern=buddymirror", "/mnt/beegfs/bench")

	// Mirror groups through beegfs mirror create/list.
	g := beegfs.MirrorGroup{NodeType: beegfs.MirrorStorage, GroupID: 1, Version: beegfs.Version8,
		Primary: beegfs.MirrorMember{ID: 101, SizeBytes: 1, Pool: 1}, Secondary: beegfs.MirrorMember{ID: 201, SizeBytes: 1, Pool: 1}}
	gi, err := g.Items()
	if err != nil {
		t.Fatal(err)
	}
	if _, code := client.query(gi[0].Command.Unless...); code == 0 {
		t.Error("mirror list with no group must fail (no mirrors configured)")
	}
	client.ok(gi[0].Command.Argv...)
	out, code = client.query(gi[0].Command.Unless...)
	if code != 0 || !matchesAll(out, gi[0].Command.UnlessMatch) {
		t.Fatalf("mirror list (exit %d) does not show the group:\n%s", code, out)
	}
	if groups, err := beegfs.ParseMirrorGroups(out); err != nil || len(groups) != 1 || groups[0] != (beegfs.ListedGroup{ID: 1, Primary: 101, Secondary: 201}) {
		t.Errorf("parsed %v %v from\n%s", groups, err, out)
	}
	client.refused("already exists", gi[0].Command.Argv...)
	client.refused("storage:201 is already part of a buddy group", "beegfs", "mirror", "create", "g2", "--node-type=storage", "--primary=storage:102", "--secondary=storage:201")
	out, _ = client.query(beegfs.ClientsArgvFor(beegfs.Version8, false)...)
	if got := beegfs.ParseClients(out); len(got) != 1 || got[0] != "client01" {
		t.Errorf("clients %v from\n%s", got, out)
	}
	// Stopping the daemon: the command cannot connect.
	mgmt.ok("systemctl", "stop", "beegfs-mgmtd")
	client.refused("connection refused", s.GetEntryInfoArgv()...)
}

// The 7.4 -> 8 upgrade step: the same init item imports a 7.x store found
// in the directory (format.conf version=5), and refuses other formats.
func TestBeegfs8ImportFromV7(t *testing.T) {
	mgmt, client := b8Nodes(t)
	v7, err := beegfs.Management{Directory: "/data/mdt01/mgmtd", Port: 8008, Auth: beegfs.Auth{Secret: b8Secret}}.Items()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range v7 {
		if it.Command != nil {
			mgmt.ok(it.Command.Argv...)
		}
	}
	if !strings.Contains(mgmt.read("data/mdt01/mgmtd/format.conf"), "\nversion=5\n") {
		t.Fatal("beegfs-setup-mgmtd wrote no 7.x format.conf")
	}
	m, items := mgmtd8Items(t, "/data/mdt01/mgmtd", true)
	mgmt.writeFiles(items)
	mgmt.write("data/mdt01/mgmtd/format.conf", "version=4\n")
	mgmt.refused(`Expected "version=5"`, m.InitArgv()...)
	mgmt.write("data/mdt01/mgmtd/format.conf", "# 7.4\nversion=5\n")
	// A mounted client stops the import; unmounted, it goes through.
	client.write("etc/beegfs/beegfs-mounts.conf", "/mnt/beegfs /etc/beegfs/beegfs-client.conf\n")
	client.ok("systemctl", "start", "beegfs-client")
	mgmt.refused("clients are still mounted (client01)", m.InitArgv()...)
	if mgmt.exists("data/mdt01/mgmtd/mgmtd.sqlite") {
		t.Fatal("a refused import left a database")
	}
	client.ok("systemctl", "stop", "beegfs-client")
	mgmt.ok(m.InitArgv()...)
	if db := mgmt.read("data/mdt01/mgmtd/mgmtd.sqlite"); !strings.Contains(db, `"imported_from":"/data/mdt01/mgmtd"`) {
		t.Fatalf("database %q: not imported", db)
	}
	mgmt.ok("systemctl", "start", "beegfs-mgmtd")
}
