package redfishmock

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

const st = "/redfish/v1/Storage/controller_a"

func poolBody(name, raid string, drives []any) map[string]any {
	return map[string]any{"Name": name, "SupportedRAIDTypes": []string{raid},
		"CapacitySources": []any{map[string]any{"ProvidingDrives": drives}}}
}

func TestPoolRules(t *testing.T) {
	tb := int64(12 * tb)
	tests := []struct {
		name   string
		raid   string
		drives []string
		status int
		id     string
		usable int64
	}{
		{"raid1 two", "RAID1", seqDrives(0, 0, 2), 201, "", tb},
		{"raid1 three", "RAID1", seqDrives(0, 0, 3), 400, "PropertyValueIncorrect", 0},
		{"raid5 two", "RAID5", seqDrives(0, 0, 2), 400, "PropertyValueIncorrect", 0},
		{"raid5 three", "RAID5", seqDrives(0, 0, 3), 201, "", 2 * tb},
		{"raid6 three", "RAID6", seqDrives(0, 0, 3), 400, "PropertyValueIncorrect", 0},
		{"raid6 8+2", "RAID6", seqDrives(0, 0, 10), 201, "", 8 * tb},
		{"raid6 seventeen", "RAID6", seqDrives(0, 0, 17), 400, "PropertyValueIncorrect", 0},
		{"raid10 odd", "RAID10", seqDrives(0, 0, 5), 400, "PropertyValueIncorrect", 0},
		{"raid10 six", "RAID10", seqDrives(0, 0, 6), 201, "", 3 * tb},
		{"raid7", "RAID7", seqDrives(0, 0, 4), 400, "PropertyValueNotInList", 0},
		{"missing drive", "RAID1", []string{"0.0", "9.9"}, 400, "ResourceNotFound", 0},
		{"duplicate drive", "RAID1", []string{"0.0", "0.0"}, 400, "PropertyValueIncorrect", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testService(t, "r1", "me4084-1", nil)
			r := call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg", tt.raid, driveRefs(s, tt.drives...)))
			if tt.id != "" {
				wantError(t, r, tt.status, tt.id)
				return
			}
			if r.status != 201 || r.header.Get("Location") != st+"/StoragePools/dg" {
				t.Fatalf("status %d location %q: %s", r.status, r.header.Get("Location"), r.raw)
			}
			got := r.body["Capacity"].(map[string]any)["Data"].(map[string]any)["AllocatedBytes"]
			if got != float64(tt.usable) {
				t.Errorf("usable %v, want %d", got, tt.usable)
			}
		})
	}
}

func TestPoolStateRules(t *testing.T) {
	t.Run("mixed media", func(t *testing.T) {
		s, _ := testService(t, "r5", "me4084-1", nil) // slots 80-83 hold SSDs
		wantError(t, call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg", "RAID5", driveRefs(s, "0.78", "0.79", "0.80"))), 400, "PropertyValueConflict")
	})
	t.Run("seagate shape and busy drives", func(t *testing.T) {
		s, _ := testService(t, "r1", "me4084-2", nil)
		body := map[string]any{"Name": "dgA01", "SupportedRAIDTypes": []string{"RAID6"},
			"CapacitySources": map[string]any{"ProvidingDrives": driveRefs(s, seqDrives(0, 0, 10)...)},
			"AllocatedPools":  map[string]any{"Members": []any{map[string]any{"@odata.id": st + "/StoragePools/A"}}}}
		if r := call(t, s, http.MethodPost, st+"/StoragePools", body); r.status != 201 {
			t.Fatalf("Seagate-shaped create %d %s", r.status, r.raw)
		}
		wantError(t, call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg2", "RAID1", driveRefs(s, "0.9", "0.10"))), 409, "PropertyValueResourceConflict")
		wantError(t, call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dgA01", "RAID1", driveRefs(s, "0.20", "0.21"))), 409, "ResourceAlreadyExists")
		wantError(t, call(t, s, http.MethodPatch, st+"/Drives/0.3", map[string]any{"HotspareType": "Global"}), 409, "PropertyValueResourceConflict")
		wantError(t, call(t, s, http.MethodPatch, st+"/Drives/0.83", map[string]any{"HotspareType": "Dedicated"}), 400, "PropertyValueNotInList")
		wantError(t, call(t, s, http.MethodPatch, st+"/Drives/0.83", map[string]any{"CapacityBytes": 1}), 400, "PropertyNotWritable")
		if r := call(t, s, http.MethodPatch, st+"/Drives/0.83", map[string]any{"HotspareType": "Global"}); r.status != 200 || r.body["HotspareType"] != "Global" {
			t.Fatalf("spare %d %s", r.status, r.raw)
		}
		wantError(t, call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg3", "RAID1", driveRefs(s, "0.82", "0.83"))), 409, "PropertyValueResourceConflict")
		d := call(t, s, http.MethodGet, st+"/Drives/0.50", nil).body
		if d["Oem"].(map[string]any)["HPCStorageMock"].(map[string]any)["Drawer"] != float64(1) || d["MediaType"] != "HDD" {
			t.Errorf("drive 0.50 location/media %v %v", d["Oem"], d["MediaType"])
		}
	})
}

func TestVolumeRules(t *testing.T) {
	s, _ := testService(t, "r1", "me4084-1", func(o *Options) { o.DriveSizeBytes = 4 * tb })
	var events []MappingEvent
	var mu sync.Mutex
	s.OnMapping(func(e MappingEvent) { mu.Lock(); events = append(events, e); mu.Unlock() })
	if r := call(t, s, http.MethodPost, st+"/StoragePools", poolBody("dg1", "RAID6", driveRefs(s, seqDrives(0, 0, 10)...))); r.status != 201 {
		t.Fatal(r.status)
	}
	pool := map[string]any{"@odata.id": st + "/StoragePools/dg1"}
	usable := 8 * 4 * tb
	newVol := func(body map[string]any) result {
		body["CapacitySources"] = []any{map[string]any{"ProvidingPools": []any{pool}}}
		return call(t, s, http.MethodPost, st+"/Volumes", body)
	}
	wantError(t, newVol(map[string]any{"Name": "big", "CapacityBytes": usable + 1<<30}), 400, "ResourceExhaustion")
	wantError(t, newVol(map[string]any{"Name": "tiny", "CapacityBytes": 1000}), 400, "PropertyValueOutOfRange")
	wantError(t, newVol(map[string]any{"Name": "r5", "RAIDType": "RAID5", "CapacityBytes": 1 << 40}), 400, "PropertyValueConflict")
	wantError(t, newVol(map[string]any{"Name": "strip", "StripSizeBytes": 1000, "CapacityBytes": 1 << 40}), 400, "PropertyValueNotInList")
	wantError(t, newVol(map[string]any{"Name": "x", "Colour": 1}), 400, "PropertyUnknown")

	r := newVol(map[string]any{"Name": "st01", "CapacityBytes": 100000000000, "StripSizeBytes": 256 << 10})
	if r.status != 201 {
		t.Fatalf("create %d %s", r.status, r.raw)
	}
	if r.body["CapacityBytes"] != float64(99996401664) || r.body["RAIDType"] != "RAID6" || r.body["StripSizeBytes"] != float64(256<<10) {
		t.Errorf("volume %v %v %v", r.body["CapacityBytes"], r.body["RAIDType"], r.body["StripSizeBytes"])
	}
	wwn := r.body["Identifiers"].([]any)[0].(map[string]any)["DurableName"].(string)
	if len(wwn) != 32 || !strings.HasPrefix(wwn, "600C0FF") {
		t.Errorf("WWN %q is not NAA type 6 with the array OUI", wwn)
	}
	s2, _ := testService(t, "r1", "me4084-1", nil)
	call(t, s2, http.MethodPost, st+"/StoragePools", poolBody("dg1", "RAID6", driveRefs(s2, seqDrives(0, 0, 10)...)))
	r2 := call(t, s2, http.MethodPost, st+"/Volumes", map[string]any{"Name": "st01", "CapacitySources": []any{map[string]any{"ProvidingPools": []any{pool}}}})
	if r2.body["Identifiers"].([]any)[0].(map[string]any)["DurableName"] != wwn {
		t.Errorf("WWN not stable across restarts of the design")
	}

	rest := newVol(map[string]any{"Name": "st02"}) // all remaining space
	if rest.status != 201 || rest.body["CapacityBytes"] != float64((usable-99996401664)/mib4*mib4) {
		t.Fatalf("all-remaining volume %d %v", rest.status, rest.body["CapacityBytes"])
	}
	wantError(t, newVol(map[string]any{"Name": "st03"}), 400, "ResourceExhaustion")
	wantError(t, call(t, s, http.MethodPatch, st+"/Volumes/st01", map[string]any{"CapacityBytes": 1 << 30}), 400, "PropertyValueOutOfRange")
	wantError(t, call(t, s, http.MethodPatch, st+"/Volumes/st01", map[string]any{"CapacityBytes": 200000000000}), 400, "ResourceExhaustion")
	wantError(t, call(t, s, http.MethodDelete, st+"/StoragePools/dg1", nil), 409, "ResourceInUse")
	if r := call(t, s, http.MethodDelete, st+"/Volumes/st02", nil); r.status != 204 {
		t.Fatalf("delete %d", r.status)
	}
	if r := call(t, s, http.MethodPatch, st+"/Volumes/st01", map[string]any{"CapacityBytes": 200000000000}); r.status != 200 || r.body["CapacityBytes"] != float64(199996997632) {
		t.Fatalf("grow %d %v", r.status, r.body["CapacityBytes"])
	}

	// Mapping: LUN conflicts, delete while mapped, events.
	vol := map[string]any{"@odata.id": st + "/Volumes/st01"}
	grp := func(h string) []any { return []any{map[string]any{"@odata.id": st + "/EndpointGroups/" + h}} }
	newVol(map[string]any{"Name": "st04", "CapacityBytes": 1 << 40})
	wantError(t, call(t, s, http.MethodPost, st+"/StorageGroups", map[string]any{"MappedVolumes": []any{map[string]any{"Volume": vol, "LogicalUnitNumber": "1"}},
		"ClientEndpointGroups": grp("meta1")}), 400, "PropertyValueNotInList") // not cabled to this array
	if r := call(t, s, http.MethodPost, st+"/StorageGroups", map[string]any{"Name": "st01-stor1", "MappedVolumes": []any{map[string]any{"Volume": vol, "LogicalUnitNumber": "1"}},
		"ClientEndpointGroups": grp("stor1")}); r.status != 201 {
		t.Fatalf("map %d %s", r.status, r.raw)
	}
	wantError(t, call(t, s, http.MethodPost, st+"/Connections", map[string]any{"VolumeInfo": []any{map[string]any{"Volume": map[string]any{"@odata.id": st + "/Volumes/st04"}, "LUN": 1}},
		"Links": map[string]any{"InitiatorEndpoints": []any{map[string]any{"@odata.id": "/redfish/v1/Fabrics/SAS/Endpoints/stor1"}}}}), 409, "PropertyValueResourceConflict")
	wantError(t, call(t, s, http.MethodPost, st+"/StorageGroups", map[string]any{"MappedVolumes": []any{map[string]any{"Volume": vol, "LogicalUnitNumber": "7"}},
		"ClientEndpointGroups": grp("stor1")}), 409, "ResourceAlreadyExists")
	wantError(t, call(t, s, http.MethodDelete, st+"/Volumes/st01", nil), 409, "ResourceInUse")
	call(t, s, http.MethodPatch, st+"/Volumes/st01", map[string]any{"CapacityBytes": 300000000000})
	if r := call(t, s, http.MethodDelete, st+"/StorageGroups/st01-stor1", nil); r.status != 204 {
		t.Fatalf("unmap %d", r.status)
	}
	if r := call(t, s, http.MethodDelete, st+"/Volumes/st01", nil); r.status != 204 {
		t.Fatalf("delete after unmap %d", r.status)
	}
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s:%s:%s:%d", e.Kind, e.Host, e.VolumeName, e.LUN))
		if e.WWN != wwn || e.Array != "me4084-1" {
			t.Errorf("event %+v", e)
		}
	}
	want := "mapped:stor1:st01:1 resized:stor1:st01:1 unmapped:stor1:st01:1"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}
