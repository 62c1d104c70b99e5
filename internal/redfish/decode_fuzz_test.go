package redfish

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// Odd payloads (wrong types, nulls, numbers where strings belong) must give
// errors, never panics: BMC firmware is not always schema-clean.
func FuzzDecodePayloads(f *testing.F) {
	for _, seed := range []string{
		`{"Id":"0.1","MediaType":"HDD","CapacityBytes":12000000000000,"PhysicalLocation":{"PartLocation":{"LocationOrdinalValue":1,"ServiceLabel":"Enclosure 0 Drawer 1 Slot 45"}},"Links":{"StoragePools":[{"@odata.id":"/x"}]}}`,
		`{"Id":"v","CapacityBytes":"big","Identifiers":[{"DurableNameFormat":"NAA","DurableName":null}],"Links":{"ProvidingStoragePool":7}}`,
		`{"PhysicalLocation":{"PartLocation":{"LocationOrdinalValue":"3"}}}`,
		`{"Attributes":{"A":1.5,"B":true,"C":null},"@Redfish.Settings":{"SettingsObject":"not-a-link"}}`,
		`{"SupportedRAIDTypes":null,"CapacitySources":[{"ProvidingDrives":{"Members":[1,2]}}]}`,
		`[]`, `null`, `"x"`, `{`,
	} {
		f.Add([]byte(seed))
	}
	// Links to follow go nowhere (a closed port), quickly.
	nowhere, err := NewEndpoint(Config{Name: "nowhere", URL: "https://127.0.0.1:1", Retry: Retry{MaxAttempts: 1},
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeDrive(b, "")
		_, _ = decodeVolume(b, "")
		var doc biosDoc
		if json.Unmarshal(b, &doc) == nil {
			bios := newBios("/b", doc)
			bios.addPending(doc, "")
			for _, v := range bios.Current {
				_ = FormatValue(v)
			}
		}
		var pd poolDoc
		if json.Unmarshal(b, &pd) == nil {
			_, _ = nowhere.poolFromDoc(context.Background(), pd)
		}
		_ = newHTTPError("GET", "/", 500, b)
	})
}
