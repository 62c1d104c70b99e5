package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// r2NodesConfig is R2's node side on both servers: multipath, HA-LVM
// created from nfs1, the NFS server settings.
func (r *r2Lab) r2NodesConfig(extra string) string {
	return r.providerBlock() + r.hosts() + `
resource "hpcstorage_multipath" "mp" {
  count   = 2
  host    = local.hosts[count.index]
  volumes = local.vols
}

resource "hpcstorage_ha_lvm" "lvm" {
  count              = 2
  host               = local.hosts[count.index]
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = [for a in sort(keys(local.vols)) : hpcstorage_multipath.mp[count.index].devices[a]]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = count.index == 0
}

resource "hpcstorage_nfs_server" "nfs" {
  count        = 2
  host         = local.hosts[count.index]
  threads      = 256
  idmap_domain = "hpc.example.com"
}
` + extra
}

// TestR2NodesEndToEnd applies R2's node side to the lab: an empty plan
// after apply, nfs.conf and a running nfsd's thread count changed by hand
// show in the plan and are put back, destroy leaves the file system.
func TestR2NodesEndToEnd(t *testing.T) {
	r := startR2Lab(t)
	conf := r.r2NodesConfig("")
	setThreads := func(n string) {
		if err := os.MkdirAll(filepath.Join(r.node("nfs1").Root, "proc/fs/nfsd"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.node("nfs1").Root, "proc/fs/nfsd/threads"), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_multipath.mp[1]", tfjsonpath.New("devices").AtMapKey("nfs_vol8"),
						knownvalue.StringExact("/dev/mapper/nfs_vol8")),
					statecheck.ExpectKnownValue("hpcstorage_ha_lvm.lvm[0]", tfjsonpath.New("device_path"), knownvalue.StringExact("/dev/vg_nfs/lv_nfs")),
					statecheck.ExpectKnownValue("hpcstorage_ha_lvm.lvm[0]", tfjsonpath.New("stripe_size_bytes"), knownvalue.Int64Exact(4<<20)),
					statecheck.ExpectKnownValue("hpcstorage_ha_lvm.lvm[1]", tfjsonpath.New("mkfs_command"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("mkfs.xfs"), knownvalue.StringExact("-q"), knownvalue.StringExact("-d"),
						knownvalue.StringExact("su=4096k,sw=8"), knownvalue.StringExact("-l"), knownvalue.StringExact("su=256k"),
						knownvalue.StringExact("/dev/vg_nfs/lv_nfs")})),
					statecheck.ExpectKnownValue("hpcstorage_nfs_server.nfs[0]", tfjsonpath.New("running_threads"), knownvalue.Int64Exact(0)),
					stateCheck(func(*tfjson.State) error { return r.checkR2Nodes(t) }),
				},
			},
			{
				// nfs.conf edited by hand on nfs1: the plan puts it back.
				PreConfig: func() {
					p := filepath.Join(r.node("nfs1").Root, "etc/nfs.conf")
					if err := os.WriteFile(p, []byte("[nfsd]\nthreads=8\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("hpcstorage_nfs_server.nfs[0]", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("hpcstorage_nfs_server.nfs[1]", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("hpcstorage_ha_lvm.lvm[0]", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateCheck(func(*tfjson.State) error {
					if c := r.read(t, "nfs1", "etc/nfs.conf"); !strings.Contains(c, "[nfsd]\nthreads=256\n") {
						return fmt.Errorf("nfs.conf not put back:\n%s", c)
					}
					return nil
				})},
			},
			{
				// nfsd runs on nfs1 (the cluster started it) with 8 threads:
				// the plan shows it, apply sets 256 live.
				PreConfig: func() { setThreads("8") },
				Config:    conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("hpcstorage_nfs_server.nfs[0]", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("hpcstorage_nfs_server.nfs[0]", tfjsonpath.New("running_threads"), knownvalue.Int64Exact(256)),
					statecheck.ExpectKnownValue("hpcstorage_nfs_server.nfs[1]", tfjsonpath.New("running_threads"), knownvalue.Int64Exact(0)),
				},
			},
		},
	})
	// Destroy removed the files, never the volume group or the file system.
	for _, n := range []string{"nfs1", "nfs2"} {
		for _, f := range []string{"etc/multipath.conf", "etc/nfs.conf", "etc/idmapd.conf", "etc/lvm/lvmlocal.conf"} {
			if _, err := os.Stat(filepath.Join(r.node(n).Root, f)); !os.IsNotExist(err) {
				t.Errorf("%s: %s still there after destroy (%v)", n, f, err)
			}
		}
	}
	if s := r.sharedLVM(t); !strings.Contains(s, `"name": "lv_nfs"`) || !strings.Contains(s, `"fstype": "xfs"`) {
		t.Errorf("destroy touched the volume group or its file system:\n%s", s)
	}
}

// checkR2Nodes looks at the nodes after the first apply.
func (r *r2Lab) checkR2Nodes(t *testing.T) error {
	for _, n := range []string{"nfs1", "nfs2"} {
		mp := r.read(t, n, "etc/multipath.conf")
		for alias, w := range r.vols {
			if !strings.Contains(mp, "wwid 3"+w+"\n        alias "+alias+"\n") {
				return fmt.Errorf("%s: multipath.conf lacks %s:\n%s", n, alias, mp)
			}
			if _, err := os.Lstat(filepath.Join(r.node(n).Root, "dev/mapper", alias)); err != nil {
				return fmt.Errorf("%s: no map %s: %v", n, alias, err)
			}
		}
		if c := r.read(t, n, "etc/nfs.conf"); !strings.Contains(c, "[nfsd]\nthreads=256\n") {
			return fmt.Errorf("%s nfs.conf:\n%s", n, c)
		}
		if c := r.read(t, n, "etc/lvm/lvmlocal.conf"); !strings.Contains(c, `system_id_source = "uname"`) {
			return fmt.Errorf("%s lvmlocal.conf:\n%s", n, c)
		}
		var sd struct {
			Units map[string]struct{ Enabled, Active bool } `json:"units"`
		}
		if err := json.Unmarshal([]byte(r.read(t, n, "run/hpcstorage-sim/systemd.json")), &sd); err != nil {
			return err
		}
		if u := sd.Units["multipathd.service"]; !u.Enabled || !u.Active {
			return fmt.Errorf("%s: multipathd %+v", n, u)
		}
		if u := sd.Units["nfs-server.service"]; u.Enabled {
			return fmt.Errorf("%s: nfs-server enabled at boot: the cluster starts it", n)
		}
	}
	// Created once, from nfs1: one VG owned by nfs1, left inactive.
	var st struct {
		VGs map[string]struct {
			SystemID string `json:"system_id"`
			PVs      []string
			LVs      []struct {
				Name        string
				Stripes     int
				StripeBytes int64 `json:"stripe_bytes"`
				FSType      string
			}
		} `json:"vgs"`
	}
	if err := json.Unmarshal([]byte(r.sharedLVM(t)), &st); err != nil {
		return err
	}
	vg, ok := st.VGs["vg_nfs"]
	if !ok || len(st.VGs) != 1 || vg.SystemID != "nfs1" || len(vg.PVs) != 8 || len(vg.LVs) != 1 {
		return fmt.Errorf("volume groups %+v", st.VGs)
	}
	if lv := vg.LVs[0]; lv.Name != "lv_nfs" || lv.Stripes != 8 || lv.StripeBytes != 4<<20 || lv.FSType != "xfs" {
		return fmt.Errorf("logical volume %+v", lv)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		if _, err := os.Lstat(filepath.Join(r.node(n).Root, "dev/vg_nfs/lv_nfs")); !os.IsNotExist(err) {
			return fmt.Errorf("%s: the logical volume is active outside the cluster (%v)", n, err)
		}
	}
	vgcreates := 0
	for _, n := range []string{"nfs1", "nfs2"} {
		for _, argv := range r.commands(t, n) {
			if strings.Contains(strings.Join(argv, " "), "vgcreate --physicalextentsize") {
				vgcreates++
			}
		}
	}
	if vgcreates != 1 {
		return fmt.Errorf("%d creation runs, want 1", vgcreates)
	}
	return nil
}

// TestR2NodesBadInput: each refusal at plan time names its attribute and
// changes nothing.
func TestR2NodesBadInput(t *testing.T) {
	r := startR2Lab(t)
	only1 := r.provision(t, 9, "RAID1", []string{"0.80", "0.81"}, []string{"nfs1"}, "") // nfs1 only
	nfs2 := r.node("nfs2").Host
	base := r.providerBlock() + r.hosts()
	untouched := func() error {
		for _, f := range []string{"etc/multipath.conf", "etc/nfs.conf", "etc/lvm/lvmlocal.conf"} {
			if _, err := os.Stat(filepath.Join(r.node("nfs2").Root, f)); !os.IsNotExist(err) {
				return fmt.Errorf("nfs2: %s written by a refused plan (%v)", f, err)
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name, config string
		want         string
	}{
		{"threads", fmt.Sprintf(`resource "hpcstorage_nfs_server" "x" {
  host    = %q
  threads = 8193
}`, nfs2), `(?s)Attribute threads value must be between 1 and 8192`},
		{"volume on one node", fmt.Sprintf(`resource "hpcstorage_multipath" "x" {
  host    = %q
  volumes = merge(local.vols, { nfs_vol9 = %q })
}`, nfs2, only1), `(?s)Attribute volumes\["nfs_vol9"\]:.*volume nfs_vol9 \(WWN\s+` + only1 + `\)\s+is\s+not\s+visible\s+on\s+this\s+node`},
		{"bad wwn", fmt.Sprintf(`resource "hpcstorage_multipath" "x" {
  host    = %q
  volumes = { nfs_vol1 = "600c0ff0" }
}`, nfs2), `(?s)Attribute volumes\["nfs_vol1"\]:.*wwn\s+"600c0ff0":\s+want\s+the\s+volume's\s+NAA\s+WWN`},
		{"bad idmap domain", fmt.Sprintf(`resource "hpcstorage_nfs_server" "x" {
  host         = %q
  idmap_domain = "hpc example"
}`, nfs2), `(?s)Attribute idmap_domain:.*"hpc example":\s+want\s+a\s+DNS\s+domain`},
		{"two creators", fmt.Sprintf(`resource "hpcstorage_ha_lvm" "x" {
  count              = 2
  host               = local.hosts[count.index]
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = [for a in sort(keys(local.vols)) : "/dev/mapper/${a}"]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = true
}`), `(?s)Volume Group Created Twice.*Attribute create: vg_nfs: the hpcstorage_ha_lvm creating on`},
		{"stripe not aligned", fmt.Sprintf(`resource "hpcstorage_ha_lvm" "x" {
  host               = %q
  volume_group       = "vg_nfs"
  logical_volume     = "lv_nfs"
  devices            = ["/dev/mapper/nfs_vol1"]
  segment_size_bytes = 524288
  data_drives        = 6
  create             = true
}`, nfs2), `(?s)Attribute segment_size_bytes:.*LVM stripes must be a power of two`},
		{"bad logical volume name", fmt.Sprintf(`resource "hpcstorage_ha_lvm" "x" {
  host               = %q
  volume_group       = "vg_nfs"
  logical_volume     = "-lv"
  devices            = ["/dev/mapper/nfs_vol1", "/dev/mapper/a b"]
  segment_size_bytes = 524288
  data_drives        = 8
  create             = false
}`, nfs2), `(?s)Attribute logical_volume:.*"-lv": want an LVM name.*Attribute devices\[1\]:.*"/dev/mapper/a b": want a device path`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: nodeProviderFactories,
				Steps:                    []resource.TestStep{{Config: base + tc.config, PlanOnly: true, ExpectError: regexp.MustCompile(tc.want)}},
			})
			if err := untouched(); err != nil {
				t.Error(err)
			}
		})
	}
}
