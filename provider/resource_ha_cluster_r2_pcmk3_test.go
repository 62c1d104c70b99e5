package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestR2ModulePacemaker3 applies examples/r2 with pacemaker_version = "3"
// to an R2 lab whose servers have Pacemaker 3 installed: the lab's cluster
// checks every change against Pacemaker 3.0.2's pacemaker-4.0 schema
// (sim/pacemaker3.go), the re-plan is empty, and an apply that says "2" to
// that cluster is refused before the CIB is touched.
func TestR2ModulePacemaker3(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R2 design")
	}
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	labDir := filepath.Join(dir, "lab")
	l, err := lab.Up(lab.Config{Design: "r2", Dir: labDir, Simulator: simtest.Binary(t), PacemakerSchemas: simtest.PacemakerXML(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const release = "3.0.1-3.el10"
	for _, n := range []string{"nfs1", "nfs2"} {
		if err := l.SetPackage(n, "pacemaker", "0:"+release); err != nil {
			t.Fatal(err)
		}
	}
	cfg := copyExample(t, dir, "r2", "modules/nfs-ha")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	v3 := tfexec.Var(`pacemaker_version=3`)
	start := time.Now()
	if err := tf.Apply(ctx, tfexec.Reattach(ri), v3); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("R2 apply on Pacemaker 3: %s", time.Since(start).Round(time.Second))
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri), v3); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}

	shared := filepath.Join(labDir, lab.SharedDir)
	cib, err := os.ReadFile(filepath.Join(shared, "pacemaker-nfsha", "cib.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cib), `name="dc-version" value="`+release+`"`) {
		t.Errorf("the lab's cluster does not run Pacemaker %s", release)
	}
	// The cluster's CIB passes Pacemaker 3's schema as a 4.0 document, and
	// the lab did check it so (no note of a missing schema).
	up := regexp.MustCompile(`(<cib\b[^>]*\bvalidate-with=")[^"]*(")`).ReplaceAll(cib, []byte("${1}pacemaker-4.0${2}"))
	simtest.CheckSchema4(t, "lab CIB", filepath.Join(shared, sim.PacemakerSchemaShared, "pacemaker-4.0.rng"), up)
	if log, _ := os.ReadFile(filepath.Join(shared, "pacemaker-nfsha", "transitions.log")); strings.Contains(string(log), "checked with crm_verify 2.1 only") {
		t.Error("the lab did not check the Pacemaker 3 cluster's changes against the pacemaker-4.0 schema")
	}
	verifyCIB(t, cib)

	// The same configuration rendered for Pacemaker 2 is refused by apply.
	err = tf.Apply(ctx, tfexec.Reattach(ri), tfexec.Var(`pacemaker_version=2`))
	want := strings.ReplaceAll(`(?s)Pacemaker Version Mismatch.*pacemaker_version = "2" is for Pacemaker 1.1 or 2.x, but the cluster runs `+
		`Pacemaker 3.0.1-3.el10 .its dc-version.; set pacemaker_version = "3". Nothing was changed in the CIB.`, " ", `\s+`)
	if err == nil || !regexp.MustCompile(want).MatchString(err.Error()) {
		t.Fatalf("apply with pacemaker_version = 2 on Pacemaker 3: %v", err)
	}
}
