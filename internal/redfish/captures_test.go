package redfish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// capture finds a capture by folder name: ../shared/mockups (beside the
// repository) or the lab's testdata/captures.
func capture(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{filepath.Join("..", "..", "..", "shared", "mockups", name), filepath.Join("..", "lab", "redfishmock", "testdata", "captures", name)} {
		if _, err := filepath.Glob(dir); err == nil {
			if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) > 0 {
				return dir
			}
		}
	}
	t.Skipf("capture %s not found", name)
	return ""
}

// replayEndpoint serves a capture over verified TLS and connects to it.
func replayEndpoint(t *testing.T, name string) (*Endpoint, *redfishmock.Service) {
	t.Helper()
	svc, err := redfishmock.NewReplay(capture(t, name), redfishmock.Options{Username: "root", Password: "replay-s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ep, err := NewEndpoint(Config{Name: name, URL: srv.URL, Username: "root", Password: "replay-s3cret", CACertPEM: ca.PEM(),
		Retry: Retry{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return ep, svc
}

func driveIDs(ds []Drive) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

// Drives as DMTF's tower server publishes them: NVMe drives with integer
// personality identifiers (valid in Storage.v1_21_0, refused by gofish's
// types), no Id member, and empty bays marked Absent.
func TestDrivesOfRealCaptures(t *testing.T) {
	ep, _ := replayEndpoint(t, "dmtf-public-tower")
	ctx := context.Background()
	const sys = "/redfish/v1/Systems/437XR1238R2/Storage/"
	nvme, err := ep.Drives(ctx, sys+"NVMeSWRAID")
	if err != nil {
		t.Fatalf("a valid member the provider does not use failed the read: %v", err)
	}
	if got := driveIDs(nvme); !slices.Equal(got, []string{"M.2-1", "M.2-2"}) {
		t.Errorf("NVMe drive ids %v, want the last segment of @odata.id", got)
	}
	for _, d := range nvme {
		if d.CapacityBytes != 1125899906842624 || d.MediaType != "SSD" || len(d.Warnings) > 0 {
			t.Errorf("drive %s: %+v", d.ID, d)
		}
	}
	raid, err := ep.CachedDrives(ctx, sys+"RAIDIntegrated")
	if err != nil {
		t.Fatal(err)
	}
	if got := driveIDs(raid); !slices.Equal(got, []string{"Disk-1-0", "Disk-1-1", "Disk-1-2", "Disk-1-3"}) {
		t.Errorf("RAID drives %v: the four Absent bays must not be listed", got)
	}
	for _, d := range raid {
		if d.CapacityBytes == 0 {
			t.Errorf("drive %s without capacity", d.ID)
		}
	}

	// A member the provider uses, malformed: a warning on that drive, the
	// rest of the drive and of the array still read.
	d, err := decodeDrive([]byte(`{"@odata.id":"/redfish/v1/Chassis/1/Drives/7","CapacityBytes":"12 TB","MediaType":"HDD","Model":"X",
		"PhysicalLocation":{"PartLocation":{"LocationOrdinalValue":7}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "7" || d.MediaType != "HDD" || d.Slot != 7 || d.CapacityBytes != 0 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "CapacityBytes") {
		t.Errorf("malformed capacity: %+v", d)
	}
}

// Volumes of controllers in servers, named as the controllers name them.
func TestVolumesOfRealCaptures(t *testing.T) {
	for _, tc := range []struct{ capture, storage, id, name string }{
		{"dmtf-public-tower", "/redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID", "Boot", "Boot/Application Volume"},
		{"dmtf-public-localstorage", "/redfish/v1/Systems/437XR1138R2/Storage/1", "1", "Virtual Disk 1"},
		{"libredfish-hpe", "/redfish/v1/Systems/1/Storage/DE081000", "1", "SR Volume 1"},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			ep, _ := replayEndpoint(t, tc.capture)
			for _, key := range []string{tc.id, tc.name} {
				v, ms, err := ep.ReadVolume(context.Background(), tc.storage, key)
				if err != nil {
					t.Fatalf("ReadVolume %q: %v", key, err)
				}
				if v.ID != tc.id || v.Name != tc.name || v.CapacityBytes == 0 || len(ms) != 0 {
					t.Errorf("%q: %+v %v", key, v, ms)
				}
			}
		})
	}
}

// Without storage_id: the only Storage, under /redfish/v1/Storage or under
// the system; several are listed for the user to choose.
func TestFindStorageUnderSystems(t *testing.T) {
	for _, tc := range []struct{ capture, want, err string }{
		{"dmtf-public-localstorage", "/redfish/v1/Systems/437XR1138R2/Storage/1", ""},
		{"libredfish-supermicro", "/redfish/v1/Systems/1/Storage/NVMeSSD", ""},
		{"dmtf-public-tower", "", "4 storage services (/redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID, "},
		{"dmtf-public-rackmount1", "", "no storage (looked at /redfish/v1/Storage, /redfish/v1/Systems/437XR1138R2/Storage)"},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			ep, _ := replayEndpoint(t, tc.capture)
			got, err := ep.FindStorage(context.Background(), "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if _, err := ep.Drives(context.Background(), got); err != nil {
				t.Errorf("drives of the storage found: %v", err)
			}
		})
	}
}

// Cores and CPUs from the Processors collection when ProcessorSummary has
// no CoreCount (AMI on the DGX, iLO, DMTF's local-storage server).
func TestProcessorCountsFallback(t *testing.T) {
	for _, tc := range []struct {
		capture, system string
		cpus, cores     int64
	}{
		{"nvidia-dgx-h100", "DGX", 2, 112},
		{"libredfish-hpe", "1", 2, 128},
		{"dmtf-public-localstorage", "437XR1138R2", 2, 8},
		{"libredfish-dell", "System.Embedded.1", 2, 36}, // from the summary
	} {
		t.Run(tc.capture, func(t *testing.T) {
			ep, svc := replayEndpoint(t, tc.capture)
			s, err := ep.GetSystem(context.Background(), tc.system)
			if err != nil {
				t.Fatal(err)
			}
			fromSummary := s.CoreCount > 0 && s.CPUCount > 0
			svc.ResetStats()
			if err := ep.ProcessorCounts(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if s.CPUCount != tc.cpus || s.CoreCount != tc.cores {
				t.Errorf("cpus %d cores %d, want %d %d", s.CPUCount, s.CoreCount, tc.cpus, tc.cores)
			}
			if n := len(svc.Stats()); fromSummary && n != 0 {
				t.Errorf("the summary had both counts, yet %d requests were sent", n)
			}
		})
	}
}

// A system without a Bios resource says so, instead of GET "" (HTTP 404
// on "/").
func TestSystemWithoutBios(t *testing.T) {
	ep, _ := replayEndpoint(t, "nvidia-dgx-h100")
	s, err := ep.GetSystem(context.Background(), "HGX_Baseboard_0")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ep.GetBios(context.Background(), s.BiosURI)
	if !errors.Is(err, ErrNoBios) || !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "no BIOS resource") {
		t.Fatalf("GetBios: %v", err)
	}
	if _, b, err := ep.SystemAndBios(context.Background(), "HGX_Baseboard_0", "", ""); err != nil || b != nil {
		t.Errorf("SystemAndBios: %v %v", b, err)
	}
}

// BIOS attribute registries found the ways the specification allows, and
// when none can be, an error that lists every lookup tried.
func TestBiosRegistryOfRealCaptures(t *testing.T) {
	for _, tc := range []struct {
		capture, system string
		attrs           int    // registry found with this many attributes
		tried           string // else: ErrNoRegistry listing this lookup
	}{
		{"nvidia-dgx-h100", "DGX", 223, ""}, // Location language en-US
		{"libredfish-lenovo", "1", 348, ""}, // capture with broken files
		{"libredfish-hpe", "1", 402, ""},    // en, ja, zh locations
		{"libredfish-dell", "System.Embedded.1", 682, ""},
		// The collection member is named without the version the Bios
		// gives; its Uri is outside the capture.
		{"libredfish-supermicro", "1", 0, "/registries/BiosAttributeRegistry.1.0.0.json (404)"},
		{"dmtf-public-tower", "437XR1238R2", 0, "/redfish/v1/Registries (no member named like BiosAttributeRegistryP89.v1_0_0)"},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			ep, svc := replayEndpoint(t, tc.capture)
			ctx := context.Background()
			s, err := ep.GetSystem(ctx, tc.system)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ep.GetBios(ctx, s.BiosURI)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ep.BiosRegistry(ctx, b)
			if tc.tried != "" {
				if !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), "tried: ") || !strings.Contains(err.Error(), tc.tried) {
					t.Fatalf("got %v, want ErrNoRegistry naming %q", err, tc.tried)
				}
			} else if err != nil || len(r.Attrs) != tc.attrs {
				t.Fatalf("registry: %v (%v)", r, err)
			}
			// The outcome, found or not, is cached for the run.
			svc.ResetStats()
			if _, err2 := ep.BiosRegistry(ctx, b); (err2 == nil) != (err == nil) || len(svc.Stats()) != 0 {
				t.Errorf("second lookup: %v, %d requests", err2, len(svc.Stats()))
			}
		})
	}
}

// Lookups the captures do not show: a Bios that names no registry (the
// collection's BIOS registry file is used), a location given only as a
// PublicationUri on the BMC itself, and one on another host, never fetched.
func TestBiosRegistryLookups(t *testing.T) {
	var hits []string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		hits = append(hits, r.URL.Path)
		switch r.URL.Path {
		case "/redfish/v1/Registries":
			fmt.Fprint(w, `{"Members":[{"@odata.id":"/redfish/v1/Registries/Base.1.0"},{"@odata.id":"/redfish/v1/Registries/BiosAttributeRegistryX1.v2_0_0"}]}`)
		case "/redfish/v1/Registries/BiosAttributeRegistryX1.v2_0_0":
			fmt.Fprint(w, `{"Id":"BiosAttributeRegistryX1.v2_0_0","Location":[
				{"Language":"de","Uri":"/reg/de.json"},
				{"Language":"en-GB","PublicationUri":"https://vendor.example/reg/en.json"},
				{"Language":"en-US","PublicationUri":"/reg/en-US.json"}]}`)
		case "/reg/en-US.json":
			fmt.Fprint(w, `{"Id":"BiosAttributeRegistryX1.v2_0_0","RegistryEntries":{"Attributes":[{"AttributeName":"Turbo","Type":"Boolean"}]}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "bmc", URL: ts.URL, HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ep.BiosRegistry(context.Background(), &Bios{URI: "/redfish/v1/Systems/1/Bios"})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := reg.Convert("Turbo", "true"); err != nil || v != true {
		t.Errorf("Turbo: %v %v", v, err)
	}
	if slices.Contains(hits, "/reg/de.json") || len(hits) != 3 {
		t.Errorf("requests %v: want the collection, the file and the en-US location only", hits)
	}

	// Nothing usable: the error names each lookup, the foreign host too.
	mux2 := http.NewServeMux()
	mux2.HandleFunc("/redfish/v1/Registries/BiosAttributeRegistryX1.v2_0_0", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Location":[{"Language":"en","PublicationUri":"https://vendor.example/reg/en.json"}]}`)
	})
	ts2 := httptest.NewTLSServer(mux2)
	defer ts2.Close()
	ep2, _ := NewEndpoint(Config{Name: "bmc2", URL: ts2.URL, HTTPClient: ts2.Client()})
	_, err = ep2.BiosRegistry(context.Background(), &Bios{URI: "/redfish/v1/Systems/1/Bios", RegistryID: "BiosAttributeRegistryX1.v2_0_0"})
	for _, want := range []string{"https://vendor.example/reg/en.json (PublicationUri on another host, not fetched)", "/redfish/v1/Systems/1/Bios/BiosRegistry (404)"} {
		if !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// Polls back off while nothing changes (to four times the interval) and
// look again soon after a change.
func TestWaiterBacksOff(t *testing.T) {
	var waits []time.Duration
	w := Waiter{Interval: 10 * time.Millisecond, Timeout: time.Minute, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	statuses := []string{"a", "a", "a", "a", "a", "a", "b", "b"}
	i := 0
	err := w.Until(context.Background(), "x", func() (bool, string, error) {
		i++
		return i > len(statuses), statuses[min(i, len(statuses))-1], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	want := []time.Duration{ms(10), ms(15), ms(22.5), ms(33.75), ms(40), ms(40), ms(10), ms(15)}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}

// A system document with members of odd types (a string where a number
// belongs, a vendor's own shape of a standard member) is still read: the
// odd member stays empty, the rest is there. gofish's typed ComputerSystem
// refuses the whole document.
func TestSystemReadLeniently(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/redfish/v1/Systems/1", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"Id":"1","PowerState":"On","Model":"X1","MemorySummary":{"TotalSystemMemoryGiB":"384 GiB"},
			"ProcessorSummary":{"Count":2,"CoreCount":64},"TrustedModules":[{"InterfaceType":7}],
			"Bios":{"@odata.id":"/redfish/v1/Systems/1/Bios"}}`)
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	ep, err := NewEndpoint(Config{Name: "bmc", URL: ts.URL, HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ep.GetSystem(context.Background(), "1")
	if err != nil {
		t.Fatal(err)
	}
	if s.PowerState != "On" || s.Model != "X1" || s.CoreCount != 64 || s.MemoryGiB != 0 || s.BiosURI == "" {
		t.Errorf("%+v", s)
	}
	var doc struct {
		Model         string
		MemorySummary struct{ TotalSystemMemoryGiB float64 }
	}
	if _, err := ep.Get(context.Background(), "/redfish/v1/Systems/1", &doc); err != nil || doc.Model != "X1" {
		t.Errorf("Get with an odd member: %v %+v", err, doc)
	}
}
