package redfish

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// A mapping group of the name Map uses, left by an earlier run: taken over
// when it maps exactly this volume, host and LUN, else ErrExists naming it.
func TestMapFindsItsStorageGroup(t *testing.T) {
	ep, _ := mockEndpoint(t, "r1", "me4024-1", redfishmock.Options{})
	ctx := context.Background()
	const sid = "controller_a"
	p, err := ep.CreatePool(ctx, sid, "mdt01", "RAID1", []string{"0.0", "0.1"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ep.CreateVolume(ctx, sid, p.ID, "mdt01", 10<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ep.CreateVolume(ctx, sid, p.ID, "mdt02", 10<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Map(ctx, sid, v, "meta1", 3); err != nil {
		t.Fatal(err)
	}
	g, err := ep.FindStorageGroup(ctx, sid, mappingName(v.ID, "meta1"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Volumes, []string{v.URI}) || !slices.Equal(g.LUNs, []int64{3}) || !slices.Equal(g.Hosts, []string{"meta1"}) {
		t.Errorf("storage group %+v", g)
	}
	// Again (the array answers 409 for the name): the group is this mapping.
	if err := ep.Map(ctx, sid, v, "meta1", 3); err != nil {
		t.Errorf("second Map of the same mapping: %v", err)
	}
	// The name mdt02 takes on meta2, held by a group mapping mdt01.
	if _, err := ep.Post(ctx, StorageGroupsURI(sid), map[string]any{
		"Name":          mappingName(other.ID, "meta2"),
		"MappedVolumes": []any{map[string]any{"Volume": map[string]string{"@odata.id": v.URI}, "LogicalUnitNumber": "4"}},
		"Links":         map[string]any{"ClientEndpointGroups": []any{map[string]string{"@odata.id": StorageURI(sid) + "/EndpointGroups/meta2"}}},
	}); err != nil {
		t.Fatal(err)
	}
	err = ep.Map(ctx, sid, other, "meta2", 4)
	if !errors.Is(err, ErrExists) || !errors.Is(err, ErrConflict) {
		t.Errorf("Map over a foreign group: %v, want ErrExists wrapping the 409", err)
	}
	if _, err := ep.FindStorageGroup(ctx, sid, "nothing"); !IsGone(err) {
		t.Errorf("FindStorageGroup of a missing name: %v", err)
	}
}
