package ceph

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

func TestRenderYAMLR4(t *testing.T) {
	y, err := RenderYAML(
		ServiceSpec{ServiceType: TypeMon, Placement: Placement{Count: 3, Label: "mon"}},
		ServiceSpec{ServiceType: TypeMgr, Placement: Placement{Hosts: []string{"mon1", "mon2"}}},
		r4Spec())
	if err != nil {
		t.Fatal(err)
	}
	want := `service_type: mon
placement:
  label: mon
  count: 3
---
service_type: mgr
placement:
  hosts:
    - mon1
    - mon2
---
service_type: osd
service_id: nvme
placement:
  label: osd
spec:
  data_devices:
    model: KCM6XRUL3T84
    rotational: false
  filter_logic: AND
  objectstore: bluestore
  osds_per_device: 2
`
	if string(y) != want {
		t.Fatalf("YAML:\n%s\nwant:\n%s", y, want)
	}
}

func TestValidateNamesField(t *testing.T) {
	for _, c := range []struct {
		spec  ServiceSpec
		field string
	}{
		{ServiceSpec{ServiceType: TypeOSD, Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{All: true}}, "service_id"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Label: "osd"}}, "data_devices"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{}}, "data_devices.all"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Label: "osd"},
			DataDevices: &DeviceFilter{Size: "3TB:2TB"}}, "data_devices.size"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Label: "osd"},
			DataDevices: &DeviceFilter{Size: "3.5TB:"}}, "data_devices.size"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x y", Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{All: true}}, "service_id"},
		{ServiceSpec{ServiceType: TypeMon, Placement: Placement{Label: "mon", Hosts: []string{"a"}}}, "placement_hosts"},
		{ServiceSpec{ServiceType: TypeMon}, "placement_label"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Hosts: []string{"a", "a"}}, DataDevices: &DeviceFilter{All: true}}, "placement_hosts[1]"},
		{ServiceSpec{ServiceType: TypeOSD, ServiceID: "x", Placement: Placement{Label: "osd"}, DataDevices: &DeviceFilter{All: true},
			DBDevices: &DeviceFilter{All: true}}, "db_devices.all"},
		{ServiceSpec{ServiceType: "rgw", Placement: Placement{Count: 1}}, ""},
		{ServiceSpec{ServiceType: TypeMgr, ServiceID: "a", Placement: Placement{Count: 1}}, "service_id"},
	} {
		err := c.spec.Validate()
		le, ok := located.Find(err)
		if !errors.Is(err, ErrInvalid) || !ok || le.Path.String() != c.field {
			t.Errorf("%+v: error %v, want one located at %q", c.spec, err, c.field)
		}
	}
	if err := r4Spec().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestParseSizeFilterLikeCeph(t *testing.T) {
	for _, c := range []struct {
		in        string
		low, high float64
		exact     float64
		err       string
	}{
		{in: "3TB:4TB", low: 3e12, high: 4e12},
		{in: ":4TB", high: 4e12},
		{in: "10G:", low: 10e9},
		{in: "3.49TB", exact: 3.49e12},
		{in: "3TB:2TB", err: "inverted"},
		{in: "3.5TB:", err: "cannot parse"},
		{in: "3tb:", err: "cannot parse"},
		{in: "3PB:", err: "not supported"},
		{in: "big", err: "cannot parse"},
	} {
		f, err := ParseSizeFilter(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || f.Low != c.low || f.High != c.high || f.Exact != c.exact {
			t.Errorf("%q: %+v %v", c.in, f, err)
		}
	}
	if _, err := ParseSizeFilter("3TB:2TB"); !errors.Is(err, ErrInvertedRange) {
		t.Fatalf("inverted range: %v", err)
	}
}

func TestHumanReadableSize(t *testing.T) {
	for in, want := range map[int64]string{cm6Bytes: "3.49 TB", 480103981056: "447.13 GB", 512: "512.00 B", 1 << 20: "1.00 MB"} {
		if got := HumanReadableSize(in); got != want {
			t.Errorf("%d: %s, want %s", in, got, want)
		}
	}
}

func TestPlanOSDsR4(t *testing.T) {
	hosts := map[string][]Device{}
	for _, h := range []string{"osd1", "osd2", "osd3", "osd4"} {
		hosts[h] = r4OSDNode()
	}
	plan, err := PlanOSDs(r4Spec(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, hp := range plan {
		if len(hp.Data) != 22 {
			t.Fatalf("%s: %d data devices", hp.Host, len(hp.Data))
		}
		for _, d := range hp.Data {
			if d.Path == "/dev/sda" {
				t.Fatalf("%s: boot disk selected", hp.Host)
			}
		}
		total += len(hp.Data)
	}
	if total != 88 {
		t.Fatalf("%d OSD devices, want 88", total)
	}
	// A host whose devices are all rejected, or that has other models,
	// gets no OSD: the plan fails naming it and why.
	rejected := r4OSDNode()
	for i := range rejected {
		rejected[i].Available = false
		rejected[i].Rejected = []string{"LVM detected", "locked"}
	}
	hosts["osd5"] = rejected
	hosts["osd6"] = hybridNode()
	_, err = PlanOSDs(r4Spec(), hosts)
	if !errors.Is(err, ErrNoOSD) || !strings.Contains(err.Error(), "host osd5") || !strings.Contains(err.Error(), "LVM detected") ||
		!strings.Contains(err.Error(), "host osd6") || strings.Contains(err.Error(), "host osd1") {
		t.Fatalf("error %v", err)
	}
	// Inverted range: refused before any host is looked at.
	s := r4Spec()
	s.DataDevices.Size = "4TB:3TB"
	if _, err := PlanOSDs(s, map[string][]Device{"osd1": r4OSDNode()}); !errors.Is(err, ErrInvalid) ||
		located.All(err)[0].Path.String() != "data_devices.size" {
		t.Fatalf("inverted: %v", err)
	}
}

func TestSpecDiffIgnoresDynamicFields(t *testing.T) {
	b, err := os.ReadFile("testdata/orch_ls_export.json")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := ParseOrchExport(b)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := SpecDiff(r4Spec(), specs["osd.nvme"]); err != nil || d != "" {
		t.Fatalf("same spec: diff %q %v", d, err)
	}
	s := r4Spec()
	s.OSDsPerDevice = 1
	if d, _ := SpecDiff(s, specs["osd.nvme"]); !strings.Contains(d, "spec:") {
		t.Fatalf("changed spec: diff %q", d)
	}
	mon := ServiceSpec{ServiceType: TypeMon, Placement: Placement{Count: 3, Label: "mon"}}
	if d, _ := SpecDiff(mon, specs["mon"]); d != "" {
		t.Fatalf("mon: %q", d)
	}
	mgr := ServiceSpec{ServiceType: TypeMgr, Placement: Placement{Count: 3}}
	if d, _ := SpecDiff(mgr, specs["mgr"]); !strings.Contains(d, "placement") {
		t.Fatalf("mgr: %q", d)
	}
}
