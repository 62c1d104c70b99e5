package provider

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// importPlan plans with vars and returns, by address, whether the plan
// imports the resource and its actions.
func (r *r5Lab) importPlan(t *testing.T, vars ...string) map[string]string {
	t.Helper()
	actions, _ := r.importChanges(t, vars...)
	return actions
}

// importChanges is importPlan with, by address, the attributes an update
// changes (known values only).
func (r *r5Lab) importChanges(t *testing.T, vars ...string) (map[string]string, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	planFile := filepath.Join(r.dir, "import.plan")
	opts := []tfexec.PlanOption{tfexec.Reattach(r.ri), tfexec.Out(planFile)}
	for _, v := range vars {
		opts = append(opts, tfexec.Var(v))
	}
	if _, err := r.tf.Plan(ctx, opts...); err != nil {
		t.Fatalf("plan with import blocks: %v", err)
	}
	p, err := r.tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(r.ri))
	if err != nil {
		t.Fatal(err)
	}
	out, changed := map[string]string{}, map[string][]string{}
	for _, rc := range p.ResourceChanges {
		a := ""
		for _, x := range rc.Change.Actions {
			a += string(x)
		}
		if rc.Change.Importing != nil {
			a = "import+" + a
		}
		out[rc.Address] = a
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		for k, v := range after {
			if !reflect.DeepEqual(before[k], v) {
				changed[rc.Address] = append(changed[rc.Address], k)
			}
		}
		slices.Sort(changed[rc.Address])
	}
	return out, changed
}

// writeImport adds an import.tf with the given import blocks.
func (r *r5Lab) writeImport(t *testing.T, blocks string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.tf.WorkingDir(), "import.tf"), []byte(blocks), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGpfsClusterImport: a cluster made by an apply, forgotten by the
// state, comes back with an import block (id HOST/NAME): the plan imports
// it with no change (nodes, roles and config read back from mmlscluster,
// mmlsconfig and mmgetstate match the configuration), and runs no mm
// command that changes anything.
func TestGpfsClusterImport(t *testing.T) {
	r := upR5(t, gpfsNodesConfig)
	ctx := context.Background()
	nodes := `nodes={nsd1=["quorum","manager"],nsd2=["quorum","manager"],mgmt=["quorum"]}`
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(nodes)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := r.tf.StateRm(ctx, "hpcstorage_gpfs_cluster.c"); err != nil {
		t.Fatal(err)
	}
	r.writeImport(t, `
import {
  to = hpcstorage_gpfs_cluster.c
  id = "${var.lab.nodes["nsd1"].host}/r5"
}
`)
	if got := r.importPlan(t, nodes)["hpcstorage_gpfs_cluster.c"]; got != "import+no-op" {
		t.Fatalf("plan of the import: %q, want an import with no change", got)
	}
	before := len(r.mmLog(t, "nsd1", "mmchconfig"))
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(nodes)); err != nil {
		t.Fatalf("apply of the import: %v", err)
	}
	if after := len(r.mmLog(t, "nsd1", "mmchconfig")); after != before {
		t.Errorf("the import ran mmchconfig")
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var(nodes)); err != nil || changes {
		t.Errorf("plan after the import: changes %v, err %v", changes, err)
	}
	// A wrong cluster name is refused, naming what the node is in.
	if err := r.tf.StateRm(ctx, "hpcstorage_gpfs_cluster.c"); err != nil {
		t.Fatal(err)
	}
	r.writeImport(t, `
import {
  to = hpcstorage_gpfs_cluster.c
  id = "${var.lab.nodes["nsd1"].host}/other"
}
`)
	if _, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var(nodes)); err == nil || !strings.Contains(strings.Join(strings.Fields(err.Error()), " "), "is not in a cluster named other") {
		t.Errorf("import of another cluster name: %v", err)
	}
}

// TestGpfsGatewaysImport (issue 28): gateways applied, then forgotten by
// the state, come back with an import block, by id (HOST/NAME) and, with
// Terraform 1.15.9, by identity { host, name }: the record the apply left
// on the admin node gives them back whole, the import changes nothing,
// and no mmces or mmnfs command runs.
func TestGpfsGatewaysImport(t *testing.T) {
	for _, tc := range []struct{ name, block string }{
		{"id", `id = "${var.lab.nodes["nsd1"].host}/r5"`},
		{"identity", `identity = { host = var.lab.nodes["nsd1"].host, name = "r5" }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "identity" {
				t.Setenv("TF_ACC_TERRAFORM_PATH", terraformWithActions(t))
			}
			r := upR5(t, gpfsWholeConfig)
			ctx := context.Background()
			if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
				t.Fatalf("apply: %v", err)
			}
			if err := r.tf.StateRm(ctx, "hpcstorage_gpfs_gateways.gw"); err != nil {
				t.Fatal(err)
			}
			r.writeImport(t, "\nimport {\n  to = hpcstorage_gpfs_gateways.gw\n  "+tc.block+"\n}\n")
			if got := r.importPlan(t)["hpcstorage_gpfs_gateways.gw"]; got != "import+no-op" {
				t.Fatalf("plan of the import: %q, want an import with no change", got)
			}
			before := len(r.mmLog(t, "nsd1", "mmces")) + len(r.mmLog(t, "nsd1", "mmnfs"))
			if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
				t.Fatalf("apply of the import: %v", err)
			}
			if after := len(r.mmLog(t, "nsd1", "mmces")) + len(r.mmLog(t, "nsd1", "mmnfs")); after != before {
				t.Errorf("the import ran %d mmces/mmnfs commands", after-before)
			}
			if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri)); err != nil || changes {
				t.Errorf("plan after the import: changes %v, err %v", changes, err)
			}
		})
	}
}
