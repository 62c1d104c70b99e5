package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// gpfsDestroyConfig adds to gpfsMappingConfig (with nsd, both and usage
// dataAndMetadata) a file system on its one NSD, present while fs, that
// its destroy deletes.
const gpfsDestroyConfig = gpfsMappingConfig + `
variable "fs" {
  type    = bool
  default = true
}

resource "hpcstorage_gpfs_filesystem" "fs" {
  count             = var.fs ? 1 : 0
  host              = var.lab.nodes["nsd1"].host
  device            = "fs1"
  mount_point       = "/gpfs/fs1"
  block_size        = "1M"
  delete_on_destroy = true
  disks = [for n in hpcstorage_gpfs_nsds.t[0].nsds : {
    nsd = n.name, usage = n.usage, failure_group = n.failure_group, pool = n.pool
  }]
}
`

// TestGpfsFilesystemDestroy: with delete_on_destroy, destroy unmounts the
// mounted file system everywhere and deletes it (its NSD is free again),
// and the plan after it is empty.
func TestGpfsFilesystemDestroy(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a file system in the R5 lab")
	}
	t.Parallel()
	r := upR5(t, gpfsDestroyConfig)
	ctx := context.Background()
	with := []tfexec.ApplyOption{tfexec.Reattach(r.ri), tfexec.Var("nsd=true"), tfexec.Var("both=true"), tfexec.Var("usage=dataAndMetadata")}
	if err := r.tf.Apply(ctx, with...); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if out := r.mm(t, "nsd1", true, "mmlsmount", "fs1", "-Y"); !strings.Contains(out, ":nsd2:") {
		t.Fatalf("fs1 not mounted on nsd2 after apply:\n%s", out)
	}
	if err := r.tf.Apply(ctx, append(with, tfexec.Var("fs=false"))...); err != nil {
		t.Fatalf("apply that destroys the file system: %v", err)
	}
	root, err := fsroot.Open(r.root(t, "nsd1"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if out, code, _ := (runner.Sim{Root: root}).Query(ctx, "mmlsfs", "fs1", "-Y"); code == 0 {
		t.Errorf("mmlsfs fs1 after destroy: exit 0\n%s", out)
	}
	if nsd := r.mm(t, "nsd1", true, "mmlsnsd", "-X", "-Y"); !strings.Contains(nsd, "t_d01") || strings.Contains(nsd, ":fs1:") {
		t.Errorf("the NSD should stay, free:\n%s", nsd)
	}
	var ran []string
	for _, tool := range []string{"mmumount", "mmdelfs"} {
		for _, argv := range r.mmLog(t, "nsd1", tool) {
			ran = append(ran, strings.Join(argv[1:], " "))
		}
	}
	if !slices.Equal(ran, []string{"fs1 -a", "fs1"}) {
		t.Errorf("destroy ran mmumount, mmdelfs with %q, want once each", ran)
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var("nsd=true"), tfexec.Var("both=true"), tfexec.Var("usage=dataAndMetadata"),
		tfexec.Var("fs=false")); err != nil || changes {
		t.Errorf("plan after destroy: changes %v, err %v", changes, err)
	}
}
