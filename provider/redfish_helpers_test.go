package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// mockLab serves some endpoints of a reference design over TLS, each with
// the mock's own CA, and writes the provider block that reaches them.
type mockLab struct {
	svcs map[string]*redfishmock.Service
	eps  map[string]redfish.Config
}

func startLab(t testing.TB, design string, opts redfishmock.Options, names ...string) *mockLab {
	t.Helper()
	if opts.Username == "" {
		opts.Username, opts.Password = "root", "lab-s3cret"
	}
	if opts.PowerDelay == 0 {
		opts.PowerDelay = 20 * time.Millisecond
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	lab := &mockLab{svcs: map[string]*redfishmock.Service{}, eps: map[string]redfish.Config{}}
	for _, n := range names {
		svc, err := redfishmock.NewService(design, n, opts)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		u, p := svc.Credentials()
		lab.svcs[n] = svc
		lab.eps[n] = redfish.Config{Name: n, URL: srv.URL, Username: u, Password: p, CACertPEM: ca.PEM()}
	}
	return lab
}

// providerBlock is the HCL provider block of the lab.
func (l *mockLab) providerBlock() string {
	names := make([]string, 0, len(l.eps))
	for n := range l.eps {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("provider \"hpcstorage\" {\n  endpoints = {\n")
	for _, n := range names {
		c := l.eps[n]
		fmt.Fprintf(&b, "    %q = {\n      url = %q\n      username = %q\n      password = %q\n      ca_certificate = %q\n    }\n",
			n, c.URL, c.Username, c.Password, string(c.CACertPEM))
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// client is a direct Redfish client of a lab endpoint, to change things
// behind Terraform's back (drift) in PreConfig steps.
func (l *mockLab) client(t testing.TB, name string) *redfish.Endpoint {
	t.Helper()
	ep, err := redfish.NewEndpoint(l.eps[name])
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// fastFactories serves a provider whose waits poll every few milliseconds
// and whose retries don't really sleep, so reboots and Retry-After bursts
// take no wall time.
func fastFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"hpcstorage": providerserver.NewProtocol6WithError(&hpcstorageProvider{version: "test", hooks: testHooks{
			pollInterval: 5 * time.Millisecond,
			sleep: func(ctx context.Context, d time.Duration) error {
				if d > 50*time.Millisecond {
					d = 50 * time.Millisecond
				}
				return sleep(ctx, d)
			},
		}}),
	}
}

func fastWaiter() redfish.Waiter {
	return redfish.Waiter{Interval: 5 * time.Millisecond, Timeout: 10 * time.Second}
}

// mockCheck is a state check that asserts on the mock rather than on the
// state (Check funcs can't be used with for_each resources).
type mockCheck func() error

func (f mockCheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// A 401 met while finding the server is about the credentials: the
// diagnostic sits on no attribute and never mentions system_id; other
// errors stay on the attribute being worked on.
func TestRedfishErrorPlacement(t *testing.T) {
	he := fmt.Errorf("logging in to bmc1 as %q: %w", "root", redfish.ErrUnauthorized)
	var diags diag.Diagnostics
	redfishError(&diags, path.Root("system_id"), "Cannot Find The Server", he)
	d := diags[0]
	if _, onAttr := d.(diag.DiagnosticWithPath); onAttr || d.Summary() != "Credentials Refused" ||
		strings.Contains(d.Summary()+d.Detail(), "system_id") || !strings.Contains(d.Detail(), "refused the credentials") {
		t.Errorf("401: %T %q %q", d, d.Summary(), d.Detail())
	}
	diags = nil
	redfishError(&diags, path.Root("system_id"), "Cannot Find The Server", fmt.Errorf("%w: 2 systems", redfish.ErrInvalid))
	if dp, onAttr := diags[0].(diag.DiagnosticWithPath); !onAttr || !dp.Path().Equal(path.Root("system_id")) {
		t.Errorf("other errors: %T", diags[0])
	}
}
