package ceph_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/engine"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// labCluster is a cephadm cluster on fake roots with the lab's cephadm and
// ceph: mon1 bootstrapped, osd1 and osd2 added with the label osd and two
// KIOXIA NVMe each. It is the Runner: the agent's engine on mon1's root,
// as the agent serving over SSH runs it; every applied request is kept.
type labCluster struct {
	t       *testing.T
	roots   map[string]string
	applied [][]protocol.Item
}

func newLabCluster(t *testing.T) *labCluster {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(dir, lab.SharedDir)
	c := &labCluster{t: t, roots: map[string]string{}}
	seed := func(name string, prof fakenode.Profile, disks []fakenode.Disk) {
		root := filepath.Join(dir, name)
		if err := fakenode.SeedWith(root, prof, fakenode.Options{Hostname: name, Disks: disks, Simulator: simtest.Binary(t), SharedDir: shared}); err != nil {
			t.Fatal(err)
		}
		c.roots[name] = root
	}
	seed("mon1", fakenode.Metadata, nil)
	hosts := []string{"osd1", "osd2"}
	for _, h := range hosts {
		seed(h, fakenode.Storage, lab.NVMeDrives(h, 2, 3840*1000*1000*1000, "KCM6XRUL3T84"))
	}
	c.sim("mon1", "cephadm", "bootstrap", "--mon-ip", "10.40.0.1", "--skip-dashboard", "--skip-monitoring-stack", "--ssh-user", "root", "--output-dir", "/etc/ceph")
	pub, err := os.ReadFile(filepath.Join(c.roots["mon1"], "etc/ceph/ceph.pub"))
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hosts {
		p := filepath.Join(c.roots[h], "root/.ssh/authorized_keys")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, pub, 0o600); err != nil {
			t.Fatal(err)
		}
		c.sim("mon1", "ceph", "orch", "host", "add", h, fmt.Sprintf("10.40.0.%d", 11+i), "osd")
	}
	return c
}

func (c *labCluster) sim(node string, argv ...string) {
	c.t.Helper()
	root, err := fsroot.Open(c.roots[node])
	if err != nil {
		c.t.Fatal(err)
	}
	defer root.Close()
	if err := (runner.Sim{Root: root}).Run(context.Background(), argv...); err != nil {
		c.t.Fatalf("%s: %q: %v", node, argv, err)
	}
}

func (c *labCluster) run(ctx context.Context, owner string, items []protocol.Item, check bool) (*protocol.Result, error) {
	root, err := fsroot.Open(c.roots["mon1"])
	if err != nil {
		return nil, err
	}
	defer root.Close()
	res, err := engine.Apply(ctx, root, &protocol.Spec{APIVersion: protocol.APIVersion, Owner: owner, Items: items}, engine.Options{Check: check})
	return &res, err
}

func (c *labCluster) Query(ctx context.Context, items ...protocol.Item) (map[string]string, error) {
	res, err := c.run(ctx, "ceph-query", items, true)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, ir := range res.Items {
		if ir.Error != "" {
			return nil, fmt.Errorf("%s: %s", ir.ID, ir.Error)
		}
		out[items[i].Command.Name] = ir.Output
	}
	return out, nil
}

func (c *labCluster) Apply(ctx context.Context, owner string, items []protocol.Item) error {
	c.applied = append(c.applied, items)
	res, err := c.run(ctx, owner, items, false)
	if err != nil {
		return err
	}
	if res.Failed {
		for _, ir := range res.Items {
			if ir.Error != "" {
				return fmt.Errorf("%s: %s", ir.ID, ir.Error)
			}
		}
		return errors.New("the agent reported a failure")
	}
	return nil
}

// ranApply reports whether the last applied request carried `ceph orch
// apply` for the service.
func (c *labCluster) ranApply(service string) bool {
	if len(c.applied) == 0 {
		return false
	}
	return slices.ContainsFunc(c.applied[len(c.applied)-1], func(it protocol.Item) bool {
		return it.Command != nil && it.Command.Name == "ceph-orch-apply-"+service
	})
}

func nvmeSpec() ceph.ServiceSpec {
	no := false
	return ceph.ServiceSpec{ServiceType: ceph.TypeOSD, ServiceID: "nvme", Placement: ceph.Placement{Label: "osd"},
		DataDevices: &ceph.DeviceFilter{Model: "KCM6", Rotational: &no}}
}

// TestApplyOSDSpecOnLabRoots: the first apply writes and applies the spec
// and every placed host gets its OSDs; a second apply finds cephadm holding
// the spec and applies nothing; a spec changed by hand is applied again.
func TestApplyOSDSpecOnLabRoots(t *testing.T) {
	c := newLabCluster(t)
	ctx := context.Background()
	a := ceph.OSDApply{Spec: nvmeSpec(), Owner: "ceph-osd.nvme", Placed: []string{"osd1", "osd2"}, Nonce: "n1"}
	res, err := ceph.ApplyOSDSpec(ctx, c, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 2 || res.Plans[0].OSDs != 2 || res.Plans[1].OSDs != 2 || !c.ranApply("osd.nvme") {
		t.Fatalf("first apply: %+v, applied %v", res.Plans, c.ranApply("osd.nvme"))
	}
	for _, h := range a.Placed {
		n := 0
		for _, d := range res.After.Inventory[h] {
			if d.CephDevice {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%s: %d OSD devices after apply, want 2", h, n)
		}
	}
	if b, err := os.ReadFile(filepath.Join(c.roots["mon1"], strings.TrimPrefix(ceph.SpecPath("osd.nvme"), "/"))); err != nil ||
		!strings.Contains(string(b), "service_id: nvme") {
		t.Fatalf("spec file: %s %v", b, err)
	}

	a.Nonce = "n2"
	if res, err = ceph.ApplyOSDSpec(ctx, c, a); err != nil || c.ranApply("osd.nvme") {
		t.Fatalf("second apply: %v, ran ceph orch apply: %v", err, c.ranApply("osd.nvme"))
	}
	if len(res.Plans) != 2 || res.Plans[0].OSDs != 2 {
		t.Fatalf("second apply planned %+v: the OSDs' devices must still count for their spec", res.Plans)
	}

	// Changed by hand: limit 1 per host, applied with ceph orch apply.
	p := filepath.Join(c.roots["mon1"], "root/osd.yaml")
	if err := os.WriteFile(p, []byte("service_type: osd\nservice_id: nvme\nplacement:\n  label: osd\nspec:\n  data_devices:\n    model: KCM6\n    limit: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.sim("mon1", "ceph", "orch", "apply", "-i", "/root/osd.yaml")
	before, err := ceph.ReadOSDSpec(ctx, c, a.Spec, a.Placed)
	if err != nil || before.Diff == "" {
		t.Fatalf("a spec changed by hand reads back without a difference: %+v %v", before, err)
	}
	a.Nonce = "n3"
	if _, err = ceph.ApplyOSDSpec(ctx, c, a); err != nil || !c.ranApply("osd.nvme") {
		t.Fatalf("apply after a change by hand: %v, ran ceph orch apply: %v", err, c.ranApply("osd.nvme"))
	}
}

// TestApplyOSDSpecRefusesBeforeAnyWrite: a filter matching nothing on a
// placed host and a placed host without devices fail, located, and
// nothing is applied.
func TestApplyOSDSpecRefusesBeforeAnyWrite(t *testing.T) {
	c := newLabCluster(t)
	ctx := context.Background()
	for _, x := range []struct {
		name string
		a    ceph.OSDApply
		at   string
		is   error
	}{
		{"model nothing has", ceph.OSDApply{Spec: func() ceph.ServiceSpec {
			s := nvmeSpec()
			s.DataDevices.Model = "KCM7"
			return s
		}(), Placed: []string{"osd1", "osd2"}}, "data_devices", ceph.ErrNoOSD},
		{"host without devices", ceph.OSDApply{Spec: nvmeSpec(), Placed: []string{"osd1", "osd9"}}, "placement_hosts", ceph.ErrInvalid},
		{"invalid spec", ceph.OSDApply{Spec: func() ceph.ServiceSpec {
			s := nvmeSpec()
			s.DataDevices.Size = "4TB:3TB"
			return s
		}(), Placed: []string{"osd1"}}, "data_devices.size", ceph.ErrInvalid},
	} {
		_, err := ceph.ApplyOSDSpec(ctx, c, x.a)
		le, ok := located.Find(err)
		if !errors.Is(err, x.is) || !ok || le.Path.String() != x.at {
			t.Errorf("%s: %v, want %v located at %s", x.name, err, x.is, x.at)
		}
	}
	if len(c.applied) != 0 {
		t.Fatalf("refused specs applied %d requests", len(c.applied))
	}
}
