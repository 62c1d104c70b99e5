package sim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// cephSelect runs Ceph's own DriveSelection (python3-ceph-common, the
// Pacific classes cephadm uses) on an inventory as `ceph orch device ls`
// printed it, after ServiceSpec validation, and returns the data devices.
const cephSelect = `
import json, sys, yaml
from ceph.deployment.service_spec import ServiceSpec
from ceph.deployment.inventory import Device
from ceph.deployment.drive_selection.selector import DriveSelection
inp = json.load(sys.stdin)
spec = ServiceSpec.from_json(yaml.safe_load(inp["spec"]))
spec.validate()
devices = [Device.from_json(d) for d in inp["devices"]]
sel = DriveSelection(spec, devices, existing_daemons=inp["existing"])
print(json.dumps([d.path for d in sel.data_devices()]))
`

func pythonCeph(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import ceph.deployment.drive_selection").Run(); err != nil {
		if os.Getenv("CI") != "" { // .ci/run installs it: its absence there is a failure
			t.Fatalf("python3-ceph-common is required in CI: %v", err)
		}
		t.Skip("python3-ceph-common is not installed (apt-get install -y python3-ceph-common): cannot compare with Ceph's DriveSelection")
	}
}

func cephSelection(t *testing.T, spec string, devices json.RawMessage, existing int) []string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"spec": spec, "devices": devices, "existing": existing})
	cmd := exec.Command("/usr/bin/python3", "-c", cephSelect)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("Ceph's DriveSelection: %v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var paths []string
	if err := json.Unmarshal(out, &paths); err != nil {
		t.Fatal(err)
	}
	return paths
}

// osd1Devices is osd1's inventory as `ceph orch device ls` prints it.
func (l *cephLab) osd1Devices() json.RawMessage {
	l.t.Helper()
	var hosts []struct {
		Devices json.RawMessage `json:"devices"`
	}
	l.jsonOut(&hosts, "mon1", "ceph", "orch", "device", "ls", "osd1", "--format", "json")
	return hosts[0].Devices
}

// osdDevices lists osd1's devices holding an OSD of the spec.
func (l *cephLab) osdDevices(serviceID string) []string {
	var devs deviceLs
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "osd1", "--format", "json")
	var out []string
	for _, d := range devs[0].Devices {
		for _, lv := range d.LVs {
			if lv.Affinity == serviceID {
				out = append(out, d.Path)
				break
			}
		}
	}
	return out
}

// The simulator's OSD creation and Ceph's DriveSelection pick the same
// devices on the r4 OSD node inventory, case by case: the R4 spec takes the
// 22 NVMe and not the boot disk; model substrings, size ranges (an
// inverted one matching nothing, an exact size matching Ceph's rounded
// human-readable size), limit in path order, vendor (empty on NVMe), OR
// logic, rejected devices, and a re-apply counting existing OSDs.
func TestDriveSelectionAgreesWithCeph(t *testing.T) {
	pythonCeph(t)
	for _, tc := range []struct {
		name    string
		filter  string
		dirty   bool // some devices carry a file system or LVM
		logic   string
		then    string
		want    int
		wantAll int // after `then`
	}{
		{name: "r4 spec", filter: "  rotational: false\n  model: KCM6XRUL3T84\n", want: 22},
		{name: "non-rotational only", filter: "  rotational: false\n", want: 22},
		{name: "model substring", filter: "  model: XRUL3T\n", want: 22},
		{name: "size range", filter: "  size: '3TB:4TB'\n", want: 22},
		{name: "size floor", filter: "  size: '3TB:'\n", want: 22},
		{name: "size ceiling below", filter: "  size: ':500GB'\n", want: 0},
		{name: "inverted size range", filter: "  size: '4TB:3TB'\n", want: 0},
		{name: "exact human-readable size", filter: "  size: 3.49TB\n", want: 22},
		{name: "limit", filter: "  model: KCM6\n  limit: 5\n", want: 5},
		{name: "all", filter: "  all: true\n", want: 22},
		{name: "vendor", filter: "  vendor: KIOXIA\n", want: 0},
		{name: "rotational", filter: "  rotational: true\n", want: 0},
		{name: "or logic", filter: "  model: PM1733\n  rotational: false\n", logic: "OR", want: 22},
		{name: "and logic", filter: "  model: PM1733\n  rotational: false\n", want: 0},
		{name: "rejected devices", filter: "  rotational: false\n", dirty: true, want: 19},
		{name: "re-apply with a higher limit", filter: "  model: KCM6\n  limit: 8\n", then: "  model: KCM6\n  limit: 20\n", want: 8, wantAll: 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newCephLab(t, 1, 0, false)
			if tc.dirty {
				l.ok("osd1", "mkfs.xfs", "/dev/nvme1n1")
				l.write("osd1", ".hpcstorage-sim/data/blkid/nvme5n1", "LVM2_member\n")
				l.ok("osd1", "mkfs.ext4", "/dev/nvme20n1")
				l.ok("osd1", "mkdir", "-p", "/mnt/x")
				l.ok("osd1", "mount", "/dev/nvme20n1", "/mnt/x")
			}
			l.bootstrap()
			l.addHosts(1)
			spec := osdSpec(tc.filter)
			if tc.logic != "" {
				spec = "filter_logic: " + tc.logic + "\n" + spec
			}
			want := cephSelection(t, spec, l.osd1Devices(), 0)
			l.apply(spec)
			got := l.osdDevices("r4-nvme")
			if !slices.Equal(got, want) || len(got) != tc.want {
				t.Fatalf("simulator created OSDs on %d devices %v, Ceph selects %d %v (want %d)", len(got), got, len(want), want, tc.want)
			}
			if slices.Contains(got, "/dev/sda") {
				t.Fatal("the boot disk was selected")
			}
			if tc.then == "" {
				return
			}
			spec = osdSpec(tc.then)
			sel := cephSelection(t, spec, l.osd1Devices(), len(got))
			l.apply(spec)
			after := l.osdDevices("r4-nvme")
			// Ceph re-selects the spec's own devices (ceph-volume skips them)
			// and adds the available ones it selected.
			union := slices.Clone(got)
			for _, p := range sel {
				if !slices.Contains(union, p) {
					union = append(union, p)
				}
			}
			slices.Sort(union)
			if !slices.Equal(after, union) || len(after) != tc.wantAll {
				t.Fatalf("after re-apply: simulator %d %v, Ceph %d %v (want %d)", len(after), after, len(union), union, tc.wantAll)
			}
		})
	}
}

// The specs `ceph orch ls --export --format json` prints are what Ceph's
// ServiceSpec classes load, validate and print back unchanged: an export
// re-applies as is.
func TestExportedSpecsRoundTripInCeph(t *testing.T) {
	pythonCeph(t)
	l := cluster(t, 1, 0)
	l.apply(r4Specs)
	l.apply("service_type: osd\nservice_id: split\nplacement:\n  hosts: [osd1]\nosds_per_device: 2\nencrypted: true\ndata_devices:\n  rotational: 0\n  size: '3TB:4TB'\n  limit: 4\n")
	export := l.ok("mon1", "ceph", "orch", "ls", "--export", "--format", "json")
	const roundTrip = `
import json, sys
from ceph.deployment.service_spec import ServiceSpec
out = []
for d in json.load(sys.stdin):
    s = ServiceSpec.from_json(d)
    s.validate()
    out.append(s.to_json())
print(json.dumps(out))
`
	cmd := exec.Command("/usr/bin/python3", "-c", roundTrip)
	cmd.Stdin = strings.NewReader(export)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("Ceph refused the export: %s\n%s", ee.Stderr, export)
		}
		t.Fatal(err)
	}
	var ours, ceph []map[string]any
	if err := json.Unmarshal([]byte(export), &ours); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &ceph); err != nil {
		t.Fatal(err)
	}
	if len(ours) != 5 {
		t.Fatalf("export has %d specs, want 5 (mon, mgr, crash, osd.r4-nvme, osd.split)", len(ours))
	}
	a, _ := json.Marshal(ours)
	b, _ := json.Marshal(ceph)
	if string(a) != string(b) {
		t.Errorf("export differs from Ceph's reading of it:\nsim:  %s\nceph: %s", a, b)
	}
}

// A hybrid node (HDD data, NVMe DB): Ceph's selection of data and DB
// devices and the simulator's OSDs with their DB volumes agree.
func TestDBDevicesAgreeWithCeph(t *testing.T) {
	pythonCeph(t)
	l := newCephLab(t, 1, 0, false)
	for i := range 6 {
		if err := fakenode.AddBlockDevice(l.roots["osd1"], fakenode.Disk{Name: fmt.Sprintf("sd%c", 'b'+i), SizeBytes: 16 * 1000 * 1000 * 1000 * 1000,
			Rotational: true, WWN: fmt.Sprintf("5000c500%08x", i), Model: "ST16000NM002G", Vendor: "SEAGATE"}); err != nil {
			t.Fatal(err)
		}
	}
	l.bootstrap()
	l.addHosts(1)
	spec := "service_type: osd\nservice_id: hybrid\nplacement:\n  hosts: [osd1]\ndata_devices:\n  rotational: true\ndb_devices:\n  model: KCM6\n  limit: 2\n"
	const sel = `
import json, sys, yaml
from ceph.deployment.service_spec import ServiceSpec
from ceph.deployment.inventory import Device
from ceph.deployment.drive_selection.selector import DriveSelection
inp = json.load(sys.stdin)
spec = ServiceSpec.from_json(yaml.safe_load(inp["spec"]))
spec.validate()
s = DriveSelection(spec, [Device.from_json(d) for d in inp["devices"]])
print(json.dumps({"data": [d.path for d in s.data_devices()], "db": [d.path for d in s.db_devices()]}))
`
	in, _ := json.Marshal(map[string]any{"spec": spec, "devices": l.osd1Devices()})
	cmd := exec.Command("/usr/bin/python3", "-c", sel)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Ceph's DriveSelection: %v", err)
	}
	var want struct{ Data, DB []string }
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	l.apply(spec)
	var devs deviceLs
	l.jsonOut(&devs, "mon1", "ceph", "orch", "device", "ls", "osd1", "--format", "json")
	var data, db []string
	for _, d := range devs[0].Devices {
		if len(d.LVs) == 0 {
			continue
		}
		if strings.HasPrefix(d.Path, "/dev/sd") && d.Path != "/dev/sda" {
			data = append(data, d.Path)
		} else {
			db = append(db, d.Path)
		}
	}
	if !slices.Equal(data, want.Data) || !slices.Equal(db, want.DB) || len(data) != 6 || len(db) != 2 {
		t.Fatalf("simulator: data %v db %v; Ceph: data %v db %v", data, db, want.Data, want.DB)
	}
	// Three DB volumes on each NVMe, spread as ceph-volume batch does.
	for _, d := range devs[0].Devices {
		if slices.Contains(db, d.Path) && len(d.LVs) != 3 {
			t.Errorf("%s holds %d DB volumes, want 3", d.Path, len(d.LVs))
		}
	}
}
