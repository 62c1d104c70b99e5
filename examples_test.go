package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// devOverrides writes a CLI config that runs the given provider binary for
// hpcstorage/hpcstorage (no init, registry or network needed).
func devOverrides(t *testing.T, bin string) []string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "dev.tfrc")
	body := "provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/hpcstorage/hpcstorage\" = \"" + filepath.Dir(bin) + "\"\n  }\n}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"TF_CLI_CONFIG_FILE=" + cfg}
}

// Every example folder is a configuration on its own: copied anywhere, it
// validates with the provider (its own required_providers, variables and
// the resources it refers to). The docs show resource.tf or
// data-source.tf; the folder's other files hold what they rely on.
func TestExamplesValidateAsCopied(t *testing.T) {
	env := devOverrides(t, providerBinary(t))
	var dirs []string
	for _, glob := range []string{"examples/resources/*", "examples/data-sources/*", "examples/provider"} {
		m, _ := filepath.Glob(glob)
		dirs = append(dirs, m...)
	}
	if len(dirs) < 18 {
		t.Fatalf("found only %d example folders", len(dirs))
	}
	for _, d := range dirs {
		t.Run(strings.TrimPrefix(d, "examples/"), func(t *testing.T) {
			t.Parallel()
			if need, have := requiredMinor(d), terraformMinor(t); need > have {
				t.Skipf("needs Terraform >= 1.%d, have 1.%d", need, have)
			}
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(d)); err != nil {
				t.Fatal(err)
			}
			if out, err := tfRun(t, dir, env, "validate", "-no-color"); err != nil || !strings.Contains(out, "The configuration is valid") {
				t.Errorf("terraform validate in a copy of %s: %v\n%s", d, err, out)
			}
			if out, err := tfRun(t, dir, nil, "fmt", "-check", "-diff", "-no-color"); err != nil {
				t.Errorf("terraform fmt -check %s: %v\n%s", d, err, out)
			}
		})
	}
}

// The action examples validate with a Terraform that has actions
// (Terraform 1.15.9 from ../shared/tools).
func TestActionExamplesValidate(t *testing.T) {
	env := devOverrides(t, providerBinary(t))
	out, err := exec.Command("scripts/tools.sh", "terraform-1.15.9").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Terraform 1.15.9 (scripts/tools.sh): %v", err)
		}
		t.Skipf("Terraform 1.15.9 not available: %v", err)
	}
	tf := strings.TrimSpace(string(out))
	dirs, _ := filepath.Glob("examples/actions/*")
	if len(dirs) < 3 {
		t.Fatalf("found only %d action examples", len(dirs))
	}
	for _, d := range dirs {
		t.Run(strings.TrimPrefix(d, "examples/"), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(d)); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"validate", "-no-color"}, {"fmt", "-check", "-diff", "-no-color"}} {
				cmd := exec.Command(tf, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("terraform %s in a copy of %s: %v\n%s", args[0], d, err, out)
				}
			}
		})
	}
}

// The modules validate on their own, and the design examples (examples/r1,
// examples/r3) with them (get links the local modules; the provider comes
// from the dev override). The name predates r3.
func TestModulesAndR1Validate(t *testing.T) {
	env := devOverrides(t, providerBinary(t))
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS("examples")); err != nil {
		t.Fatal(err)
	}
	mods, _ := filepath.Glob(filepath.Join(root, "examples", "modules", "*"))
	if len(mods) < 2 {
		t.Fatalf("modules: %v", mods)
	}
	designs := []string{filepath.Join(root, "examples", "r1"), filepath.Join(root, "examples", "r2"), filepath.Join(root, "examples", "r3"), filepath.Join(root, "examples", "r4"),
		filepath.Join(root, "examples", "r5")}
	for _, d := range append(mods, designs...) {
		out, err := tfRun(t, d, env, "get", "-no-color") // links local modules; asks no registry
		if err == nil {
			out, err = tfRun(t, d, env, "validate", "-no-color")
		}
		if err != nil || !strings.Contains(out, "The configuration is valid") {
			t.Errorf("%s: %v\n%s", d, err, out)
		}
		if out, err := tfRun(t, d, nil, "fmt", "-check", "-diff", "-no-color"); err != nil {
			t.Errorf("terraform fmt -check %s: %v\n%s", d, err, out)
		}
	}
}
