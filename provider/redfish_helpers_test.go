package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

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
