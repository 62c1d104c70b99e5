package pacemaker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorosyncR2(t *testing.T) {
	conf, err := r2().Corosync()
	if err != nil {
		t.Fatal(err)
	}
	s := string(conf)
	for _, want := range []string{"cluster_name: nss", "transport: knet", "crypto_cipher: aes256", "two_node: 1",
		"ring0_addr: 10.10.1.11\n        name: nfs1\n        nodeid: 1", "ring0_addr: 10.10.1.12\n        name: nfs2\n        nodeid: 2",
		"keyfile: " + AuthKey} {
		if !strings.Contains(s, want) {
			t.Errorf("corosync.conf lacks %q:\n%s", want, s)
		}
	}
	udpu := cases()["udpu-two-rings"]
	conf, err = udpu.Corosync()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(conf); !strings.Contains(s, "transport: udpu") || !strings.Contains(s, "secauth: on") ||
		!strings.Contains(s, "ring1_addr: 10.10.2.12") || strings.Contains(s, "crypto_cipher") {
		t.Errorf("udpu corosync.conf:\n%s", s)
	}
}

// corosync -t parses the file as corosync 3 does (it needs one node's
// address to be local, the key file and a writable log): a knet cluster
// whose first node is 127.0.0.1, with the key and log in a temporary folder.
func TestCorosyncParsesIt(t *testing.T) {
	c := r2()
	c.Networks = []string{"127.0.0.0/8"}
	c.Groups, c.Locations = nil, nil // the floating address is off this network
	c.Nodes[0].Addrs = []string{"127.0.0.1"}
	c.Nodes[1].Addrs = []string{"127.0.0.2"}
	conf, err := c.Corosync()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "authkey")
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 128)), 0o400); err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(conf), AuthKey, key)
	s = strings.ReplaceAll(s, CorosyncLog, filepath.Join(dir, "corosync.log"))
	f := filepath.Join(dir, "corosync.conf")
	if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := run(t, "", "corosync", "-t", "-c", f); code != 0 {
		t.Fatalf("corosync -t: exit %d\n%s%s\n%s", code, out, errs, s)
	}
	// And it refuses what it should: a cipher it does not know.
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte(strings.Replace(s, "aes256", "aes1024", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, code := run(t, "", "corosync", "-t", "-c", bad); code == 0 {
		t.Fatal("corosync -t accepts an unknown cipher: the check checks nothing")
	}
}
