package layout

import (
	"errors"
	"strings"
	"testing"
)

const tb384 = 3_840_000_000_000

func ef600(t *testing.T) []Drive {
	t.Helper()
	m, ok := LookupModel("EF600")
	if !ok || m.Drives != 24 || m.MediaType != "SSD" {
		t.Fatalf("EF600 preset: %+v, %v", m, ok)
	}
	return GenerateDrives(m.Drives, m.DrawerSize, m.MediaType, tb384)
}

// The converged (base) block: metadata on a 2+2 RAID 10, storage on two
// RAID 6 8+2, with NetApp's volume percentages and segment sizes.
func TestBeeGFSBlockBase(t *testing.T) {
	bp, err := BeeGFSBlock(BlockBase, ef600(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		level RAIDLevel
		ids   string
		bytes int64
	}{{"meta01", RAID10, "0-3", 2 * tb384}, {"stor01", RAID6, "4-13", 8 * tb384}, {"stor02", RAID6, "14-23", 8 * tb384}}
	if len(bp.Groups) != len(want) {
		t.Fatalf("groups %+v", bp.Groups)
	}
	for i, w := range want {
		g := bp.Groups[i]
		if g.Name != w.name || g.Level != w.level || idRanges(g.DriveIDs) != w.ids || g.UsableBytes != w.bytes {
			t.Errorf("group %d = %s %s %s %d, want %+v", i, g.Name, g.Level, idRanges(g.DriveIDs), g.UsableBytes, w)
		}
	}
	if len(bp.Volumes) != 13 || bp.Volumes[0].Name != "mgmt" || bp.Volumes[0].Percent != 1 || bp.Volumes[1].Name != "meta_01_01" ||
		bp.Volumes[1].SegmentBytes != 128<<10 || bp.Volumes[5].Name != "stor_01_01" || bp.Volumes[5].SegmentBytes != 512<<10 {
		t.Fatalf("volumes %+v", bp.Volumes)
	}
	// Percentages of one group never exceed it.
	for _, g := range bp.Groups {
		var sum int64
		for _, v := range bp.Volumes {
			if v.Group == g.Name {
				sum += v.CapacityBytes
			}
		}
		if sum > g.UsableBytes || sum < g.UsableBytes*95/100 {
			t.Errorf("group %s: volumes take %d of %d", g.Name, sum, g.UsableBytes)
		}
	}
	wantDiagram := "Drawer 0 (drives 0-23)\n   0-11 | 01 01 01 01 02 02 02 02 02 02 02 02\n  12-23 | 02 02 03 03 03 03 03 03 03 03 03 03\n"
	if !strings.HasPrefix(bp.Diagram, wantDiagram) {
		t.Errorf("diagram:\n%s\nwant prefix:\n%s", bp.Diagram, wantDiagram)
	}
	// The metadata+storage block is the same without the management volume.
	ms, err := BeeGFSBlock(BlockMetadataStorage, ef600(t))
	if err != nil || len(ms.Volumes) != 12 || ms.Volumes[0].Service != "metadata" {
		t.Fatalf("metadata_storage: %+v, %v", ms.Volumes, err)
	}
}

func TestBeeGFSBlockStorageOnly(t *testing.T) {
	bp, err := BeeGFSBlock(BlockStorage, ef600(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(bp.Groups) != 2 || idRanges(bp.Groups[0].DriveIDs) != "0-11" || idRanges(bp.Groups[1].DriveIDs) != "12-23" ||
		bp.Groups[1].UsableBytes != 10*tb384 || len(bp.Volumes) != 8 || len(bp.Unused) != 0 {
		t.Fatalf("storage-only: %+v %+v", bp.Groups, bp.Volumes)
	}
}

func TestBeeGFSBlockRefusals(t *testing.T) {
	var fe *FieldError
	if _, err := BeeGFSBlock("metadata", ef600(t)); !errors.Is(err, ErrProfile) || !errors.As(err, &fe) || fe.Field != "profile" {
		t.Errorf("unknown profile: %v", err)
	}
	if _, err := BeeGFSBlock(BlockStorage, ef600(t)[:12]); !errors.Is(err, ErrNotEnoughDrives) {
		t.Errorf("12 drives: %v", err)
	}
	d := ef600(t)
	d[5].MediaType = "HDD"
	if _, err := BeeGFSBlock(BlockBase, d); !errors.Is(err, ErrMixedMedia) || !strings.Contains(err.Error(), "stor01") {
		t.Errorf("mixed media: %v", err)
	}
}
