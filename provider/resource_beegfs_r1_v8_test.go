package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// r1V8Vars are the R1 example's variables for BeeGFS 8 in the lab: no
// pacemaker (HA on 8 is not rendered), license and TLS material as files.
func r1V8Vars(t *testing.T, dir string) []tfexec.PlanOption {
	t.Helper()
	files := map[string]string{"license.pem": testLicensePEM, "cert.pem": testCertPEM, "key.pem": testKeyPEM}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return []tfexec.PlanOption{tfexec.Var("ha=false"), tfexec.Var(`beegfs_version=8`),
		tfexec.Var("beegfs_license_file=" + filepath.Join(dir, "license.pem")),
		tfexec.Var("beegfs_tls_cert_file=" + filepath.Join(dir, "cert.pem")),
		tfexec.Var("beegfs_tls_key_file=" + filepath.Join(dir, "key.pem"))}
}

func applyOpts(p []tfexec.PlanOption) []tfexec.ApplyOption {
	var out []tfexec.ApplyOption
	for _, o := range p {
		if v, ok := o.(*tfexec.VarOption); ok {
			out = append(out, v)
		}
	}
	return out
}

// TestR1ModuleBeegfs8 applies examples/r1 (the beegfs-high-capacity
// module) with BeeGFS 8 to a fresh R1 lab: the TOML management service
// with its SQLite store, TLS and license, 8's service and client configs,
// the stripe pattern through `beegfs entry set` verified with the
// certificate; the second plan is empty.
func TestR1ModuleBeegfs8(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design")
	}
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r1", "modules/beegfs-high-capacity")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	vars := r1V8Vars(t, dir)
	if err := tf.Apply(ctx, append(applyOpts(vars), tfexec.Reattach(ri))...); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if changes, err := tf.Plan(ctx, append(vars, tfexec.Reattach(ri))...); err != nil || changes {
		t.Fatalf("second plan: changes %v, err %v", changes, err)
	}
	// The key, the license and the connection secret are write-only: in
	// no state.
	st, err := os.ReadFile(filepath.Join(cfg, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	connAuth, err := os.ReadFile(filepath.Join(dir, "lab", lab.SecretFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"MIIlabKey0123", "MIIlabLicense0123", strings.TrimSpace(string(connAuth))} {
		if strings.Contains(string(st), secret) {
			t.Errorf("the state holds %s...", secret[:6])
		}
	}
	r := &r1Lab{Lab: l}
	toml := r.read(t, "meta1", "etc/beegfs/beegfs-mgmtd.toml")
	for _, want := range []string{`db-file = "/data/mdt01/mgmtd/mgmtd.sqlite"`, "tls-disable = false", `license-cert-file = "/etc/beegfs/license.pem"`} {
		if !strings.Contains(toml, want) {
			t.Errorf("meta1 beegfs-mgmtd.toml lacks %s:\n%s", want, toml)
		}
	}
	if db := r.read(t, "meta1", "data/mdt01/mgmtd/mgmtd.sqlite"); !strings.Contains(db, "schema_version") {
		t.Errorf("no mgmtd database on meta1: %q", db)
	}
	if key := r.read(t, "meta1", "etc/beegfs/key.pem"); key != testKeyPEM {
		t.Errorf("meta1 key.pem %q", key)
	}
	conf := []byte(r.read(t, "client01", "etc/beegfs/beegfs-client.conf"))
	if !confKey("connMgmtdPort", "8008").Match(conf) || confKey("connMgmtdPortTCP", "8008").Match(conf) {
		t.Errorf("client01 beegfs-client.conf has 7.x port keys:\n%s", conf)
	}
	if meta := []byte(r.read(t, "meta1", "etc/beegfs/metaA-numa0-1.d/beegfs-meta.conf")); !confKey("connMetaPort", "8005").Match(meta) {
		t.Errorf("metaA-numa0-1 config:\n%s", meta)
	}
	_, nodes, err := lab.ReadStatus(filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		units := strings.Join(n.Services, " ")
		switch n.Name {
		case "meta1":
			if !strings.Contains(units, "beegfs-mgmtd") {
				t.Errorf("meta1 units %s", units)
			}
		case "client01":
			if strings.Contains(units, "helperd") || !strings.Contains(units, "beegfs-client") {
				t.Errorf("client01 units %s (BeeGFS 8 has no helperd)", units)
			}
		}
	}
	found := false
	for _, argv := range r.commands(t, "client01") {
		found = found || strings.Contains(strings.Join(argv, " "), "beegfs --tls-cert-file=/etc/beegfs/cert.pem entry set --pattern=raid0 --chunk-size=1048576 --num-targets=1")
	}
	if !found {
		t.Error("the stripe pattern was not set with beegfs entry set on client01")
	}
}

// TestR1ModuleBeegfs8Upgrade runs the BeeGFS 8 guide's sequence on the R1
// example in the lab: an R1 site on 7.4 unmounts its clients
// (client_count = 0), changes beegfs_version to 8 (the management service
// imports the 7.x store: the mirror groups, targets and pools it holds
// stay; every service switches to 8's config), then mounts its clients
// again with 8's client; each step ends in an empty plan.
func TestR1ModuleBeegfs8Upgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R1 design four times")
	}
	t.Parallel()
	tfPath := terraformCLI(t)
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: filepath.Join(dir, "lab"), Clients: 1, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r1", "modules/beegfs-high-capacity")
	tf, ri := labTerraform(t, tfPath, dir, cfg)
	ctx := context.Background()
	if err := tf.Init(ctx, tfexec.Reattach(ri)); err != nil {
		t.Fatal(err)
	}
	r := &r1Lab{Lab: l}
	v8 := r1V8Vars(t, dir)
	v74 := []tfexec.PlanOption{tfexec.Var("ha=false"), tfexec.Var("beegfs_version=7.4")}
	step := func(name string, vars []tfexec.PlanOption) {
		t.Helper()
		if err := tf.Apply(ctx, append(applyOpts(vars), tfexec.Reattach(ri))...); err != nil {
			t.Fatalf("%s: apply: %v", name, err)
		}
		if changes, err := tf.Plan(ctx, append(vars, tfexec.Reattach(ri))...); err != nil || changes {
			t.Fatalf("%s: plan after the apply: changes %v, err %v", name, changes, err)
		}
	}
	step("7.4 site", v74)
	if fc := r.read(t, "meta1", "data/mdt01/mgmtd/format.conf"); !strings.Contains(fc, "version=5") {
		t.Fatalf("7.4 store format.conf %q", fc)
	}
	step("clients unmounted", append(v74, tfexec.Var("client_count=0")))
	step("servers on 8", append(v8, tfexec.Var("client_count=0")))
	if db := r.read(t, "meta1", "data/mdt01/mgmtd/mgmtd.sqlite"); !strings.Contains(db, `"imported_from":"/data/mdt01/mgmtd"`) {
		t.Fatalf("the 7.4 store was not imported: %q", db)
	}
	if conf := []byte(r.read(t, "meta1", "etc/beegfs/beegfs-mgmtd.conf")); confKey("storeMgmtdDirectory", "/data/mdt01/mgmtd").Match(conf) {
		t.Errorf("the 7.x mgmtd config still holds what the 7.x resource set:\n%s", conf)
	}
	if stor := []byte(r.read(t, "stor1", "etc/beegfs/beegfs-storage.conf")); !confKey("connStoragePort", "8003").Match(stor) || confKey("connStoragePortTCP", "8003").Match(stor) {
		t.Errorf("stor1 keeps 7.x port keys:\n%s", stor)
	}
	step("clients on 8", v8)
	if conf := []byte(r.read(t, "client01", "etc/beegfs/beegfs-client.conf")); !confKey("connMgmtdPort", "8008").Match(conf) {
		t.Errorf("client01 config:\n%s", conf)
	}
}
