package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// NewServerList lists the computer systems behind a BMC endpoint.
func NewServerList() list.ListResource {
	return &lister{resource: NewServerResource, find: findServers, schema: listschema.Schema{
		MarkdownDescription: "The computer systems behind a BMC endpoint, as `hpcstorage_server` resources read them " +
			"(`terraform query`, Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{"endpoint": listEndpointAttribute("computer systems")},
	}}
}

func findServers(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
	name := listString(ctx, config, "endpoint", diags).ValueString()
	ep := d.endpoint(name, path.Root("endpoint"), diags)
	if ep == nil {
		return nil
	}
	ids, err := ep.SystemIDs(ctx)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List Systems", err)
		return nil
	}
	out := make([]listing, len(ids))
	for i, id := range ids {
		out[i] = listing{id: name + "/" + id, display: name + ": " + id}
	}
	return out
}
