package gpfs

import (
	"reflect"
	"testing"
)

// TestImportCluster: the spec imported from the -Y fixtures has the
// fixtures' nodes, roles, user classes and settings, and no drift against
// them but for daemons that are down.
func TestImportCluster(t *testing.T) {
	var seen ClusterSeen
	var err error
	seen.Exists = true
	if seen.Cluster, err = ParseCluster(fixture(t, "mmlscluster.Y")); err != nil {
		t.Fatal(err)
	}
	if seen.Config, err = ParseConfig(fixture(t, "mmlsconfig.Y")); err != nil {
		t.Fatal(err)
	}
	if seen.States, err = ParseStates(fixture(t, "mmgetstate.Y")); err != nil {
		t.Fatal(err)
	}
	if seen.Classes, err = ParseNodeClasses(fixture(t, "mmlsnodeclass.Y")); err != nil {
		t.Fatal(err)
	}
	seen.Cluster.CESNodes = []string{"gw1", "gw2"}
	s := ImportCluster(seen, []string{"nsd1", "nsd2"})
	roles := map[string][]string{}
	for _, n := range s.Nodes {
		roles[n.Name] = n.Roles
	}
	if !reflect.DeepEqual(roles["nsd1"], []string{RoleQuorum, RoleManager, RoleNSDServer}) || !reflect.DeepEqual(roles["gw1"], []string{RoleGateway}) ||
		len(s.Nodes) != 5 {
		t.Errorf("imported nodes %v", s.Nodes)
	}
	want := map[string]map[string]string{
		AllNodes:     {"maxblocksize": "8M", "cesSharedRoot": "/gpfs/fs1/.ces"},
		"nsdServers": {"pagepool": "16G", "workerThreads": "1024", "verbsPorts": "mlx5_0/1 mlx5_1/1"},
		"gwNodes":    {"pagepool": "4G"}, "mgmtNodes": {"pagepool": "4G"},
	}
	if !reflect.DeepEqual(s.Config, want) {
		t.Errorf("imported config %v\nwant %v", s.Config, want)
	}
	if len(s.Classes) != 2 || !reflect.DeepEqual(s.Classes["gwNodes"], []string{"gw1", "gw2"}) {
		t.Errorf("imported classes %v", s.Classes)
	}
	for k := range ClusterDrift(s, seen) {
		if k[:6] != "state:" {
			t.Errorf("drift %s after import", k)
		}
	}
}

// TestImportFS: the file system imported from the -Y fixtures has no
// drift against them, and its mmcrfs settings are the fixture's.
func TestImportFS(t *testing.T) {
	seen := FSSeen{Exists: true, Mounted: true}
	var err error
	if seen.Attrs, err = ParseFSAttrs(fixture(t, "mmlsfs.Y")); err != nil {
		t.Fatal(err)
	}
	if seen.Disks, err = ParseDisks(fixture(t, "mmlsdisk.Y")); err != nil {
		t.Fatal(err)
	}
	seen.Policy = "RULE 'default' SET POOL 'data'\n"
	f, err := ImportFS("fs1", seen)
	if err != nil {
		t.Fatal(err)
	}
	if f.BlockSize != "8M" || f.MetaBlockSize != "" || f.LayoutMap != "scatter" || f.MountPoint != "/gpfs/fs1" || !f.AutoMount ||
		f.MetaRepl != 1 || f.MaxMeta != 2 || f.NumNodes != 32 || len(f.Disks) != len(seen.Disks) || f.Policy != seen.Policy {
		t.Errorf("imported %+v", f)
	}
	if d := f.FSDrift(seen); len(d) != 0 {
		t.Errorf("drift after import: %v", d)
	}
	seen.Attrs["numNodes"] = "many"
	if _, err := ImportFS("fs1", seen); err == nil {
		t.Error("a numNodes that is not a number was imported")
	}
}
