package provider

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
)

// gpfsLiveConfig is a running cluster whose configuration (by scope) and
// allow_downtime come from variables.
const gpfsLiveConfig = `
terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}

variable "config" {
  type = map(map(string))
}

variable "allow_downtime" {
  type    = bool
  default = false
}

provider "hpcstorage" {
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

resource "hpcstorage_gpfs_cluster" "c" {
  host           = var.lab.nodes["nsd1"].host
  name           = "r5"
  nodes          = { nsd1 = ["quorum", "manager", "nsd_server"], nsd2 = ["quorum", "manager", "nsd_server"], mgmt = ["quorum"] }
  node_classes   = { nsdServers = ["nsd1", "nsd2"] }
  config         = var.config
  allow_downtime = var.allow_downtime
}
`

// mmSeq lists, in order, the commands of the given tools the agent ran on
// a node ("mmshutdown -N nsd1").
func (r *r5Lab) mmSeq(t *testing.T, node string, tools ...string) []string {
	t.Helper()
	var out []string
	for _, argv := range r.ranOn(t, node) {
		if slices.Contains(tools, filepath.Base(argv[0])) {
			out = append(out, filepath.Base(argv[0])+" "+strings.Join(argv[1:], " "))
		}
	}
	return out
}

// planWarnings plans with vars and returns each warning as
// "summary: detail", and the plan's error.
func (r *r5Lab) planWarnings(t *testing.T, vars ...string) ([]string, error) {
	t.Helper()
	opts := []tfexec.PlanOption{tfexec.Reattach(r.ri)}
	for _, v := range vars {
		opts = append(opts, tfexec.Var(v))
	}
	var plan strings.Builder
	_, err := r.tf.PlanJSON(context.Background(), &plan, opts...)
	var warnings []string
	for _, line := range strings.Split(plan.String(), "\n") {
		var m struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
				Detail   string `json:"detail"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "diagnostic" && m.Diagnostic.Severity == "warning" {
			warnings = append(warnings, m.Diagnostic.Summary+": "+m.Diagnostic.Detail)
		}
	}
	return warnings, err
}

// TestGpfsClusterLiveChanges (issue 26): on a running cluster, a
// maxblocksize change (GPFS takes it only with every daemon down) fails
// the plan naming the value and the outage, and runs no command; with
// allow_downtime the apply takes the cluster down once (mmshutdown -a)
// and sets it. A value read at daemon start (workerThreads on the NSD
// servers) is announced by the plan as a rolling restart, nsd1 then
// nsd2, and applied so: one node down at a time (the lab's probe), each
// shut down and started before the next; the next plan is empty.
func TestGpfsClusterLiveChanges(t *testing.T) {
	r := upR5(t, gpfsLiveConfig)
	ctx := context.Background()
	base := `config={all={maxblocksize="8M"}}`
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(base)); err != nil {
		t.Fatalf("apply: %v", err)
	}

	bigger := `config={all={maxblocksize="16M"}}`
	_, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var(bigger))
	msg := strings.Join(strings.Fields(strings.ReplaceAll(errString(err), "│", "")), " ")
	for _, want := range []string{`config["all"]["maxblocksize"]`, "cluster-wide outage", "allow_downtime = true", "mmshutdown -a"} {
		if !strings.Contains(msg, want) {
			t.Errorf("plan of maxblocksize on a running cluster: lacks %q:\n%s", want, msg)
		}
	}
	if got := r.mmLog(t, "nsd1", "mmshutdown"); len(got) != 0 {
		t.Fatalf("mmshutdown ran: %v", got)
	}
	warnings, err := r.planWarnings(t, bigger, "allow_downtime=true")
	if err != nil || !strings.Contains(strings.Join(warnings, "\n"), "unmounted meanwhile (allow_downtime is set)") {
		t.Errorf("plan with allow_downtime: %v, warnings %q", err, warnings)
	}
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(bigger), tfexec.Var("allow_downtime=true")); err != nil {
		t.Fatalf("apply with allow_downtime: %v", err)
	}
	if got := r.mmSeq(t, "nsd1", "mmshutdown"); !slices.Equal(got, []string{"mmshutdown -a"}) {
		t.Errorf("mmshutdown runs: %v, want one mmshutdown -a", got)
	}
	conf, err := gpfs.ParseConfig(r.mm(t, "nsd1", true, "mmlsconfig", "-Y"))
	if v, _ := conf.Value("maxblocksize", gpfs.AllNodes); err != nil || !gpfs.SameValue("maxblocksize", "16M", v) {
		t.Errorf("maxblocksize %q %v", v, err)
	}

	threads := `config={all={maxblocksize="16M"},nsdServers={workerThreads="1024"}}`
	warnings, err = r.planWarnings(t, threads)
	joined := strings.Join(warnings, "\n")
	if err != nil || !strings.Contains(joined, "GPFS Restarted One Node At A Time") ||
		!strings.Contains(joined, "1. nsd1 (workerThreads)\n2. nsd2 (workerThreads)") {
		t.Errorf("plan of workerThreads: %v, warnings:\n%s", err, joined)
	}
	pr, err := lab.StartProbe(filepath.Join(r.dir, "lab"), 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	err = r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Var(threads))
	rep := pr.Stop()["gpfs"]
	if err != nil {
		t.Fatalf("apply of workerThreads: %v", err)
	}
	// The first apply started the daemons, the outage stopped and started
	// them; then the NSD servers, one after the other.
	want := []string{"mmstartup -a", "mmshutdown -a", "mmstartup -a", "mmshutdown -N nsd1", "mmstartup -N nsd1", "mmshutdown -N nsd2", "mmstartup -N nsd2"}
	if got := r.mmSeq(t, "nsd1", "mmshutdown", "mmstartup"); !slices.Equal(got, want) {
		t.Errorf("shutdowns and startups: %v, want %v", got, want)
	}
	if rep.MaxOut > 1 {
		t.Errorf("probe: %d GPFS nodes down at once (%d samples)", rep.MaxOut, rep.OutTogether)
	}
	t.Logf("probe: %d samples, at most %d node down", rep.Samples, rep.MaxOut)
	states, err := gpfs.ParseStates(r.mm(t, "nsd1", true, "mmgetstate", "-a", "-Y"))
	for n, s := range states {
		if s != "active" || err != nil {
			t.Errorf("%s is %s after the restart (%v)", n, s, err)
		}
	}
	if changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), tfexec.Var(threads)); err != nil || changes {
		t.Errorf("plan after the rolling restart: changes %v, err %v", changes, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
