package ceph

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runSh runs an item's argv (or its guard) with the real /bin/sh, the
// authorized_keys path swapped for a temporary file.
func runSh(t *testing.T, argv []string, file string) int {
	t.Helper()
	argv = append([]string(nil), argv...)
	argv[len(argv)-1] = file
	err := exec.Command(argv[0], argv[1:]...).Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func TestAuthorizeAndRevokeKeyWithRealSh(t *testing.T) {
	file := filepath.Join(t.TempDir(), ".ssh", "authorized_keys")
	key := "ssh-rsa AAAAB3NzaC1yc2E= ceph-8f3c9a52"
	add, rm := AuthorizeKey(key).Command, RevokeKey(key).Command
	if runSh(t, add.Unless, file) == 0 {
		t.Fatal("guard holds on a missing file")
	}
	if runSh(t, add.Argv, file) != 0 {
		t.Fatal("add failed")
	}
	if err := os.WriteFile(file, []byte("ssh-ed25519 AAAAC3Nz other\n"+key+"\nno-newline-last"), 0o600); err != nil {
		t.Fatal(err)
	}
	if runSh(t, add.Unless, file) != 0 {
		t.Fatal("guard does not see the key")
	}
	if runSh(t, rm.Unless, file) == 0 {
		t.Fatal("revoke guard says absent")
	}
	if runSh(t, rm.Argv, file) != 0 {
		t.Fatal("revoke failed")
	}
	b, _ := os.ReadFile(file)
	if string(b) != "ssh-ed25519 AAAAC3Nz other\nno-newline-last\n" {
		t.Fatalf("after revoke: %q", b)
	}
	if runSh(t, rm.Unless, file) != 0 {
		t.Fatal("revoke guard still sees the key")
	}
}

func TestOnceWithRealSh(t *testing.T) {
	it := Once("x", "n1", "true").Command
	dir := t.TempDir()
	marker := filepath.Join(dir, "a", "x.n1")
	argv := append([]string(nil), it.Argv...)
	argv[4] = marker // $1 of the script
	if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("no marker after success")
	}
	fail := Once("y", "n1", "false").Command
	argv = append([]string(nil), fail.Argv...)
	argv[4] = filepath.Join(dir, "y.n1")
	if exec.Command(argv[0], argv[1:]...).Run() == nil {
		t.Fatal("a failing command succeeded")
	}
	if _, err := os.Stat(argv[4]); err == nil {
		t.Fatal("marker left by a failed command")
	}
	if !strings.HasPrefix(it.Creates, SpecDir+"/.done/") {
		t.Fatal(it.Creates)
	}
}

func TestBootstrapArgv(t *testing.T) {
	b := Bootstrap{MonIP: "10.4.0.11", PublicNetwork: "10.4.0.0/24", ClusterNetwork: "10.5.0.0/24"}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	want := "cephadm bootstrap --mon-ip 10.4.0.11 --cluster-network 10.5.0.0/24 --skip-dashboard --skip-monitoring-stack --ssh-user root --output-dir /etc/ceph"
	if got := strings.Join(b.Argv(), " "); got != want {
		t.Fatalf("%s", got)
	}
	b.PublicNetwork = "10.6.0.0/24"
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "mon_ip") {
		t.Fatalf("mon ip outside: %v", err)
	}
	if ImageCreateArgv("rbd", "c01-img01", 100<<30, nil)[4] != "102400" {
		t.Fatal("size in MiB")
	}
}

// The map guard recognises an image in `rbd showmapped` output whatever
// the key order, and only that pool's image.
func TestMapGuardMatchesShowmapped(t *testing.T) {
	out := string(fixture(t, "showmapped.json"))
	c := Client{Name: "client01", Pool: "rbd"}
	for img, want := range map[string]bool{"c01-img01": true, "c01-img02": true, "c01-img03": false} {
		re := regexp.MustCompile(c.MapItem(img).Command.UnlessMatch[0])
		if re.MatchString(out) != want {
			t.Errorf("%s: matched %v", img, !want)
		}
	}
	other := Client{Name: "client01", Pool: "other"}
	if regexp.MustCompile(other.MapItem("c01-img01").Command.UnlessMatch[0]).MatchString(out) {
		t.Error("matched an image of another pool")
	}
	reordered := `[{"device":"/dev/rbd7","name":"c01-img09","pool":"rbd","snap":"-"}]`
	if !regexp.MustCompile(c.MapItem("c01-img09").Command.UnlessMatch[0]).MatchString(reordered) {
		t.Error("key order matters")
	}
}
