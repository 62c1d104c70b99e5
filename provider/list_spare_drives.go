package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// NewSpareDrivesList lists an array's global spares: one result, or none
// when the array has no spare.
func NewSpareDrivesList() list.ListResource {
	return &lister{resource: NewSpareDrivesResource, find: findSpareDrives, schema: listschema.Schema{
		MarkdownDescription: "An array's global spares as one `hpcstorage_spare_drives` resource reads them; nothing when " +
			"the array has none (`terraform query`, Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{"endpoint": listEndpointAttribute("global spares"), "storage_id": listStorageIDAttribute()},
	}}
}

func findSpareDrives(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
	a, ok := listArray(ctx, d, config, diags)
	if !ok {
		return nil
	}
	ds, err := a.Drives(ctx)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List Drives", err)
		return nil
	}
	for _, dr := range ds {
		if dr.Spare {
			return []listing{{id: a.importID(""), display: a.endpoint + ": global spares"}}
		}
	}
	return nil
}
