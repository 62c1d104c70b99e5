// Package redfishmocktest starts the Redfish mock from tests in one line:
// a running design on loopback with verified TLS, a deterministic clock,
// and cleanup registered on the test.
package redfishmocktest

import (
	"net/http"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// Lab is a running design plus the clock that drives it.
type Lab struct {
	*redfishmock.Lab
	Clock *redfishmock.ManualClock
}

// New starts every endpoint of a reference design over HTTPS on random
// loopback ports, with a manual clock (move it with Clock.Advance or the
// control API). mod may adjust the options before start.
func New(t testing.TB, design string, mod func(*redfishmock.Options)) *Lab {
	t.Helper()
	clk := redfishmock.NewManualClock(time.Time{})
	opts := redfishmock.Options{Clock: clk}
	if mod != nil {
		mod(&opts)
	}
	d, err := redfishmock.NewDesign(design, opts)
	if err != nil {
		t.Fatalf("redfishmocktest: %v", err)
	}
	lab, err := d.Start(redfishmock.StartConfig{})
	if err != nil {
		t.Fatalf("redfishmocktest: %v", err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Errorf("redfishmocktest: close: %v", err)
		}
	})
	return &Lab{Lab: lab, Clock: clk}
}

// Endpoint returns the named endpoint ("meta1-bmc", "me4084-1") or fails.
func (l *Lab) Endpoint(t testing.TB, name string) redfishmock.Endpoint {
	t.Helper()
	for _, ep := range l.Endpoints {
		if ep.Name == name {
			return ep
		}
	}
	t.Fatalf("redfishmocktest: design %s has no endpoint %q", l.Design.Name, name)
	return redfishmock.Endpoint{}
}

// Service returns the in-process service behind an endpoint, for fault
// injection, statistics and mapping events.
func (l *Lab) Service(t testing.TB, name string) *redfishmock.Service {
	t.Helper()
	s, err := l.Design.Service(name)
	if err != nil {
		t.Fatalf("redfishmocktest: %v", err)
	}
	return s
}

// HTTPClient trusts the lab's CA (and nothing else).
func (l *Lab) HTTPClient() *http.Client { return l.Client() }
