package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// cephLab is an R4-shaped set of node roots sharing one cluster folder:
// mon1..3, osd1..N with 22 KIOXIA CM6 NVMe each (the lab's r4 drives),
// client01..M.
type cephLab struct {
	t      *testing.T
	shared string
	roots  map[string]string
	bin    string
}

const (
	cm6Model = "KCM6XRUL3T84"
	cm6Bytes = 3840 * 1000 * 1000 * 1000
	monIP    = "10.40.0.1"
)

func osdHostIP(i int) string { return fmt.Sprintf("10.40.0.%d", 10+i) }

func newCephLab(t *testing.T, osdHosts, clients int, withBinary bool) *cephLab {
	t.Helper()
	l := &cephLab{t: t, shared: t.TempDir(), roots: map[string]string{}}
	if withBinary {
		l.bin = simtest.Binary(t)
	}
	seed := func(name string, p fakenode.Profile, disks []fakenode.Disk) {
		dir := t.TempDir()
		if err := fakenode.SeedWith(dir, p, fakenode.Options{Hostname: name, Disks: disks, SharedDir: l.shared, Simulator: l.bin}); err != nil {
			t.Fatal(err)
		}
		l.roots[name] = dir
	}
	for i := 1; i <= 3; i++ {
		seed(fmt.Sprintf("mon%d", i), fakenode.Metadata, nil)
	}
	for i := 1; i <= osdHosts; i++ {
		name := fmt.Sprintf("osd%d", i)
		seed(name, fakenode.Storage, lab.NVMeDrives(name, 22, cm6Bytes, cm6Model))
	}
	for i := 1; i <= clients; i++ {
		seed(fmt.Sprintf("client%02d", i), fakenode.Client, nil)
	}
	return l
}

// run runs one simulated command on host, in process.
func (l *cephLab) run(host string, argv ...string) (string, string, int) {
	l.t.Helper()
	root, err := fsroot.Open(l.roots[host])
	if err != nil {
		l.t.Fatal(err)
	}
	defer root.Close()
	var o, e strings.Builder
	code := sim.Run(&sim.Env{Root: root, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e}, argv)
	return o.String(), e.String(), code
}

func (l *cephLab) ok(host string, argv ...string) string {
	l.t.Helper()
	out, errOut, code := l.run(host, argv...)
	if code != 0 {
		l.t.Fatalf("%s: %q: exit %d: %s", host, argv, code, errOut)
	}
	return out
}

// refused wants argv to fail with exit code and msg on stderr.
func (l *cephLab) refused(host string, code int, msg string, argv ...string) {
	l.t.Helper()
	_, errOut, got := l.run(host, argv...)
	if got != code || !strings.Contains(errOut, msg) {
		l.t.Errorf("%s: %q: exit %d %q, want exit %d with %q", host, argv, got, errOut, code, msg)
	}
}

func (l *cephLab) jsonOut(v any, host string, argv ...string) {
	l.t.Helper()
	out := l.ok(host, argv...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		l.t.Fatalf("%q: %v in %s", argv, err, out)
	}
}

func (l *cephLab) write(host, p, content string) {
	l.t.Helper()
	full := filepath.Join(l.roots[host], p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

func (l *cephLab) read(host, p string) string {
	b, _ := os.ReadFile(filepath.Join(l.roots[host], p))
	return string(b)
}

// bootstrap runs cephadm bootstrap on mon1 and authorises ceph.pub on
// every other node, as the provider does through the agent.
func (l *cephLab) bootstrap() {
	l.t.Helper()
	l.ok("mon1", "cephadm", "bootstrap", "--mon-ip", monIP, "--cluster-network", "10.41.0.0/24", "--skip-dashboard",
		"--skip-monitoring-stack", "--ssh-user", "root", "--output-dir", "/etc/ceph")
	pub := l.read("mon1", "etc/ceph/ceph.pub")
	for h := range l.roots {
		if h != "mon1" {
			l.write(h, "root/.ssh/authorized_keys", pub)
		}
	}
}

func (l *cephLab) addHosts(osdHosts int) {
	l.t.Helper()
	l.ok("mon1", "ceph", "orch", "host", "add", "mon2", "10.40.0.2", "--labels", "mon")
	l.ok("mon1", "ceph", "orch", "host", "add", "mon3", "10.40.0.3", "--labels", "mon")
	l.ok("mon1", "ceph", "orch", "host", "label", "add", "mon1", "mon")
	for i := 1; i <= osdHosts; i++ {
		l.ok("mon1", "ceph", "orch", "host", "add", fmt.Sprintf("osd%d", i), osdHostIP(i), "--labels", "osd")
	}
}

func (l *cephLab) apply(spec string) string {
	l.t.Helper()
	l.write("mon1", "root/spec.yaml", spec)
	return l.ok("mon1", "ceph", "orch", "apply", "-i", "/root/spec.yaml")
}

const r4Specs = `service_type: mon
placement:
  label: mon
  count: 3
---
service_type: mgr
placement:
  label: mon
  count: 2
---
service_type: osd
service_id: r4-nvme
placement:
  label: osd
data_devices:
  rotational: false
  model: KCM6XRUL3T84
`

type osdTree struct {
	Nodes []struct {
		ID          int     `json:"id"`
		Name        string  `json:"name"`
		Type        string  `json:"type"`
		Children    []int   `json:"children"`
		DeviceClass string  `json:"device_class"`
		CrushWeight float64 `json:"crush_weight"`
	} `json:"nodes"`
}

type deviceLs []struct {
	Name    string `json:"name"`
	Addr    string `json:"addr"`
	Devices []struct {
		Path            string   `json:"path"`
		Available       bool     `json:"available"`
		CephDevice      *bool    `json:"ceph_device"`
		RejectedReasons []string `json:"rejected_reasons"`
		SysAPI          struct {
			Model             string `json:"model"`
			Rotational        string `json:"rotational"`
			HumanReadableSize string `json:"human_readable_size"`
		} `json:"sys_api"`
		LVs []struct {
			OSDID    string `json:"osd_id"`
			Affinity string `json:"osdspec_affinity"`
		} `json:"lvs"`
	} `json:"devices"`
}

// The R4 sequence across node roots sharing one cluster: bootstrap, hosts,
// mon/mgr/OSD specs (88 OSDs on the NVMe drives, none on the boot disks),
// a size-2 pool, 200 images, a client mapping its 20, showmapped; the
// health and reports as Ceph shows them at each step. The map runs through
// the built program the agent runs (runner.Sim).
func TestCephR4Sequence(t *testing.T) {
	l := newCephLab(t, 4, 2, true)
	l.bootstrap()
	if st, err := os.Stat(filepath.Join(l.roots["mon1"], "etc/ceph/ceph.client.admin.keyring")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("admin keyring: %v %v, want mode 0600", st, err)
	}
	var health struct {
		Status string                     `json:"status"`
		Checks map[string]json.RawMessage `json:"checks"`
	}
	l.jsonOut(&health, "mon1", "ceph", "health", "detail", "-f", "json")
	if health.Status != "HEALTH_WARN" || health.Checks["TOO_FEW_OSDS"] == nil {
		t.Errorf("fresh cluster health = %+v, want TOO_FEW_OSDS", health)
	}
	l.addHosts(4)
	var hosts []struct {
		Hostname string   `json:"hostname"`
		Addr     string   `json:"addr"`
		Labels   []string `json:"labels"`
	}
	l.jsonOut(&hosts, "mon1", "ceph", "orch", "host", "ls", "--format", "json")
	if len(hosts) != 7 || hosts[0].Hostname != "mon1" || !slices.Contains(hosts[0].Labels, "_admin") || hosts[3].Addr != osdHostIP(1) {
		t.Fatalf("host ls = %+v", hosts)
	}
	out := l.apply(r4Specs)
	if out != "Scheduled mon update...\nScheduled mgr update...\nScheduled osd.r4-nvme update...\n" {
		t.Errorf("apply printed %q", out)
	}
	var tree osdTree
	l.jsonOut(&tree, "mon1", "ceph", "osd", "tree", "-f", "json")
	osds, hostBuckets := 0, 0
	for _, n := range tree.Nodes {
		switch n.Type {
		case "osd":
			osds++
			if n.DeviceClass != "ssd" || n.CrushWeight < 3.49 || n.CrushWeight > 3.50 {
				t.Errorf("%s: class %s weight %v, want ssd 3.4925 (3.84 TB in TiB)", n.Name, n.DeviceClass, n.CrushWeight)
			}
		case "host":
			hostBuckets++
			if len(n.Children) != 22 {
				t.Errorf("host %s has %d OSDs, want 22", n.Name, len(n.Children))
			}
		}
	}
	if osds != 88 || hostBuckets != 4 {
		t.Fatalf("osd tree: %d OSDs in %d hosts, want 88 in 4", osds, hostBuckets)
	}
	var devs deviceLs
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "--format", "json")
	for _, h := range devs {
		for _, d := range h.Devices {
			isOSD := d.CephDevice != nil && *d.CephDevice
			if strings.HasPrefix(h.Name, "osd") && strings.HasPrefix(d.Path, "/dev/nvme") {
				if !isOSD || d.Available || !slices.Contains(d.RejectedReasons, "LVM detected") || len(d.LVs) != 1 || d.LVs[0].Affinity != "r4-nvme" {
					t.Errorf("%s %s after apply: %+v", h.Name, d.Path, d)
				}
				if d.SysAPI.Model != cm6Model || d.SysAPI.Rotational != "0" || d.SysAPI.HumanReadableSize != "3.49 TB" {
					t.Errorf("%s %s sys_api %+v", h.Name, d.Path, d.SysAPI)
				}
			}
			if d.Path == "/dev/sda" && (isOSD || d.Available || !slices.Contains(d.RejectedReasons, "Has partitions") || !slices.Contains(d.RejectedReasons, "locked")) {
				t.Errorf("%s boot disk: %+v", h.Name, d)
			}
		}
	}
	// The OSD devices carry LVM in the hosts' roots (blkid, the agent's facts).
	if sig := l.read("osd3", ".hpcstorage-sim/data/blkid/nvme21n1"); strings.TrimSpace(sig) != "LVM2_member" {
		t.Errorf("osd3 nvme21n1 signature %q", sig)
	}
	// Mons on the three labelled hosts, ranked by address.
	var mon struct {
		Mons []struct {
			Name string `json:"name"`
			Rank int    `json:"rank"`
			Addr string `json:"public_addr"`
		} `json:"mons"`
		Quorum []int `json:"quorum"`
	}
	l.jsonOut(&mon, "mon1", "ceph", "mon", "dump", "-f", "json")
	if len(mon.Mons) != 3 || mon.Mons[0].Name != "mon1" || mon.Mons[0].Addr != monIP+":6789/0" || len(mon.Quorum) != 3 {
		t.Errorf("mon dump = %+v", mon)
	}
	// Re-applying the same specs creates nothing more.
	l.apply(r4Specs)
	var ids []int
	l.jsonOut(&ids, "mon1", "ceph", "osd", "ls", "-f", "json")
	if len(ids) != 88 || ids[0] != 0 || ids[87] != 87 {
		t.Fatalf("osd ls after re-apply: %d ids %v", len(ids), ids)
	}
	var export []map[string]any
	l.jsonOut(&export, "mon1", "ceph", "orch", "ls", "--export", "--format", "json")
	if len(export) != 4 || export[3]["service_name"] != "osd.r4-nvme" {
		t.Errorf("export = %v", export)
	}
	if _, dyn := export[3]["status"]; dyn {
		t.Errorf("export carries status: %v", export[3])
	}

	// The pool: size 2 on 4 hosts is healthy once the application is on.
	l.ok("mon1", "ceph", "osd", "pool", "create", "rbd-r4", "1024")
	l.ok("mon1", "ceph", "osd", "pool", "set", "rbd-r4", "size", "2")
	l.jsonOut(&health, "mon1", "ceph", "health", "detail", "-f", "json")
	if health.Checks["POOL_APP_NOT_ENABLED"] == nil {
		t.Errorf("pool without application: health %+v", health)
	}
	l.ok("mon1", "ceph", "osd", "pool", "application", "enable", "rbd-r4", "rbd")
	l.ok("mon1", "rbd", "pool", "init", "rbd-r4")
	var pools []map[string]any
	l.jsonOut(&pools, "mon1", "ceph", "osd", "pool", "ls", "detail", "-f", "json")
	// The mgr's device_health_metrics pool came with the first OSDs.
	if len(pools) != 2 || pools[0]["pool_name"] != "device_health_metrics" || pools[0]["pool_id"] != 1.0 {
		t.Fatalf("pool ls detail = %v", pools)
	}
	if p := pools[1]; p["size"] != 2.0 || p["min_size"] != 1.0 || p["pg_num"] != 1024.0 || p["flags_names"] != "hashpspool,selfmanaged_snaps" ||
		p["application_metadata"].(map[string]any)["rbd"] == nil {
		t.Fatalf("pool ls detail = %v", pools)
	}
	l.jsonOut(&health, "mon1", "ceph", "health", "detail", "-f", "json")
	if health.Status != "HEALTH_OK" {
		t.Errorf("R4 cluster health = %+v, want HEALTH_OK", health)
	}

	// 200 images of 100 GB (95367 MiB), twenty per client.
	for i := range 200 {
		l.ok("mon1", "rbd", "create", fmt.Sprintf("rbd-r4/vol%03d", i), "--size", "95367")
	}
	var imgs []struct {
		Image  string `json:"image"`
		Size   int64  `json:"size"`
		Format int    `json:"format"`
	}
	l.jsonOut(&imgs, "mon1", "rbd", "ls", "-l", "--format", "json", "rbd-r4")
	if len(imgs) != 200 || imgs[0].Image != "vol000" || imgs[0].Size != 95367<<20 || imgs[0].Format != 2 {
		t.Fatalf("rbd ls: %d images, first %+v", len(imgs), imgs[0])
	}
	// The client: its keyring and a minimal ceph.conf, then map its 20.
	l.ok("mon1", "ceph", "auth", "get-or-create", "client.client01", "mon", "profile rbd", "osd", "profile rbd pool=rbd-r4",
		"-o", "/etc/ceph/ceph.client.client01.keyring")
	l.write("client01", "etc/ceph/ceph.client.client01.keyring", l.read("mon1", "etc/ceph/ceph.client.client01.keyring"))
	l.write("client01", "etc/ceph/ceph.conf", l.read("mon1", "etc/ceph/ceph.conf"))
	root, err := fsroot.Open(l.roots["client01"])
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	agent := runner.Sim{Root: root}
	for i := range 20 {
		out, code, err := agent.Query(context.Background(), "rbd", "map", fmt.Sprintf("rbd-r4/vol%03d", i), "--id", "client01")
		if err != nil || code != 0 || out != fmt.Sprintf("/dev/rbd%d\n", i) {
			t.Fatalf("map vol%03d: %q %d %v", i, out, code, err)
		}
	}
	showOut, code, err := agent.Query(context.Background(), "rbd", "showmapped", "--format", "json")
	if err != nil || code != 0 {
		t.Fatalf("showmapped: %d %v", code, err)
	}
	var mapped []map[string]string
	if err := json.Unmarshal([]byte(showOut), &mapped); err != nil {
		t.Fatal(err)
	}
	if len(mapped) != 20 || mapped[5]["name"] != "vol005" || mapped[5]["device"] != "/dev/rbd5" || mapped[5]["pool"] != "rbd-r4" || mapped[5]["snap"] != "-" {
		t.Fatalf("showmapped = %v", mapped)
	}
	if sz := strings.TrimSpace(l.read("client01", "sys/block/rbd5/size")); sz != fmt.Sprint(int64(95367<<20)/512) {
		t.Errorf("rbd5 size %s sectors", sz)
	}
	if target, err := os.Readlink(filepath.Join(l.roots["client01"], "dev/rbd/rbd-r4/vol005")); err != nil || target != "../../rbd5" {
		t.Errorf("udev link: %q %v", target, err)
	}
	// Another client sees nothing mapped.
	if out := l.ok("client02", "rbd", "showmapped", "--format", "json"); out != "[]\n" {
		t.Errorf("client02 showmapped = %q", out)
	}
	// Grow in place, read back.
	l.ok("mon1", "rbd", "resize", "rbd-r4/vol007", "--size", "204800")
	var info struct {
		Size     int64    `json:"size"`
		Features []string `json:"features"`
		Order    int      `json:"order"`
	}
	l.jsonOut(&info, "mon1", "rbd", "info", "rbd-r4/vol007", "--format", "json")
	if info.Size != 204800<<20 || info.Order != 22 || !slices.Equal(info.Features, []string{"layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten"}) {
		t.Errorf("info = %+v", info)
	}
	// Unmap frees the device and the watch.
	l.ok("client01", "rbd", "unmap", "/dev/rbd19")
	l.ok("mon1", "rbd", "rm", "rbd-r4/vol019")
	var status struct {
		OSDMap struct {
			NumOSDs int `json:"num_osds"`
		} `json:"osdmap"`
		PGMap struct {
			NumPGs int `json:"num_pgs"`
		} `json:"pgmap"`
		QuorumNames []string `json:"quorum_names"`
	}
	l.jsonOut(&status, "mon1", "ceph", "status", "-f", "json")
	if status.OSDMap.NumOSDs != 88 || status.PGMap.NumPGs != 1024+1 || len(status.QuorumNames) != 3 {
		t.Errorf("status = %+v", status)
	}
}

// BenchmarkRBDCreate: one `rbd create` through the built program (what the
// agent execs per image) on a cluster of 88 OSDs, against a bare simulator
// exec (`mkdir -p`) of the same root: the ratio is what the shared cluster
// state costs per command.
func BenchmarkRBDCreate(b *testing.B) {
	l := &cephLab{shared: b.TempDir(), roots: map[string]string{}, bin: simtest.Binary(b)}
	for _, n := range []struct {
		name  string
		p     fakenode.Profile
		disks []fakenode.Disk
	}{{"mon1", fakenode.Metadata, nil}, {"osd1", fakenode.Storage, lab.NVMeDrives("osd1", 22, cm6Bytes, cm6Model)},
		{"osd2", fakenode.Storage, lab.NVMeDrives("osd2", 22, cm6Bytes, cm6Model)},
		{"osd3", fakenode.Storage, lab.NVMeDrives("osd3", 22, cm6Bytes, cm6Model)},
		{"osd4", fakenode.Storage, lab.NVMeDrives("osd4", 22, cm6Bytes, cm6Model)}} {
		dir := b.TempDir()
		if err := fakenode.SeedWith(dir, n.p, fakenode.Options{Hostname: n.name, Disks: n.disks, SharedDir: l.shared, Simulator: l.bin}); err != nil {
			b.Fatal(err)
		}
		l.roots[n.name] = dir
	}
	root, err := fsroot.Open(l.roots["mon1"])
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	agent := runner.Sim{Root: root}
	ctx := context.Background()
	must := func(argv ...string) {
		if out, code, err := agent.Query(ctx, argv...); err != nil || code != 0 {
			b.Fatalf("%q: %d %v %s", argv, code, err, out)
		}
	}
	must("cephadm", "bootstrap", "--mon-ip", monIP)
	pub, err := os.ReadFile(filepath.Join(l.roots["mon1"], "etc/ceph/ceph.pub"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		h := fmt.Sprintf("osd%d", i)
		if err := os.MkdirAll(filepath.Join(l.roots[h], "root/.ssh"), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(l.roots[h], "root/.ssh/authorized_keys"), pub, 0o600); err != nil {
			b.Fatal(err)
		}
		must("ceph", "orch", "host", "add", h, osdHostIP(i), "--labels", "osd")
	}
	if err := os.WriteFile(filepath.Join(l.roots["mon1"], "root/spec.yaml"), []byte(r4Specs), 0o644); err != nil {
		b.Fatal(err)
	}
	must("ceph", "orch", "apply", "-i", "/root/spec.yaml")
	must("ceph", "osd", "pool", "create", "rbd")
	b.ResetTimer()
	var create, bare float64
	for i := 0; i < b.N; i++ {
		start := time.Now()
		must("rbd", "create", fmt.Sprintf("rbd/vol%06d", i), "--size", "95367")
		create += float64(time.Since(start))
		start = time.Now()
		must("mkdir", "-p", "/tmp/bench")
		bare += float64(time.Since(start))
	}
	b.ReportMetric(create/float64(b.N)/1e6, "ms/create")
	b.ReportMetric(create/bare, "create/bare-exec")
}
