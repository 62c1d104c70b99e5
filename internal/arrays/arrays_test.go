package arrays_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

type subject struct {
	name   string
	array  arrays.Array
	hosts  []string // the two servers cabled to it
	drives func(from, n int) []string
}

// me4024 is R1's metadata array over Swordfish; ef600 is R3's block array
// over SANtricity. Both have 24 flash drives and two cabled servers.
func subjects(t *testing.T) []subject {
	t.Helper()
	svc, err := redfishmock.NewService("r1", "me4024-1", redfishmock.Options{Username: "root", Password: "calvin-test"})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	rsrv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rsrv.Close() })
	ep, err := redfish.NewEndpoint(redfish.Config{Name: "me4024-1", URL: rsrv.URL, Username: "root", Password: "calvin-test", CACertPEM: ca.PEM(),
		Retry: redfish.Retry{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	sid, err := ep.FindStorage(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}

	spec := santricitymock.DesignArrays("r3")[0]
	esrv, err := santricitymock.Start(santricitymock.New(spec, santricitymock.Options{CabledHosts: true}), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = esrv.Close() })
	c, err := santricity.New(santricity.Config{Name: spec.Name, URL: esrv.URL, Username: esrv.Username, Password: esrv.Password, CACertPEM: esrv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(prefix string) func(int, int) []string {
		return func(from, n int) []string {
			var out []string
			for i := from; i < from+n; i++ {
				out = append(out, fmt.Sprintf("%s.%d", prefix, i))
			}
			return out
		}
	}
	return []subject{
		{"swordfish", arrays.Swordfish(ep, sid), []string{"meta1", "meta2"}, ids("0")},
		{"santricity", arrays.ESeries(c), spec.CabledTo, ids("99")},
	}
}

const gib = int64(1) << 30

// TestSameLifecycleOnBothAPIs runs what the array resources do on one array
// of each API and expects the same answers.
func TestSameLifecycleOnBothAPIs(t *testing.T) {
	ctx := context.Background()
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			a := s.array
			ds, err := a.Drives(ctx)
			if err != nil || len(ds) != 24 || ds[3].ID != s.drives(3, 1)[0] || ds[3].MediaType != "SSD" || ds[3].Spare || ds[3].GroupID != "" {
				t.Fatalf("drives: %d, %+v, %v", len(ds), ds[3], err)
			}
			hosts, err := a.Hosts(ctx)
			if err != nil || !slices.Equal(hosts, s.hosts) {
				t.Fatalf("hosts %v, %v; want %v", hosts, err, s.hosts)
			}
			if err := arrays.CheckLevel(a, "RAID50"); !errors.Is(err, arrays.ErrNotSupported) || !strings.Contains(err.Error(), "RAID6") {
				t.Errorf("RAID50: %v", err)
			}
			g, err := a.CreateGroup(ctx, "md01", "RAID10", s.drives(0, 4))
			if err != nil {
				t.Fatal(err)
			}
			if g.RAIDLevel != "RAID10" || !slices.Equal(slices.Sorted(slices.Values(g.DriveIDs)), s.drives(0, 4)) || g.CapacityBytes < 1900e9 {
				t.Fatalf("group %+v", g)
			}
			again, err := a.ReadGroup(ctx, "md01")
			if err != nil || again.ID != g.ID || again.RAIDLevel != "RAID10" {
				t.Fatalf("read group %+v, %v", again, err)
			}
			v, err := a.CreateVolume(ctx, arrays.VolumeSpec{Name: "mdt01", GroupID: g.ID, CapacityBytes: 100 * gib, SegmentBytes: 128 << 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(v.WWN) != 32 || v.CapacityBytes != 100*gib || v.SegmentBytes != 128<<10 {
				t.Fatalf("volume %+v", v)
			}
			for _, step := range []struct {
				hosts []string
				lun   int64
			}{{s.hosts, 1}, {s.hosts[:1], 1}, {s.hosts, 2}, {nil, 0}, {s.hosts, 1}} {
				if err := a.SetMappings(ctx, v.ID, step.hosts, step.lun); err != nil {
					t.Fatalf("map to %v lun %d: %v", step.hosts, step.lun, err)
				}
				_, ms, err := a.ReadVolume(ctx, "mdt01")
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range ms {
					if m.LUN != step.lun {
						t.Errorf("%s has LUN %d, want %d", m.Host, m.LUN, step.lun)
					}
					got = append(got, m.Host)
				}
				if !slices.Equal(got, step.hosts) {
					t.Fatalf("mapped to %v, want %v", got, step.hosts)
				}
			}
			if err := a.ResizeVolume(ctx, v.ID, 200*gib); err != nil {
				t.Fatal(err)
			}
			v2, _, err := a.ReadVolume(ctx, v.ID)
			if err != nil || v2.CapacityBytes != 200*gib || v2.WWN != v.WWN {
				t.Fatalf("after resize %+v, %v", v2, err)
			}
			if err := a.SetSpares(ctx, s.drives(20, 2), true); err != nil {
				t.Fatal(err)
			}
			ds, _ = a.Drives(ctx)
			if !ds[20].Spare || !ds[21].Spare || ds[22].Spare || ds[0].GroupID != g.ID {
				t.Fatalf("spares/groups: %+v %+v %+v", ds[20], ds[22], ds[0])
			}
			if err := a.SetSpares(ctx, s.drives(20, 2), false); err != nil {
				t.Fatal(err)
			}
			if err := a.DeleteGroup(ctx, g.ID); err == nil {
				t.Fatal("a group holding a volume was deleted")
			}
			if err := a.DeleteVolume(ctx, v.ID); err != nil {
				t.Fatal(err)
			}
			if err := a.DeleteGroup(ctx, g.ID); err != nil {
				t.Fatal(err)
			}
			if err := a.DeleteVolume(ctx, v.ID); err != nil {
				t.Errorf("second delete of the volume: %v", err)
			}
			if err := a.DeleteGroup(ctx, g.ID); err != nil {
				t.Errorf("second delete of the group: %v", err)
			}
			if _, err := a.ReadGroup(ctx, "md01"); !arrays.IsGone(err) {
				t.Fatalf("deleted group: %v", err)
			}
			if _, _, err := a.ReadVolume(ctx, "mdt01"); !arrays.IsGone(err) {
				t.Fatalf("deleted volume: %v", err)
			}
		})
	}
}

// TestESeriesDifferences: what only E-Series does or refuses.
func TestESeriesDifferences(t *testing.T) {
	ctx := context.Background()
	s := subjects(t)[1]
	a := s.array
	if _, err := a.CreateGroup(ctx, "x", "RAID1", s.drives(0, 4)); err == nil || !strings.Contains(err.Error(), "use RAID10") {
		t.Errorf("RAID1 over 4 drives: %v", err)
	}
	if _, err := a.CreateGroup(ctx, "x", "RAID6", []string{"99.0", "99.1", "99.2", "99.3", "0.4"}); !arrays.IsGone(err) || !strings.Contains(err.Error(), `"0.4"`) {
		t.Errorf("drive not on the array: %v", err)
	}
	ddp, err := a.CreateGroup(ctx, "pool1", arrays.DDP, s.drives(0, 11))
	if err != nil || ddp.RAIDLevel != arrays.DDP {
		t.Fatalf("DDP: %+v, %v", ddp, err)
	}
	// Capacity 0 takes the group's free space, and a re-run adopts it.
	v, err := a.CreateVolume(ctx, arrays.VolumeSpec{Name: "all", GroupID: ddp.ID})
	if err != nil || v.CapacityBytes != ddp.CapacityBytes {
		t.Fatalf("whole-group volume %+v (group %d), %v", v, ddp.CapacityBytes, err)
	}
	if v2, err := a.CreateVolume(ctx, arrays.VolumeSpec{Name: "all", GroupID: ddp.ID}); err != nil || v2.ID != v.ID || !v2.Adopted || v.Adopted {
		t.Fatalf("re-run: %+v, %v", v2, err)
	}
	if err := a.ResizeVolume(ctx, v.ID, v.CapacityBytes-gib); !errors.Is(err, arrays.ErrNotSupported) {
		t.Errorf("shrink: %v", err)
	}
	if err := a.SetMappings(ctx, v.ID, []string{"bb9-node1"}, 1); !arrays.IsGone(err) || !strings.Contains(err.Error(), "bb1-node1, bb1-node2") {
		t.Errorf("unknown host: %v", err)
	}
}

// TestPlanTimeRules: drive counts and capacities per kind of array, with
// no request sent.
func TestPlanTimeRules(t *testing.T) {
	ss := subjects(t)
	swf, es := ss[0].array, ss[1].array
	const d = 3_840_000_000_000
	sizes := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	for _, tc := range []struct {
		a      arrays.Array
		level  string
		n      int
		ok     bool
		usable int64
	}{
		{es, "RAID6", 10, true, 8 * d}, {es, "RAID6", 31, false, 0}, {es, "RAID6", 4, false, 0},
		{es, "RAID10", 4, true, 2 * d}, {es, "RAID10", 5, false, 0}, {es, "RAID1", 4, false, 0},
		{es, arrays.DDP, 11, true, 9 * d / 10 * 8}, {es, arrays.DDP, 10, false, 0}, {es, "RAID50", 10, false, 0},
		{swf, "RAID6", 10, true, 8 * d}, {swf, "RAID1", 2, true, d}, {swf, arrays.DDP, 11, false, 0},
	} {
		err := tc.a.CheckGroup(tc.level, tc.n)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s over %d: %v", tc.a.API(), tc.level, tc.n, err)
		}
		if tc.ok {
			if got := tc.a.GroupCapacity(tc.level, sizes(tc.n)); got != tc.usable {
				t.Errorf("%s %s over %d: %d bytes, want %d", tc.a.API(), tc.level, tc.n, got, tc.usable)
			}
		}
	}
}
