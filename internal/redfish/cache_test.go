package redfish

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// CachedDrives decodes an array's drives once per fetched collection and
// hands each caller its own copy: what one caller changes, the next does
// not see, and a write still drops the cache.
func TestCachedDrivesDecodedOnceCopiedPerCaller(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "me4084-1", redfishmock.Options{})
	ctx := context.Background()
	sid, err := ep.FindStorage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ep.Drives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	svc.ResetStats()
	first, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(first, want, drivesEqual) {
		t.Fatalf("cached drives differ from a plain read")
	}
	first[0].ID, first[1].HotspareType = "changed", "Global"
	slices.Reverse(first)
	second, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(second, want, drivesEqual) {
		t.Fatalf("a caller's edit reached the next caller: %+v", second[:2])
	}
	if n := requests(svc); n != 1 {
		t.Errorf("%d requests for two cached reads (%v), want 1", n, svc.Stats())
	}
	// A write drops the cache: the next read fetches and decodes again.
	if err := ep.SetHotspare(ctx, &second[0], "Global"); err != nil {
		t.Fatal(err)
	}
	third, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if third[0].HotspareType != "Global" {
		t.Errorf("after the write, drive %s is %q, want Global", third[0].ID, third[0].HotspareType)
	}
}

func drivesEqual(a, b Drive) bool {
	return a.ID == b.ID && a.URI == b.URI && a.HotspareType == b.HotspareType && a.Slot == b.Slot &&
		a.Enclosure == b.Enclosure && a.Drawer == b.Drawer && a.PoolURI == b.PoolURI && a.CapacityBytes == b.CapacityBytes
}

func requests(svc *redfishmock.Service) (n int) {
	for _, v := range svc.Stats() {
		n += v
	}
	return n
}

// linkOf tells a bare link from an expanded member without decoding the
// member whole.
func TestLinkOf(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		id   string
		link bool
	}{
		{`{"@odata.id": "/redfish/v1/Storage/a/Drives/0.1"}`, "/redfish/v1/Storage/a/Drives/0.1", true},
		{`{"@odata.id": "/redfish/v1/Storage/a/Drives/0.1", "Id": "0.1", "CapacityBytes": 1}`, "", false},
		{`{"Id": "0.1", "@odata.id": "/x"}`, "", false},
		{`{}`, "", true},
	} {
		l, ok := linkOf(json.RawMessage(tc.raw))
		if ok != tc.link || (ok && l.ID != tc.id) {
			t.Errorf("linkOf(%s) = %q, %v; want %q, %v", tc.raw, l.ID, ok, tc.id, tc.link)
		}
	}
}
