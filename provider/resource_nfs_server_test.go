package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestR2PackageFloors: a node below one of the paper's floors fails the
// plan naming the package, both versions and the reason, and nothing is
// written to it.
func TestR2PackageFloors(t *testing.T) {
	r := startR2Lab(t)
	nfs2 := r.node("nfs2").Host
	nfsServer := fmt.Sprintf(`resource "hpcstorage_nfs_server" "x" {
  host = %q
}`, nfs2)
	haLVM := fmt.Sprintf(`resource "hpcstorage_ha_lvm" "x" {
  host               = %q
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = ["/dev/mapper/nfs_vol1"]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = false
}`, nfs2)
	for _, tc := range []struct {
		pkg, below, config, want string
	}{
		{"kernel", "0:3.10.0-957.1.3.el7", nfsServer, "kernel 0:3.10.0-957.1.3.el7 is installed; at least 3.10.0-957.5.1.el7 is required " +
			"(below it: NFS service hangs, with a kworker thread at 100 % CPU)"},
		{"resource-agents", "0:4.1.1-12.el7_6.3", nfsServer, "resource-agents 0:4.1.1-12.el7_6.3 is installed; at least 4.1.1-12.el7_6.4 is " +
			"required (below it: nfs-idmapd fails to start, so the cluster's nfsserver resource fails)"},
		{"lvm2", "7:2.02.180-10.el7_6.1", haLVM, "lvm2 7:2.02.180-10.el7_6.1 is installed; at least 7:2.02.180-10.el7_6.2 is required " +
			"(below it: the first 128 KB of a physical volume can be corrupted)"},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			fixed := strings.TrimPrefix(r.read(t, "nfs2", "var/lib/rpm/hpcstorage-fake-rpmdb.txt"), "")
			if err := r.SetPackage("nfs2", tc.pkg, tc.below); err != nil {
				t.Fatal(err)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: nodeProviderFactories,
				Steps: []resource.TestStep{{Config: r.providerBlock() + tc.config, PlanOnly: true,
					ExpectError: regexp.MustCompile(`(?s)Attribute host: .*` + loose(tc.want))}},
			})
			for _, f := range []string{"etc/nfs.conf", "etc/idmapd.conf", "etc/lvm/lvmlocal.conf"} {
				if _, err := os.Stat(filepath.Join(r.node("nfs2").Root, f)); !os.IsNotExist(err) {
					t.Errorf("%s written by a refused plan (%v)", f, err)
				}
			}
			// Back to the fixed packages for the next case.
			if err := os.WriteFile(filepath.Join(r.node("nfs2").Root, "var/lib/rpm/hpcstorage-fake-rpmdb.txt"), []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.pkg == "kernel" {
				if err := r.SetPackage("nfs2", "kernel", "0:3.10.0-957.10.1.el7"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestR2NodesImport: R2's node resources applied, forgotten and imported
// again by id plan no change (the node's record gives the attributes back).
func TestR2NodesImport(t *testing.T) {
	r := startR2Lab(t)
	conf := r.r2NodesConfig("")
	forget := r.providerBlock()
	var imports strings.Builder
	var noop []plancheck.PlanCheck
	for i, n := range []string{"nfs1", "nfs2"} {
		host := r.node(n).Host
		for typ, owner := range map[string]string{"hpcstorage_multipath.mp": "multipath", "hpcstorage_ha_lvm.lvm": "ha-lvm-vg_nfs",
			"hpcstorage_nfs_server.nfs": "nfs-server"} {
			addr := fmt.Sprintf("%s[%d]", typ, i)
			fmt.Fprintf(&imports, "import {\n  to = %s\n  id = \"%s/%s\"\n}\n", addr, host, owner)
			noop = append(noop, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop))
			if i == 0 {
				forget += fmt.Sprintf("removed {\n  from = %s\n  lifecycle { destroy = false }\n}\n", typ)
			}
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{Config: conf},
			{Config: forget},
			{
				Config: conf + imports.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             noop,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_ha_lvm.lvm[0]", tfjsonpath.New("create"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("hpcstorage_multipath.mp[1]", tfjsonpath.New("volumes").AtMapKey("nfs_vol3"),
						knownvalue.StringExact(r.vols["nfs_vol3"])),
				},
			},
		},
	})
}
