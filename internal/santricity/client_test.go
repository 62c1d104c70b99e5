package santricity_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *logSink) all() string  { l.mu.Lock(); defer l.mu.Unlock(); return strings.Join(l.lines, "\n") }

// array starts one EF600 of design r3 over HTTPS and a client trusting it.
func array(t testing.TB) (*santricity.Client, *santricitymock.Server, *logSink) {
	t.Helper()
	spec := santricitymock.DesignArrays("r3")[0]
	srv, err := santricitymock.Start(santricitymock.New(spec, santricitymock.Options{}), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	logs := &logSink{}
	c, err := santricity.New(santricity.Config{Name: spec.Name, URL: srv.URL, Username: srv.Username, Password: srv.Password,
		CACertPEM: srv.CAPEM(), Log: logs.add, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c, srv, logs
}

func driveIDs(t testing.TB, c *santricity.Client, from, n int) []string {
	t.Helper()
	ds, err := c.Drives(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ds[from : from+n] {
		out = append(out, d.ID)
	}
	return out
}

const gib = int64(1) << 30

// TestCarveAndMapBuildingBlock carves what one BeeGFS building block needs
// and reads it all back: one session for the whole run.
func TestCarveAndMapBuildingBlock(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)

	id, err := c.SystemID(ctx)
	if err != nil || id != "1" {
		t.Fatalf("system id %q, %v; want 1 on an embedded endpoint", id, err)
	}
	sys, err := c.System(ctx)
	if err != nil || sys.Name != "ef600-1" || sys.Drives != 24 {
		t.Fatalf("system %+v, %v", sys, err)
	}
	drives, err := c.Drives(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(drives) != 24 || drives[0].Location() != "99.0" || drives[23].Location() != "99.23" ||
		drives[0].InterfaceType != "nvme" || drives[0].CapacityBytes != 3840*1000*1000*1000 || !drives[0].Available {
		t.Fatalf("drives: %d, first %+v", len(drives), drives[0])
	}

	var hostIDs []string
	for i, n := range []string{"bb1-node1", "bb1-node2"} {
		h, err := c.CreateHost(ctx, n, santricity.HostTypeLinuxDMMP, []santricity.HostPort{
			{Type: "nvmeof", Address: "nqn.2014-08.org.nvmexpress:uuid:0000000" + string(rune('1'+i)), Label: n + "_p1"}})
		if err != nil {
			t.Fatal(err)
		}
		hostIDs = append(hostIDs, h.ID)
	}
	grp, err := c.CreateHostGroup(ctx, "bb1", hostIDs)
	if err != nil {
		t.Fatal(err)
	}
	vg, err := c.CreateVolumeGroup(ctx, "beegfs_s1_s2", santricity.RAID6, driveIDs(t, c, 4, 10))
	if err != nil {
		t.Fatal(err)
	}
	if vg.TotalBytes != 8*3840*1000*1000*1000 || len(vg.DriveIDs) != 10 {
		t.Fatalf("RAID 6 8+2 of 3.84 TB drives: %+v", vg)
	}
	vol, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "stor_101", VolumeGroupID: vg.ID, CapacityBytes: 1000 * gib, SegmentBytes: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if vol.SegmentBytes != 512<<10 || len(vol.WWN) != 32 || !strings.HasPrefix(vol.WWN, "600a098") {
		t.Fatalf("volume %+v", vol)
	}
	m, err := c.Map(ctx, vol.ID, grp.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.TargetID != grp.ID || m.LUN != 1 || m.Type != "cluster" {
		t.Fatalf("mapping %+v", m)
	}
	// The group reaches both file nodes: each sees the volume by its WWN.
	var seen []string
	for _, e := range srv.Service.MappingEvents() {
		if e.Kind == "mapped" && e.WWN == vol.WWN {
			seen = append(seen, e.Host)
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"bb1-node1", "bb1-node2"}) {
		t.Fatalf("mapped to %v", seen)
	}
	if err := c.ExpandVolume(ctx, vol.ID, 1200*gib); err != nil {
		t.Fatal(err)
	}
	v2, err := c.FindVolume(ctx, "stor_101")
	if err != nil || v2.CapacityBytes != 1200*gib || !v2.Mapped {
		t.Fatalf("after expand: %+v, %v", v2, err)
	}
	groups, err := c.HostGroups(ctx)
	if err != nil || len(groups) != 1 || len(groups[0].HostIDs) != 2 {
		t.Fatalf("host groups %+v, %v", groups, err)
	}
	if st := c.Stats(); st.Logins != 1 || srv.Service.Logins() != 1 {
		t.Fatalf("logins: client %d, array %d; want one session reused", st.Logins, srv.Service.Logins())
	}

	// Tear down in the reverse order; a second delete of each is a no-op.
	for i := 0; i < 2; i++ {
		if err := c.Unmap(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteVolume(ctx, vol.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteVolumeGroup(ctx, vg.ID, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Service.Counts(); n.FreeDrives != 24 || n.Volumes != 0 || n.Mappings != 0 {
		t.Fatalf("after teardown: %+v", n)
	}
}

// TestCreateAdoptsSameAndRefusesDifferent: a create finds an object of the
// same name first; the same one is adopted without a POST, a different one
// is named in the error and nothing is sent.
func TestCreateAdoptsSameAndRefusesDifferent(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)
	ids := driveIDs(t, c, 0, 4)
	a, err := c.CreateVolumeGroup(ctx, "meta", santricity.RAID1, ids)
	if err != nil {
		t.Fatal(err)
	}
	const pools = "/devmgr/v2/storage-systems/1/storage-pools"
	reversed := slices.Clone(ids)
	slices.Reverse(reversed) // member order does not matter
	b, err := c.CreateVolumeGroup(ctx, "meta", santricity.RAID1, reversed)
	if err != nil || b.ID != a.ID || !b.Adopted || a.Adopted {
		t.Fatalf("second create: %+v, %v; want the first group (%+v) adopted", b, err, a)
	}
	_, err = c.CreateVolumeGroup(ctx, "meta", santricity.RAID6, driveIDs(t, c, 4, 10))
	var mm *santricity.MismatchError
	if !errors.As(err, &mm) || !errors.Is(err, redfish.ErrConflict) || !strings.Contains(err.Error(), `volume group "meta"`) ||
		!strings.Contains(err.Error(), "raid level raid1, not raid6") {
		t.Fatalf("different group of the same name: %v", err)
	}
	if got := srv.Service.RequestCount(http.MethodPost, pools); got != 1 {
		t.Fatalf("POSTs to storage-pools: %d, want 1", got)
	}

	v, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "meta_01", VolumeGroupID: a.ID, CapacityBytes: 100 * gib})
	if err != nil {
		t.Fatal(err)
	}
	if v.SegmentBytes != 128<<10 {
		t.Fatalf("default segment size %d, want 128 KiB", v.SegmentBytes)
	}
	if _, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "meta_01", VolumeGroupID: a.ID, CapacityBytes: 200 * gib}); !errors.As(err, &mm) ||
		!strings.Contains(err.Error(), `volume "meta_01"`) || !strings.Contains(err.Error(), "capacity") {
		t.Fatalf("same name, other size: %v", err)
	}
}

// TestArrayRefusalsCarryRetcodes: the array's own refusals reach the caller
// with SANtricity's return code and message, wrapping the shared sentinels.
func TestArrayRefusalsCarryRetcodes(t *testing.T) {
	ctx := context.Background()
	c, _, _ := array(t)
	ids := driveIDs(t, c, 0, 12)
	vg, err := c.CreateVolumeGroup(ctx, "stor", santricity.RAID6, ids[:10])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, retcode string
		call          func() error
	}{
		{"drive already in a group", "driveNotUnassigned", func() error {
			_, err := c.CreateVolumeGroup(ctx, "other", santricity.RAID1, ids[9:11])
			return err
		}},
		{"RAID 6 on 4 drives", "numdrivesGroup", func() error {
			_, err := c.CreateVolumeGroup(ctx, "small", santricity.RAID6, driveIDs(t, c, 12, 4))
			return err
		}},
		{"volume larger than its group", "insufficientCapacity", func() error {
			_, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "huge", VolumeGroupID: vg.ID, CapacityBytes: vg.TotalBytes + 1})
			return err
		}},
		{"segment size the array lacks", "invalidSegmentsize", func() error {
			_, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "odd", VolumeGroupID: vg.ID, CapacityBytes: gib, SegmentBytes: 48 << 10})
			return err
		}},
		{"spare that is in a group", "driveNotUnassigned", func() error { return c.SetHotSpares(ctx, ids[:1], true) }},
	}
	for _, tc := range cases {
		err := tc.call()
		if !errors.Is(err, redfish.ErrBadRequest) || santricity.RetCode(err) != tc.retcode {
			t.Errorf("%s: %v (retcode %q), want %s", tc.name, err, santricity.RetCode(err), tc.retcode)
		}
	}
	// A LUN is unique per host: a second volume on LUN 1 is refused.
	h, err := c.CreateHost(ctx, "bb1-node1", santricity.HostTypeLinuxDMMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "a", VolumeGroupID: vg.ID, CapacityBytes: gib})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "b", VolumeGroupID: vg.ID, CapacityBytes: gib})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Map(ctx, v1.ID, h.ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Map(ctx, v2.ID, h.ID, 1); santricity.RetCode(err) != "partLunCollision" {
		t.Fatalf("second volume on LUN 1: %v", err)
	}
	// Spares: set, set again (nothing sent), clear.
	if err := c.SetHotSpares(ctx, ids[10:12], true); err != nil {
		t.Fatal(err)
	}
	if err := c.SetHotSpares(ctx, ids[10:12], true); err != nil {
		t.Fatal(err)
	}
	ds, _ := c.Drives(ctx)
	if !ds[10].HotSpare || !ds[11].HotSpare || ds[10].Available {
		t.Fatalf("spares not set: %+v", ds[10])
	}
	if err := c.SetHotSpares(ctx, ids[10:12], false); err != nil {
		t.Fatal(err)
	}
}

// TestBusyBurstsAreRetried: 503s with Retry-After on reads are retried;
// a create the array refused with 503 is looked up, then sent again, and
// exactly one volume results.
func TestBusyBurstsAreRetried(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)
	ids := driveIDs(t, c, 0, 4)
	vg, err := c.CreateVolumeGroup(ctx, "meta", santricity.RAID1, ids)
	if err != nil {
		t.Fatal(err)
	}
	const drives = "/devmgr/v2/storage-systems/1/drives"
	const vols = "/devmgr/v2/storage-systems/1/volumes"
	must := func(f santricitymock.Fault) {
		if err := srv.Service.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	must(santricitymock.Fault{Method: http.MethodGet, Path: drives, Kind: redfishmock.FaultStatus, Status: 503, RetryAfter: 1, Count: 3})
	before := c.Stats().Retries
	if ds, err := c.Drives(ctx); err != nil || len(ds) != 24 {
		t.Fatalf("drives through a 503 burst: %d, %v", len(ds), err)
	}
	if got := c.Stats().Retries - before; got != 3 {
		t.Fatalf("retries %d, want 3", got)
	}
	must(santricitymock.Fault{Method: http.MethodPost, Path: vols, Kind: redfishmock.FaultStatus, Status: 503, Count: 2})
	if _, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "meta_01", VolumeGroupID: vg.ID, CapacityBytes: gib}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Service.Counts().Volumes; n != 1 {
		t.Fatalf("%d volumes, want 1", n)
	}
	if got := srv.Service.RequestCount(http.MethodPost, vols); got != 3 {
		t.Fatalf("POSTs %d, want 3 (two refused, one accepted)", got)
	}
	// A burst longer than the retry budget fails, naming the status.
	must(santricitymock.Fault{Method: http.MethodGet, Path: drives, Kind: redfishmock.FaultStatus, Status: 503, Count: 10})
	if _, err := c.Drives(ctx); !errors.Is(err, redfish.ErrUnavailable) || !strings.Contains(err.Error(), "after 5 attempts") {
		t.Fatalf("endless 503: %v", err)
	}
}

// TestResetMidCreateMakesNoDuplicate: the array creates the volume (and
// the mapping) but the connection drops before the answer; the client
// finds the object by name and adopts it instead of sending the POST again.
func TestResetMidCreateMakesNoDuplicate(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)
	vg, err := c.CreateVolumeGroup(ctx, "meta", santricity.RAID1, driveIDs(t, c, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.CreateHost(ctx, "bb1-node1", santricity.HostTypeLinuxDMMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/devmgr/v2/storage-systems/1/volumes", "/devmgr/v2/storage-systems/1/volume-mappings"} {
		if err := srv.Service.InjectFault(santricitymock.Fault{Method: http.MethodPost, Path: p, Kind: redfishmock.FaultReset, Count: 1}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: "meta_01", VolumeGroupID: vg.ID, CapacityBytes: 10 * gib})
	if err != nil {
		t.Fatalf("create through a reset: %v", err)
	}
	m, err := c.Map(ctx, v.ID, h.ID, 3)
	if err != nil {
		t.Fatalf("map through a reset: %v", err)
	}
	if v.Adopted || m.Adopted {
		t.Error("an object this run created (answer lost) reported as adopted")
	}
	n := srv.Service.Counts()
	if n.Volumes != 1 || n.Mappings != 1 || m.LUN != 3 {
		t.Fatalf("after resets: %+v, mapping %+v", n, m)
	}
	if got := srv.Service.RequestCount(http.MethodPost, "/devmgr/v2/storage-systems/1/volumes"); got != 1 {
		t.Fatalf("volume POSTs %d, want 1", got)
	}
}

// TestSessionExpiryLogsInOnce: after the array forgets every session, the
// next requests log in again once, even when several run at the same time.
func TestSessionExpiryLogsInOnce(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)
	if _, err := c.Drives(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Service.ExpireSessions()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Volumes(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().Logins; got != 2 {
		t.Fatalf("logins %d, want 2 (first use, after expiry)", got)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := srv.Service.Counts().Sessions; n != 0 {
		t.Fatalf("%d sessions open after Close", n)
	}
}

// TestSecretsStayOutOfLogsAndErrors: neither the password nor the session
// cookie appears in the traffic log, and a refused login names the user,
// not the password.
func TestSecretsStayOutOfLogsAndErrors(t *testing.T) {
	ctx := context.Background()
	c, srv, logs := array(t)
	if _, err := c.Drives(ctx); err != nil {
		t.Fatal(err)
	}
	all := logs.all()
	if !strings.Contains(all, "REDACTED") || strings.Contains(all, srv.Password) || strings.Contains(all, "JSESSIONID=") {
		t.Fatalf("log leaks a secret:\n%s", all)
	}
	bad, err := santricity.New(santricity.Config{Name: "x", URL: srv.URL, Username: "admin", Password: "wrong-pass-123", CACertPEM: srv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Drives(ctx)
	if !errors.Is(err, redfish.ErrUnauthorized) || strings.Contains(err.Error(), "wrong-pass-123") || !strings.Contains(err.Error(), `refused the credentials of "admin"`) {
		t.Fatalf("bad login: %v", err)
	}
}

// TestTLSIsVerifiedByDefault: without the array's certificate the client
// refuses the connection; insecure has to be asked for.
func TestTLSIsVerifiedByDefault(t *testing.T) {
	_, srv, _ := array(t)
	c, err := santricity.New(santricity.Config{Name: "x", URL: srv.URL, Username: srv.Username, Password: srv.Password,
		Retry: redfish.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Drives(context.Background()); err == nil || !strings.Contains(err.Error(), "set ca_certificate") {
		t.Fatalf("unverified TLS accepted: %v", err)
	}
	// Not retried: one attempt, however many are allowed.
	c, _ = santricity.New(santricity.Config{Name: "x", URL: srv.URL, Username: srv.Username, Password: srv.Password,
		Retry: redfish.Retry{MaxAttempts: 5}, Sleep: func(context.Context, time.Duration) error { return nil }})
	if _, err := c.Drives(context.Background()); err == nil || c.Stats().Retries != 0 || c.Stats().Requests != 1 {
		t.Fatalf("TLS failure retried: %v, %+v", err, c.Stats())
	}
	c, _ = santricity.New(santricity.Config{Name: "x", URL: srv.URL, Username: srv.Username, Password: srv.Password, Insecure: true})
	if _, err := c.Drives(context.Background()); err != nil {
		t.Fatalf("insecure: %v", err)
	}
}

// TestTruncatedAnswerIsReadAgain: a GET whose JSON is cut short is read
// again instead of failing the run.
func TestTruncatedAnswerIsReadAgain(t *testing.T) {
	c, srv, _ := array(t)
	if err := srv.Service.InjectFault(santricitymock.Fault{Method: http.MethodGet, Path: "/devmgr/v2/storage-systems/1/drives",
		Kind: redfishmock.FaultTruncate, Count: 1}); err != nil {
		t.Fatal(err)
	}
	ds, err := c.Drives(context.Background())
	if err != nil || len(ds) != 24 {
		t.Fatalf("drives after a truncated answer: %d, %v", len(ds), err)
	}
	// A create whose answer is cut short was still made: it is found by
	// name, not sent again.
	if err := srv.Service.InjectFault(santricitymock.Fault{Method: http.MethodPost, Path: "/devmgr/v2/storage-systems/1/hosts",
		Kind: redfishmock.FaultTruncate, Count: 1}); err != nil {
		t.Fatal(err)
	}
	h, err := c.CreateHost(context.Background(), "bb1-node1", santricity.HostTypeLinuxDMMP, nil)
	if err != nil || h.Name != "bb1-node1" || srv.Service.Counts().Hosts != 1 || srv.Service.RequestCount(http.MethodPost, "/devmgr/v2/storage-systems/1/hosts") != 1 {
		t.Fatalf("create through a truncated answer: %+v, %v, %d hosts", h, err, srv.Service.Counts().Hosts)
	}
}

// TestConcurrentCreatesShareOneSession: resources created in parallel (as
// Terraform does) share one login and each object is made once.
func TestConcurrentCreatesShareOneSession(t *testing.T) {
	ctx := context.Background()
	c, srv, _ := array(t)
	vg, err := c.CreateVolumeGroup(ctx, "stor", santricity.RAID6, driveIDs(t, c, 0, 10))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.CreateVolume(ctx, santricity.VolumeSpec{Name: "v" + strings.Repeat("x", i), VolumeGroupID: vg.ID, CapacityBytes: gib})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := srv.Service.Counts().Volumes; n != 10 || c.Stats().Logins != 1 {
		t.Fatalf("%d volumes, %d logins", n, c.Stats().Logins)
	}
}
