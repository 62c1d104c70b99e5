package beegfs

import (
	"errors"
	"strings"
	"testing"
)

func storageGroup() MirrorGroup {
	return MirrorGroup{NodeType: MirrorStorage, GroupID: 1,
		Primary:   MirrorMember{ID: 101, SizeBytes: 8e12, Pool: 1, Server: "stor1"},
		Secondary: MirrorMember{ID: 201, SizeBytes: 8e12, Pool: 1, Server: "stor2"}}
}

func TestMirrorGroupItems(t *testing.T) {
	items, err := storageGroup().Items()
	if err != nil {
		t.Fatal(err)
	}
	valid(t, items)
	c := items[0].Command
	if got := strings.Join(c.Argv, " "); got != "beegfs-ctl --addmirrorgroup --nodetype=storage --primary=101 --secondary=201 --groupid=1" {
		t.Errorf("argv %s", got)
	}
	if strings.Join(c.Unless, " ") != "beegfs-ctl --listmirrorgroups --nodetype=storage" || len(items) != 1 {
		t.Errorf("guard %v, %d items", c.Unless, len(items))
	}
	md := MirrorGroup{NodeType: MirrorMeta, GroupID: 1, Primary: MirrorMember{ID: 1}, Secondary: MirrorMember{ID: 2}, MirrorMetadata: true}
	items, err = md.Items()
	if err != nil {
		t.Fatal(err)
	}
	valid(t, items)
	if len(items) != 2 || items[1].Command.Creates != MirrorMDMarker || !strings.HasSuffix(strings.Join(items[1].Command.Argv, " "), "beegfs-ctl --mirrormd") {
		t.Errorf("metadata mirroring items %+v", items)
	}
}

func TestMirrorGroupRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(g *MirrorGroup)
		want   string
	}{
		{"sizes differ", func(g *MirrorGroup) { g.Secondary.SizeBytes = 12e12 },
			"secondary.size_bytes: target 101 has 8000000000000 bytes, target 201 12000000000000"},
		{"size unknown", func(g *MirrorGroup) { g.Primary.SizeBytes = 0 }, "secondary.size_bytes: give both targets' sizes"},
		{"pools differ", func(g *MirrorGroup) { g.Secondary.Pool = 2 }, "secondary.pool: target 101 is in pool 1, target 201 in pool 2"},
		{"same target", func(g *MirrorGroup) { g.Secondary.ID = 101 }, "secondary.id: 101 is also the primary"},
		{"same server", func(g *MirrorGroup) { g.Secondary.Server = "stor1" }, "secondary.server: both sides are on stor1"},
		{"bad group id", func(g *MirrorGroup) { g.GroupID = 0 }, "group_id: 0"},
		{"bad node type", func(g *MirrorGroup) { g.NodeType = "metadata" }, `node_type: "metadata"`},
		{"metadata mirroring on a storage group", func(g *MirrorGroup) { g.MirrorMetadata = true }, "mirror_metadata: metadata mirroring needs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := storageGroup()
			tc.change(&g)
			_, err := g.Items()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseMirrorGroups(t *testing.T) {
	out := "     BuddyGroupID   PrimaryTargetID   SecondaryTargetID\n     ============   ===============   =================\n" +
		"                1               101                 201\n                2               102                 202\n"
	gs, err := ParseMirrorGroups(out)
	if err != nil || len(gs) != 2 || gs[1] != (ListedGroup{ID: 2, Primary: 102, Secondary: 202}) {
		t.Fatalf("%+v %v", gs, err)
	}
	if _, err := ParseMirrorGroups("error: communication with management failed\n"); err == nil {
		t.Error("a listing without header parsed")
	}
	if c := ParseClients("4CC7-5C46EA3E-client01 [ID: 1]\nclient02 [ID: 2]\n"); strings.Join(c, ",") != "4CC7-5C46EA3E-client01,client02" {
		t.Errorf("clients %v", c)
	}
}
