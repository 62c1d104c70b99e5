package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// NewSpareDrivesList lists an array's global spares: one result, or none
// when the array has no spare.
func NewSpareDrivesList() list.ListResource {
	return &lister{resource: NewSpareDrivesResource, find: findOnArray("Drives", listSpares), schema: arrayListSchema(
		"An array's global spares as one `hpcstorage_spare_drives` resource reads them; nothing when the array has none",
		"global spares")}
}

func listSpares(ctx context.Context, a arrayRef) ([]listing, error) {
	ds, err := a.Drives(ctx)
	for _, d := range ds {
		if d.Spare {
			return []listing{{id: a.importID(""), display: a.endpoint + ": global spares"}}, err
		}
	}
	return nil, err
}
