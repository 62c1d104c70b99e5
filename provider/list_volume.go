package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// NewVolumeList lists the volumes an array holds.
func NewVolumeList() list.ListResource {
	return &lister{resource: NewVolumeResource, find: findVolumes, schema: listschema.Schema{
		MarkdownDescription: "The volumes an array holds, with their host mappings, as `hpcstorage_volume` resources read " +
			"them (`terraform query`, Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{"endpoint": listEndpointAttribute("volumes"), "storage_id": listStorageIDAttribute()},
	}}
}

func findVolumes(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
	a, ok := listArray(ctx, d, config, diags)
	if !ok {
		return nil
	}
	vs, err := a.Volumes(ctx)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List Volumes", err)
		return nil
	}
	out := make([]listing, len(vs))
	for i, v := range vs {
		out[i] = listing{id: a.importID(v.ID), display: a.endpoint + ": " + v.Name}
	}
	return out
}
