package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the agent small and the wire package light:
// nothing under agent/ may pull in Terraform or Redfish code, and
// agent/protocol (imported by the provider and the transport) may use only
// the standard library, sigs.k8s.io/yaml (and the go.yaml.in parsers) and
// the one edit-distance helper (internal/suggest on agext/levenshtein, which
// has no dependencies).
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/hashicorp/terraform-plugin", "github.com/stmcginnis/gofish", "golang.org/x/crypto/ssh"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("agent depends on %s", dep)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./protocol").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := []string{"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol", "sigs.k8s.io/yaml", "go.yaml.in/yaml/",
		"github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest", "github.com/agext/levenshtein"}
	for _, dep := range strings.Fields(string(out)) {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(dep, a)
		}
		if !ok {
			t.Errorf("agent/protocol depends on %s", dep)
		}
	}
}
