package redfishmock

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkGetOverTLS measures GET throughput of one array endpoint with
// ten parallel keep-alive clients, as Terraform's default parallelism does.
func BenchmarkGetOverTLS(b *testing.B) {
	d, err := NewDesign("r1", Options{Username: "admin", Password: "secret", Clock: NewManualClock(timeZero)})
	if err != nil {
		b.Fatal(err)
	}
	lab, err := d.Start(StartConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { b.StopTimer(); lab.Close() }() // shutdown is not part of the figure
	url := lab.Endpoints[len(lab.Endpoints)-1].URL + st + "/Drives/0.41"
	client := lab.Client()
	b.SetParallelism(10)
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.SetBasicAuth("admin", "secret")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			n.Add(1)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(n.Load())/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkVolumeLifecycle measures create + map + unmap + delete of one
// volume in-process (the array re-renders its documents on every change).
func BenchmarkVolumeLifecycle(b *testing.B) {
	s, _ := testService(b, "r1", "me4084-1", nil)
	call(b, s, http.MethodPost, st+"/StoragePools", poolBody("dg1", "RAID6", driveRefs(s, seqDrives(0, 0, 10)...)))
	pool := []any{map[string]any{"ProvidingPools": []any{map[string]any{"@odata.id": st + "/StoragePools/dg1"}}}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := call(b, s, http.MethodPost, st+"/Volumes", map[string]any{"Name": "v", "CapacityBytes": 1 << 40, "CapacitySources": pool}); r.status != 201 {
			b.Fatal(r.status)
		}
		call(b, s, http.MethodPost, st+"/StorageGroups", map[string]any{"Name": "m", "MappedVolumes": []any{map[string]any{"Volume": map[string]any{"@odata.id": st + "/Volumes/v"}, "LogicalUnitNumber": "1"}},
			"ClientEndpointGroups": []any{map[string]any{"@odata.id": st + "/EndpointGroups/stor1"}}})
		call(b, s, http.MethodDelete, st+"/StorageGroups/m", nil)
		if r := call(b, s, http.MethodDelete, st+"/Volumes/v", nil); r.status != 204 {
			b.Fatal(r.status)
		}
	}
	b.ReportMetric(float64(b.N*4)/b.Elapsed().Seconds(), "req/s")
}
