package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// TestR5StorageScale52 applies examples/r5 with gpfs_version = "5.2" to
// nodes with Storage Scale 5.2.3 installed: mmcrfs keeps the paper's 2M
// metadata blocks (5.2 still has --metadata-block-size), the cluster is
// at the code's level so no release=LATEST runs, and the next plan is
// empty. Going back to 5.0.4 is refused at plan.
func TestR5StorageScale52(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the R5 design")
	}
	t.Parallel()
	r := upR5Release(t, "5.2.3-0")
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("gpfs_version=5.2")); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("gpfs_version=5.2")); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	if got := r.mmLog(t, "nsd1", "mmcrfs"); len(got) != 1 || !strings.Contains(strings.Join(got[0], " "), "--metadata-block-size 2M") {
		t.Errorf("mmcrfs runs: %v", got)
	}
	conf, err := gpfs.ParseConfig(r.mm(t, "nsd1", true, "mmlsconfig", "-Y"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := conf.Value("minReleaseLevel", gpfs.AllNodes); v != "5.2.3.0" {
		t.Errorf("minReleaseLevel %q", v)
	}
	for _, n := range []string{"nsd1", "mgmt"} {
		for _, argv := range r.mmLog(t, n, "mmchconfig") {
			if strings.Contains(strings.Join(argv, " "), "release=LATEST") {
				t.Errorf("%s ran %v on a cluster already at its code's level", n, argv)
			}
		}
	}
	_, err = r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("gpfs_version=5.0.4"))
	if err == nil || !strings.Contains(err.Error(), "Storage Scale Downgrade") {
		t.Fatalf("downgrade plan: %v", err)
	}
}

// upgradePackages puts every R5 node's Storage Scale rpms at version, as
// the administrator's rolling package upgrade leaves them.
func (r *r5Lab) upgradePackages(t *testing.T, version string) {
	t.Helper()
	for _, n := range r.State.Nodes {
		db := filepath.Join(n.Root, filepath.FromSlash(fakenode.RPMDBPath))
		b, err := os.ReadFile(db)
		if err != nil {
			continue // a client without an rpm database
		}
		var out []string
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if f := strings.Split(line, "\t"); len(f) == 3 && strings.HasPrefix(f[0], "gpfs.") {
				line = f[0] + "\t0:" + version + "\t" + f[2]
			}
			out = append(out, line)
		}
		if err := os.WriteFile(db, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestR5UpgradeTo52: R5 applied with the paper's 5.0.4 (on the lab's
// 5.1.9 code), the packages upgraded to 5.2.3, then gpfs_version = "5.2":
// the plan updates the cluster and the file system in place, the apply
// runs mmchconfig release=LATEST then mmchfs fs1 -V full, and the next
// plan is empty.
func TestR5UpgradeTo52(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the R5 design")
	}
	t.Parallel()
	r := upR5(t)
	ctx := context.Background()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	r.upgradePackages(t, "5.2.3-0")
	actions := r.planActions(t, "gpfs_version=5.2")
	for addr, a := range actions {
		if a != "update" {
			t.Errorf("%s: %s, want update in place", addr, a)
		}
	}
	if actions["module.r5.hpcstorage_gpfs_cluster.this"] != "update" || actions["module.r5.hpcstorage_gpfs_filesystem.this"] != "update" {
		t.Errorf("plan %v", actions)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var("gpfs_version=5.2")); err != nil {
		t.Fatalf("upgrade apply: %v", err)
	}
	var ran []string
	for _, tool := range []string{"mmchconfig", "mmchfs"} {
		for _, argv := range r.mmLog(t, "nsd1", tool) {
			if s := strings.Join(argv[1:], " "); s == "release=LATEST" || s == "fs1 -V full" {
				ran = append(ran, s)
			}
		}
	}
	if strings.Join(ran, "; ") != "release=LATEST; fs1 -V full" {
		t.Errorf("upgrade steps %q", ran)
	}
	attrs, err := gpfs.ParseFSAttrs(r.mm(t, "nsd1", true, "mmlsfs", "fs1", "-V", "-Y"))
	if err != nil || gpfs.FSLevel(attrs["filesystemVersion"]) != "5.2.3.0" {
		t.Errorf("format %q %v", attrs["filesystemVersion"], err)
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("gpfs_version=5.2")); err != nil || changes {
		t.Fatalf("plan after the upgrade: changes %v, err %v", changes, err)
	}
}
