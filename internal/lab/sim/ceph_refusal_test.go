package sim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// cluster is a bootstrapped lab with its hosts added (mon1..3, osd1..n).
func cluster(t *testing.T, osdHosts, clients int) *cephLab {
	t.Helper()
	l := newCephLab(t, osdHosts, clients, false)
	l.bootstrap()
	l.addHosts(osdHosts)
	return l
}

func (l *cephLab) osdIDs() []int {
	l.t.Helper()
	var ids []int
	l.jsonOut(&ids, "mon1", "ceph", "osd", "ls", "-f", "json")
	return ids
}

func (l *cephLab) healthChecks() map[string]struct {
	Summary struct {
		Message string `json:"message"`
	} `json:"summary"`
} {
	l.t.Helper()
	var h struct {
		Checks map[string]struct {
			Summary struct {
				Message string `json:"message"`
			} `json:"summary"`
		} `json:"checks"`
	}
	l.jsonOut(&h, "mon1", "ceph", "health", "detail", "-f", "json")
	return h.Checks
}

func osdSpec(dataDevices string) string {
	return "service_type: osd\nservice_id: r4-nvme\nplacement:\n  label: osd\ndata_devices:\n" + dataDevices
}

func TestCephadmRefusals(t *testing.T) {
	t.Run("second bootstrap on the same node", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.bootstrap()
		l.refused("mon1", 1, "ERROR: /etc/ceph/ceph.conf already exists; delete or pass --allow-overwrite",
			"cephadm", "bootstrap", "--mon-ip", monIP)
	})
	t.Run("second cluster in the lab", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.bootstrap()
		l.refused("mon2", 1, "already runs a Ceph cluster", "cephadm", "bootstrap", "--mon-ip", "10.40.0.2")
	})
	t.Run("no mon ip", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.refused("mon1", 1, "must specify --mon-ip", "cephadm", "bootstrap", "--skip-dashboard")
	})
	t.Run("unknown flag", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.refused("mon1", 2, "unrecognized arguments: --no-such-flag", "cephadm", "bootstrap", "--mon-ip", monIP, "--no-such-flag")
	})
	t.Run("fqdn host name", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.write("mon1", "etc/hostname", "mon1.example.com\n")
		l.refused("mon1", 1, "hostname is a fully qualified domain name", "cephadm", "bootstrap", "--mon-ip", monIP)
		l.ok("mon1", "cephadm", "bootstrap", "--mon-ip", monIP, "--allow-fqdn-hostname")
	})
	t.Run("rm-cluster needs force", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.bootstrap()
		var fsid string
		fsid = strings.TrimSpace(l.ok("mon1", "ceph", "fsid"))
		l.refused("mon1", 1, "must pass --force", "cephadm", "rm-cluster", "--fsid", fsid)
		l.ok("mon1", "cephadm", "rm-cluster", "--fsid", fsid, "--force")
		if l.read("mon1", "etc/ceph/ceph.conf") != "" {
			t.Error("ceph.conf left after rm-cluster")
		}
		// The cluster is gone: a new bootstrap is possible.
		l.ok("mon1", "cephadm", "bootstrap", "--mon-ip", monIP)
	})
}

func TestCephHostRefusals(t *testing.T) {
	t.Run("host without the cephadm key", func(t *testing.T) {
		l := newCephLab(t, 1, 0, false)
		l.bootstrap()
		l.write("osd1", "root/.ssh/authorized_keys", "")
		l.refused("mon1", 22, "Error EINVAL: Failed to connect to osd1 (10.40.0.11)", "ceph", "orch", "host", "add", "osd1", osdHostIP(1))
	})
	t.Run("host the lab does not run", func(t *testing.T) {
		l := newCephLab(t, 0, 0, false)
		l.bootstrap()
		l.refused("mon1", 22, "Failed to connect to osd9", "ceph", "orch", "host", "add", "osd9", "10.40.0.99")
	})
	t.Run("remove a host with OSDs", func(t *testing.T) {
		l := cluster(t, 1, 0)
		l.apply(osdSpec("  model: KCM6\n"))
		l.refused("mon1", 22, "Not allowed to remove osd1 from cluster", "ceph", "orch", "host", "rm", "osd1")
	})
	t.Run("ceph without the admin keyring", func(t *testing.T) {
		l := cluster(t, 0, 0)
		// mon2 has no _admin label: no ceph.conf, no keyring there.
		l.refused("mon2", 1, "error calling conf_read_file", "ceph", "status")
		l.write("mon2", "etc/ceph/ceph.conf", l.read("mon1", "etc/ceph/ceph.conf"))
		l.refused("mon2", 1, "error connecting to the cluster", "ceph", "status")
		// The _admin label distributes both, as cephadm does.
		l.ok("mon1", "ceph", "orch", "host", "label", "add", "mon2", "_admin")
		l.ok("mon2", "ceph", "status")
	})
}

func TestCephSpecRefusals(t *testing.T) {
	l := cluster(t, 1, 0)
	for _, tc := range []struct{ name, spec, msg string }{
		{"osd without service_id", "service_type: osd\nplacement:\n  label: osd\ndata_devices:\n  all: true\n", "Cannot add Service: id required"},
		{"no service_type", "placement:\n  label: osd\n", `Spec needs a "service_type" key.`},
		{"no data_devices", "service_type: osd\nservice_id: x\nplacement:\n  label: osd\n", "`data_devices` element is required."},
		{"no placement", "service_type: osd\nservice_id: x\ndata_devices:\n  all: true\n", "`placement` required"},
		{"hosts and label", "service_type: mon\nplacement:\n  hosts: [mon1]\n  label: mon\n", "Host and label are mutually exclusive"},
		{"count 0", "service_type: mon\nplacement:\n  count: 0\n", "num/count must be >= 1"},
		{"unknown filter", osdSpec("  serial: X0\n"), "Filtering for `serial` is not supported"},
		{"decimal size range", osdSpec("  size: '3.5TB:4TB'\n"), "Couldn't parse 3.5TB:4TB"},
		{"lower-case unit", osdSpec("  size: '3tb:4tb'\n"), "Couldn't parse 3tb:4tb"},
		{"all with a filter", osdSpec("  all: true\n  model: KCM6\n"), "`all` and other parameters are mutually exclusive"},
		{"mon with an id", "service_type: mon\nservice_id: a\nplacement:\n  count: 3\n", "Service of type 'mon' should not contain a service id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.write("mon1", "root/bad.yaml", tc.spec)
			l.refused("mon1", 22, tc.msg, "ceph", "orch", "apply", "-i", "/root/bad.yaml")
			if ids := l.osdIDs(); len(ids) != 0 {
				t.Errorf("refused spec created OSDs %v", ids)
			}
		})
	}
	// Ceph accepts these and creates no OSD: the provider has to notice.
	for _, tc := range []struct{ name, filter string }{
		{"inverted size range", "  size: '4TB:3TB'\n"},
		{"model matching nothing", "  model: PM1733\n"},
		{"rotational drives only", "  rotational: true\n"},
	} {
		t.Run("selects nothing: "+tc.name, func(t *testing.T) {
			if out := l.apply(osdSpec(tc.filter)); out != "Scheduled osd.r4-nvme update...\n" {
				t.Errorf("apply printed %q", out)
			}
			if ids := l.osdIDs(); len(ids) != 0 {
				t.Errorf("spec created OSDs %v", ids)
			}
		})
	}
}

// Devices cephadm rejects, with ceph-volume's reasons; the OSD spec skips
// them and takes the others.
func TestCephDeviceRejections(t *testing.T) {
	l := newCephLab(t, 1, 0, false)
	l.bootstrap()
	l.ok("osd1", "mkfs.xfs", "/dev/nvme1n1")
	l.ok("osd1", "mkfs.xfs", "/dev/nvme2n1")
	l.ok("osd1", "mkdir", "-p", "/srv/scratch")
	l.ok("osd1", "mount", "/dev/nvme2n1", "/srv/scratch")
	l.write("osd1", ".hpcstorage-sim/data/blkid/nvme3n1", "LVM2_member\n")
	l.write("osd1", ".hpcstorage-sim/data/blkid/nvme4n1", "gpt\n")
	if err := fakenode.AddBlockDevice(l.roots["osd1"], fakenode.Disk{Name: "nvme22n1", SizeBytes: 4 * 1000 * 1000 * 1000,
		WWN: "eui.8ce38e0000000022", Model: cm6Model}); err != nil {
		t.Fatal(err)
	}
	l.addHosts(1)
	want := map[string][]string{
		"/dev/nvme1n1":  {"Has a FileSystem"},
		"/dev/nvme2n1":  {"Has a FileSystem", "locked"},
		"/dev/nvme3n1":  {"LVM detected"},
		"/dev/nvme4n1":  {"Has partitions"},
		"/dev/nvme22n1": {"Insufficient space (<5GB)"},
		"/dev/sda":      {"Has partitions", "locked"},
	}
	var devs deviceLs
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "--format", "json")
	if len(devs) != 4 || devs[3].Name != "osd1" || len(devs[3].Devices) != 24 {
		t.Fatalf("device ls: %d hosts, osd1 with %d devices", len(devs), len(devs[len(devs)-1].Devices))
	}
	for _, d := range devs[3].Devices {
		if r, rejected := want[d.Path]; rejected {
			if d.Available || !slices.Equal(d.RejectedReasons, r) {
				t.Errorf("%s: available %v reasons %q, want %q", d.Path, d.Available, d.RejectedReasons, r)
			}
		} else if !d.Available || len(d.RejectedReasons) != 0 {
			t.Errorf("%s: available %v reasons %q", d.Path, d.Available, d.RejectedReasons)
		}
	}
	l.apply(osdSpec("  rotational: false\n"))
	if ids := l.osdIDs(); len(ids) != 18 {
		t.Errorf("OSDs on the 18 clean NVMe: got %d", len(ids))
	}
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "osd1", "--format", "json")
	for _, d := range devs[0].Devices {
		if d.Path == "/dev/nvme0n1" && !slices.Equal(d.RejectedReasons, []string{"Insufficient space (<10 extents) on vgs", "LVM detected", "locked"}) {
			t.Errorf("OSD device reasons %q", d.RejectedReasons)
		}
	}
}

// limit, osds_per_device, and a fifth host joining the labelled spec.
func TestCephOSDSpecGrowth(t *testing.T) {
	l := cluster(t, 1, 0)
	l.apply(osdSpec("  model: KCM6\n  limit: 10\n"))
	var devs deviceLs
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "osd1", "--format", "json")
	var used []string
	for _, d := range devs[0].Devices {
		if d.CephDevice != nil && *d.CephDevice {
			used = append(used, strings.TrimPrefix(d.Path, "/dev/"))
		}
	}
	// Path order, as Ceph sorts: nvme0n1, nvme10n1..nvme18n1.
	wantUsed := []string{"nvme0n1", "nvme10n1", "nvme11n1", "nvme12n1", "nvme13n1", "nvme14n1", "nvme15n1", "nvme16n1", "nvme17n1", "nvme18n1"}
	if !slices.Equal(used, wantUsed) {
		t.Errorf("limit 10 took %v, want %v", used, wantUsed)
	}
	// Raising the limit to 12 adds nothing: DriveSelection counts the
	// spec's OSDs (existing_daemons) and also re-selects their devices, so
	// the limit is reached after two of them (Ceph's own behaviour, checked
	// against Ceph's code in TestDriveSelectionAgreesWithCeph).
	l.apply(osdSpec("  model: KCM6\n  limit: 12\n"))
	if ids := l.osdIDs(); len(ids) != 10 {
		t.Errorf("limit 12 after 10: %d OSDs", len(ids))
	}
	// A second spec with two OSDs per device takes what is left.
	l.apply("service_type: osd\nservice_id: split\nplacement:\n  hosts: [osd1]\nosds_per_device: 2\ndata_devices:\n  rotational: 0\n  size: '3TB:4TB'\n")
	if ids := l.osdIDs(); len(ids) != 10+2*12 {
		t.Errorf("osds_per_device 2 on the 12 left: %d OSDs", len(ids))
	}
	// A new labelled host gets only its own OSDs, numbered after the others.
	dir := t.TempDir()
	l.roots["osd5"] = dir
	if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Hostname: "osd5", SharedDir: l.shared,
		Disks: nvme("osd5", 22)}); err != nil {
		t.Fatal(err)
	}
	l.write("osd5", "root/.ssh/authorized_keys", l.read("mon1", "etc/ceph/ceph.pub"))
	before := l.osdIDs()
	l.ok("mon1", "ceph", "orch", "host", "add", "osd5", "10.40.0.15", "--labels", "osd")
	after := l.osdIDs()
	if len(after) != len(before)+12 || after[len(after)-1] != len(after)-1 {
		t.Errorf("osd5 joined: %d -> %d OSDs (%v); the labelled spec has limit 12 per host", len(before), len(after), after)
	}
	var tree osdTree
	l.jsonOut(&tree, "mon1", "ceph", "osd", "tree", "-f", "json")
	for _, n := range tree.Nodes {
		if n.Type == "host" && n.Name == "osd1" && len(n.Children) != 34 {
			t.Errorf("osd1 now has %d OSDs, want 34", len(n.Children))
		}
	}
}

func nvme(host string, n int) []fakenode.Disk {
	var out []fakenode.Disk
	for i := range n {
		out = append(out, fakenode.Disk{Name: fmt.Sprintf("nvme%dn1", i), SizeBytes: cm6Bytes, Model: cm6Model,
			WWN: fmt.Sprintf("eui.8ce38e%010x", len(host)*1000+i)})
	}
	return out
}

func TestCephPoolRefusals(t *testing.T) {
	l := cluster(t, 2, 0)
	l.apply(osdSpec("  model: KCM6\n"))
	l.ok("mon1", "ceph", "osd", "pool", "create", "p")
	for _, tc := range []struct {
		name string
		code int
		msg  string
		argv []string
	}{
		{"size above 10", 22, "pool size must be between 1 and 10", []string{"size", "11"}},
		{"size 0", 22, "pool size must be between 1 and 10", []string{"size", "0"}},
		{"size 1", 1, "configuring pool size as 1 is disabled by default.", []string{"size", "1"}},
		{"min_size above size", 22, "pool min_size must be between 1 and size, which is set to 3", []string{"min_size", "4"}},
		{"pg_num 0", 22, "specified pg_num 0 <= 0", []string{"pg_num", "0"}},
		{"autoscale mode", 22, "specified invalid mode maybe", []string{"pg_autoscale_mode", "maybe"}},
		{"unknown variable", 22, "unrecognized variable 'colour'", []string{"colour", "red"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.refused("mon1", tc.code, tc.msg, append([]string{"ceph", "osd", "pool", "set", "p"}, tc.argv...)...)
		})
	}
	t.Run("missing pool", func(t *testing.T) {
		l.refused("mon1", 2, "Error ENOENT: unrecognized pool 'q'", "ceph", "osd", "pool", "set", "q", "size", "2")
	})
	t.Run("placement groups above mon_max_pg_per_osd", func(t *testing.T) {
		limit := 250 * max(len(l.osdIDs()), 3)
		pg := strconv.Itoa(limit)
		l.refused("mon1", 34, "Error ERANGE: pg_num "+pg+" size 3 would mean", "ceph", "osd", "pool", "set", "p", "pg_num", pg)
		l.refused("mon1", 34, "which exceeds max "+strconv.Itoa(limit), "ceph", "osd", "pool", "create", "big", pg)
		l.ok("mon1", "ceph", "osd", "pool", "set", "p", "pg_num", "32")
	})
	t.Run("size above the OSD hosts warns", func(t *testing.T) {
		// Size 3 (the default) on 2 OSD hosts: undersized PGs, still active.
		l.ok("mon1", "ceph", "osd", "pool", "application", "enable", "p", "rbd")
		c := l.healthChecks()
		// p's 32 PGs and the one of the mgr's device_health_metrics pool.
		if c["PG_DEGRADED"].Summary.Message != "Degraded data redundancy: 33 pgs undersized" || c["PG_AVAILABILITY"].Summary.Message != "" {
			t.Errorf("size 3 on 2 hosts: %+v", c)
		}
		l.ok("mon1", "ceph", "osd", "pool", "set", "p", "min_size", "3")
		if c := l.healthChecks(); c["PG_AVAILABILITY"].Summary.Message != "Reduced data availability: 32 pgs inactive" {
			t.Errorf("min_size 3 on 2 hosts: %+v", c)
		}
		l.ok("mon1", "ceph", "osd", "pool", "set", "p", "size", "2")
		if c := l.healthChecks(); c["PG_DEGRADED"].Summary.Message != "Degraded data redundancy: 1 pgs undersized" || c["PG_AVAILABILITY"].Summary.Message != "" {
			t.Errorf("size 2 on 2 hosts, device_health_metrics at 3: %+v", c)
		}
		l.ok("mon1", "ceph", "osd", "pool", "set", "device_health_metrics", "size", "2")
		if c := l.healthChecks(); len(c) != 0 {
			t.Errorf("size 2 on 2 hosts: %+v", c)
		}
	})
	t.Run("rm needs the name twice and the flag", func(t *testing.T) {
		l.refused("mon1", 1, "pass the pool name *twice*, followed by --yes-i-really-really-mean-it", "ceph", "osd", "pool", "rm", "p")
		l.refused("mon1", 1, "pass the pool name *twice*", "ceph", "osd", "pool", "rm", "p", "p")
	})
	t.Run("rm needs mon_allow_pool_delete", func(t *testing.T) {
		l.refused("mon1", 1, "pool deletion is disabled; you must first set the mon_allow_pool_delete config option to true",
			"ceph", "osd", "pool", "rm", "p", "p", "--yes-i-really-really-mean-it")
		l.ok("mon1", "ceph", "config", "set", "mon", "mon_allow_pool_delete", "true")
		l.ok("mon1", "ceph", "osd", "pool", "rm", "p", "p", "--yes-i-really-really-mean-it")
		var pools []string
		l.jsonOut(&pools, "mon1", "ceph", "osd", "pool", "ls", "-f", "json")
		if !slices.Equal(pools, []string{"device_health_metrics"}) {
			t.Errorf("pools after rm: %v", pools)
		}
	})
	t.Run("auth caps mismatch", func(t *testing.T) {
		l.ok("mon1", "ceph", "auth", "get-or-create", "client.c1", "mon", "profile rbd", "osd", "profile rbd pool=a")
		l.refused("mon1", 22, "key for client.c1 exists but cap osd does not match", "ceph", "auth", "get-or-create", "client.c1",
			"mon", "profile rbd", "osd", "profile rbd pool=b")
		l.refused("mon1", 2, "failed to find client.c9 in keyring", "ceph", "auth", "get", "client.c9", "-f", "json")
	})
}

func TestRBDRefusals(t *testing.T) {
	l := cluster(t, 2, 2)
	l.apply(osdSpec("  model: KCM6\n"))
	l.ok("mon1", "ceph", "osd", "pool", "create", "vols")
	l.ok("mon1", "rbd", "pool", "init", "vols")
	l.ok("mon1", "rbd", "create", "vols/a", "--size", "10G")
	t.Run("image on a missing pool", func(t *testing.T) {
		l.refused("mon1", 2, "rbd: error opening pool 'nopool': (2) No such file or directory", "rbd", "create", "nopool/a", "--size", "1024")
	})
	t.Run("image exists", func(t *testing.T) {
		l.refused("mon1", 17, "rbd: create error: (17) File exists", "rbd", "create", "vols/a", "--size", "1024")
	})
	t.Run("features repeated, long device forms", func(t *testing.T) {
		l.ok("mon1", "rbd", "create", "vols/f", "--size", "1024", "--image-feature", "layering", "--image-feature", "exclusive-lock")
		var info struct {
			Features []string `json:"features"`
		}
		l.jsonOut(&info, "mon1", "rbd", "info", "vols/f", "--format", "json")
		if !slices.Equal(info.Features, []string{"layering", "exclusive-lock"}) {
			t.Errorf("features %v", info.Features)
		}
		l.ok("mon1", "ceph", "auth", "get-or-create", "client.c2", "mon", "profile rbd", "osd", "profile rbd pool=vols", "-o", "/root/c2.keyring")
		l.write("client02", "etc/ceph/ceph.conf", l.read("mon1", "etc/ceph/ceph.conf"))
		l.write("client02", "etc/ceph/ceph.client.c2.keyring", l.read("mon1", "root/c2.keyring"))
		if out := l.ok("client02", "rbd", "device", "map", "vols/f", "--id", "c2"); out != "/dev/rbd0\n" {
			t.Errorf("device map printed %q", out)
		}
		if out := l.ok("client02", "rbd", "device", "list", "--format", "json"); !strings.Contains(out, `"name":"f"`) {
			t.Errorf("device list = %s", out)
		}
		l.ok("client02", "rbd", "device", "unmap", "/dev/rbd/vols/f")
		l.ok("mon1", "rbd", "rm", "vols/f")
	})
	t.Run("feature dependency", func(t *testing.T) {
		l.refused("mon1", 22, "cannot use object-map without exclusive-lock", "rbd", "create", "vols/b", "--size", "1024", "--image-feature", "layering,object-map")
	})
	t.Run("shrink", func(t *testing.T) {
		l.refused("mon1", 22, "rbd: shrinking an image is only allowed with the --allow-shrink flag", "rbd", "resize", "vols/a", "--size", "1024")
		var info struct {
			Size int64 `json:"size"`
		}
		l.jsonOut(&info, "mon1", "rbd", "info", "vols/a", "--format", "json")
		if info.Size != 10<<30 {
			t.Errorf("refused shrink changed the size to %d", info.Size)
		}
		l.ok("mon1", "rbd", "resize", "vols/a", "--size", "5G", "--allow-shrink")
	})
	t.Run("missing image", func(t *testing.T) {
		l.refused("mon1", 2, "rbd: error opening image zz: (2) No such file or directory", "rbd", "info", "vols/zz")
	})
	t.Run("client mapping", func(t *testing.T) {
		l.ok("mon1", "ceph", "auth", "get-or-create", "client.c1", "mon", "profile rbd", "osd", "profile rbd pool=other",
			"-o", "/root/c1.keyring")
		l.write("client01", "etc/ceph/ceph.conf", l.read("mon1", "etc/ceph/ceph.conf"))
		// No keyring on the client yet.
		l.refused("client01", 1, "rbd: couldn't connect to the cluster!", "rbd", "map", "vols/a", "--id", "c1")
		l.write("client01", "etc/ceph/ceph.client.c1.keyring", "[client.c1]\n\tkey = AQBOGUSBOGUSBOGUSBOGUSBOGUSBOGUSBOGUSBO==\n")
		l.refused("client01", 1, "rbd: couldn't connect to the cluster!", "rbd", "map", "vols/a", "--id", "c1")
		// The right key, caps for another pool.
		l.write("client01", "etc/ceph/ceph.client.c1.keyring", l.read("mon1", "root/c1.keyring"))
		l.refused("client01", 1, "rbd: map failed: (1) Operation not permitted", "rbd", "map", "vols/a", "--id", "c1")
		l.ok("mon1", "ceph", "auth", "del", "client.c1")
		l.ok("mon1", "ceph", "auth", "get-or-create", "client.c1", "mon", "profile rbd", "osd", "profile rbd pool=vols", "-o", "/root/c1.keyring")
		l.write("client01", "etc/ceph/ceph.client.c1.keyring", l.read("mon1", "root/c1.keyring"))
		if out := l.ok("client01", "rbd", "map", "vols/a", "--id", "c1"); out != "/dev/rbd0\n" {
			t.Errorf("map printed %q", out)
		}
		l.refused("mon1", 16, "rbd: delete error: (16) Device or resource busy", "rbd", "rm", "vols/a")
		// A client power cycle loses its mappings; its watch expires.
		if err := sim.PowerOff(l.roots["client01"]); err != nil {
			t.Fatal(err)
		}
		if out := l.ok("client01", "rbd", "showmapped", "--format", "json"); out != "[]\n" {
			t.Errorf("showmapped after power-off = %q", out)
		}
		if out := l.ok("client01", "rbd", "map", "vols/a", "--id", "c1"); out != "/dev/rbd0\n" {
			t.Errorf("map after reboot printed %q", out)
		}
		l.refused("client01", 22, "rbd: vols/b: not a mapped image or snapshot", "rbd", "unmap", "vols/b")
		l.ok("client01", "rbd", "unmap", "vols/a")
		if _, err := os.Stat(filepath.Join(l.roots["client01"], "dev/rbd0")); !os.IsNotExist(err) {
			t.Errorf("/dev/rbd0 after unmap: %v", err)
		}
		l.ok("mon1", "rbd", "rm", "vols/a")
	})
	var list []string
	l.jsonOut(&list, "mon1", "rbd", "ls", "--format", "json", "vols")
	if len(list) != 0 {
		t.Errorf("images left: %v", list)
	}
	_ = json.Valid
}

// The provider wraps one-time commands in sh -c scripts: the simulated
// shell runs ceph and rbd in the same cluster, and their refusals stop the
// script with their exit status.
func TestCephThroughShell(t *testing.T) {
	l := cluster(t, 1, 0)
	once := `M="$0"; "$@" && mkdir -p "${M%/*}" && : > "$M"`
	l.ok("mon1", "sh", "-c", once, "/var/lib/x/.done/create", "ceph", "osd", "pool", "create", "vols", "64")
	if _, err := os.Stat(filepath.Join(l.roots["mon1"], "var/lib/x/.done/create")); err != nil {
		t.Errorf("marker after a successful command: %v", err)
	}
	l.refused("mon1", 1, "pool deletion is disabled", "sh", "-c", once, "/var/lib/x/.done/rm", "ceph", "osd", "pool", "rm", "vols", "vols", "--yes-i-really-really-mean-it")
	if _, err := os.Stat(filepath.Join(l.roots["mon1"], "var/lib/x/.done/rm")); !os.IsNotExist(err) {
		t.Errorf("marker after a refused command: %v", err)
	}
	l.ok("mon1", "sh", "-c", `for i in 1 2 3; do rbd create "$1/img$i" --size 1024 || exit $?; done`, "sh", "vols")
	var imgs []string
	l.jsonOut(&imgs, "mon1", "rbd", "ls", "--format", "json", "vols")
	if !slices.Equal(imgs, []string{"img1", "img2", "img3"}) {
		t.Errorf("images created by the loop: %v", imgs)
	}
	pub := l.ok("mon1", "sh", "-c", `while IFS= read -r l || [ -n "$l" ]; do printf '%s\n' "$l"; done < "$1"`, "sh", "/etc/ceph/ceph.pub")
	if !strings.HasPrefix(pub, "ssh-ed25519 ") || pub != l.read("mon1", "etc/ceph/ceph.pub") {
		t.Errorf("ceph.pub through sh = %q", pub)
	}
}

// A mon spec whose label no host has leaves the monitors in place, as
// cephadm never removes the last one; labelling hosts then moves them.
func TestCephMonPlacementKeepsQuorum(t *testing.T) {
	l := newCephLab(t, 0, 0, false)
	l.bootstrap()
	l.apply("service_type: mon\nplacement:\n  label: mon\n  count: 3\n")
	mons := func() []string {
		var d struct {
			Mons []struct {
				Name string `json:"name"`
			} `json:"mons"`
		}
		l.jsonOut(&d, "mon1", "ceph", "mon", "dump", "-f", "json")
		var out []string
		for _, m := range d.Mons {
			out = append(out, m.Name)
		}
		return out
	}
	if m := mons(); !slices.Equal(m, []string{"mon1"}) {
		t.Fatalf("mons = %v, want mon1 kept", m)
	}
	l.ok("mon1", "ceph", "orch", "host", "add", "mon2", "10.40.0.2", "--labels", "mon")
	l.ok("mon1", "ceph", "orch", "host", "add", "mon3", "10.40.0.3", "--labels", "mon")
	if m := mons(); !slices.Equal(m, []string{"mon2", "mon3"}) {
		t.Fatalf("mons = %v, want mon2, mon3 (mon1 has no mon label)", m)
	}
	// ceph.conf on the admin host follows the monitors.
	if conf := l.read("mon1", "etc/ceph/ceph.conf"); !strings.Contains(conf, "10.40.0.2:6789") || strings.Contains(conf, monIP+":6789") {
		t.Errorf("ceph.conf = %s", conf)
	}
	l.ok("mon1", "ceph", "status")
}
