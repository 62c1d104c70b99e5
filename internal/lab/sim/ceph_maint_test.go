package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

type pgStat struct {
	Summary struct {
		ByState []struct {
			Name string `json:"name"`
			Num  int    `json:"num"`
		} `json:"num_pg_by_state"`
		NumPGs int `json:"num_pgs"`
	} `json:"pg_summary"`
}

func (p pgStat) states() map[string]int {
	m := map[string]int{}
	for _, s := range p.Summary.ByState {
		m[s.Name] += s.Num
	}
	return m
}

// TestCephHostMaintenance: a host's noout flag (set-group) shows in
// health; its power off takes its OSDs down and the PGs undersized and
// degraded but active (size 3, min_size 2, three hosts); its boot brings
// them back active+clean. The config-key store and the refusals.
func TestCephHostMaintenance(t *testing.T) {
	l := newCephLab(t, 3, 0, true)
	l.bootstrap()
	l.addHosts(3)
	l.apply(r4Specs)
	l.ok("mon1", "ceph", "osd", "pool", "create", "rbd", "32")
	l.ok("mon1", "ceph", "osd", "pool", "application", "enable", "rbd", "rbd")
	pgs := func() map[string]int {
		t.Helper()
		var p pgStat
		l.jsonOut(&p, "mon1", "ceph", "pg", "stat", "-f", "json")
		return p.states()
	}
	health := func() map[string]json.RawMessage {
		t.Helper()
		var h struct {
			Checks map[string]json.RawMessage `json:"checks"`
		}
		l.jsonOut(&h, "mon1", "ceph", "health", "detail", "-f", "json")
		return h.Checks
	}
	if st := pgs(); len(st) != 1 || st["active+clean"] == 0 {
		t.Fatalf("pg stat before: %v", st)
	}
	l.ok("mon1", "ceph", "osd", "set-group", "noout", "osd1")
	if f := string(health()["OSD_FLAGS"]); !strings.Contains(f, "host osd1 has flags noout") {
		t.Errorf("OSD_FLAGS after set-group: %s", f)
	}
	if err := sim.Shutdown(l.roots["osd1"]); err != nil {
		t.Fatal(err)
	}
	st := pgs()
	if st["active+clean"] != 0 || st["active+undersized+degraded"] == 0 {
		t.Errorf("pg stat with osd1 off: %v", st)
	}
	h := health()
	if !strings.Contains(string(h["OSD_HOST_DOWN"]), "host osd1 (root=default) (22 osds) is down") || h["OSD_DOWN"] == nil {
		t.Errorf("health with osd1 off: %v", h)
	}
	if out := l.ok("mon1", "ceph", "osd", "stat"); !strings.HasPrefix(out, "66 osds: 44 up, 66 in") {
		t.Errorf("osd stat: %q", out)
	}
	if out := l.ok("mon1", "ceph", "osd", "tree"); !strings.Contains(out, "down") {
		t.Errorf("osd tree shows no OSD down:\n%s", out)
	}
	if err := sim.Boot(l.roots["osd1"]); err != nil {
		t.Fatal(err)
	}
	if st := pgs(); len(st) != 1 || st["active+clean"] == 0 {
		t.Errorf("pg stat after the boot: %v", st)
	}
	l.ok("mon1", "ceph", "osd", "unset-group", "noout", "osd1")
	if h := health(); h["OSD_FLAGS"] != nil || h["OSD_DOWN"] != nil {
		t.Errorf("health after unset-group and boot: %v", h)
	}
	l.ok("mon1", "ceph", "osd", "add-noout", "osd.3")
	if f := string(health()["OSD_FLAGS"]); !strings.Contains(f, "osd.3 has flags noout") {
		t.Errorf("OSD_FLAGS after add-noout: %s", f)
	}
	l.ok("mon1", "ceph", "osd", "rm-noout", "3")
	l.refused("mon1", 22, "unrecognized flag 'nosuch'", "ceph", "osd", "set-group", "nosuch", "osd1")
	l.refused("mon1", 22, `unable to parse osd id or crush node or device class: "rack9"`, "ceph", "osd", "set-group", "noout", "rack9")
	l.refused("mon1", 22, "osd.999 does not exist", "ceph", "osd", "add-noout", "999")
	// config-key: set, exists, get, dump by prefix, rm.
	l.ok("mon1", "ceph", "config-key", "set", "a/b/x", "claim")
	l.ok("mon1", "ceph", "config-key", "exists", "a/b/x")
	if v := l.ok("mon1", "ceph", "config-key", "get", "a/b/x"); v != "claim" {
		t.Errorf("get: %q", v)
	}
	var dump map[string]string
	l.ok("mon1", "ceph", "config-key", "set", "c", "other")
	l.jsonOut(&dump, "mon1", "ceph", "config-key", "dump", "a/b/")
	if len(dump) != 1 || dump["a/b/x"] != "claim" {
		t.Errorf("dump a/b/: %v", dump)
	}
	l.ok("mon1", "ceph", "config-key", "rm", "a/b/x")
	l.refused("mon1", 2, "key 'a/b/x' doesn't exist", "ceph", "config-key", "exists", "a/b/x")
}
