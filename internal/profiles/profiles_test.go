package profiles

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

func TestPresetsAreWellFormed(t *testing.T) {
	wantNames := []string{"beegfs-metadata", "beegfs-storage", "beegfs-client", "nfs-server", "gpfs-nsd-server", "ceph-osd", "ceph-mon"}
	for _, n := range wantNames {
		if !slices.Contains(Names(), n) {
			t.Errorf("preset %s missing", n)
		}
	}
	for _, p := range All() {
		t.Run(p.Name, func(t *testing.T) {
			if p.Version < 1 || p.Summary == "" || len(p.Designs) == 0 {
				t.Errorf("version %d, summary %q, designs %v", p.Version, p.Summary, p.Designs)
			}
			seen := map[string]bool{}
			for _, s := range p.Settings {
				if seen[s.Key] {
					t.Errorf("%s twice", s.Key)
				}
				seen[s.Key] = true
				if !slices.Contains(Kinds, s.Kind()) || s.Name() == "" {
					t.Errorf("%s: bad key", s.Key)
				}
				if _, ok := Sources[s.Source]; !ok {
					t.Errorf("%s: source %q not in Sources", s.Key, s.Source)
				}
				if s.Kind() == KindConf && p.Conf == "" {
					t.Errorf("%s: conf setting without a conf file", s.Key)
				}
				if s.Kind() == KindQueue && p.Match.Key() == "" {
					t.Errorf("%s: queue setting without a disk match", s.Key)
				}
			}
			for _, c := range p.Conflicts {
				if Conflicts[c] == "" {
					t.Errorf("conflict %q not documented", c)
				}
			}
			items, err := p.Render()
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			spec := protocol.Spec{APIVersion: protocol.APIVersion, Owner: "x", Items: items}
			if err := spec.Validate(); err != nil {
				t.Errorf("rendered spec invalid: %v", err)
			}
			nodeItems := 0
			for _, s := range p.Settings {
				if s.Kind() != KindCluster {
					nodeItems++
				}
			}
			if nodeItems > 0 && len(items) == 0 {
				t.Error("no items rendered")
			}
		})
	}
}

// Values the reference designs fix, checked where they land in the items.
func TestReferenceValues(t *testing.T) {
	find := func(t *testing.T, name string) []protocol.Item {
		t.Helper()
		_, items, err := Resolve(name, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	sysctl := func(items []protocol.Item, key string) string {
		for _, it := range items {
			if it.Sysctl != nil && it.Sysctl.Key == key {
				return string(it.Sysctl.Value)
			}
		}
		return ""
	}
	queue := func(items []protocol.Item) *protocol.BlockQueue {
		for _, it := range items {
			if it.BlockQueue != nil {
				return it.BlockQueue
			}
		}
		return nil
	}
	file := func(items []protocol.Item) *protocol.File {
		for _, it := range items {
			if it.File != nil {
				return it.File
			}
		}
		return nil
	}
	t.Run("R1 storage", func(t *testing.T) {
		items := find(t, "beegfs-storage")
		for k, v := range map[string]string{"vm.dirty_background_ratio": "5", "vm.dirty_ratio": "20", "vm.min_free_kbytes": "262144", "vm.vfs_cache_pressure": "50"} {
			if got := sysctl(items, k); got != v {
				t.Errorf("%s = %q, want %s", k, got, v)
			}
		}
		q := queue(items)
		if q == nil || q.Scheduler != "mq-deadline" || *q.NrRequests != 2048 || *q.ReadAheadKB != 4096 || q.Match.Rotational == nil || !*q.Match.Rotational {
			t.Errorf("queue %+v", q)
		}
		f := file(items)
		if f == nil || f.Path != "/etc/beegfs/beegfs-storage.conf" || f.Set["connMaxInternodeNum"] != "64" || f.Set["tuneFileReadAheadSize"] != "2m" {
			t.Errorf("conf %+v", f)
		}
		if !slices.ContainsFunc(items, func(it protocol.Item) bool { return it.THP != nil && it.THP.Enabled == "never" }) {
			t.Error("THP not disabled (R1)")
		}
	})
	t.Run("R2 nfs", func(t *testing.T) {
		items := find(t, "nfs-server")
		if q := queue(items); q == nil || q.Scheduler != "mq-deadline" {
			t.Errorf("queue %+v", q)
		}
		if f := file(items); f == nil || f.Content == nil || !strings.Contains(*f.Content, "[nfsd]\nthreads = 256\n") {
			t.Errorf("nfs.conf drop-in %+v", f)
		}
	})
	t.Run("zone reclaim conflict", func(t *testing.T) {
		if a, b := sysctl(find(t, "beegfs-storage"), "vm.zone_reclaim_mode"), sysctl(find(t, "ceph-osd"), "vm.zone_reclaim_mode"); a != "1" || b != "0" {
			t.Errorf("beegfs %q ceph %q", a, b)
		}
	})
	t.Run("R5 cluster settings", func(t *testing.T) {
		p, _, err := Resolve("gpfs-nsd-server", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cs := p.ClusterSettings(); cs["pagepool"] != "16G" || cs["blockSize"] != "8M" {
			t.Errorf("cluster settings %v", cs)
		}
	})
}

func TestOverrides(t *testing.T) {
	tests := []struct {
		name      string
		overrides map[string]string
		wantErr   error
		errHas    string
		check     func(t *testing.T, p Preset, items []protocol.Item)
	}{
		{name: "replace", overrides: map[string]string{"sysctl:vm.dirty_ratio": "75"}, check: func(t *testing.T, p Preset, _ []protocol.Item) {
			s, _ := p.Setting("sysctl:vm.dirty_ratio")
			if s.Value != "75" || s.Source != "override" || s.Note != "preset value 20" {
				t.Errorf("%+v", s)
			}
		}},
		{name: "drop and add", overrides: map[string]string{"thp:enabled": "", "thp:defrag": "", "sysctl:vm.swappiness": "10", "conf:tuneNumWorkers": "24"},
			check: func(t *testing.T, _ Preset, items []protocol.Item) {
				for _, it := range items {
					if it.THP != nil {
						t.Error("thp still rendered")
					}
					if it.File != nil && it.File.Set["tuneNumWorkers"] != "24" {
						t.Errorf("conf %v", it.File.Set)
					}
				}
				if !slices.ContainsFunc(items, func(it protocol.Item) bool { return it.Sysctl != nil && it.Sysctl.Key == "vm.swappiness" }) {
					t.Error("new sysctl not added")
				}
			}},
		{name: "unknown key", overrides: map[string]string{"block_queue:schedular": "none"}, wantErr: ErrUnknownSetting, errHas: `did you mean "block_queue:scheduler"`},
		{name: "not an int", overrides: map[string]string{"block_queue:nr_requests": "lots"}, wantErr: ErrBadOverride, errHas: "want an integer"},
		{name: "invalid value", overrides: map[string]string{"thp:enabled": "sometimes"}, errHas: "thp.enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, items, err := Resolve("beegfs-storage", 0, tt.overrides)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p, items)
		})
	}
}

func TestResolveErrors(t *testing.T) {
	if _, _, err := Resolve("beegfs-storag", 0, nil); !errors.Is(err, ErrUnknownPreset) || !strings.Contains(err.Error(), "beegfs-storage") {
		t.Errorf("unknown preset: %v", err)
	}
	if _, _, err := Resolve("beegfs-storage", 99, nil); !errors.Is(err, ErrVersion) {
		t.Errorf("version pin: %v", err)
	}
	if _, _, err := Resolve("beegfs-storage", 1, nil); err != nil {
		t.Errorf("current version pin: %v", err)
	}
}

// The guide template is generated; this fails when a preset changed and
// `go generate ./internal/profiles` was not run.
func TestGuideUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../templates/guides/tuning-profiles.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Guide() {
		t.Fatal("templates/guides/tuning-profiles.md.tmpl is stale: run go generate ./internal/profiles")
	}
	for _, p := range All() {
		for _, s := range p.Settings {
			if !strings.Contains(string(got), "`"+s.Key+"` | `"+cell(s.Value)+"`") {
				t.Errorf("%s %s missing from the guide", p.Name, s.Key)
			}
		}
	}
}
