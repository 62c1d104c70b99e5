package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// request_timeout: the attribute, else HPCSTORAGE_REQUEST_TIMEOUT, else the
// default; at most an hour, a bad value is an error naming its source.
func TestDurationOrEnv(t *testing.T) {
	at := path.Root("request_timeout")
	for _, tc := range []struct {
		attr types.String
		env  string
		want time.Duration
		bad  bool
	}{
		{types.StringNull(), "", defaultRequestTimeout, false},
		{types.StringValue("2m"), "", 2 * time.Minute, false},
		{types.StringNull(), "45s", 45 * time.Second, false},
		{types.StringValue("10s"), "45s", 10 * time.Second, false},
		{types.StringValue("2h"), "", defaultRequestTimeout, true},
		{types.StringNull(), "30", defaultRequestTimeout, true},
		{types.StringValue("-1s"), "", defaultRequestTimeout, true},
	} {
		t.Setenv("HPCSTORAGE_REQUEST_TIMEOUT", tc.env)
		var diags diag.Diagnostics
		got := durationOrEnv(tc.attr, "REQUEST_TIMEOUT", defaultRequestTimeout, maxRequestTimeout, at, &diags)
		if got != tc.want || diags.HasError() != tc.bad {
			t.Errorf("%v / env %q: %s, errors %v; want %s, error %v", tc.attr, tc.env, got, diags, tc.want, tc.bad)
		}
	}
}
