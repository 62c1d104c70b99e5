package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// install puts gpfs.base at version (an rpm version-release) in each
// node's rpm database, as the lab's R5 seed does, replacing an older one.
func (l *gpfsLab) install(version string, nodes ...string) {
	l.t.Helper()
	for _, n := range nodes {
		db := filepath.Join(l.nodes[n].dir, fakenode.RPMDBPath)
		b, err := os.ReadFile(db)
		if err != nil {
			l.t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if !strings.HasPrefix(line, "gpfs.base\t") {
				out = append(out, line)
			}
		}
		out = append(out, "gpfs.base\t0:"+version+"\tx86_64")
		if err := os.WriteFile(db, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			l.t.Fatal(err)
		}
	}
}

// TestGPFSReleaseSyntax: each installed release's mmcrfs takes only its
// own options (6.0 has no --metadata-block-size or HAWC threshold, 5.0.4
// no --auto-inode-limit); a new cluster's minReleaseLevel is its code's;
// release=LATEST raises it after the packages were upgraded, and mmchfs
// -V full raises a file system's format to it.
func TestGPFSReleaseSyntax(t *testing.T) {
	t.Run("6.0", func(t *testing.T) {
		l := newGPFSLab(t, "nsd1", "nsd2")
		l.install("6.0.1-0", "nsd1", "nsd2")
		l.cluster("nsd1", "nsd2")
		l.withNSDs()
		l.refused("nsd1", "mmcrfs: Invalid option: --metadata-block-size", append(append([]string{}, r5fs...), "--metadata-block-size", "2M")...)
		l.refused("nsd1", "mmcrfs: Invalid option: --write-cache-threshold", append(append([]string{}, r5fs...), "--write-cache-threshold", "64K")...)
		l.mm("nsd1", append(append([]string{}, r5fs...), "--auto-inode-limit")...)
		if lvl := one(t, l.y("nsd1", "mmlsconfig", "-Y")["mmlsconfig:"], "configParameter", "minReleaseLevel")["value"]; lvl != "6.0.1.0" {
			t.Errorf("minReleaseLevel %s", lvl)
		}
	})
	t.Run("5.0.4 then 5.2", func(t *testing.T) {
		l := newGPFSLab(t, "nsd1", "nsd2")
		l.install("5.0.4-3", "nsd1", "nsd2")
		l.cluster("nsd1", "nsd2")
		l.withNSDs()
		l.refused("nsd1", "mmcrfs: Invalid option: --auto-inode-limit", append(append([]string{}, r5fs...), "--auto-inode-limit")...)
		l.mm("nsd1", append(append([]string{}, r5fs...), "--metadata-block-size", "2M")...)
		fsVersion := func() string {
			return one(t, l.y("nsd1", "mmlsfs", "fs1", "-V", "-Y")["mmlsfs:"], "fieldName", "filesystemVersion")["data"]
		}
		if v := fsVersion(); v != "27.00 (5.0.4.3)" {
			t.Errorf("format %q", v)
		}
		// The packages are upgraded: the cluster stays at 5.0.4.3 until
		// release=LATEST, refused while a node still runs the old code.
		l.install("5.2.3-0", "nsd1")
		l.refused("nsd1", "Node nsd2 is running code level 5.0.4.3, below 5.2.3.0", "mmchconfig", "release=LATEST")
		l.install("5.2.3-0", "nsd2")
		l.mm("nsd1", "mmchconfig", "release=LATEST")
		if lvl := one(t, l.y("nsd2", "mmlsconfig", "-Y")["mmlsconfig:"], "configParameter", "minReleaseLevel")["value"]; lvl != "5.2.3.0" {
			t.Errorf("minReleaseLevel %s", lvl)
		}
		l.mm("nsd1", "mmchfs", "fs1", "-V", "full")
		if v := fsVersion(); v != "27.00 (5.2.3.0)" {
			t.Errorf("format after mmchfs -V full %q", v)
		}
		l.refused("nsd1", "Incorrect value latest for the -V option", "mmchfs", "fs1", "-V", "latest")
	})
}
