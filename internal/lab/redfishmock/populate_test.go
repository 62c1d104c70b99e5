package redfishmock

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

var timeZero time.Time

func driveRefs(s *Service, ids ...string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"@odata.id": "/redfish/v1/Storage/controller_a/Drives/" + id}
	}
	return out
}

func seqDrives(encl, from, n int) []string {
	var ids []string
	for i := from; i < from+n; i++ {
		ids = append(ids, fmt.Sprintf("%d.%d", encl, i))
	}
	return ids
}

// populate gives an endpoint some of every kind of state, so crawls see
// pools, volumes, mappings, sessions, jobs and tasks, not just the seed.
func populate(t testing.TB, s *Service) {
	t.Helper()
	expect := func(r result, status int) {
		t.Helper()
		if r.status != status {
			t.Fatalf("%s: status %d, want %d: %s", s.Name(), r.status, status, r.raw)
		}
	}
	expect(call(t, s, http.MethodPost, "/redfish/v1/SessionService/Sessions", map[string]any{"UserName": "admin", "Password": "secret"}), http.StatusCreated)
	switch s.Spec().Kind {
	case KindArray:
		a := "/redfish/v1/Storage/controller_a"
		n, raid := 10, "RAID6"
		if s.Spec().Model == "ME4024" {
			n, raid = 2, "RAID1"
		}
		expect(call(t, s, http.MethodPost, a+"/StoragePools", map[string]any{"Name": "dg1", "SupportedRAIDTypes": []string{raid},
			"CapacitySources": []any{map[string]any{"ProvidingDrives": driveRefs(s, seqDrives(0, 0, n)...)}}}), http.StatusCreated)
		expect(call(t, s, http.MethodPost, a+"/Volumes", map[string]any{"Name": "vol1", "CapacityBytes": 100 << 30,
			"CapacitySources": []any{map[string]any{"ProvidingPools": []any{map[string]any{"@odata.id": a + "/StoragePools/dg1"}}}}}), http.StatusCreated)
		expect(call(t, s, http.MethodPost, a+"/Volumes", map[string]any{"Name": "vol2",
			"Links": map[string]any{"ProvidingStoragePool": map[string]any{"@odata.id": a + "/StoragePools/dg1"}}}), http.StatusCreated)
		host := s.Spec().CabledTo[0]
		expect(call(t, s, http.MethodPost, a+"/StorageGroups", map[string]any{"Name": "sg1",
			"MappedVolumes":        []any{map[string]any{"Volume": map[string]any{"@odata.id": a + "/Volumes/vol1"}, "LogicalUnitNumber": "1"}},
			"ClientEndpointGroups": []any{map[string]any{"@odata.id": a + "/EndpointGroups/" + host}}}), http.StatusCreated)
		expect(call(t, s, http.MethodPost, a+"/Connections", map[string]any{"Name": "c1",
			"VolumeInfo": []any{map[string]any{"Volume": map[string]any{"@odata.id": a + "/Volumes/vol2"}, "LUN": 2, "AccessCapabilities": []string{"Read", "Write"}}},
			"Links":      map[string]any{"InitiatorEndpoints": []any{map[string]any{"@odata.id": "/redfish/v1/Fabrics/SAS/Endpoints/" + host}}}}), http.StatusCreated)
		last := fmt.Sprintf("0.%d", n+1)
		expect(call(t, s, http.MethodPatch, a+"/Drives/"+last, map[string]any{"HotspareType": "Global"}), http.StatusOK)
	case KindServer:
		sys := s.sys
		attrs := map[string]any{sys.reg.sncAttr: "Enabled", sys.reg.htAttr: "Disabled"}
		body := map[string]any{"Attributes": attrs}
		if s.Spec().Personality == PersonalityDell {
			body["@Redfish.SettingsApplyTime"] = map[string]any{"ApplyTime": "OnReset"}
		}
		r := call(t, s, http.MethodPatch, sys.settingsPath, body)
		if r.status >= 300 {
			t.Fatalf("%s: BIOS PATCH %d: %s", s.Name(), r.status, r.raw)
		}
		if s.Spec().Personality == PersonalityGeneric {
			body["@Redfish.SettingsApplyTime"] = map[string]any{"ApplyTime": "Immediate"}
			expect(call(t, s, http.MethodPatch, sys.settingsPath, body), http.StatusAccepted)
		}
	}
}
