package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// NewVolumeList lists the volumes an array holds.
func NewVolumeList() list.ListResource {
	return &lister{resource: NewVolumeResource, find: findOnArray("Volumes", listVolumes), schema: arrayListSchema(
		"The volumes an array holds, with their host mappings, as `hpcstorage_volume` resources read them", "volumes")}
}

func listVolumes(ctx context.Context, a arrayRef) ([]listing, error) {
	vs, err := a.Volumes(ctx)
	out := make([]listing, len(vs))
	for i, v := range vs {
		out[i] = listing{id: a.importID(v.ID), display: a.endpoint + ": " + v.Name}
	}
	return out, err
}
