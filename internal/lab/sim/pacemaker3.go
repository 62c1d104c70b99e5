package sim

// Pacemaker 3 clusters in the lab. The lab's tools are Debian's Pacemaker
// 2.1, which refuse a CIB that declares pacemaker-4.0 (a schema they do not
// know), so a cluster whose nodes have Pacemaker 3 installed (their rpm
// database) is kept as follows:
//
//   - the CIB file stays in the form the 2.1 tools read: validate-with
//     pacemaker-3.0 and feature set 3.16.1 (a down-conversion of the root
//     element only; the configuration is the same document), so cibadmin,
//     crm_mon, crm_diff and the scheduler (crm_simulate) run on it as for a
//     2.x cluster;
//   - dc-version is the Pacemaker 3 release the first node has, as its
//     controller writes it (what the provider reads to tell the version),
//     and the cluster folder's release file keeps it;
//   - every change is checked twice: by Debian's crm_verify (as for 2.x),
//     and, as Pacemaker 3's CIB manager would, the changed document with
//     validate-with pacemaker-4.0 against Pacemaker 3's own pacemaker-4.0
//     RELAX NG schema (xmllint), which refuses what 3.0 removed
//     (stonith-action=poweroff, the crmd-* options, restart-type...).
//     The lab finds that schema, assembled by AssembleCIBSchema, in the
//     shared folder's pacemaker-schema (lab.Config.PacemakerSchemas); a
//     lab without it checks with crm_verify only and says so in
//     transitions.log.
//
// What the 2.1 scheduler does differently from 3.0's is not modelled.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// PacemakerSchemaShared is the shared folder's entry with the assembled
// pacemaker-4.0 schema.
const PacemakerSchemaShared = "pacemaker-schema"

// Schema4 is the CIB schema Pacemaker 3 requires.
const Schema4 = "4.0"

// dcVersion2 is what the lab's 2.x controller writes (Debian's release).
const dcVersion2 = "2.1.5-a3f44794f94"

// installedPacemaker is the node's pacemaker package version (from its
// rpm database), "" when it has none.
func (e *Env) installedPacemaker() string {
	// fakenode.RPMDBPath (fakenode imports this package).
	data, _ := e.read("/var/lib/rpm/hpcstorage-fake-rpmdb.txt")
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 2 && f[0] == "pacemaker" {
			_, evr, ok := strings.Cut(f[1], ":")
			if !ok {
				evr = f[1]
			}
			return evr
		}
	}
	return ""
}

// nodeDCVersion is the dc-version this node's controller writes: its own
// release for Pacemaker 3, else the lab's 2.1 (the tools that run).
func (e *Env) nodeDCVersion() string {
	if v := e.installedPacemaker(); majorOf(v) >= 3 {
		return v
	}
	return dcVersion2
}

var reMajor = regexp.MustCompile(`^([0-9]+)\.`)

func majorOf(v string) int {
	m := reMajor.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// pcmkRelease, in a cluster's shared folder, is the release its
// controller runs (written with the fresh CIB): the CIB's own dc-version
// goes with a configuration replaced by hand.
const pcmkRelease = "release"

// clusterMajor is the major of the pacemaker the cluster in dir runs.
func clusterMajor(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, pcmkRelease))
	return majorOf(strings.TrimSpace(string(b)))
}

var reValidateWith = regexp.MustCompile(`(<cib\b[^>]*\bvalidate-with=")[^"]*(")`)

// withSchema is the CIB declaring schema pacemaker-<version> on its root.
func withSchema(cib []byte, version string) []byte {
	return reValidateWith.ReplaceAll(cib, []byte("${1}pacemaker-"+version+"${2}"))
}

// checkPacemaker3 validates a changed CIB of a Pacemaker 3 cluster against
// the pacemaker-4.0 schema in the shared folder; ok false with the
// schema's complaint when it refuses.
func checkPacemaker3(dir string, cib []byte) (string, bool, error) {
	rng := filepath.Join(filepath.Dir(dir), PacemakerSchemaShared, "pacemaker-"+Schema4+".rng")
	if !fileExists(rng) {
		if f, err := os.OpenFile(filepath.Join(dir, "transitions.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "=== pacemaker 3 cluster: %s missing, change checked with crm_verify 2.1 only\n", rng)
			f.Close()
		}
		return "", true, nil
	}
	msg, err := ValidateRelaxNG(rng, withSchema(cib, Schema4))
	if err != nil {
		return "", false, err
	}
	return msg, msg == "", nil
}

// ValidateRelaxNG checks doc against a RELAX NG schema with xmllint; it
// returns xmllint's complaint, "" when the document validates.
func ValidateRelaxNG(rng string, doc []byte) (string, error) {
	// The simulator runs with a short PATH: look in /usr/bin too.
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		if bin = "/usr/bin/xmllint"; !fileExists(bin) {
			return "", fmt.Errorf("xmllint is not installed (apt-get install -y libxml2-utils): %w", err)
		}
	}
	cmd := exec.Command(bin, "--noout", "--relaxng", rng, "-")
	cmd.Stdin = bytes.NewReader(doc)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		return string(out), nil // fails to validate
	}
	if err != nil {
		return "", fmt.Errorf("xmllint: %v: %s", err, out)
	}
	return "", nil
}

// The CIB schema's parts, as pacemaker's xml/Makefile.am lists them
// (CIB_cfg_base: the choices of the configuration; CIB_base: every part).
var (
	cibConfigParts = []string{"options", "nodes", "resources", "constraints", "fencing", "acls", "tags", "alerts"}
	cibParts       = append(append([]string{"cib"}, cibConfigParts...), "status", "score", "rule", "nvset")
)

var reRNGVersion = regexp.MustCompile(`^(.*)-([0-9][0-9.]*)\.rng$`)

// AssembleCIBSchema builds the top-level pacemaker-<version>.rng from
// Pacemaker's versioned schema parts in src (its source tree's xml/), in
// dst, the way its xml/Makefile.am does: every part copied, versions.rng
// listing every schema version, and the top-level grammar naming, for
// each part, the file of that version or else the newest one below it
// (rng-helper's build_cib_rng). It returns the top-level file's path.
func AssembleCIBSchema(src, dst, version string) (string, error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	files := map[string][]string{} // part -> its versions ("0.1": part.rng)
	seen := map[string]bool{}
	var all []string
	for _, en := range entries {
		name := en.Name()
		if en.IsDir() || !strings.HasSuffix(name, ".rng") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
			return "", err
		}
		part, v := strings.TrimSuffix(name, ".rng"), "0.1"
		if m := reRNGVersion.FindStringSubmatch(name); m != nil {
			part, v = m[1], m[2]
		}
		if !slices.Contains(cibParts, part) {
			continue
		}
		files[part] = append(files[part], v)
		if v != "0.1" && !seen[v] {
			seen[v] = true
			all = append(all, v)
		}
	}
	sort.Slice(all, func(i, j int) bool { return rngVersionLess(all[i], all[j]) })
	if !seen[version] {
		return "", fmt.Errorf("schema version %s: no part of that version in %s (have %s)", version, src, strings.Join(all, " "))
	}
	var vb strings.Builder
	vb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<grammar xmlns="http://relaxng.org/ns/structure/1.0" datatypeLibrary="http://www.w3.org/2001/XMLSchema-datatypes">` + "\n" +
		"  <start>\n    <group>\n      <attribute name=\"validate-with\">\n        <choice>\n          <value>none</value>\n")
	for _, v := range all {
		fmt.Fprintf(&vb, "          <value>pacemaker-%s</value>\n", v)
	}
	vb.WriteString("        </choice>\n      </attribute>\n" +
		"      <attribute name=\"admin_epoch\"><data type=\"nonNegativeInteger\"/></attribute>\n" +
		"      <attribute name=\"epoch\"><data type=\"nonNegativeInteger\"/></attribute>\n" +
		"      <attribute name=\"num_updates\"><data type=\"nonNegativeInteger\"/></attribute>\n" +
		"    </group>\n  </start>\n</grammar>\n")
	if err := os.WriteFile(filepath.Join(dst, "versions.rng"), []byte(vb.String()), 0o644); err != nil {
		return "", err
	}
	ref := func(b *strings.Builder, part, indent string) error {
		best := ""
		for _, v := range files[part] {
			if v == version {
				best = v
				break
			}
			if rngVersionLess(v, version) && (best == "" || rngVersionLess(best, v)) {
				best = v
			}
		}
		if best == "" {
			return fmt.Errorf("schema version %s: no %s part at or below it", version, part)
		}
		name := part + "-" + best + ".rng"
		if best == "0.1" {
			name = part + ".rng"
		}
		fmt.Fprintf(b, "%s<externalRef href=%q/>\n", indent, name)
		return nil
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<grammar xmlns="http://relaxng.org/ns/structure/1.0" datatypeLibrary="http://www.w3.org/2001/XMLSchema-datatypes">` + "\n" +
		"  <start>\n    <element name=\"cib\">\n")
	if err := ref(&b, "cib", "      "); err != nil {
		return "", err
	}
	b.WriteString("      <element name=\"configuration\">\n        <interleave>\n")
	for _, part := range cibConfigParts {
		if err := ref(&b, part, "          "); err != nil {
			return "", err
		}
	}
	b.WriteString("        </interleave>\n      </element>\n      <optional>\n        <element name=\"status\">\n")
	if err := ref(&b, "status", "          "); err != nil {
		return "", err
	}
	b.WriteString("        </element>\n      </optional>\n    </element>\n  </start>\n</grammar>\n")
	top := filepath.Join(dst, "pacemaker-"+version+".rng")
	return top, os.WriteFile(top, []byte(b.String()), 0o644)
}

// rngVersionLess orders X.Y versions numerically (2.10 after 2.9).
func rngVersionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}
