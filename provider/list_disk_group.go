package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// NewDiskGroupList lists the disk groups an array holds.
func NewDiskGroupList() list.ListResource {
	return &lister{resource: NewDiskGroupResource, find: findOnArray("Disk Groups", listDiskGroups), schema: arrayListSchema(
		"The disk groups an array holds (Swordfish storage pools, E-Series volume groups and pools), as "+
			"`hpcstorage_disk_group` resources read them", "disk groups")}
}

func listDiskGroups(ctx context.Context, a arrayRef) ([]listing, error) {
	gs, err := a.Groups(ctx)
	out := make([]listing, len(gs))
	for i, g := range gs {
		out[i] = listing{id: a.importID(g.ID), display: a.endpoint + ": " + g.Name}
	}
	return out, err
}
