package ceph

// Checked with Ceph's own code: python3-ceph-common (Pacific) validates
// every generated spec, gives its canonical form (to_json, which must be
// what JSON renders), and runs DriveSelection on the same device cases as
// Select; both must take exactly the same devices.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const cephPython = "/usr/bin/python3"

// needCephCommon skips when python3-ceph-common is absent, except in CI
// (.ci/run installs it), where its absence fails the test.
func needCephCommon(t *testing.T) {
	t.Helper()
	err := exec.Command(cephPython, "-c", "import ceph.deployment.drive_selection.selector").Run()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("python3-ceph-common is required in CI (apt-get install python3-ceph-common): %v", err)
	}
	t.Skipf("python3-ceph-common not installed (apt-get install python3-ceph-common): %v", err)
}

type pyDevice struct {
	Path            string         `json:"path"`
	SysAPI          map[string]any `json:"sys_api"`
	Available       bool           `json:"available"`
	RejectedReasons []string       `json:"rejected_reasons"`
	CephDevice      bool           `json:"ceph_device"`
}

type pyCase struct {
	Spec            json.RawMessage `json:"spec"`
	Devices         []pyDevice      `json:"devices"`
	ExistingDaemons int             `json:"existing_daemons"`
}

type pyResult struct {
	Specs []struct {
		ToJSON map[string]any `json:"to_json"`
		Error  string         `json:"error"`
	} `json:"specs"`
	Cases []struct {
		Data  []string `json:"data"`
		DB    []string `json:"db"`
		Error string   `json:"error"`
	} `json:"cases"`
}

// pyDevices are the devices as ceph-volume's inventory reports them, in its
// order (by path, as Select assumes).
func pyDevices(devs []Device) []pyDevice {
	devs = append([]Device(nil), devs...)
	sort.SliceStable(devs, func(i, j int) bool { return devs[i].Path < devs[j].Path })
	out := []pyDevice{}
	for _, d := range devs {
		rot := "0"
		if d.Rotational {
			rot = "1"
		}
		out = append(out, pyDevice{Path: d.Path, Available: d.Available, RejectedReasons: append([]string{}, d.Rejected...), CephDevice: d.CephDevice,
			SysAPI: map[string]any{"human_readable_size": HumanReadableSize(d.SizeBytes), "size": float64(d.SizeBytes),
				"model": d.Model, "vendor": d.Vendor, "rotational": rot, "path": d.Path}})
	}
	return out
}

func runCeph(t *testing.T, req any) pyResult {
	t.Helper()
	return runCephIn(t, "", req)
}

// runCephIn runs ceph_check.py with another release's classes first on
// the module path ("": the installed Pacific ones).
func runCephIn(t *testing.T, pythonPath string, req any) pyResult {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cephPython, "testdata/ceph_check.py")
	if pythonPath != "" {
		cmd.Env = append(os.Environ(), "PYTHONPATH="+pythonPath)
	}
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ceph_check.py: %v\n%s", err, stderr.String())
	}
	var res pyResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ceph_check.py output: %v\n%s", err, out)
	}
	return res
}

func specJSON(t *testing.T, s ServiceSpec) json.RawMessage {
	t.Helper()
	b, err := s.JSON()
	if err != nil {
		t.Fatalf("%s: %v", s.ServiceName(), err)
	}
	return b
}

func paths(ds []Device) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Path)
	}
	return out
}

// TestSpecsValidByCeph: every spec the provider renders is accepted by
// ServiceSpec.from_json(...).validate(), and Ceph's to_json of it is the
// JSON this package renders (what SpecDiff compares exports against).
func TestSpecsValidByCeph(t *testing.T) {
	needCephCommon(t)
	specs := []ServiceSpec{
		{ServiceType: TypeMon, Placement: Placement{Count: 3}},
		{ServiceType: TypeMon, Placement: Placement{Count: 3, Label: "mon"}},
		{ServiceType: TypeMon, Placement: Placement{Hosts: []string{"mon1", "mon2", "mon3"}}},
		{ServiceType: TypeMgr, Placement: Placement{Count: 2, Label: "mgr"}},
		{ServiceType: TypeMgr, Placement: Placement{Hosts: []string{"mon1", "mon2"}}},
		r4Spec(),
		{ServiceType: TypeOSD, ServiceID: "hdd", Placement: Placement{Hosts: []string{"osd1", "osd2"}},
			DataDevices: &DeviceFilter{Rotational: boolp(true), Size: "10TB:"}, DBDevices: &DeviceFilter{Model: "MZXL", Limit: 2},
			Encrypted: true},
		{ServiceType: TypeOSD, ServiceID: "all", Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{All: true}},
	}
	var req struct {
		Specs []json.RawMessage `json:"specs"`
		Cases []pyCase          `json:"cases"`
	}
	for _, s := range specs {
		req.Specs = append(req.Specs, specJSON(t, s))
	}
	// The YAML file applied is what the JSON is: parse it back.
	y, err := RenderYAML(specs...)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(y), "\n---\n"); n != len(specs)-1 {
		t.Fatalf("%d documents", n+1)
	}
	res := runCeph(t, req)
	for i, s := range specs {
		r := res.Specs[i]
		if r.Error != "" {
			t.Errorf("%s refused by Ceph: %s", s.ServiceName(), r.Error)
			continue
		}
		var mine map[string]any
		_ = json.Unmarshal(req.Specs[i], &mine)
		if !reflect.DeepEqual(mine, r.ToJSON) {
			t.Errorf("%s: rendered %v\nCeph's to_json %v", s.ServiceName(), mine, r.ToJSON)
		}
		if d, err := SpecDiff(s, r.ToJSON); d != "" || err != nil {
			t.Errorf("%s: SpecDiff against Ceph's own form: %q %v", s.ServiceName(), d, err)
		}
	}
}

// TestSelectionAgreesWithCeph runs Select and Ceph's DriveSelection on the
// same specs and devices: Pacific's and Tentacle's.
func TestSelectionAgreesWithCeph(t *testing.T) {
	needCephCommon(t)
	osd := func(data, db *DeviceFilter) ServiceSpec {
		return ServiceSpec{ServiceType: TypeOSD, ServiceID: "t", Placement: Placement{Label: "osd"}, DataDevices: data, DBDevices: db}
	}
	rejected := r4OSDNode()
	rejected[3].Available, rejected[3].Rejected = false, []string{"LVM detected", "locked"}
	rejected[0].Available, rejected[0].Rejected = false, []string{"Has partitions"}
	withOSDs := r4OSDNode()
	for i := 1; i < len(withOSDs); i++ {
		withOSDs[i].Available, withOSDs[i].CephDevice, withOSDs[i].Rejected = false, true, []string{"LVM detected", "locked"}
	}
	cases := []struct {
		name     string
		spec     ServiceSpec
		devs     []Device
		existing int
		want     int // data devices Select must take (-1: an error)
	}{
		{"r4 model", r4Spec(), r4OSDNode(), 0, 22},
		{"model substring", osd(&DeviceFilter{Model: "KCM6"}, nil), r4OSDNode(), 0, 22},
		{"model no match", osd(&DeviceFilter{Model: "KCM7"}, nil), r4OSDNode(), 0, 0},
		{"rotational only takes the boot SSD too", osd(&DeviceFilter{Rotational: boolp(false)}, nil), r4OSDNode(), 0, 23},
		{"size range", osd(&DeviceFilter{Size: "3TB:4TB"}, nil), r4OSDNode(), 0, 22},
		{"size range 3.49 TB is below 3.5TB", osd(&DeviceFilter{Size: "4TB:5TB"}, nil), r4OSDNode(), 0, 0},
		{"size high", osd(&DeviceFilter{Size: ":1TB"}, nil), r4OSDNode(), 0, 1},
		{"size low", osd(&DeviceFilter{Size: "1TB:"}, nil), r4OSDNode(), 0, 22},
		{"size exact as inventory rounds", osd(&DeviceFilter{Size: "3.49TB"}, nil), r4OSDNode(), 0, 22},
		{"inverted range matches nothing", osd(&DeviceFilter{Size: "3TB:2TB"}, nil), r4OSDNode(), 0, 0},
		{"unparsable size", osd(&DeviceFilter{Size: "3.5TB:"}, nil), r4OSDNode(), 0, -1},
		{"limit", osd(&DeviceFilter{Model: cm6Model, Limit: 10}, nil), r4OSDNode(), 0, 10},
		{"limit counts existing daemons", osd(&DeviceFilter{Model: cm6Model, Limit: 10}, nil), r4OSDNode(), 4, 6},
		{"limit with a model filter skipping the boot disk", osd(&DeviceFilter{Rotational: boolp(false), Limit: 3}, nil), r4OSDNode(), 0, 3},
		{"rejected devices skipped", r4Spec(), rejected, 0, 21},
		{"devices holding OSDs still count", r4Spec(), withOSDs, 0, 22},
		{"vendor", osd(&DeviceFilter{Vendor: "ATA"}, nil), r4OSDNode(), 0, 1},
		{"all", osd(&DeviceFilter{All: true}, nil), r4OSDNode(), 0, 23},
		{"hybrid data and db", osd(&DeviceFilter{Rotational: boolp(true)}, &DeviceFilter{Model: "MZXL"}), hybridNode(), 0, 12},
		{"db never retakes data", osd(&DeviceFilter{Rotational: boolp(false)}, &DeviceFilter{Model: "MZXL"}), hybridNode(), 0, 3},
		{"and logic", osd(&DeviceFilter{Rotational: boolp(true), Model: "KCM6"}, nil), hybridNode(), 0, 0},
	}
	var req struct {
		Specs []json.RawMessage `json:"specs"`
		Cases []pyCase          `json:"cases"`
	}
	for _, c := range cases {
		// An unparsable size is refused by Validate; Ceph is given the
		// spec anyway, to show it refuses it too.
		b, err := json.Marshal(c.spec.doc())
		if err != nil {
			t.Fatal(err)
		}
		req.Cases = append(req.Cases, pyCase{Spec: b, Devices: pyDevices(c.devs), ExistingDaemons: c.existing})
	}
	// Pacific's installed classes, then Tentacle's (test data).
	for _, cls := range []struct{ name, path string }{{Pacific, ""}, {Tentacle, tentacleClasses}} {
		res := runCephIn(t, cls.path, req)
		for i, c := range cases {
			got, err := Select(c.spec, c.devs, c.existing)
			py := res.Cases[i]
			if c.want < 0 {
				if err == nil || py.Error == "" {
					t.Errorf("%s %s: Go %v, Ceph %q: both must refuse", cls.name, c.name, err, py.Error)
				}
				continue
			}
			if err != nil || py.Error != "" {
				t.Errorf("%s %s: Go %v, Ceph %s", cls.name, c.name, err, py.Error)
				continue
			}
			if len(got.Data) != c.want {
				t.Errorf("%s: Go took %d data devices, want %d", c.name, len(got.Data), c.want)
			}
			if !reflect.DeepEqual(paths(got.Data), append([]string{}, py.Data...)) || !reflect.DeepEqual(paths(got.DB), append([]string{}, py.DB...)) {
				t.Errorf("%s %s: Go data %v db %v\nCeph data %v db %v", cls.name, c.name, paths(got.Data), paths(got.DB), py.Data, py.DB)
			}
			if c.name == "r4 model" {
				for _, p := range py.Data {
					if !strings.HasPrefix(p, "/dev/nvme") {
						t.Errorf("Ceph took %s", p)
					}
				}
			}
		}
	}
}
