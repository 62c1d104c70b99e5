package ceph

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// TestValidateRelease: the release names, a version of another release,
// and Tentacle's floor naming the CVE.
func TestValidateRelease(t *testing.T) {
	for _, c := range []struct {
		release, version, want string
		at                     string
	}{
		{Pacific, "", "", ""},
		{Tentacle, "", "", ""},
		{Tentacle, "20.2.4", "", ""},
		{Squid, "19.2.3", "", ""},
		{Tentacle, "20.2.3", "CVE-2025-30156", "ceph_version"},
		{Tentacle, "20.1.0", "20.1.0 is older than 20.2.4", "ceph_version"},
		{Squid, "20.2.4", "20.2.4 is not a squid release", "ceph_version"},
		{"octopus", "", "\"octopus\"", "release"},
		{Reef, "18.2", "not a Ceph version", "ceph_version"},
	} {
		err := ValidateRelease(c.release, c.version)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %s: %v, want %q", c.release, c.version, err, c.want)
		}
		if le, ok := located.Find(err); c.want != "" && (!ok || le.Path.String() != c.at) {
			t.Errorf("%s %s: located at %v, want %s", c.release, c.version, le, c.at)
		}
	}
	if got := ReleaseImage(Tentacle, ""); got != "quay.io/ceph/ceph:v20.2.4" {
		t.Errorf("tentacle image %q", got)
	}
	if got := ReleaseImage(Pacific, ""); got != "" {
		t.Errorf("pacific keeps cephadm's image, got %q", got)
	}
	b := Bootstrap{MonIP: "10.0.0.1", Image: ReleaseImage(Squid, "19.2.3")}
	if got := strings.Join(b.Argv()[:4], " "); got != "cephadm --image quay.io/ceph/ceph:v19.2.3 bootstrap" {
		t.Errorf("argv %q", got)
	}
}

// TestCrushDeviceClass: rendered only when set, refused when not a class
// name, and accepted by Pacific's own classes (python3-ceph-common 16.2.15
// lists crush_device_class among its supported features).
func TestCrushDeviceClass(t *testing.T) {
	s := r4Spec()
	s.CrushDeviceClass = "nvme fast"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "crush_device_class:") {
		t.Fatalf("bad class: %v", err)
	}
	s.CrushDeviceClass = "nvme"
	s.Release = Tentacle
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	_ = json.Unmarshal(b, &doc)
	if doc["spec"]["crush_device_class"] != "nvme" {
		t.Fatalf("tentacle spec %s", b)
	}
	plain := r4Spec()
	if b, _ := plain.JSON(); strings.Contains(string(b), "crush_device_class") {
		t.Fatalf("unset class rendered: %s", b)
	}
	needCephCommon(t)
	var req struct {
		Specs []json.RawMessage `json:"specs"`
	}
	req.Specs = append(req.Specs, b)
	res := runCeph(t, req)
	if res.Specs[0].Error != "" || res.Specs[0].ToJSON["spec"].(map[string]any)["crush_device_class"] != "nvme" {
		t.Fatalf("Pacific's classes: %+v", res.Specs[0])
	}
}

// tentacleClasses is Ceph v20.2.4's python-common (test data; see its
// README).
const tentacleClasses = "testdata/ceph-tentacle"

// TestSpecsValidByTentacle: every spec rendered for Tentacle, the
// crush_device_class one too, is accepted by Tentacle's own classes and
// its to_json is what this package renders (what SpecDiff compares an
// export against). The classes are Tentacle's: they accept the
// `actuators` filter, which Pacific's refuse.
func TestSpecsValidByTentacle(t *testing.T) {
	testenv.NeedTool(t, cephPython, "python3")
	specs := []ServiceSpec{
		{ServiceType: TypeMon, Placement: Placement{Count: 3, Label: "mon"}},
		{ServiceType: TypeMon, Placement: Placement{Hosts: []string{"mon1", "mon2", "mon3"}}},
		{ServiceType: TypeMgr, Placement: Placement{Count: 2, Label: "mgr"}},
		r4Spec(),
		{ServiceType: TypeOSD, ServiceID: "hdd", Placement: Placement{Hosts: []string{"osd1", "osd2"}},
			DataDevices: &DeviceFilter{Rotational: boolp(true), Size: "10TB:"}, DBDevices: &DeviceFilter{Model: "MZXL", Limit: 2},
			Encrypted: true, CrushDeviceClass: "hdd"},
		{ServiceType: TypeOSD, ServiceID: "all", Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{All: true}},
	}
	var req struct {
		Specs []json.RawMessage `json:"specs"`
	}
	for _, s := range specs {
		s.Release = Tentacle
		req.Specs = append(req.Specs, specJSON(t, s))
	}
	actuators := `{"service_type": "osd", "service_id": "x", "placement": {"label": "osd"}, "spec": {"data_devices": {"actuators": 2}}}`
	req.Specs = append(req.Specs, json.RawMessage(actuators))
	res := runCephIn(t, tentacleClasses, req)
	for i, s := range specs {
		r := res.Specs[i]
		if r.Error != "" {
			t.Errorf("%s refused by Tentacle: %s", s.ServiceName(), r.Error)
			continue
		}
		var mine map[string]any
		_ = json.Unmarshal(req.Specs[i], &mine)
		if !reflect.DeepEqual(mine, r.ToJSON) {
			t.Errorf("%s: rendered %v\nTentacle's to_json %v", s.ServiceName(), mine, r.ToJSON)
		}
	}
	if e := res.Specs[len(specs)].Error; e != "" {
		t.Fatalf("not Tentacle's classes: the actuators filter was refused: %s", e)
	}
	needCephCommon(t)
	if e := runCeph(t, req).Specs[len(specs)].Error; !strings.Contains(e, "actuators") {
		t.Fatalf("Pacific's classes accepted the actuators filter: %q", e)
	}
}
