package nodeconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

func ptr[T any](v T) *T { return &v }

// Diffs below are what the agent printed for a drifted fake node.
func TestObserve(t *testing.T) {
	xconf := "a\nb\nc\n"
	desired := Config{
		Sysctl: map[string]string{"vm.dirty_ratio": "20", "vm.swappiness": "10"},
		THP:    &THP{Enabled: "never", Defrag: "never"},
		BlockQueues: []BlockQueue{{Match: protocol.DiskMatch{Name: "sd*", Rotational: ptr(true)},
			Scheduler: "mq-deadline", NrRequests: ptr(2048)}},
		Files: map[string]File{
			"/etc/x.conf":    {Content: &xconf, Mode: "0644"},
			"/etc/b.conf":    {Set: map[string]string{"tuneNumWorkers": "12", "connMaxInternodeNum": "64"}},
			"/etc/gone.conf": {Content: &xconf},
		},
		Services: map[string]Service{"beegfs-storage": {Enabled: ptr(true), State: "started"}},
	}
	items, _ := desired.Items()
	diffs := map[string]string{
		"sysctl:vm.dirty_ratio": "-vm.dirty_ratio = 30\n+vm.dirty_ratio = 20\n",
		"thp":                   "-transparent_hugepage/enabled = always\n+transparent_hugepage/enabled = never\n",
		"block_queue:sd*":       "-sdb queue/scheduler = [bfq] mq-deadline none\n+sdb queue/scheduler = mq-deadline\n-sdb queue/nr_requests = 64\n+sdb queue/nr_requests = 2048\n",
		"file:/etc/x.conf":      "--- /etc/x.conf\n+++ /etc/x.conf\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\nmode /etc/x.conf: 0600 -> 0644\n",
		"file:/etc/b.conf": "--- /etc/b.conf\n+++ /etc/b.conf\n@@ -18,4 +18,5 @@\n connStoragePortUDP            = 8003\n" +
			"-tuneNumWorkers = 8\n+tuneNumWorkers = 12\n tuneUsePerTargetWorkers       = true\n tuneUsePerUserMsgQueues       = false\n+connMaxInternodeNum = 64\n",
		"file:/etc/gone.conf":    "--- /etc/gone.conf\n+++ /etc/gone.conf\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n",
		"service:beegfs-storage": "-beegfs-storage.service: disabled\n+beegfs-storage.service: enabled\n-beegfs-storage.service: inactive\n+beegfs-storage.service: active\n",
	}
	res := &protocol.Result{}
	for _, it := range items {
		d, changed := diffs[it.ID()]
		res.Items = append(res.Items, protocol.ItemResult{ID: it.ID(), Changed: changed, Diff: d})
	}
	res.Items = append(res.Items, protocol.ItemResult{ID: "revert:sysctl:vm.old", Changed: true, Diff: "x"})

	got, drift := Observe(desired, res)

	oldX := "a\nB\nc\n"
	want := desired.Clone()
	want.Sysctl["vm.dirty_ratio"] = "30"
	want.THP.Enabled = "always"
	want.BlockQueues[0].Scheduler = "bfq"
	want.BlockQueues[0].NrRequests = ptr(64)
	want.Files["/etc/x.conf"] = File{Content: &oldX, Mode: "0600"}
	want.Files["/etc/b.conf"] = File{Set: map[string]string{"tuneNumWorkers": "8"}}
	delete(want.Files, "/etc/gone.conf")
	want.Services["beegfs-storage"] = Service{Enabled: ptr(false), State: "stopped"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observed (-want +got):\n%s", d)
	}
	if len(drift) != len(diffs) {
		t.Errorf("drift has %d items, want %d: %v", len(drift), len(diffs), drift)
	}
	if drift["sysctl:vm.swappiness"] != "" || drift["revert:sysctl:vm.old"] != "" {
		t.Errorf("unchanged item or revert in drift: %v", drift)
	}
	// The desired config is not modified.
	if desired.Sysctl["vm.dirty_ratio"] != "20" || *desired.Files["/etc/x.conf"].Content != xconf {
		t.Error("Observe modified its input")
	}
}

func TestObserveErrorIsDrift(t *testing.T) {
	c := Config{Sysctl: map[string]string{"vm.dirty_ratio": "20"}}
	res := &protocol.Result{Items: []protocol.ItemResult{{ID: "sysctl:vm.dirty_ratio", Error: "claimed by owner \"t1\""}}}
	got, drift := Observe(c, res)
	if got.Sysctl["vm.dirty_ratio"] != "20" || drift["sysctl:vm.dirty_ratio"] != "error: claimed by owner \"t1\"" {
		t.Errorf("got %v drift %v", got.Sysctl, drift)
	}
}

func TestReverse(t *testing.T) {
	tests := []struct {
		name, diff, desired, want string
		wantErr                   bool
	}{
		{"middle line", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n", "a\nb\nc\n", "a\nB\nc\n", false},
		{"line added by hand", "--- f\n+++ f\n@@ -1,3 +1,2 @@\n a\n-x\n b\n", "a\nb\n", "a\nx\nb\n", false},
		{"missing newline", "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", "a\n", "a", false},
		{"two hunks", "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-X\n+1\n 2\n@@ -9,2 +9,2 @@\n 9\n-Y\n+10\n",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "X\n2\n3\n4\n5\n6\n7\n8\n9\nY\n", false},
		{"does not apply", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n", "q\nr\ns\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, _ := parseSections(tt.diff)
			got, err := secs["f"].reverse(tt.desired)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFromRevert(t *testing.T) {
	res := &protocol.Result{Items: []protocol.ItemResult{
		{ID: "revert:unit:beegfs-storage.service", Diff: "run: systemctl stop beegfs-storage.service\nrun: systemctl disable beegfs-storage.service\n"},
		{ID: "revert:file:/etc/modprobe.d/hpcstorage-mpt3sas.conf", Diff: "--- /etc/modprobe.d/hpcstorage-mpt3sas.conf\n+++ /etc/modprobe.d/hpcstorage-mpt3sas.conf\n@@ -1,2 +0,0 @@\n-# Managed by hpcstorage-agent for owner t1.\n-options mpt3sas max_queue_depth=10000\n"},
		{ID: "revert:module:mpt3sas", Diff: "run: modprobe -r mpt3sas\n"},
		{ID: "revert:sysfs:/sys/kernel/mm/transparent_hugepage/defrag", Diff: "-/sys/kernel/mm/transparent_hugepage/defrag = never\n+/sys/kernel/mm/transparent_hugepage/defrag = madvise\n"},
		{ID: "revert:file:/etc/x.conf", Diff: "--- /etc/x.conf\n+++ /etc/x.conf\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{ID: "revert:file:/etc/beegfs/beegfs-storage.conf", Diff: "--- /etc/beegfs/beegfs-storage.conf\n+++ /etc/beegfs/beegfs-storage.conf\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n"},
		{ID: "revert:sysctl:vm.dirty_ratio", Diff: "-/proc/sys/vm/dirty_ratio = 20\n+/proc/sys/vm/dirty_ratio = 40\n"},
		{ID: "revert:sysfs:/sys/block/sdb/queue/nr_requests", Diff: "-/sys/block/sdb/queue/nr_requests = 2048\n+/sys/block/sdb/queue/nr_requests = 64\n"},
	}}
	got, unknown := FromRevert(res)
	x := "a\nb\n"
	want := Config{
		Sysctl:        map[string]string{"vm.dirty_ratio": "20"},
		THP:           &THP{Defrag: "never"},
		KernelModules: map[string]KernelModule{"mpt3sas": {Options: "max_queue_depth=10000"}},
		Files:         map[string]File{"/etc/x.conf": {Content: &x}},
		Services:      map[string]Service{"beegfs-storage": {Enabled: ptr(true), State: "started"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"file:/etc/beegfs/beegfs-storage.conf", "sysfs:/sys/block/sdb/queue/nr_requests"}, unknown); d != "" {
		t.Errorf("unknown (-want +got):\n%s", d)
	}
}

func TestItemsOrderAndRoundTrip(t *testing.T) {
	c := Config{
		Services:      map[string]Service{"b": {State: "started"}, "a": {Enabled: ptr(true), DropIns: map[string]string{"z": "x", "y": "w"}}},
		Sysctl:        map[string]string{"vm.b": "1", "vm.a": "2"},
		PackageFloors: map[string]string{"lvm2": "2.02"},
		Commands:      []Command{{Name: "two", Argv: []string{"b"}, Creates: "/b"}, {Name: "one", Argv: []string{"a"}, Creates: "/a"}},
	}
	items, locs := c.Items()
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID())
	}
	want := []string{"package_version:lvm2", "sysctl:vm.a", "sysctl:vm.b", "command:two", "command:one", "service:a", "service:b"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if locs[3] != (Locator{Attr: AttrCommands, Index: 0}) || locs[1] != (Locator{Attr: AttrSysctl, Key: "vm.a", Index: -1}) {
		t.Errorf("locators: %+v", locs)
	}
	back, err := FromItems(items)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if _, err := FromItems(append(items, items[1])); err == nil {
		t.Error("duplicate sysctl accepted")
	}
}
