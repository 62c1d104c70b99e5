package gpfs

import (
	"strings"
	"testing"
)

// seenFS is the file system as mmlsfs/mmlsdisk would print it after f was
// applied.
func seenFS(f FileSystem) FSSeen {
	s := FSSeen{Exists: true, Mounted: true, Policy: "RULE 'default' SET POOL 'data'",
		Attrs: map[string]string{"blockSize": "8388608", "blockAllocationType": "scatter", "defaultMetadataReplicas": "1",
			"maxMetadataReplicas": "1", "defaultDataReplicas": "1", "maxDataReplicas": "1", "defaultMountPoint": "/gpfs/fs1"}}
	for _, d := range f.Disks {
		s.Disks = append(s.Disks, Disk{Name: d.Name, FailureGroup: "1", Metadata: d.Usage != DataOnly, Data: d.Usage != MetadataOnly, Pool: poolOf(d)})
	}
	return s
}

func TestFSStepsCreate(t *testing.T) {
	f := r5FS()
	steps := f.FSSteps(FSSeen{}, nil, false, "/d")
	want := "mmcrfs fs1 -F /d/mmcrfs.stanza -B 8M -j scatter -m 1 -M 1 -r 1 -R 1 -n 32 -T /gpfs/fs1 -A yes\n" +
		"mmchpolicy fs1 /d/policy\nmmmount fs1 -a"
	if got := lines(steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	st := steps[0].Files["/d/mmcrfs.stanza"]
	if !strings.HasPrefix(st, "%pool: pool=data blockSize=8M layoutMap=scatter\n%nsd: nsd=a1_d01 usage=dataOnly failureGroup=1 pool=data\n") ||
		strings.Count(st, "%nsd:") != 5 {
		t.Errorf("mmcrfs stanzas:\n%s", st)
	}
}

func TestFSStepsExpansion(t *testing.T) {
	f := r5FS()
	seen := seenFS(f)
	if d := f.FSDrift(seen); len(d) != 0 {
		t.Errorf("drift of an applied file system: %v", d)
	}
	if steps := f.FSSteps(seen, nil, false, "/d"); len(steps) != 0 {
		t.Errorf("converged: %s", lines(steps))
	}
	// An ME484 behind the array: two more data NSDs.
	f.Disks = append(f.Disks, NSD{Name: "a1e_d01", Usage: DataOnly, FailureGroup: 1, Pool: "data"},
		NSD{Name: "a1e_d02", Usage: DataOnly, FailureGroup: 1, Pool: "data"})
	steps := f.FSSteps(seen, nil, false, "/d")
	if got := lines(steps); got != "mmadddisk fs1 -F /d/mmadddisk.stanza" {
		t.Fatalf("expansion steps: %s", got)
	}
	want := "%nsd: nsd=a1e_d01 usage=dataOnly failureGroup=1 pool=data\n%nsd: nsd=a1e_d02 usage=dataOnly failureGroup=1 pool=data\n"
	if got := steps[0].Files["/d/mmadddisk.stanza"]; got != want {
		t.Errorf("mmadddisk stanzas (exactly the new NSDs):\n%s", got)
	}
	// With rebalance: recorded first (guarded like mmadddisk), restriped
	// while the record holds disks; a converged file system still sends
	// the restripe, which runs only while a killed run left the record.
	withRebalance := f.FSSteps(seen, nil, true, "/d")
	if got := lines(withRebalance); got != "/bin/sh -c f=$1; shift; mkdir -p \"${f%/*}\" && printf '%s\\n' \"$@\" >\"$f\" gpfs-record /d/rebalance.pending a1e_d01 a1e_d02\n"+
		"mmadddisk fs1 -F /d/mmadddisk.stanza\nmmrestripefs fs1 -b" {
		t.Errorf("with rebalance: %s", got)
	}
	if withRebalance[0].Unless[0] != "mmlsdisk" || withRebalance[2].Pending != "/d/rebalance.pending" || withRebalance[2].Once {
		t.Errorf("rebalance guards: %+v", withRebalance)
	}
	converged := r5FS()
	if got := converged.FSSteps(seenFS(converged), nil, true, "/d"); len(got) != 1 || got[0].Pending != "/d/rebalance.pending" {
		t.Errorf("converged with rebalance: %+v", got)
	}
	// Removal only when asked for (the caller passes the names).
	f = r5FS()
	f.Disks = f.Disks[1:]
	if got := lines(f.FSSteps(seen, []string{"a1_d01"}, false, "/d")); got != "mmdeldisk fs1 a1_d01" {
		t.Errorf("removal: %s", got)
	}
	if d := f.FSDrift(seen); d["disk:a1_d01"] != "in the file system, not configured" {
		t.Errorf("drift with an unconfigured disk: %v", d)
	}
	// Unmounted by hand: drift, and the apply mounts it.
	f = r5FS()
	seen.Mounted = false
	if d := f.FSDrift(seen); d["mount"] == "" {
		t.Errorf("unmounted: %v", d)
	}
	if got := lines(f.FSSteps(seen, nil, false, "/d")); got != "mmmount fs1 -a" {
		t.Errorf("unmounted steps: %s", got)
	}
}

func TestProtocols(t *testing.T) {
	spec := ProtocolsSpec{Nodes: []string{"gw1", "gw2"}, Services: []string{"NFS", "SMB"}, Exports: []NFSExport{{Path: "/gpfs/fs1",
		Clients: []NFSClient{{Spec: "10.20.0.0/16", Options: "Access_Type=RW,Squash=root_squash"}, {Spec: "*", Options: "Access_Type=RO"}}}}}
	if ps := ValidateProtocols(spec); len(ps) != 0 {
		t.Fatal(ps)
	}
	steps := ProtocolsSteps(spec, ProtocolsSeen{}, nil, nil)
	want := "mmchnode --ces-enable -N gw1,gw2\nmmces service enable NFS\nmmces service enable SMB\n" +
		"mmnfs export add /gpfs/fs1 --client 10.20.0.0/16(Access_Type=RW,Squash=root_squash);*(Access_Type=RO)"
	if got := lines(steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	svc, _ := ParseCESServices(fixture(t, "mmces-service.Y"))
	ex, _ := ParseExports(fixture(t, "mmnfs-export.Y"))
	seen := ProtocolsSeen{CESNodes: []string{"gw1", "gw2"}, Services: svc, Exports: ex}
	if d := ProtocolsDrift(spec, seen); len(d) != 0 {
		t.Errorf("drift against the fixtures: %v", d)
	}
	if steps := ProtocolsSteps(spec, seen, []string{"/gpfs/old"}, nil); len(steps) != 0 {
		t.Errorf("converged: %s", lines(steps))
	}
	spec.Exports[0].Clients = spec.Exports[0].Clients[:1]
	if got := lines(ProtocolsSteps(spec, seen, nil, nil)); got != "mmnfs export remove /gpfs/fs1\nmmnfs export add /gpfs/fs1 --client 10.20.0.0/16(Access_Type=RW,Squash=root_squash)" {
		t.Errorf("clients changed: %s", got)
	}
	bad := ProtocolsSpec{Services: []string{"nfs"}, Exports: []NFSExport{{Path: "gpfs", Clients: nil}}}
	ps := ValidateProtocols(bad)
	for _, w := range []struct{ attr, msg string }{{"services[0]", `did you mean "NFS"?`}, {"exports[0].path", "absolute"},
		{"exports[0].clients", "at least one"}, {"services", "need the NFS service"}, {"nodes", "CES"}} {
		if !hasProblem(ps, w.attr, w.msg, false) {
			t.Errorf("missing %s: %s in %v", w.attr, w.msg, ps)
		}
	}
}

// TestGatewayAddressesAndSMB: CES addresses with one mmces address add,
// SMB exports with mmsmb export add NAME PATH --option "K=V", read back
// from the -Y fixtures; a changed option removes and adds the export.
func TestGatewayAddressesAndSMB(t *testing.T) {
	spec := ProtocolsSpec{Nodes: []string{"gw1", "gw2"}, Services: []string{"NFS", "SMB"},
		Addresses: []string{"10.10.0.201", "10.10.0.202"},
		SMB:       []SMBExport{{Name: "fs1", Path: "/gpfs/fs1", Options: map[string]string{"browseable": "yes", "smb encrypt": "desired"}}}}
	if ps := ValidateProtocols(spec); len(ps) != 0 {
		t.Fatal(ps)
	}
	seen := ProtocolsSeen{CESNodes: []string{"gw1", "gw2"}, Services: []string{"NFS", "SMB"}}
	want := "mmces address add --ces-ip 10.10.0.201,10.10.0.202\n" +
		"mmsmb export add fs1 /gpfs/fs1 --option browseable=yes --option smb encrypt=desired"
	if got := lines(ProtocolsSteps(spec, seen, nil, nil)); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	var err error
	if seen.Addresses, err = ParseCESAddresses(fixture(t, "mmces-address.Y")); err != nil {
		t.Fatal(err)
	}
	if seen.Shares, err = ParseSMBExports(fixture(t, "mmsmb-export.Y")); err != nil {
		t.Fatal(err)
	}
	if len(seen.Shares) != 1 || seen.Shares[0].Options["gpfs:leases"] != "yes" {
		t.Fatalf("shares %v", seen.Shares)
	}
	if d := ProtocolsDrift(spec, seen); len(d) != 0 {
		t.Errorf("drift against the fixtures: %v", d)
	}
	if steps := ProtocolsSteps(spec, seen, nil, []string{"gone"}); len(steps) != 0 {
		t.Errorf("converged: %s", lines(steps))
	}
	spec.SMB[0].Options["browseable"] = "no"
	if d := ProtocolsDrift(spec, seen); d["smb_export:fs1"] != `browseable = "yes", want "no"` {
		t.Errorf("drift %v", d)
	}
	if got := lines(ProtocolsSteps(spec, seen, nil, nil)); got != "mmsmb export remove fs1\nmmsmb export add fs1 /gpfs/fs1 --option browseable=no --option smb encrypt=desired" {
		t.Errorf("option changed: %s", got)
	}
	if got := lines(ProtocolsSteps(ProtocolsSpec{Services: []string{"SMB"}}, seen, nil, []string{"FS1"})); got != "mmsmb export remove fs1" {
		t.Errorf("dropped: %s", got)
	}
	bad := ProtocolsSpec{Nodes: []string{"gw1"}, Services: []string{"NFS"}, Addresses: []string{"10.10.0.0/24", "10.1.1.1", "10.1.1.1"},
		SMB: []SMBExport{{Name: "homes", Path: "/gpfs/fs1"}, {Name: "a:b", Path: "gpfs", Options: map[string]string{"browsable": "yes", "guest ok": "maybe"}}}}
	ps := ValidateProtocols(bad)
	for _, w := range []struct{ attr, msg string }{{"ces_addresses[0]", "not an IP address"}, {"ces_addresses[2]", "listed twice"},
		{"smb_exports[0].name", "reserved"}, {"smb_exports[1].name", "cannot contain"}, {"smb_exports[1].path", "absolute"},
		{"smb_exports[1].options", `did you mean "browseable"?`}, {"smb_exports[1].options", "want yes or no"},
		{"services", "need the SMB service"}} {
		if !hasProblem(ps, w.attr, w.msg, false) {
			t.Errorf("missing %s: %s in %v", w.attr, w.msg, ps)
		}
	}
}

// TestDeleteFSSteps: destroy sends only what is left, every step Once
// (the agent refuses an unguarded command): unmount then delete while
// mounted, delete alone once unmounted, nothing once gone.
func TestDeleteFSSteps(t *testing.T) {
	seen := seenFS(r5FS())
	for _, c := range []struct {
		what string
		seen FSSeen
		want string
	}{
		{"mounted", seen, "mmumount fs1 -a\nmmdelfs fs1"},
		{"unmounted", FSSeen{Exists: true}, "mmdelfs fs1"},
		{"gone", FSSeen{}, ""},
	} {
		steps := DeleteFSSteps("fs1", c.seen)
		if got := lines(steps); got != c.want {
			t.Errorf("%s: steps %q, want %q", c.what, got, c.want)
		}
		for _, s := range steps {
			if !s.Once || len(s.Unless) > 0 {
				t.Errorf("%s: %s is not a Once step", c.what, s.Name)
			}
		}
	}
}
