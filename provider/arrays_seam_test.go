package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// eseriesLab serves R3's first EF600 (with its file nodes as hosts).
func eseriesLab(t *testing.T) *santricitymock.Server {
	t.Helper()
	srv, err := santricitymock.Start(santricitymock.New(santricitymock.DesignArrays("r3")[0], santricitymock.Options{CabledHosts: true}), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// TestArrayForDispatchesByAPI: the seam hands a Swordfish array for a
// Redfish endpoint and an E-Series array for a santricity one, each
// reading its own drives.
func TestArrayForDispatchesByAPI(t *testing.T) {
	ctx := context.Background()
	lab := startLab(t, "r1", redfishmock.Options{}, "me4024-1")
	pool, err := redfish.NewPool([]redfish.Config{lab.eps["me4024-1"]})
	if err != nil {
		t.Fatal(err)
	}
	srv := eseriesLab(t)
	var diags diag.Diagnostics
	sc := santricityClient(redfish.Config{Name: "ef600-1", URL: srv.URL, Username: srv.Username, Password: srv.Password,
		CACertPEM: srv.CAPEM(), MaxConcurrent: 2}, "ef600-1", &diags)
	d := &providerData{Redfish: pool, ESeries: map[string]*santricity.Client{"ef600-1": sc}}
	for _, tc := range []struct{ name, api, sid, firstDrive string }{
		{"me4024-1", arrays.APIRedfish, "controller_a", "0.0"},
		{"ef600-1", arrays.APISantricity, "1", "99.0"},
	} {
		a, sid := d.arrayFor(ctx, tc.name, types.StringNull(), &diags)
		if diags.HasError() || a == nil {
			t.Fatalf("%s: %v", tc.name, diags)
		}
		ds, err := a.Drives(ctx)
		if err != nil || a.API() != tc.api || sid != tc.sid || len(ds) != 24 || ds[0].ID != tc.firstDrive {
			t.Fatalf("%s: api %s sid %s drives %d (%v), %v", tc.name, a.API(), sid, len(ds), ds[0], err)
		}
	}
	if a, _ := d.arrayFor(ctx, "ef600-1", types.StringValue("controller_a"), &diags); a != nil || !strings.Contains(fmt.Sprint(diags), "Wrong Storage System") {
		t.Fatalf("E-Series with a Swordfish storage_id: %v", diags)
	}
}

// An endpoint declares its API; a wrong value fails at plan time on the
// attribute, and a resource not yet on the seam says so plainly.
func TestEndpointAPIAttribute(t *testing.T) {
	srv := eseriesLab(t)
	block := func(api string) string {
		return fmt.Sprintf(`
provider "hpcstorage" {
  endpoints = {
    "ef600-1" = {
      url            = %q
      username       = %q
      password       = %q
      ca_certificate = %q
      api            = %q
    }
  }
}
`, srv.URL, srv.Username, srv.Password, string(srv.CAPEM()), api)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: fastFactories(),
		Steps: []resource.TestStep{
			{
				Config:      block("swordfish") + `data "hpcstorage_drives" "d" { endpoint = "ef600-1" }`,
				ExpectError: regexp.MustCompile(`(?s)endpoints\["ef600-1"\].api.*value must be one of`),
			},
			{
				Config:      block("santricity") + `data "hpcstorage_server" "d" { endpoint = "ef600-1" }`,
				ExpectError: regexp.MustCompile(`(?s)Endpoint Speaks SANtricity.*E-Series array`),
			},
			{
				PreConfig:   func() { t.Setenv("HPCSTORAGE_EF600_1_API", "swordfish") },
				Config:      strings.Replace(block(""), `api            = ""`, "", 1) + `data "hpcstorage_server" "d" { endpoint = "ef600-1" }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid Endpoint API.*HPCSTORAGE_EF600_1_API`),
			},
		},
	})
}
