package santricity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// BenchmarkCarveBuildingBlock carves one converged building block (a RAID 10
// metadata group with 4 volumes, two RAID 6 groups with 4 volumes each, all
// mapped to a host group) and reports the HTTP requests and logins it takes
// per block, and the ratio of requests to objects made.
func BenchmarkCarveBuildingBlock(b *testing.B) {
	ctx := context.Background()
	c, srv, _ := array(b)
	var requests, objects int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv.Service.Reset() // also ends the session: one login per block
		srv.Service.ResetStats()
		before := c.Stats()
		b.StartTimer()
		var hostIDs []string
		for _, n := range []string{"bb1-node1", "bb1-node2"} {
			h, err := c.CreateHost(ctx, n, santricity.HostTypeLinuxDMMP, nil)
			if err != nil {
				b.Fatal(err)
			}
			hostIDs = append(hostIDs, h.ID)
		}
		g, err := c.CreateHostGroup(ctx, "bb1", hostIDs)
		if err != nil {
			b.Fatal(err)
		}
		ds, err := c.Drives(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ids := func(from, n int) []string {
			var out []string
			for _, d := range ds[from : from+n] {
				out = append(out, d.ID)
			}
			return out
		}
		lun := 1
		for gi, spec := range []struct {
			level    string
			from, n  int
			segment  int64
			fraction int64
		}{{santricity.RAID1, 0, 4, 128 << 10, 5}, {santricity.RAID6, 4, 10, 512 << 10, 5}, {santricity.RAID6, 14, 10, 512 << 10, 5}} {
			vg, err := c.CreateVolumeGroup(ctx, fmt.Sprintf("g%d", gi), spec.level, ids(spec.from, spec.n))
			if err != nil {
				b.Fatal(err)
			}
			for v := 0; v < 4; v++ {
				vol, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: fmt.Sprintf("g%d_v%d", gi, v), VolumeGroupID: vg.ID,
					CapacityBytes: vg.TotalBytes / spec.fraction, SegmentBytes: spec.segment})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Map(ctx, vol.ID, g.ID, lun); err != nil {
					b.Fatal(err)
				}
				lun++
			}
		}
		after := c.Stats()
		requests += after.Requests - before.Requests
		objects += 2 + 1 + 3 + 12 + 12 // hosts, group, volume groups, volumes, mappings
		if srv.Service.Logins() > 1 {
			b.Fatalf("%d logins in one run", srv.Service.Logins())
		}
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/block")
	b.ReportMetric(float64(requests)/float64(objects), "requests/object")
}
