package provider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

func TestAddLocatedPutsEachErrorOnItsAttribute(t *testing.T) {
	var diags diag.Diagnostics
	err := errors.Join(
		fmt.Errorf("render: %w", located.Errorf(located.At("groups").Index(1).Name("name"), "duplicate %q", "g1")),
		located.Warnf(located.At("config").Key("pagepool"), "large"),
	)
	addLocated(&diags, path.Root("fallback"), "Invalid Setting", "Fix it.", err)
	if len(diags) != 2 {
		t.Fatalf("want 2 diagnostics, got %v", diags)
	}
	e, ok := diags[0].(diag.DiagnosticWithPath)
	if !ok || !e.Path().Equal(path.Root("groups").AtListIndex(1).AtName("name")) || diags[0].Severity() != diag.SeverityError {
		t.Fatalf("first: %#v", diags[0])
	}
	w, ok := diags[1].(diag.DiagnosticWithPath)
	if !ok || !w.Path().Equal(path.Root("config").AtMapKey("pagepool")) || diags[1].Severity() != diag.SeverityWarning {
		t.Fatalf("second: %#v", diags[1])
	}

	var plain diag.Diagnostics
	addLocated(&plain, path.Root("fallback"), "Invalid Setting", "Fix it.", errors.New("no location"))
	p, ok := plain[0].(diag.DiagnosticWithPath)
	if len(plain) != 1 || !ok || !p.Path().Equal(path.Root("fallback")) {
		t.Fatalf("unlocated error: %#v", plain)
	}
}
