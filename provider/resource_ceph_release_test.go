package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// bootstrapArgv is the cephadm bootstrap command the agent ran on node.
func (r *r4Lab) bootstrapArgv(node string) []string {
	r.t.Helper()
	f, err := os.Open(filepath.Join(r.roots[node], runner.LogPath))
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e runner.LogEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && len(e.Argv) > 0 && filepath.Base(e.Argv[0]) == "cephadm" && slices.Contains(e.Argv, "bootstrap") {
			return e.Argv
		}
	}
	r.t.Fatalf("%s ran no cephadm bootstrap", node)
	return nil
}

// TestR4Tentacle applies examples/r4 with release = "tentacle" (two OSD
// nodes, to stay short): cephadm bootstraps Tentacle's fixed image
// (20.2.4, CVE-2025-30156), the next plan is empty, and a release change
// on the running cluster is refused at plan naming the upgrade command.
func TestR4Tentacle(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the R4 design")
	}
	t.Parallel()
	r := newR4Lab(t)
	ctx := context.Background()
	vars := []tfexec.ApplyOption{tfexec.Reattach(r.ri), tfexec.Var("osd_nodes=2"), tfexec.Var("release=tentacle")}
	if err := r.tf.Apply(ctx, vars...); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if argv := strings.Join(r.bootstrapArgv("mon1"), " "); !strings.Contains(argv, "cephadm --image quay.io/ceph/ceph:v20.2.4 bootstrap") {
		t.Errorf("bootstrap: %s", argv)
	}
	changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("osd_nodes=2"), tfexec.Var("release=tentacle"))
	if err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	_, err = r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("osd_nodes=2"), tfexec.Var("release=squid"))
	if err == nil || !strings.Contains(err.Error(), "Ceph Release Change") || !strings.Contains(err.Error(), "ceph orch upgrade start") {
		t.Fatalf("release change: %v", err)
	}
}
