package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// NewDiskGroupList lists the disk groups an array holds.
func NewDiskGroupList() list.ListResource {
	return &lister{resource: NewDiskGroupResource, find: findDiskGroups, schema: listschema.Schema{
		MarkdownDescription: "The disk groups an array holds (Swordfish storage pools, E-Series volume groups and pools), " +
			"as `hpcstorage_disk_group` resources read them (`terraform query`, Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{"endpoint": listEndpointAttribute("disk groups"), "storage_id": listStorageIDAttribute()},
	}}
}

func findDiskGroups(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
	a, ok := listArray(ctx, d, config, diags)
	if !ok {
		return nil
	}
	gs, err := a.Groups(ctx)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List Disk Groups", err)
		return nil
	}
	out := make([]listing, len(gs))
	for i, g := range gs {
		out[i] = listing{id: a.importID(g.ID), display: a.endpoint + ": " + g.Name}
	}
	return out
}
