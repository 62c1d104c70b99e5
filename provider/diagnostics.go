package provider

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// addError adds a diagnostic with a summary, a detail that says what to do,
// and the original error; on the attribute when at is not empty.
func addError(diags *diag.Diagnostics, at path.Path, summary, detail string, err error) {
	if err != nil {
		detail = fmt.Sprintf("%s\n\nOriginal Error: %v", detail, err)
	}
	if at.Equal(path.Empty()) {
		diags.AddError(summary, detail)
		return
	}
	// The CLI only underlines attributes written in the configuration, so
	// the detail names the attribute too.
	diags.AddAttributeError(at, summary, fmt.Sprintf("Attribute %s: %s", at, detail))
}

// advice says what a user can do about a Redfish error.
func advice(err error) string {
	switch {
	case errors.Is(err, redfish.ErrUnknownEndpoint):
		return "Add the endpoint to the provider's endpoints map, or fix the name."
	case errors.Is(err, redfish.ErrTLSVerify):
		return "The endpoint's TLS certificate is not trusted, so nothing was sent and retrying cannot help. Set ca_certificate " +
			"for this endpoint to the CA that signed the BMC's certificate (or the certificate itself when it is self-signed); " +
			"insecure = true skips the check and is for labs only."
	case errors.Is(err, redfish.ErrUnauthorized):
		return "The service refused the credentials. Check the endpoint's username and password (provider block or " +
			"HPCSTORAGE_* environment), and that the account is enabled and not locked out."
	case errors.Is(err, redfish.ErrForbidden):
		return "The account lacks the privilege for this request; give it a role that can configure the service."
	case errors.Is(err, redfish.ErrPreconditionFailed):
		return "The object changed on the service while Terraform worked on it; run terraform apply again to re-read it."
	case errors.Is(err, redfish.ErrUncertain):
		return "The connection broke mid-request; run terraform apply again: the provider looks the object up before creating it anew."
	case errors.Is(err, redfish.ErrUnavailable), errors.Is(err, redfish.ErrTransport), errors.Is(err, redfish.ErrTimeout):
		return "The service stayed unreachable or busy through every retry; check that it is up, or raise max_retries / request_timeout."
	case errors.Is(err, redfish.ErrBadRequest), errors.Is(err, redfish.ErrConflict):
		return "The service refused the change; the messages below say why."
	case errors.Is(err, redfish.ErrPending):
		return "The BMC accepted the settings but did not apply them at reboot; check its job queue and run terraform apply again."
	}
	return "Check the service and run terraform apply again."
}

// configureData type-asserts the provider bundle in Configure methods.
func configureData(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil // the provider is not configured yet (validation)
	}
	d, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected Configure Type",
			fmt.Sprintf("Expected *providerData, got %T. Please report this issue to the provider developers.", raw))
		return nil
	}
	return d
}

// locatedPath turns an internal location into the framework's path.
func locatedPath(p located.Path) path.Path {
	if len(p) == 0 {
		return path.Empty()
	}
	at := path.Root(p[0].Name)
	for _, s := range p[1:] {
		switch {
		case s.IsKey():
			at = at.AtMapKey(s.Key)
		case s.Name != "":
			at = at.AtName(s.Name)
		default:
			at = at.AtListIndex(s.Index)
		}
	}
	return at
}

// addLocated adds one diagnostic per located error in err (on its
// attribute, warnings as warnings); an error without a location goes on
// fallback. It is the one place where a location becomes a diagnostic: no
// message text is parsed for attribute names.
func addLocated(diags *diag.Diagnostics, fallback path.Path, summary, detail string, err error) {
	if err == nil {
		return
	}
	all := located.All(err)
	if len(all) == 0 {
		addError(diags, fallback, summary, detail, err)
		return
	}
	for _, le := range all {
		at := locatedPath(le.Path)
		if le.Warning {
			msg := fmt.Sprintf("Attribute %s: %v", at, le.Err)
			if at.Equal(path.Empty()) {
				diags.AddWarning(summary, le.Err.Error())
			} else {
				diags.AddAttributeWarning(at, summary, msg)
			}
			continue
		}
		addError(diags, at, summary, detail, le.Err)
	}
}
