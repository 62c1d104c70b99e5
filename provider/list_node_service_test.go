package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// TestQueryAdoptsR2Nodes: R2's node side applied on both NFS servers,
// then forgotten by the state (a site whose state was lost, or built by
// another root module); terraform query (Terraform 1.15.9) with the
// list-resource examples finds the multipath, HA-LVM and NFS server
// resources on both nodes from their records; the import blocks and
// configuration it generates apply as six imports, and the next plan is
// empty.
func TestQueryAdoptsR2Nodes(t *testing.T) {
	r := startR2Lab(t)
	cli := adoptCLI(t, requiredHpcstorage+r.r2NodesConfig(""))
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	if out, code := rawRun(t, cli, "state", "rm", "hpcstorage_multipath.mp", "hpcstorage_ha_lvm.lvm", "hpcstorage_nfs_server.nfs"); code != 0 {
		t.Fatalf("state rm: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(cli.dir, "main.tf"), []byte(requiredHpcstorage+r.providerBlock()), 0o600); err != nil {
		t.Fatal(err)
	}
	nfs1, nfs2 := r.node("nfs1").Host, r.node("nfs2").Host
	query := strings.NewReplacer(`"nfs1"`, `"`+nfs1+`"`, `"nfs2"`, `"`+nfs2+`"`).Replace(exampleQueries(t, "multipath", "ha_lvm", "nfs_server"))
	queryToConfig(t, cli, query, nfs1+": multipath", nfs2+": multipath", nfs1+": ha-lvm-vg_nfs", nfs2+": ha-lvm-vg_nfs",
		nfs1+": nfs-server", nfs2+": nfs-server")
	gen, err := os.ReadFile(filepath.Join(cli.dir, "adopt.tf"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(gen)), " ")
	for _, want := range []string{"import {", `threads = 256`, `volume_group = "vg_nfs"`, `owner = "nfs-server"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("adopt.tf lacks %q:\n%s", want, gen)
		}
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "6 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply: exit %d\n%s\nadopt.tf:\n%s", code, out, gen)
	}
	noChanges(t, cli)
}

// TestQueryAdoptsBeegfsStorage: a storage server's targets and service,
// forgotten by the state, found by terraform query on the node; the
// generated configuration, with the connection secret added (the node
// cannot give it back: it is write-only), imports all three and leaves an
// empty plan.
func TestQueryAdoptsBeegfsStorage(t *testing.T) {
	r := startR1Lab(t, 0)
	host := r.node("stor1").Host
	resources := fmt.Sprintf(`
resource "hpcstorage_beegfs_target" "st" {
  count              = 2
  host               = %[1]q
  wwn                = ["%[2]s", "%[3]s"][count.index]
  kind               = "storage"
  mount_point        = "/data/st0${count.index + 1}"
  segment_size_bytes = 524288
  data_drives        = 8
}

resource "hpcstorage_beegfs_storage" "s" {
  host             = %[1]q
  mgmtd_host       = "meta1"
  node_id          = 1
  targets          = [for t in hpcstorage_beegfs_target.st : { id = 100 + tonumber(substr(t.mount_point, -1, 1)), directory = "${t.mount_point}/storage" }]
  conn_auth_secret = %[4]q
}
`, host, r.sts[0], r.sts[1], testSecret)
	cli := adoptCLI(t, requiredHpcstorage+r.providerBlock()+resources)
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	if out, code := rawRun(t, cli, "state", "rm", "hpcstorage_beegfs_target.st", "hpcstorage_beegfs_storage.s"); code != 0 {
		t.Fatalf("state rm: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(cli.dir, "main.tf"), []byte(requiredHpcstorage+r.providerBlock()), 0o600); err != nil {
		t.Fatal(err)
	}
	query := strings.NewReplacer(`["stor1", "stor2"]`, `["`+host+`"]`).Replace(exampleQueries(t, "beegfs_target", "beegfs_storage"))
	queryToConfig(t, cli, query, host+": beegfs-target-"+beegfs.NormWWN(r.sts[0]), host+": beegfs-storage")
	file := filepath.Join(cli.dir, "adopt.tf")
	gen, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	secretLine := regexp.MustCompile(`(?m)^(\s*conn_auth_secret\s*=\s*)null( # sensitive)?$`)
	if !secretLine.Match(gen) {
		t.Fatalf("adopt.tf has no conn_auth_secret to fill in:\n%s", gen)
	}
	if err := os.WriteFile(file, secretLine.ReplaceAll(gen, []byte(`${1}"`+testSecret+`"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "3 imported, 0 added") {
		t.Fatalf("apply: exit %d\n%s\nadopt.tf:\n%s", code, out, gen)
	}
	noChanges(t, cli)
}
