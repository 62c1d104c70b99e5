package pacemaker

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/agentmeta"
)

// The table is what the installed agents say about themselves: regenerate
// it and compare (after a resource-agents or fence-agents update, run go
// generate ./internal/pacemaker).
func TestAgentTableCurrent(t *testing.T) {
	tool(t, "fence_redfish")
	agents, err := agentmeta.Collect()
	if err != nil {
		t.Fatal(err)
	}
	src, err := agentmeta.Source("pacemaker", agents)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("agents_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, have) {
		t.Fatalf("agents_gen.go differs from the installed agents' meta-data; run go generate ./internal/pacemaker\n%s", firstDiff(have, src))
	}
	if len(agentTable) != len(agentmeta.Agents) {
		t.Fatalf("%d agents in the table, %d listed", len(agentTable), len(agentmeta.Agents))
	}
	// What the R2 group relies on.
	for spec, params := range map[string][]string{
		"ocf:heartbeat:LVM-activate": {"vgname", "vg_access_mode"},
		"ocf:heartbeat:nfsserver":    {"nfs_shared_infodir", "nfs_ip", "nfs_no_notify"},
		"ocf:heartbeat:exportfs":     {"clientspec", "options", "directory", "fsid"},
		"stonith:fence_redfish":      {"ip", "systems_uri", "ssl_insecure", "password_script", "pcmk_host_list"},
	} {
		for _, p := range params {
			if _, ok := agentTable[spec].params[p]; !ok {
				t.Errorf("%s has no parameter %s", spec, p)
			}
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

// DefaultOps are the agent's own start, stop and monitor defaults.
func TestDefaultOps(t *testing.T) {
	ops := DefaultOps("ocf", "heartbeat", "nfsserver")
	got := ""
	for _, o := range ops {
		got += o.Name + "/" + o.Interval + "/" + o.Timeout + " "
	}
	if got != "start/0s/40s stop/0s/20s monitor/10s/20s " {
		t.Fatalf("nfsserver ops %q", got)
	}
	if ops := DefaultOps("stonith", "", "fence_redfish"); len(ops) != 1 || ops[0].Name != "monitor" || ops[0].Interval != "60s" {
		t.Fatalf("fence_redfish ops %+v", ops)
	}
	// crm_resource reads the same meta-data: its monitor default for
	// IPaddr2 is ours.
	out, err := exec.Command(tool(t, "crm_resource"), "--show-metadata", "ocf:heartbeat:IPaddr2").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range DefaultOps("ocf", "heartbeat", "IPaddr2") {
		if o.Name == "monitor" && !strings.Contains(string(out), `interval="`+o.Interval+`"`) {
			t.Errorf("IPaddr2 monitor interval %s not in crm_resource's meta-data", o.Interval)
		}
	}
}
