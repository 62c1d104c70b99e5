package redfish

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// fakeBMC is a tiny scripted service for transport rules the stateful mock
// does not isolate: it counts requests and answers from per-path scripts.
type fakeBMC struct {
	mu       sync.Mutex
	sessions int
	token    string
	basic    bool             // no session service
	script   map[string][]int // path -> statuses to answer first
	hits     map[string]int
	inflight atomic.Int32
	peak     atomic.Int32
	delay    time.Duration
}

func newFake(t *testing.T, f *fakeBMC) (*httptest.Server, *fakeBMC) {
	t.Helper()
	if f.script == nil {
		f.script = map[string][]int{}
	}
	f.hits = map[string]int{}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.inflight.Add(1)
		defer f.inflight.Add(-1)
		for {
			p := f.peak.Load()
			if n <= p || f.peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(f.delay)
		f.mu.Lock()
		defer f.mu.Unlock()
		key := r.Method + " " + r.URL.Path
		f.hits[key]++
		if r.URL.Path == sessionsPath && r.Method == http.MethodPost {
			if f.basic {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			f.sessions++
			f.token = fmt.Sprintf("tok-%d", f.sessions)
			w.Header().Set("X-Auth-Token", f.token)
			w.Header().Set("Location", fmt.Sprintf("%s/%d", sessionsPath, f.sessions))
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"@odata.id":"%s/%d"}`, sessionsPath, f.sessions)
			return
		}
		if f.basic {
			if u, p, ok := r.BasicAuth(); !ok || u != "root" || p != "s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		} else if r.Header.Get("X-Auth-Token") != f.token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if s := f.script[key]; len(s) > 0 {
			f.script[key] = s[1:]
			if s[0] == -1 { // drop the connection
				hj, _ := w.(http.Hijacker)
				c, _, _ := hj.Hijack()
				c.Close()
				return
			}
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(s[0])
			fmt.Fprintf(w, `{"error":{"code":"Base.1.12.GeneralError","message":"x","@Message.ExtendedInfo":[{"MessageId":"Base.1.12.ServiceTemporarilyUnavailable","Message":"busy"}]}}`)
			return
		}
		w.Header().Set("ETag", `"e1"`)
		fmt.Fprintf(w, `{"@odata.id":%q,"Id":"1"}`, r.URL.Path)
	}))
	t.Cleanup(ts.Close)
	return ts, f
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return nil
}

func testEndpoint(t *testing.T, ts *httptest.Server, mod func(*Config)) (*Endpoint, *sleeps, *strings.Builder) {
	t.Helper()
	sl := &sleeps{}
	var logMu sync.Mutex
	log := &strings.Builder{}
	cfg := Config{Name: "bmc1", URL: ts.URL, Username: "root", Password: "s3cret", HTTPClient: ts.Client(),
		Sleep: sl.sleep, Log: func(m string) { logMu.Lock(); log.WriteString(m + "\n"); logMu.Unlock() }}
	if mod != nil {
		mod(&cfg)
	}
	ep, err := NewEndpoint(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ep, sl, log
}

func TestRetries(t *testing.T) {
	const path = "/redfish/v1/Systems/1"
	tests := []struct {
		name       string
		method     string
		etag       string
		script     []int
		wantErr    error
		wantHits   int
		wantSleeps []time.Duration // nil: don't check exact values
	}{
		{name: "GET 503 burst honours Retry-After", method: "GET", script: []int{503, 503, 503}, wantHits: 4,
			wantSleeps: []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{name: "GET gives up after max attempts", method: "GET", script: []int{503, 503, 503, 503, 503, 503}, wantHits: 5, wantErr: ErrUnavailable},
		{name: "GET connection reset retried", method: "GET", script: []int{-1}, wantHits: 2},
		{name: "GET 404 not retried", method: "GET", script: []int{404}, wantHits: 1, wantErr: ErrNotFound},
		{name: "PATCH with If-Match retried", method: "PATCH", etag: `"e1"`, script: []int{429, 500}, wantHits: 3},
		{name: "PATCH 412 not retried", method: "PATCH", etag: `"old"`, script: []int{412}, wantHits: 1, wantErr: ErrPreconditionFailed},
		{name: "PATCH without ETag sent once", method: "PATCH", script: []int{503}, wantHits: 1, wantErr: ErrUnavailable},
		{name: "POST 503 sent once", method: "POST", script: []int{503}, wantHits: 1, wantErr: ErrUnavailable},
		{name: "POST connection reset is uncertain", method: "POST", script: []int{-1}, wantHits: 1, wantErr: ErrUncertain},
		{name: "DELETE 503 retried", method: "DELETE", script: []int{503}, wantHits: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, f := newFake(t, &fakeBMC{script: map[string][]int{tc.method + " " + path: tc.script}})
			ep, sl, _ := testEndpoint(t, ts, nil)
			var h map[string]string
			if tc.etag != "" {
				h = map[string]string{"If-Match": tc.etag}
			}
			var body any
			if tc.method == "POST" || tc.method == "PATCH" {
				body = map[string]string{"Name": "x"}
			}
			_, err := ep.Do(context.Background(), tc.method, path, body, h)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got := f.hits[tc.method+" "+path]; got != tc.wantHits {
				t.Errorf("requests = %d, want %d", got, tc.wantHits)
			}
			if tc.wantSleeps != nil && fmt.Sprint(sl.d) != fmt.Sprint(tc.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", sl.d, tc.wantSleeps)
			}
		})
	}
}

func TestBackoffHasJitterAndCap(t *testing.T) {
	ep, err := NewEndpoint(Config{Name: "x", URL: "https://127.0.0.1:1", Retry: Retry{BaseDelay: time.Second, MaxDelay: 4 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	ep.cfg.Sleep = func(_ context.Context, d time.Duration) error { got = append(got, d); return nil }
	for attempt := 1; attempt <= 5; attempt++ {
		_ = ep.wait(context.Background(), attempt, "")
	}
	caps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}
	for i, d := range got {
		if d < caps[i]/2 || d > caps[i] {
			t.Errorf("attempt %d slept %s, want within [%s, %s]", i+1, d, caps[i]/2, caps[i])
		}
	}
	if err := ep.wait(context.Background(), 1, "600"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Retry-After beyond the cap: err = %v, want ErrUnavailable", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 5 * time.Second, true},
		{"0", 0, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %s %v, want %s %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOneSessionReusedAndRenewed(t *testing.T) {
	ts, f := newFake(t, &fakeBMC{})
	ep, _, _ := testEndpoint(t, ts, func(c *Config) { c.MaxConcurrent = 8 })
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ep.Get(ctx, "/redfish/v1/Systems/1", nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if f.sessions != 1 {
		t.Fatalf("sessions = %d after 20 concurrent GETs, want 1", f.sessions)
	}
	// The BMC forgets the session: one re-login, the request succeeds.
	f.mu.Lock()
	f.token = "expired"
	f.mu.Unlock()
	if _, err := ep.Get(ctx, "/redfish/v1/Systems/1", nil); err != nil {
		t.Fatal(err)
	}
	if f.sessions != 2 || ep.Stats().Logins != 2 {
		t.Errorf("sessions = %d, logins = %d; want 2 each", f.sessions, ep.Stats().Logins)
	}
	if err := ep.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if f.hits["DELETE "+sessionsPath+"/2"] != 1 {
		t.Errorf("logout not sent: %v", f.hits)
	}
}

func TestBasicAuthFallback(t *testing.T) {
	ts, f := newFake(t, &fakeBMC{basic: true})
	ep, _, _ := testEndpoint(t, ts, nil)
	for i := 0; i < 3; i++ {
		if _, err := ep.Get(context.Background(), "/redfish/v1/Systems/1", nil); err != nil {
			t.Fatal(err)
		}
	}
	if f.hits["POST "+sessionsPath] != 1 {
		t.Errorf("session attempts = %d, want 1 (then basic auth)", f.hits["POST "+sessionsPath])
	}
}

func TestConcurrencyLimit(t *testing.T) {
	ts, f := newFake(t, &fakeBMC{delay: 20 * time.Millisecond})
	ep, _, _ := testEndpoint(t, ts, func(c *Config) { c.MaxConcurrent = 2 })
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = ep.Get(context.Background(), "/redfish/v1/Systems/1", nil)
		}()
	}
	wg.Wait()
	if p := f.peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak in flight = %d, want at most 2", p)
	}
}

func TestLogsAreRedacted(t *testing.T) {
	ts, _ := newFake(t, &fakeBMC{})
	ep, _, log := testEndpoint(t, ts, nil)
	ctx := context.Background()
	if _, err := ep.Get(ctx, "/redfish/v1/Systems/1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Patch(ctx, "/redfish/v1/AccountService/Accounts/2", `"e1"`, map[string]any{"Password": "n3w-s3cret", "Nested": map[string]any{"OldPassword": "s3cret"}}); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for _, secret := range []string{"s3cret", "n3w-s3cret", "tok-1", "Basic "} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "X-Auth-Token: REDACTED") || !strings.Contains(out, `"Password":"REDACTED"`) {
		t.Errorf("log lacks the redaction marks:\n%s", out)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Name: "a", URL: "ftp://x"},
		{Name: "a", URL: "https://x", CACertPEM: []byte("not pem")},
	} {
		if _, err := NewEndpoint(c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", c, err)
		}
	}
	if _, err := NewPool([]Config{{Name: "a", URL: "https://x"}, {Name: "a", URL: "https://y"}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate names: err = %v", err)
	}
	p, _ := NewPool([]Config{{Name: "a", URL: "https://x"}})
	if _, err := p.Endpoint("b"); !errors.Is(err, ErrUnknownEndpoint) || !strings.Contains(err.Error(), `[a]`) {
		t.Errorf("unknown endpoint: err = %v", err)
	}
}

func TestTLSVerifiedByDefault(t *testing.T) {
	ts, _ := newFake(t, &fakeBMC{})
	// No injected client: the system pool does not trust httptest's CA.
	// A certificate failure cannot heal: it is not retried, and the error
	// says what to set.
	sl := &sleeps{}
	ep, err := NewEndpoint(Config{Name: "bmc1", URL: ts.URL, Username: "root", Password: "s3cret", Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ep.Get(context.Background(), "/redfish/v1/Systems/1", nil)
	if !errors.Is(err, ErrTLSVerify) || !strings.Contains(err.Error(), "ca_certificate") || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want ErrTLSVerify saying to set ca_certificate", err)
	}
	if n := len(sl.d); n != 0 || ep.Stats().Requests != 1 {
		t.Errorf("a certificate failure was retried: %d waits, %d requests", n, ep.Stats().Requests)
	}
	// Without credentials (no login): the same on a plain request.
	ep, _ = NewEndpoint(Config{Name: "bmc1", URL: ts.URL, Sleep: sl.sleep})
	if _, err := ep.Get(context.Background(), "/redfish/v1/Systems/1", nil); !errors.Is(err, ErrTLSVerify) || ep.Stats().Requests != 1 {
		t.Errorf("no login: %v after %d requests", err, ep.Stats().Requests)
	}
	pemCA := pemOf(ts)
	ep, err = NewEndpoint(Config{Name: "bmc1", URL: ts.URL, Username: "root", Password: "s3cret", CACertPEM: pemCA})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Get(context.Background(), "/redfish/v1/Systems/1", nil); err != nil {
		t.Fatalf("with the CA bundle: %v", err)
	}
	ep, _ = NewEndpoint(Config{Name: "bmc1", URL: ts.URL, Username: "root", Password: "s3cret", Insecure: true})
	if _, err := ep.Get(context.Background(), "/redfish/v1/Systems/1", nil); err != nil {
		t.Fatalf("insecure: %v", err)
	}
}

func pemOf(ts *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
}

func TestSessionLimitFallsBackToBasic(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "mgmt-bmc", redfishmock.Options{SessionLimit: 1})
	ctx := context.Background()
	other, _ := mockEndpointFor(t, svc, ep)
	if _, err := other.Get(ctx, "/redfish/v1/Systems", nil); err != nil {
		t.Fatal(err)
	}
	// The only session slot is taken by "other": ep still gets through.
	if _, err := ep.Get(ctx, "/redfish/v1/Systems", nil); err != nil {
		t.Fatal(err)
	}
	if ep.kind() != authBasic || other.kind() != authSession {
		t.Errorf("auth kinds = %v, %v; want basic, session", ep.kind(), other.kind())
	}
}
