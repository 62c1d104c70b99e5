package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

func TestUpCablesVolumes(t *testing.T) {
	dir := t.TempDir()
	l, err := Up(Config{Design: "r1", Dir: dir, Clients: 2, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })

	var names []string
	for _, n := range l.State.Nodes {
		names = append(names, n.Name+":"+n.Role)
	}
	if got, want := strings.Join(names, " "), "mgmt:management meta1:metadata meta2:metadata stor1:storage stor2:storage client01:client client02:client"; got != want {
		t.Errorf("nodes %q, want %q", got, want)
	}
	if len(l.State.Endpoints) != 10 { // 5 BMCs, 1 ME4024, 4 ME4084
		t.Errorf("%d endpoints, want 10", len(l.State.Endpoints))
	}

	// An R1 storage volume: RAID6 8+2, mapped to both storage servers.
	var drives []string
	for i := 0; i < 10; i++ {
		drives = append(drives, fmt.Sprintf("0.%d", i))
	}
	wwn, err := l.ProvisionVolume(VolumeRequest{Array: "me4084-1", Pool: "dg01", RAID: "RAID6", Drives: drives, Volume: "st01",
		SegmentBytes: 512 << 10, Hosts: []string{"stor1", "stor2"}, LUN: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"stor1", "stor2"} {
		root := filepath.Join(dir, NodesDir, node)
		link := filepath.Join(root, "dev/disk/by-id/wwn-0x"+wwn)
		target, err := os.Readlink(link)
		if err != nil {
			t.Fatalf("%s: no by-id link: %v", node, err)
		}
		dev := filepath.Base(target)
		if dev != "sdb" {
			t.Errorf("%s: first array volume is %s, want sdb", node, dev)
		}
		size := readInt(filepath.Join(root, "sys/block", dev, "size")) * 512
		if size < 95e12 || size > 97e12 { // 8 x 12 TB data drives
			t.Errorf("%s: size %d, want about 96 TB", node, size)
		}
		if readInt(filepath.Join(root, "sys/block", dev, "queue/rotational")) != 1 {
			t.Errorf("%s: ME4084 volume not rotational", node)
		}
		b, _ := os.ReadFile(filepath.Join(root, "sys/block", dev, "device/wwid"))
		if strings.TrimSpace(string(b)) != "naa."+wwn {
			t.Errorf("%s: wwid %q", node, b)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "meta1/dev/disk/by-id/wwn-0x"+wwn)); err == nil {
		t.Error("volume appeared on a server it is not mapped to")
	}
	// A metadata volume on the ME4024 is an SSD.
	mwwn, err := l.ProvisionVolume(VolumeRequest{Array: "me4024-1", Pool: "md01", RAID: "RAID1", Drives: []string{"0.0", "0.1"},
		Volume: "mdt01", Hosts: []string{"meta1"}, LUN: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Disks()["meta1"][mwwn]; got != "sdb" {
		t.Errorf("meta1 disks %v", l.Disks())
	}
	if readInt(filepath.Join(dir, NodesDir, "meta1/sys/block/sdb/queue/rotational")) != 0 {
		t.Error("ME4024 volume is rotational")
	}

	if err := l.UnmapVolume("me4084-1", "st01", "stor2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "stor2/sys/block/sdb")); err == nil {
		t.Error("unmapped volume still on stor2")
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "stor1/sys/block/sdb")); err != nil {
		t.Error("stor1 lost its volume when stor2 was unmapped")
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Errorf("cabling errors: %v", errs)
	}

	// The variables file: one variable, lab, with every node and endpoint in
	// lab.json's shapes and no password; the passwords in lab.env (0600).
	var top map[string]json.RawMessage
	b, _ := os.ReadFile(filepath.Join(dir, TFVarsFile))
	if err := json.Unmarshal(b, &top); err != nil || len(top) != 1 || top["lab"] == nil {
		t.Fatalf("tfvars is not one variable lab (%v): %s", err, b)
	}
	var v labVar
	if err := json.Unmarshal(top["lab"], &v); err != nil {
		t.Fatal(err)
	}
	st, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Nodes) != 7 || len(v.Endpoints) != 10 || len(st.Nodes) != 7 || len(st.Endpoints) != 10 {
		t.Errorf("lab variable: %d nodes, %d endpoints; lab.json %d, %d", len(v.Nodes), len(v.Endpoints), len(st.Nodes), len(st.Endpoints))
	}
	for _, n := range st.Nodes {
		if !reflect.DeepEqual(v.Nodes[n.Name], n) {
			t.Errorf("node %s: variable %+v, lab.json %+v", n.Name, v.Nodes[n.Name], n)
		}
	}
	for _, ep := range st.Endpoints {
		if !reflect.DeepEqual(v.Endpoints[ep.Name], ep) {
			t.Errorf("endpoint %s: variable %+v, lab.json %+v", ep.Name, v.Endpoints[ep.Name], ep)
		}
	}
	if ep := v.Endpoints["me4084-1"]; !strings.HasPrefix(ep.URL, "https://127.0.0.1:") || ep.Username == "" || len(ep.CabledTo) != 2 || ep.Kind != "array" {
		t.Errorf("endpoint %+v", ep)
	}
	if !strings.Contains(v.CACertificate, "BEGIN CERTIFICATE") || v.CACertificate != st.CACertificate {
		t.Errorf("ca_certificate: variable %.40q, lab.json %.40q", v.CACertificate, st.CACertificate)
	}
	if fi, err := os.Stat(v.SSH.PrivateKeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("private key %v %v", fi, err)
	}
	if fi, err := os.Stat(v.BeegfsConnAuthFile); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 17 {
		t.Errorf("BeeGFS secret file %v %v", fi, err)
	}
	kh, _ := os.ReadFile(v.SSH.KnownHostsFile)
	if strings.Count(string(kh), "ssh-ed25519") != 7 {
		t.Errorf("known_hosts:\n%s", kh)
	}
	env, err := os.ReadFile(v.EnvFile)
	if fi, _ := os.Stat(v.EnvFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lab.env: %v", err)
	}
	for _, ep := range l.Mock().Endpoints {
		line := PasswordEnv(ep.Name) + "=" + ep.Password + "\n"
		if ep.Password == "" || !strings.Contains(string(env), line) {
			t.Errorf("lab.env lacks %s's password as %s", ep.Name, PasswordEnv(ep.Name))
		}
		for _, f := range []string{TFVarsFile, StateFile} {
			if b, _ := os.ReadFile(filepath.Join(dir, f)); bytes.Contains(b, []byte(ep.Password)) {
				t.Errorf("%s holds %s's password", f, ep.Name)
			}
		}
	}
	if PasswordEnv("meta1-bmc") != "HPCSTORAGE_META1_BMC_PASSWORD" {
		t.Errorf("PasswordEnv(meta1-bmc) = %s", PasswordEnv("meta1-bmc"))
	}

	var out bytes.Buffer
	if err := WriteStatus(dir, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stor1 (storage)") || !strings.Contains(out.String(), "sdb wwn-0x"+wwn) {
		t.Errorf("status:\n%s", out.String())
	}
	out.Reset()
	if err := WriteBrief(dir, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stor1     storage    volumes  1") || !strings.Contains(out.String(), "meta1     metadata   volumes  1") ||
		!strings.Contains(out.String(), "mgmt      management volumes  0") {
		t.Errorf("brief status:\n%s", out.String())
	}
	if _, err := Up(Config{Design: "r1", Dir: dir, Simulator: simtest.Binary(t)}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second up in the same folder: %v", err)
	}
}

func TestUpBadInput(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Dir: t.TempDir()}, "design is required"},
		{Config{Design: "r9", Dir: t.TempDir()}, "unknown design"},
		{Config{Design: "r1"}, "dir is required"},
		{Config{Design: "r1", Dir: t.TempDir(), Clients: -1}, "clients -1"},
	} {
		if _, err := Up(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := Down(t.TempDir(), time.Second); err == nil || !strings.Contains(err.Error(), "no lab running") {
		t.Errorf("down with no lab: %v", err)
	}
}

// TestCommandUpStatusDown runs the real command as scripts do.
func TestCommandUpStatusDown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab command")
	}
	bin := filepath.Join(t.TempDir(), "hpcstorage-lab")
	build := exec.Command("go", "build", "-o", bin, "./cmd/hpcstorage-lab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	out, err := run("up", "--design", "r1", "--dir", dir, "--clients", "1", "--detach")
	if err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	st, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Down(dir, 10*time.Second) })
	if !processAlive(st.PID) || len(st.Nodes) != 6 {
		t.Fatalf("state %+v", st)
	}
	out, err = run("status", "--dir", dir)
	if err != nil || !strings.Contains(out, "client01 (client)") || !strings.Contains(out, "running") {
		t.Fatalf("status: %v\n%s", err, out)
	}
	out, err = run("down", "--dir", dir)
	if err != nil || !strings.Contains(out, "stopped") {
		t.Fatalf("down: %v\n%s", err, out)
	}
	// Gone when down returns (not a moment later): scripts count processes.
	if processAlive(st.PID) && !zombie(st.PID) {
		t.Errorf("lab pid %d still alive when down returned", st.PID)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); !os.IsNotExist(err) {
		t.Errorf("state file left after down: %v", err)
	}
	if out, err := run("down", "--dir", dir); err == nil || !strings.Contains(out, "no lab running") {
		t.Errorf("second down: %v %s", err, out)
	}
}

func TestUpEveryDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("starts every design")
	}
	want := map[string]int{"r1": 5, "r2": 2, "r3": 6, "r4": 7, "r5": 5}
	for design, servers := range want {
		l, err := Up(Config{Design: design, Dir: t.TempDir(), Clients: 1, Simulator: simtest.Binary(t)})
		if err != nil {
			t.Fatalf("%s: %v", design, err)
		}
		if got := len(l.State.Nodes); got != servers+1 {
			t.Errorf("%s: %d nodes, want %d servers and a client", design, got, servers)
		}
		if err := l.Close(); err != nil {
			t.Errorf("%s close: %v", design, err)
		}
	}
}

// TestRebootNode: `hpcstorage-lab reboot` stops a unit that was started
// but not enabled, through the simulators installed in the node root.
func TestRebootNode(t *testing.T) {
	dir := t.TempDir()
	l, err := Up(Config{Design: "r1", Dir: dir, Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	root := filepath.Join(dir, NodesDir, "client01")
	systemctl := func(args ...string) string {
		cmd := exec.Command(filepath.Join(root, ".hpcstorage-sim/bin/systemctl"), args...)
		cmd.Env = []string{"HPCSTORAGE_SIM_ROOT=" + root}
		out, _ := cmd.Output()
		return string(out)
	}
	systemctl("start", "beegfs-helperd.service")
	if got := systemctl("is-active", "beegfs-helperd.service"); got != "active\n" {
		t.Fatalf("started: %q", got)
	}
	if err := Reboot(dir, "client01"); err != nil {
		t.Fatal(err)
	}
	if got := systemctl("is-active", "beegfs-helperd.service"); got != "inactive\n" {
		t.Errorf("after reboot beegfs-helperd is %q", got)
	}
	if got := systemctl("is-active", "ssh.service"); got != "active\n" {
		t.Errorf("after reboot the enabled ssh.service is %q", got)
	}
	if err := Reboot(dir, "nosuch"); err == nil || !strings.Contains(err.Error(), `no node "nosuch"`) {
		t.Errorf("unknown node: %v", err)
	}
}
