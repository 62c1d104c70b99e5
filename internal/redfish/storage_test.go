package redfish

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
)

// R1 storage array end to end: drives with drawers, the layout planner's
// 8 RAID6 groups and 4 spares, one volume per group mapped to both servers.
func TestR1ArrayEndToEnd(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "me4084-1", redfishmock.Options{})
	ctx := context.Background()
	sid, err := ep.FindStorage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	drives, err := ep.Drives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(drives) != 84 {
		t.Fatalf("%d drives, want 84", len(drives))
	}
	if d := drives[45]; d.Drawer != 1 || d.Slot != 45 || d.MediaType != "HDD" || d.CapacityBytes != 12_000_000_000_000 {
		t.Errorf("drive 45 = %+v", d)
	}
	var ld []layout.Drive
	for _, d := range drives {
		ld = append(ld, layout.Drive{ID: d.ID, MediaType: d.MediaType, CapacityBytes: d.CapacityBytes, Drawer: d.Drawer, Slot: d.Slot})
	}
	plan, err := layout.Make(ld, layout.Policy{Level: layout.RAID6, DrivesPerGroup: 10, LeftoverAsSpares: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 8 || len(plan.Spares) != 4 {
		t.Fatalf("plan: %d groups %d spares", len(plan.Groups), len(plan.Spares))
	}
	svc.ResetStats()
	for gi, g := range plan.Groups {
		p, err := ep.CreatePool(ctx, sid, g.Name, string(g.Level), g.DriveIDs)
		if err != nil {
			t.Fatal(err)
		}
		if p.AllocatedBytes != g.UsableBytes || len(p.DriveIDs) != 10 || p.RAIDLevel != "RAID6" {
			t.Errorf("pool %s = %+v, want %d bytes", g.Name, p, g.UsableBytes)
		}
		v, err := ep.CreateVolume(ctx, sid, p.ID, "st"+g.Name[2:], 0, 512<<10)
		if err != nil {
			t.Fatal(err)
		}
		if v.WWN == "" || v.CapacityBytes == 0 || v.CapacityBytes > p.AllocatedBytes || v.StripSizeBytes != 512<<10 {
			t.Errorf("volume = %+v", v)
		}
		for _, host := range []string{"stor1", "stor2"} {
			if err := ep.Map(ctx, sid, v, host, int64(gi)); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := ep.Mappings(ctx, sid, v.URI)
		if err != nil || len(ms) != 2 || ms[0].Host != "stor1" {
			t.Errorf("mappings = %+v, %v", ms, err)
		}
	}
	for _, id := range plan.Spares {
		d, err := ep.GetDrive(ctx, sid, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := ep.SetHotspare(ctx, d, "Global"); err != nil {
			t.Fatal(err)
		}
	}
	if n := svc.Stats()["POST /redfish/v1/Storage/controller_a/StoragePools"]; n != 8 {
		t.Errorf("pool POSTs = %d, want 8", n)
	}
	// A drive in a pool cannot become a spare.
	d, _ := ep.GetDrive(ctx, sid, plan.Groups[0].DriveIDs[0])
	if err := ep.SetHotspare(ctx, d, "Global"); !errors.Is(err, ErrConflict) {
		t.Errorf("spare in pool: err = %v, want ErrConflict", err)
	}
	// Volumes grow in place; shrinking is refused by the array too.
	v, err := ep.FindVolume(ctx, sid, "st01")
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.ResizeVolume(ctx, v, v.CapacityBytes-(4<<20)); !errors.Is(err, ErrBadRequest) {
		t.Errorf("shrink: err = %v", err)
	}
	// Deleting a mapped volume is refused; deleting what is gone is fine.
	if err := ep.DeleteURI(ctx, v.URI); !errors.Is(err, ErrConflict) {
		t.Errorf("delete mapped: err = %v", err)
	}
	if err := ep.DeleteURI(ctx, v.URI+"-nope"); err != nil {
		t.Errorf("delete missing: %v", err)
	}
}

// A connection reset on the create POST or a 503 burst never duplicates a
// pool or a volume.
func TestCreateSurvivesFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault redfishmock.Fault
	}{
		{"reset on pool POST", redfishmock.Fault{Method: "POST", Path: "/redfish/v1/Storage/controller_a/StoragePools", Kind: redfishmock.FaultReset, Count: 1}},
		{"503 burst on pool POST", redfishmock.Fault{Method: "POST", Path: "/redfish/v1/Storage/controller_a/StoragePools", Kind: redfishmock.FaultStatus, Status: 503, RetryAfter: 5, Count: 3}},
		{"503 burst on every GET", redfishmock.Fault{Method: "GET", Path: "/redfish/v1/*", Kind: redfishmock.FaultStatus, Status: 503, RetryAfter: 5, Count: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep, svc := mockEndpoint(t, "r1", "me4024-1", redfishmock.Options{})
			sl := &sleeps{}
			ep.cfg.Sleep = sl.sleep
			ctx := context.Background()
			if err := svc.InjectFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			p, err := ep.CreatePool(ctx, "controller_a", "mdt01", "RAID1", []string{"0.0", "0.1"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := ep.CreateVolume(ctx, "controller_a", p.ID, "mdt01", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			items, err := ep.expandMembers(ctx, PoolsURI("controller_a"), "Members")
			if err != nil || len(items) != 1 {
				t.Errorf("pools = %d, %v; want exactly 1", len(items), err)
			}
			if v.Name != "mdt01" {
				t.Errorf("volume = %+v", v)
			}
			if tc.fault.Kind == redfishmock.FaultStatus {
				if len(sl.d) != 3 {
					t.Errorf("waited %v, want 3 waits", sl.d)
				}
				for _, d := range sl.d {
					if d != 5*time.Second {
						t.Errorf("waited %s, want the mock's Retry-After of 5s", d)
					}
				}
			}
			// What happened on the wire, for the record.
			var stats []string
			for k, n := range svc.Stats() {
				if strings.HasPrefix(k, "POST") {
					stats = append(stats, fmt.Sprintf("%s=%d", k, n))
				}
			}
			t.Logf("faults %+v; posts %v", svc.Faults(), stats)
		})
	}
}

// A request slower than the timeout is abandoned; a GET is retried, a POST
// reports an unknown outcome (and creates look the object up, see above).
func TestRequestTimeout(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "me4024-1", redfishmock.Options{})
	ep.cfg.Timeout = 100 * time.Millisecond
	ctx := context.Background()
	if _, err := ep.Get(ctx, "/redfish/v1/Storage", nil); err != nil { // log in first
		t.Fatal(err)
	}
	if err := svc.InjectFault(redfishmock.Fault{Method: "GET", Path: "/redfish/v1/Storage/controller_a", Kind: redfishmock.FaultLatency,
		Latency: 400 * time.Millisecond, Count: 1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := ep.Get(ctx, "/redfish/v1/Storage/controller_a", nil); err != nil {
		t.Fatalf("GET after one slow answer: %v", err)
	}
	if d := time.Since(start); d > 350*time.Millisecond {
		t.Errorf("took %s: the slow attempt was not cut at the timeout", d)
	}
	if err := svc.InjectFault(redfishmock.Fault{Method: "POST", Path: "/redfish/v1/Storage/controller_a/StoragePools", Kind: redfishmock.FaultLatency,
		Latency: 400 * time.Millisecond, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := ep.Post(ctx, PoolsURI("controller_a"), map[string]any{"Name": "x"})
	if !errors.Is(err, ErrUncertain) {
		t.Errorf("slow POST: err = %v, want ErrUncertain", err)
	}
}

// A truncated answer is fetched again instead of failing the read.
func TestTruncatedAnswerRefetched(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "me4024-1", redfishmock.Options{})
	if err := svc.InjectFault(redfishmock.Fault{Method: "GET", Path: "/redfish/v1/Storage/controller_a", Kind: redfishmock.FaultTruncate, Count: 1}); err != nil {
		t.Fatal(err)
	}
	drives, err := ep.Drives(context.Background(), "controller_a")
	if err != nil || len(drives) != 24 {
		t.Fatalf("drives = %d, %v", len(drives), err)
	}
	if n := svc.RequestCount("GET", "/redfish/v1/Storage/controller_a"); n != 2 {
		t.Errorf("%d GETs of the storage, want 2 (the cut one and the retry)", n)
	}
}
