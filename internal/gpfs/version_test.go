package gpfs

import (
	"slices"
	"strings"
	"testing"
)

// TestMmcrfsPerVersion: the paper's settings on each version; a flag the
// version lacks is never rendered and CreateProblems names the attribute.
func TestMmcrfsPerVersion(t *testing.T) {
	f := r5FS()
	f.MetaBlockSize = "2M"
	for _, c := range []struct {
		version   string
		autoInode bool
		has, not  []string
		problem   string
	}{
		{version: "", has: []string{"--metadata-block-size"}, not: []string{"--auto-inode-limit"}},
		{version: V504, autoInode: true, problem: "auto_inode_limit"},
		{version: V51, autoInode: true, has: []string{"--metadata-block-size", "--auto-inode-limit"}},
		{version: V52, has: []string{"--metadata-block-size"}, not: []string{"--auto-inode-limit"}},
		{version: V60, problem: "metadata_block_size"},
	} {
		g := f
		g.Version, g.AutoInodeLimit = c.version, c.autoInode
		if ps := g.Validate(); len(ps) != 0 {
			t.Errorf("%s: Validate %v", c.version, ps)
		}
		ps := g.CreateProblems()
		if c.problem != "" {
			if len(ps) != 1 || ps[0].Path.String() != c.problem {
				t.Errorf("%s: CreateProblems %v, want one on %s", c.version, ps, c.problem)
			}
			continue
		}
		if len(ps) != 0 {
			t.Errorf("%s: CreateProblems %v", c.version, ps)
		}
		argv := g.MmcrfsArgv("/x")
		for _, h := range c.has {
			if !slices.Contains(argv, h) {
				t.Errorf("%s: %v lacks %s", c.version, argv, h)
			}
		}
		for _, n := range c.not {
			if slices.Contains(argv, n) {
				t.Errorf("%s: %v has %s", c.version, argv, n)
			}
		}
	}
	// 6.0 without the separate metadata block size: one size everywhere.
	g := r5FS()
	g.Version = V60
	if ps := g.CreateProblems(); len(ps) != 0 || slices.Contains(g.MmcrfsArgv("/x"), "--metadata-block-size") {
		t.Errorf("6.0, one block size: %v %v", ps, g.MmcrfsArgv("/x"))
	}
	g.Version = "5.3"
	if ps := g.Validate(); len(ps) == 0 || ps[0].Path.String() != "version" {
		t.Errorf("unknown version: %v", ps)
	}
}

// TestUpgradeSteps: a cluster whose minReleaseLevel is below the version
// gets release=LATEST (and drift until then); a file system whose format
// is below it gets mmchfs -V full; neither at or above the level.
func TestUpgradeSteps(t *testing.T) {
	spec := r5ClusterSpec()
	seen := seenFrom(t, spec)
	seen.Config["minReleaseLevel"] = map[string]string{"": "5.1.9.0"}
	for _, c := range []struct {
		version string
		want    bool
	}{{"", false}, {V504, false}, {V51, false}, {V52, true}, {V60, true}} {
		spec.Version = c.version
		steps, err := ClusterSteps(spec, seen, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(lines(steps), "mmchconfig release=LATEST")
		_, drift := ClusterDrift(spec, seen)["release"]
		if got != c.want || drift != c.want {
			t.Errorf("%q: release=LATEST %v, drift %v, want %v\n%s", c.version, got, drift, c.want, lines(steps))
		}
		f := r5FS()
		f.Version = c.version
		fsSeen := FSSeen{Exists: true, Attrs: map[string]string{"filesystemVersion": "27.00 (5.1.9.0)"}, Mounted: true, Policy: f.Policy}
		for _, d := range f.Disks {
			fsSeen.Disks = append(fsSeen.Disks, Disk{Name: d.Name})
		}
		got = strings.Contains(lines(f.FSSteps(fsSeen, nil, false, "/d")), "mmchfs fs1 -V full")
		_, drift = f.FSDrift(fsSeen)["version"]
		if got != c.want || drift != c.want {
			t.Errorf("%q: mmchfs -V full %v, drift %v, want %v", c.version, got, drift, c.want)
		}
	}
}
