package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// TestUpR3CablesESeries: the r3 design runs one EF600 per building block,
// cabled to the block's two file nodes; a volume mapped to both appears in
// both roots by its WWN, as NVMe flash from NetApp, and nowhere else.
func TestUpR3CablesESeries(t *testing.T) {
	dir := t.TempDir()
	l, err := Up(Config{Design: "r3", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var arrays []string
	for _, ep := range l.State.Endpoints {
		if ep.API == APISantricity {
			arrays = append(arrays, fmt.Sprintf("%s:%s:%s", ep.Name, ep.Model, strings.Join(ep.CabledTo, "+")))
		}
	}
	if got, want := strings.Join(arrays, " "), "ef600-1:EF600:bb1-node1+bb1-node2 ef600-2:EF600:bb2-node1+bb2-node2 ef600-3:EF600:bb3-node1+bb3-node2"; got != want {
		t.Fatalf("E-Series endpoints %q, want %q", got, want)
	}
	if len(l.State.Endpoints) != 9 { // 6 BMCs, 3 EF600
		t.Errorf("%d endpoints, want 9", len(l.State.Endpoints))
	}

	// The array knows both file nodes as hosts by the NQN in their roots.
	srv := l.eseriesServer("ef600-1")
	c, err := santricity.New(santricity.Config{Name: "ef600-1", URL: srv.URL, Username: srv.Username, Password: srv.Password, CACertPEM: srv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := c.Hosts(context.Background())
	if err != nil || len(hosts) != 2 {
		t.Fatalf("hosts %+v, %v", hosts, err)
	}
	for _, h := range hosts {
		nqn, _ := os.ReadFile(filepath.Join(dir, NodesDir, h.Name, "etc/nvme/hostnqn"))
		if len(h.Ports) != 1 || h.Ports[0].Type != "nvmeof" || h.Ports[0].Address != strings.TrimSpace(string(nqn)) || h.HostTypeIndex != santricity.HostTypeLinuxDMMP {
			t.Errorf("host %+v, node NQN %q", h, nqn)
		}
	}

	// A storage volume of block 1: RAID 6 8+2 over bays 4-13, 512 KiB segments.
	var drives []string
	for i := 4; i < 14; i++ {
		drives = append(drives, fmt.Sprintf("99.%d", i))
	}
	wwn, err := l.ProvisionVolume(VolumeRequest{Array: "ef600-1", Pool: "stor01", RAID: "RAID6", Drives: drives, Volume: "stor_01_01",
		SegmentBytes: 512 << 10, Hosts: []string{"bb1-node1", "bb1-node2"}, LUN: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(wwn) != 32 || !strings.HasPrefix(wwn, "600a098") {
		t.Fatalf("wwn %q", wwn)
	}
	for _, node := range []string{"bb1-node1", "bb1-node2"} {
		root := filepath.Join(dir, NodesDir, node)
		target, err := os.Readlink(filepath.Join(root, "dev/disk/by-id/wwn-0x"+wwn))
		if err != nil {
			t.Fatalf("%s: no by-id link: %v", node, err)
		}
		dev := filepath.Base(target)
		if size := readInt(filepath.Join(root, "sys/block", dev, "size")) * 512; size != 8*3840*1000*1000*1000 {
			t.Errorf("%s: size %d, want the whole 8+2 group", node, size)
		}
		if readInt(filepath.Join(root, "sys/block", dev, "queue/rotational")) != 0 {
			t.Errorf("%s: EF600 volume is rotational", node)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "sys/block", dev, "device/vendor")); strings.TrimSpace(string(b)) != "NETAPP" {
			t.Errorf("%s: vendor %q", node, b)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "bb2-node1/dev/disk/by-id/wwn-0x"+wwn)); err == nil {
		t.Error("block 1's volume appeared in block 2")
	}
	// Unmapping one file node leaves the volume on the other.
	if err := l.UnmapVolume("ef600-1", "stor_01_01", "bb1-node2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "bb1-node2/dev/disk/by-id/wwn-0x"+wwn)); err == nil {
		t.Error("unmapped volume still on bb1-node2")
	}
	if _, err := os.Lstat(filepath.Join(dir, NodesDir, "bb1-node1/dev/disk/by-id/wwn-0x"+wwn)); err != nil {
		t.Errorf("bb1-node1 lost the volume when bb1-node2 was unmapped: %v", err)
	}
	if err := l.UnmapVolume("ef600-1", "stor_01_01", "bb1-node2"); err == nil {
		t.Error("second unmap of bb1-node2 accepted")
	}
	if errs := l.Errors(); len(errs) > 0 {
		t.Errorf("cabling errors: %v", errs)
	}

	// The variables file names the arrays' API, certificate and cabling.
	var v tfvars
	b, _ := os.ReadFile(filepath.Join(dir, TFVarsFile))
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	ep := v.Lab.Endpoints["ef600-2"]
	if ep.API != APISantricity || !strings.Contains(ep.CACertificate, "BEGIN CERTIFICATE") || ep.Username == "" ||
		ep.Model != "EF600" || strings.Join(ep.CabledTo, ",") != "bb2-node1,bb2-node2" {
		t.Errorf("lab variable, endpoint ef600-2: %+v", ep)
	}
	// Its password is in lab.env, not in the variables file.
	env, _ := os.ReadFile(filepath.Join(dir, EnvFile))
	if !strings.Contains(string(env), PasswordEnv("ef600-2")+"=") {
		t.Errorf("%s lacks %s", EnvFile, PasswordEnv("ef600-2"))
	}
	var out bytes.Buffer
	if err := WriteBrief(dir, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bb1-node1") || !strings.Contains(out.String(), "volumes  1") {
		t.Errorf("brief status:\n%s", out.String())
	}
}
