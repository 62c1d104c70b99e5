//go:build faults

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// TestR2RollingChangeKilled kills terraform and its provider (SIGKILL to
// the process group) at each step of the R2 rolling BIOS change: nfs1
// holding the domain's lock, in standby, rebooting, back but still in
// standby; nfs2 holding the lock, rebooting. After each kill one plain
// apply finishes the change, the next plan is empty, no member is left in
// standby and no lock is left; the probe never sees both servers out of
// service. Then the same for a service change (nfs-idmapd's domain, rolled
// through the NFS servers' failure_domain): nfs1 holding the lock, nfs1 in
// standby, nfs2 in standby.
func TestR2RollingChangeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs R2 applies")
	}
	t.Parallel()
	needAgent(t)
	dir := t.TempDir()
	labDir := filepath.Join(dir, "lab")
	l, err := lab.Up(lab.Config{Design: "r2", Dir: labDir, Simulator: simtest.Binary(t), PowerDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(t, dir, "r2", "modules/nfs-ha")
	state := startStateServer(t)
	backend := fmt.Sprintf("terraform {\n  backend \"http\" {\n    address = %q\n  }\n}\n", state.url)
	if err := os.WriteFile(filepath.Join(cfg, "backend.tf"), []byte(backend), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := pluginCLIIn(t, dir, cfg)
	for k, v := range labEnv(t, labDir) {
		cli.env = append(cli.env, k+"="+v)
	}
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	bmc := map[string]*redfishmock.Service{}
	for _, n := range []string{"nfs1", "nfs2"} {
		if bmc[n], err = l.Mock().Design.Service(n + "-bmc"); err != nil {
			t.Fatal(err)
		}
	}
	cib := func() string {
		b, err := lab.ClusterCIB(labDir, "nfsha")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	holds := func(n string) bool {
		return strings.Contains(cib(), `name="`+pacemaker.MaintenanceLockPrefix+`nfsha-holder" value="`+n+`"`)
	}
	standby := func(n string) bool {
		return regexp.MustCompile(`<node id="\d+" uname="` + n + `">\s*<instance_attributes[^>]*>\s*<nvpair[^>]*name="standby" value="on"`).MatchString(cib())
	}
	type point struct {
		name string
		at   func(boots map[string]int) bool
	}
	points := []point{
		{"nfs1 holds the lock", func(map[string]int) bool { return holds("nfs1") }},
		{"nfs1 in standby", func(map[string]int) bool { return standby("nfs1") }},
		{"nfs1 rebooting", func(map[string]int) bool { return bmc["nfs1"].PowerState() != "On" }},
		{"nfs1 back, still in standby", func(b map[string]int) bool { return bmc["nfs1"].BootCount() > b["nfs1"] && standby("nfs1") }},
		{"nfs2 holds the lock", func(map[string]int) bool { return holds("nfs2") }},
		{"nfs2 rebooting", func(map[string]int) bool { return bmc["nfs2"].PowerState() != "On" }},
	}
	values := []string{"Disabled", "Enabled"}
	for i, p := range points {
		v := values[i%2]
		change := "-var=" + strings.Replace(subNumaOff, `SubNumaCluster="Disabled"`, `SubNumaCluster="`+v+`"`, 1)
		boots := map[string]int{"nfs1": bmc["nfs1"].BootCount(), "nfs2": bmc["nfs2"].BootCount()}
		pr, err := lab.StartProbe(labDir, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		out := killWhen(t, cli, func() bool { return p.at(boots) }, change)
		t1 := time.Now()
		again, code := cli.run("apply", "-auto-approve", change)
		rep := pr.Stop()["nfsha"]
		if code != 0 {
			t.Fatalf("kill %d (%s): the next apply failed (exit %d):\n%s\nkilled run:\n%s", i+1, p.name, code, again, out)
		}
		t.Logf("kill %d at %q after %s; the re-apply took %s (resumed: %v); %d out at most",
			i+1, p.name, t1.Sub(t0).Round(100*time.Millisecond), time.Since(t1).Round(100*time.Millisecond),
			strings.Contains(again, "Resumes Its Maintenance"), rep.MaxOut)
		if plan, code := cli.run("plan", "-detailed-exitcode", change); code != 0 {
			t.Fatalf("kill %d (%s): the plan after the re-apply is not empty (exit %d):\n%s", i+1, p.name, code, plan)
		}
		c := cib()
		if strings.Contains(c, pacemaker.MaintenanceLockPrefix) || standby("nfs1") || standby("nfs2") {
			t.Fatalf("kill %d (%s): a lock or a standby is left:\n%s", i+1, p.name, c)
		}
		for _, n := range []string{"nfs1", "nfs2"} {
			if cur, _ := bmc[n].BiosAttributes(); fmt.Sprint(cur["SubNumaCluster"]) != v {
				t.Errorf("kill %d (%s): %s SubNumaCluster %v, want %s", i+1, p.name, n, cur["SubNumaCluster"], v)
			}
		}
		if rep.MaxOut > 1 {
			t.Errorf("kill %d (%s): both servers out of service at once (%d samples)", i+1, p.name, rep.OutTogether)
		}
	}

	// The same for a service change (the NFS servers' failure_domain):
	// the BIOS stays as the last kill left it, the ID mapping domain
	// changes each time.
	last := values[(len(points)-1)%2]
	bios := strings.Replace(subNumaOff, `SubNumaCluster="Disabled"`, `SubNumaCluster="`+last+`"`, 1)
	if err := os.WriteFile(filepath.Join(cfg, "day2.auto.tfvars"), []byte(bios+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	services := []point{
		{"nfs1 holds the lock for the service change", func(map[string]int) bool { return holds("nfs1") }},
		{"nfs1 in standby for the service change", func(map[string]int) bool { return standby("nfs1") }},
		{"nfs2 in standby for the service change", func(map[string]int) bool { return standby("nfs2") }},
	}
	for i, p := range services {
		domain := fmt.Sprintf("day2-%d.example.com", i)
		change := "-var=idmap_domain=" + domain
		pr, err := lab.StartProbe(labDir, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		out := killWhen(t, cli, func() bool { return p.at(nil) }, change)
		again, code := cli.run("apply", "-auto-approve", change)
		rep := pr.Stop()["nfsha"]
		if code != 0 {
			t.Fatalf("service kill %d (%s): the next apply failed (exit %d):\n%s\nkilled run:\n%s", i+1, p.name, code, again, out)
		}
		t.Logf("service kill %d at %q: re-apply resumed: %v; %d out at most", i+1, p.name,
			strings.Contains(again, "Resumes Its Maintenance"), rep.MaxOut)
		if plan, code := cli.run("plan", "-detailed-exitcode", change); code != 0 {
			t.Fatalf("service kill %d (%s): the plan after the re-apply is not empty (exit %d):\n%s", i+1, p.name, code, plan)
		}
		if c := cib(); strings.Contains(c, pacemaker.MaintenanceLockPrefix) || standby("nfs1") || standby("nfs2") {
			t.Fatalf("service kill %d (%s): a lock or a standby is left:\n%s", i+1, p.name, c)
		}
		for _, ni := range l.State.Nodes {
			if ni.Name != "nfs1" && ni.Name != "nfs2" {
				continue
			}
			if conf, err := os.ReadFile(filepath.Join(ni.Root, "etc", "idmapd.conf")); err != nil || !strings.Contains(string(conf), domain) {
				t.Errorf("service kill %d (%s): %s idmapd.conf does not hold %s (%v)", i+1, p.name, ni.Name, domain, err)
			}
		}
		if rep.MaxOut > 1 {
			t.Errorf("service kill %d (%s): both servers out of service at once (%d samples)", i+1, p.name, rep.OutTogether)
		}
	}
}
