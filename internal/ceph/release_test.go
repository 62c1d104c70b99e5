package ceph

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidateRelease: the release names, a version of another release,
// and Tentacle's floor naming the CVE.
func TestValidateRelease(t *testing.T) {
	for _, c := range []struct {
		release, version, want string
	}{
		{Pacific, "", ""},
		{Tentacle, "", ""},
		{Tentacle, "20.2.4", ""},
		{Squid, "19.2.3", ""},
		{Tentacle, "20.2.3", "CVE-2025-30156"},
		{Tentacle, "20.1.0", "ceph_version: 20.1.0 is older than 20.2.4"},
		{Squid, "20.2.4", "ceph_version: 20.2.4 is not a squid release"},
		{"octopus", "", "release: \"octopus\""},
		{Reef, "18.2", "not a Ceph version"},
	} {
		err := ValidateRelease(c.release, c.version)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %s: %v, want %q", c.release, c.version, err, c.want)
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
