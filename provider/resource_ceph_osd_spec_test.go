package provider

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// TestCephOSDSpecImportByIdentity: an OSD spec applied by this provider and
// dropped from the state is adopted by an import block naming its
// identity (admin host and service_id), with nothing to change after.
func TestCephOSDSpecImportByIdentity(t *testing.T) {
	t.Parallel()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r4", Dir: filepath.Join(dir, "lab"), Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	config := cephRulesConfig + "\nvariable \"lab\" {\n  type = any\n}\n"
	cli := adoptCLI(t, config, filepath.Join(dir, "lab", lab.TFVarsFile))
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	if out, code := rawRun(t, cli, "state", "rm", "hpcstorage_ceph_osd_spec.nvme"); code != 0 {
		t.Fatalf("state rm: exit %d\n%s", code, out)
	}
	admin := l.State.Nodes[slices.IndexFunc(l.State.Nodes, func(n lab.NodeInfo) bool { return n.Name == "mon1" })].Host
	if err := os.WriteFile(filepath.Join(cli.dir, "import.tf"), []byte(`
import {
  to       = hpcstorage_ceph_osd_spec.nvme
  identity = { admin_host = "`+admin+`", service_id = "nvme" }
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "1 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply of the import: exit %d\n%s", code, out)
	}
	noChanges(t, cli)
}
