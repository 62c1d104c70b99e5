package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductDoesNotImportLab keeps the two rooms apart: what ships to
// sites (the provider, the agent, internal/ outside lab) never imports
// what pretends to be a site (internal/lab/...).
func TestProductDoesNotImportLab(t *testing.T) {
	const lab = "github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == lab || strings.HasPrefix(f[0], lab+"/") {
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if imp == lab || strings.HasPrefix(imp, lab+"/") {
				t.Errorf("product package %s imports lab package %s", f[0], imp)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d product packages listed; go list output changed?", checked)
	}
	// The shipped binaries, transitively.
	for _, pkg := range []string{".", "./agent"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == lab || strings.HasPrefix(dep, lab+"/") {
				t.Errorf("%s depends on lab package %s", pkg, dep)
			}
		}
	}
}

// TestInternalHasNoTerraform: only provider/ turns errors into
// diagnostics; the domain packages under internal/ (the lab aside) never
// import the plugin framework, so they stay testable without Terraform.
func TestInternalHasNoTerraform(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.Contains(f[0], "/internal/lab") {
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/hashicorp/terraform-plugin") {
				t.Errorf("%s imports %s: internal packages return errors, provider/ makes diagnostics", f[0], imp)
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d internal packages listed", checked)
	}
}
