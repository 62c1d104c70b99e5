package provider

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestR1SplitExample applies examples/r1-split as a site would: the file
// system's state (servers) first, then the clients' state, which reads the
// first with terraform_remote_state; each state's next plan is empty, and
// the clients mount the file system the servers' state made, as the
// one-state example's clients do.
func TestR1SplitExample(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design")
	}
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 2, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	root := copyExample(t, dir, "r1-split", "modules/beegfs-high-capacity")
	ctx := context.Background()
	for _, part := range []string{"servers", "clients"} {
		cfg := filepath.Join(root, part)
		if err := os.Symlink(filepath.Join(dir, "lab", lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
			t.Fatal(err)
		}
		tf, ri := labTerraform(t, tfPath, dir, cfg)
		if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
			t.Fatal(err)
		}
		if err := tf.Apply(ctx, tfexec.Reattach(ri)); err != nil {
			t.Fatalf("%s: apply: %v", part, err)
		}
		if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
			t.Fatalf("%s: second plan: changes %v, err %v", part, changes, err)
		}
		st, err := tf.Show(ctx, tfexec.Reattach(ri))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range st.Values.RootModule.Resources {
			if r.Type == "hpcstorage_beegfs_client" {
				n++
			}
		}
		for _, c := range st.Values.RootModule.ChildModules {
			for _, r := range c.Resources {
				if r.Type == "hpcstorage_beegfs_client" {
					t.Errorf("%s: %s in the module: the servers' state configures no client", part, r.Address)
				}
			}
		}
		if want := map[string]int{"servers": 0, "clients": 2}[part]; n != want {
			t.Errorf("%s: %d clients in the state, want %d", part, n, want)
		}
	}
	// The clients reach mgmtd where the servers' state put it (HA: the
	// floating address) and keep their files when a service moves.
	r := &r1Lab{Lab: l}
	for _, c := range []string{"client01", "client02"} {
		conf := r.read(t, c, "etc/beegfs/beegfs-client.conf")
		if !confKey("sysMgmtdHost", "10.100.0.1").MatchString(conf) || !confKey("sysSessionChecksEnabled", "false").MatchString(conf) {
			t.Errorf("%s: beegfs-client.conf does not name the HA mgmtd or keeps session checks on:\n%s", c, conf)
		}
	}
}
