package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// endpoint returns the named endpoint or adds a diagnostic on at.
func (d *providerData) endpoint(name string, at path.Path, diags *diag.Diagnostics) *redfish.Endpoint {
	if d == nil {
		diags.AddError("Provider Not Configured", "The provider was not configured before use; please report this issue.")
		return nil
	}
	if d.Deferred[name] {
		diags.AddAttributeError(at, "Endpoint Not Known Yet",
			fmt.Sprintf("The settings of endpoint %q depend on values known only after apply; apply what they depend on first.", name))
		return nil
	}
	if d.speaksSantricity(name) {
		diags.AddAttributeError(at, "Endpoint Speaks SANtricity",
			fmt.Sprintf("Endpoint %q is an E-Series array (api = \"santricity\"); this resource or data source reaches arrays "+
				"through Redfish only so far.", name))
		return nil
	}
	ep, err := d.Redfish.Endpoint(name)
	if err != nil {
		addError(diags, at, "Unknown Endpoint", advice(err), err)
		return nil
	}
	return ep
}

// readSystem finds the system a data source names (systemID empty: the
// only one of the BMC) and reads it; on failure it adds the diagnostic
// and returns nils.
func (d *providerData) readSystem(ctx context.Context, endpoint, systemID string, diags *diag.Diagnostics) (*redfish.Endpoint, *redfish.System) {
	ep := d.endpoint(endpoint, path.Root("endpoint"), diags)
	if ep == nil {
		return nil, nil
	}
	id, err := ep.FindSystem(ctx, systemID)
	if err != nil {
		redfishError(diags, path.Root("system_id"), "Cannot Find The Server", err)
		return nil, nil
	}
	sys, err := ep.GetSystem(ctx, id)
	if err != nil {
		redfishError(diags, path.Root("system_id"), "Cannot Read The Server", err)
		return nil, nil
	}
	return ep, sys
}

// waiter builds the poller for long operations (reboots, power changes).
func (d *providerData) waiter(timeout time.Duration) redfish.Waiter {
	return redfish.Waiter{Interval: d.PollInterval, Timeout: timeout, Sleep: d.Sleep}
}

// redfishError adds a diagnostic for an error from internal/redfish. Refused
// credentials and untrusted certificates concern the endpoint, not the
// attribute being worked on, so they get their own summary and no attribute.
func redfishError(diags *diag.Diagnostics, at path.Path, what string, err error) {
	switch {
	case errors.Is(err, redfish.ErrUnauthorized):
		addError(diags, path.Empty(), "Credentials Refused", advice(err), err)
	case errors.Is(err, redfish.ErrTLSVerify):
		addError(diags, path.Empty(), "TLS Certificate Not Trusted", advice(err), err)
	default:
		addError(diags, at, what, advice(err), err)
	}
}

// splitImportID splits "endpoint/id" (the id may itself hold slashes).
func splitImportID(id, want string) (string, string, error) {
	ep, rest, ok := strings.Cut(id, "/")
	if !ok || ep == "" || rest == "" {
		return "", "", fmt.Errorf("import id %q must look like %s", id, want)
	}
	return ep, rest, nil
}

// planEndpoint is endpoint for plan-time checks: an endpoint whose
// settings are not known yet is skipped (nil, no diagnostic).
func (d *providerData) planEndpoint(name string, at path.Path, diags *diag.Diagnostics) *redfish.Endpoint {
	if d == nil || d.Deferred[name] {
		return nil
	}
	return d.endpoint(name, at, diags)
}

// driveClaims maps endpoint/storage/drive to the owner planned for it.
type driveClaims struct{ m sync.Map }

// claim records owner for the drive; it returns the other owner when the
// drive is already planned for someone else.
func (c *driveClaims) claim(endpoint, storage, drive, owner string) (string, bool) {
	if c == nil {
		return "", true
	}
	prev, loaded := c.m.LoadOrStore(endpoint+"/"+storage+"/"+drive, owner)
	if loaded && prev.(string) != owner {
		return prev.(string), false
	}
	return "", true
}
