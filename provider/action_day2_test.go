package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// terraformWithActions is Terraform v1.15.9 from ../shared/tools (the
// first releases that run actions cannot be go-installed); it fails under
// CI when missing, skips elsewhere.
func terraformWithActions(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	out, err := exec.Command(filepath.Join(filepath.Dir(file), "..", "scripts", "tools.sh"), "terraform-1.15.9").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Terraform 1.15.9 (scripts/tools.sh): %v", err)
		}
		t.Skipf("Terraform 1.15.9 not available: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// r2Actions declares the day-2 actions on the R2 pair, each server
// watched from the other.
const r2Actions = `
locals {
  day2_servers = [for n in ["nfs1", "nfs2"] : {
    endpoint = var.lab.nodes[n].bmc
    failure_domain = {
      name = "nfsha", kind = "pacemaker", node = n
      host       = var.lab.nodes[n].host
      admin_host = var.lab.nodes[n == "nfs1" ? "nfs2" : "nfs1"].host
    }
  }]
}

action "hpcstorage_rolling_reboot" "r2" {
  config {
    servers = local.day2_servers
  }
}

action "hpcstorage_failover_drill" "r2" {
  config {
    servers = local.day2_servers
  }
}
`

// The day-2 actions on the running R2 pair with a Terraform that runs
// actions: a rolling reboot keeps one server in service at a time, the
// failover drill reports each exercise, and the cluster ends as the
// configuration wants it (an empty plan).
func TestR2DayTwoActions(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the whole R2 design")
	}
	t.Parallel()
	tfPath := terraformWithActions(t)
	needAgent(t)
	// One-second power transitions: the day-2 steps reboot both servers.
	e := applyExample(t, tfPath, lab.Config{Design: "r2", Simulator: simtest.Binary(t), PowerDelay: time.Second},
		map[string]string{"day2.tf": r2Actions}, "r2", "modules/nfs-ha")
	l, labDir, dir, cfg, tf, ri := e.lab, e.labDir, e.dir, e.cfg, e.tf, e.ri
	ctx := context.Background()
	reattach, err := json.Marshal(ri)
	if err != nil {
		t.Fatal(err)
	}
	invoke := func(name string) string {
		t.Helper()
		cmd := exec.Command(tfPath, "apply", "-auto-approve", "-no-color", "-invoke=action."+name)
		cmd.Dir = cfg
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "empty.tfrc"),
			"TF_REATTACH_PROVIDERS="+string(reattach))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		return out.String()
	}

	pr, err := lab.StartProbe(labDir, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := invoke("hpcstorage_rolling_reboot.r2")
	rep := pr.Stop()["nfsha"]
	t.Logf("rolling reboot: %s\n%s", time.Since(start).Round(100*time.Millisecond), rep)
	if rep.MaxOut != 1 || !slices.Equal(rep.Order, []string{"nfs1", "nfs2"}) {
		t.Errorf("rolling reboot: %d out at once, order %v; want one at a time, nfs1 then nfs2\n%s", rep.MaxOut, rep.Order, out)
	}
	if id, d := rep.Longest(); d >= time.Second {
		t.Errorf("%s unserved for %s during the rolling reboot", id, d)
	}
	for _, n := range []string{"nfs1", "nfs2"} {
		bmc, err := l.Mock().Design.Service(n + "-bmc")
		if err != nil {
			t.Fatal(err)
		}
		if got := bmc.RequestCount("POST", resetPath); got < 1 {
			t.Errorf("%s was not reset by the rolling reboot", n)
		}
	}

	out = invoke("hpcstorage_failover_drill.r2")
	t.Logf("failover drill:\n%s", out)
	for _, want := range []string{"Failover Drill Report", "nfs1 standby took", "nfs1 power-off took", "nfs2 power-off took"} {
		if !strings.Contains(out, want) {
			t.Errorf("the drill's output lacks %q", want)
		}
	}
	if changes, err := tf.Plan(ctx, tfexec.Reattach(ri)); err != nil || changes {
		t.Fatalf("plan after the actions: changes %v, err %v", changes, err)
	}
}
