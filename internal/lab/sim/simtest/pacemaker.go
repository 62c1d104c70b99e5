package simtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// PacemakerXML is Pacemaker 3.0.2's xml/ folder (its RELAX NG schema
// parts) in the project's reference material, ../shared beside the
// repository: read by tests, never copied into the product.
func PacemakerXML(tb testing.TB) string {
	tb.Helper()
	mod, err := moduleDir()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(mod), "shared", "upstream", "pacemaker-3.0.2-xml")
	if _, err := os.Stat(filepath.Join(dir, "Makefile.am")); err != nil {
		tb.Fatalf("Pacemaker 3.0.2's schemas are not beside the repository (../shared/upstream/pacemaker-3.0.2-xml): %v", err)
	}
	return dir
}

// Schema4 assembles Pacemaker 3's pacemaker-4.0 schema (as its
// xml/Makefile.am does) in a temporary folder and returns its path.
func Schema4(tb testing.TB) string {
	tb.Helper()
	rng, err := sim.AssembleCIBSchema(PacemakerXML(tb), tb.TempDir(), sim.Schema4)
	if err != nil {
		tb.Fatal(err)
	}
	return rng
}

// CheckSchema4 fails the test unless cib validates against the assembled
// pacemaker-4.0 schema rng (Schema4).
func CheckSchema4(tb testing.TB, name, rng string, cib []byte) {
	tb.Helper()
	msg, err := sim.ValidateRelaxNG(rng, cib)
	if err != nil {
		tb.Fatal(err)
	}
	if msg != "" {
		tb.Fatalf("%s: refused by Pacemaker 3's pacemaker-4.0 schema:\n%s\nCIB:\n%s", name, msg, cib)
	}
}

var (
	reValidateWith = regexp.MustCompile(`(<cib\b[^>]*\bvalidate-with=")[^"]*(")`)
	reFeatureSet   = regexp.MustCompile(`(<cib\b[^>]*\bcrm_feature_set=")[^"]*(")`)
)

// DownConvert is a Pacemaker 3 CIB as Debian's Pacemaker 2.1 tools read
// it: the root declares pacemaker-3.0 and feature set 3.16.1, the newest
// they take; the configuration is unchanged (what the lab keeps for a
// Pacemaker 3 cluster, sim/pacemaker3.go).
func DownConvert(cib []byte) []byte {
	cib = reValidateWith.ReplaceAll(cib, []byte("${1}pacemaker-3.0${2}"))
	return reFeatureSet.ReplaceAll(cib, []byte("${1}3.16.1${2}"))
}
