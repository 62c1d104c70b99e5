package pacemaker

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// Every CIB, for every version, passes both Debian's crm_verify (2.1; a
// Pacemaker 3 CIB as the lab keeps it, its root down-converted) and
// Pacemaker 3.0.2's own pacemaker-4.0 schema, and declares its version's
// schema.
func TestCIBsPassBothPacemakers(t *testing.T) {
	rng := simtest.Schema4(t)
	all := cases()
	all["r2"] = r2()
	for name, c := range all {
		for _, v := range Versions {
			c.Version = v
			t.Run(name+"/"+v, func(t *testing.T) {
				cib, err := c.Render(true)
				if err != nil {
					t.Fatal(err)
				}
				var doc struct {
					ValidateWith string `xml:"validate-with,attr"`
					FeatureSet   string `xml:"crm_feature_set,attr"`
				}
				if err := xml.Unmarshal(cib, &doc); err != nil {
					t.Fatal(err)
				}
				vw, fs := SchemaOf(v)
				if doc.ValidateWith != vw || doc.FeatureSet != fs {
					t.Errorf("declares %s, feature set %s; want %s, %s", doc.ValidateWith, doc.FeatureSet, vw, fs)
				}
				if v == Version3 && vw != "pacemaker-4.0" {
					t.Errorf("Pacemaker 3's CIB declares %s, want pacemaker-4.0", vw)
				}
				simtest.CheckSchema4(t, name, rng, cib)
				if v == Version3 {
					cib = simtest.DownConvert(cib)
				}
				crmVerify(t, name, cib)
			})
		}
	}
}

// What Pacemaker 3 removed is refused at plan for version 3, naming the
// field; the same setting passes for 2, and Pacemaker 3's own schema
// refuses the CIB that carries it where a schema can say so (the table
// here and upstream's agree).
func TestVersion3Refusals(t *testing.T) {
	rng := simtest.Schema4(t)
	for _, tc := range []struct {
		name     string
		change   func(c *Cluster)
		want     string
		bySchema bool
	}{
		{"stonith-action poweroff", func(c *Cluster) { c.Properties = map[string]string{"stonith-action": "poweroff"} },
			`properties: stonith-action = "poweroff": Pacemaker 3 removed this value (pacemaker_version = "3"); use "off"`, true},
		{"crmd-transition-delay", func(c *Cluster) { c.Properties = map[string]string{"crmd-transition-delay": "2s"} },
			`properties: crmd-transition-delay: Pacemaker 3 removed this option (pacemaker_version = "3"); use "transition-delay"`, true},
		{"crmd-integration-timeout", func(c *Cluster) { c.Properties = map[string]string{"crmd-integration-timeout": "3min"} },
			`use "join-integration-timeout"`, true},
		{"crmd-finalization-timeout", func(c *Cluster) { c.Properties = map[string]string{"crmd-finalization-timeout": "30min"} },
			`use "join-finalization-timeout"`, true},
		{"remove-after-stop", func(c *Cluster) { c.Properties = map[string]string{"remove-after-stop": "false"} },
			"properties: remove-after-stop: Pacemaker 3 removed this option", true},
		{"restart-type on a primitive", func(c *Cluster) { c.Groups[0].Members[2].Meta = map[string]string{"restart-type": "ignore"} },
			"groups[0].members[2].meta: restart-type: Pacemaker 3 removed this meta attribute", true},
		{"restart-type on a group", func(c *Cluster) { c.Groups[0].Meta = map[string]string{"restart-type": "ignore"} },
			"groups[0].meta: restart-type", true},
		{"restart-type as a default", func(c *Cluster) { c.ResourceDefaults = map[string]string{"restart-type": "ignore"} },
			"resource_defaults: restart-type", true},
		{"negative migration-threshold", func(c *Cluster) { c.ResourceDefaults = map[string]string{"migration-threshold": "-1"} },
			"resource_defaults: migration-threshold = -1: Pacemaker 3 takes no negative threshold", false},
		{"deprecated fence_redfish ipaddr", func(c *Cluster) {
			delete(c.Fencing[0].Params, "ip")
			c.Fencing[0].Params["ipaddr"] = "10.10.0.11"
		}, `fence_devices[0]: parameter "ipaddr" of stonith:fence_redfish is deprecated with Pacemaker 3's fence agents (pacemaker_version = "3"); use "ip"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := r2()
			tc.change(&c)
			if tc.name != "deprecated fence_redfish ipaddr" {
				// The papers' version takes it (the ipaddr case fails
				// there too: the address check reads ip).
				if err := c.Validate(); err != nil {
					t.Fatalf("version 2 refuses it: %v", err)
				}
			}
			if tc.bySchema {
				cib, err := c.Render(true)
				if err != nil {
					t.Fatal(err)
				}
				if msg, err := sim.ValidateRelaxNG(rng, cib); err != nil || msg == "" {
					t.Errorf("Pacemaker 3's schema takes the CIB with it (%v): the table and upstream disagree", err)
				}
			}
			c.Version = Version3
			err := c.Validate()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("version 3: error %v, want %q", err, tc.want)
			}
			if _, err := c.Render(false); err == nil {
				t.Error("version 3 renders it")
			}
		})
	}
	c := r2()
	c.Version = "4"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `pacemaker_version: "4": want one of 2, 3`) {
		t.Errorf("unknown version: %v", err)
	}
}

// The running pacemaker (dc-version) must be of the version rendered for.
func TestCheckRunning(t *testing.T) {
	for _, tc := range []struct {
		version, dc, want string
	}{
		{"2", "2.1.5-a3f44794f94", ""},
		{"", "1.1.19-8.el7_6.4-c3c624ea3d", ""},
		{"3", "3.0.1-3.el10-6a90427", ""},
		{"3", "", ""},
		{"2", "3.0.1-3.el10-6a90427", `pacemaker_version: pacemaker_version = "2" is for Pacemaker 1.1 or 2.x, but the cluster runs ` +
			`Pacemaker 3.0.1-3.el10-6a90427 (its dc-version); set pacemaker_version = "3"`},
		{"3", "2.1.5-a3f44794f94", `set pacemaker_version = "2"`},
		{"3", "1.1.19-8.el7_6.4-c3c624ea3d", `set pacemaker_version = "2"`},
	} {
		err := CheckRunning(tc.version, tc.dc)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckRunning(%q, %q) = %v, want %q", tc.version, tc.dc, err, tc.want)
		}
	}
	if err := CheckRunning("3", "unknown"); !errors.Is(err, ErrLive) {
		t.Errorf("a dc-version that is no release: %v", err)
	}
}

// RunningVersion reads the controller's dc-version from what cibadmin
// --query --scope configuration prints on a cluster.
func TestRunningVersion(t *testing.T) {
	_, cib := liveR2(t)
	v, err := RunningVersion(liveConfiguration(t, cib))
	if err != nil || v != "2.1.5-a3f44794f94" {
		t.Errorf("RunningVersion = %q, %v", v, err)
	}
	fresh, err := r2().Configuration()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := RunningVersion(fresh); err != nil || v != "" {
		t.Errorf("without a controller: %q, %v", v, err)
	}
}
