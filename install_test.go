package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// make install's script files the provider where a plain `terraform init`
// finds it offline (~/.terraform.d/plugins, no CLI config at all): init
// writes a lock file with the provider's hash and prints no
// development-override warning, and the provider then runs (a plan of a
// pure data source). A prerelease such as 0.0.0-dev satisfies no
// `~> 0.1.0`, which is why make install files development builds under the
// changelog's version.
func TestInstallThenPlainInit(t *testing.T) {
	bin := providerBinary(t)
	home := t.TempDir()
	mirror := filepath.Join(home, ".terraform.d", "plugins")
	install := func(version string) string {
		t.Helper()
		out, err := exec.Command("./scripts/install.sh", bin, mirror, version).CombinedOutput()
		if err != nil {
			t.Fatalf("install.sh %s: %v\n%s", version, err, out)
		}
		return string(out)
	}
	out := install("0.1.0")
	if !strings.Contains(out, "installed "+testVersion+" as hpcstorage/hpcstorage 0.1.0") {
		t.Errorf("install.sh said %q", out)
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	if _, err := os.Stat(filepath.Join(mirror, "registry.terraform.io/hpcstorage/hpcstorage/0.1.0", platform, "terraform-provider-hpcstorage_v0.1.0")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("./scripts/install.sh", bin, mirror, "0.1.0+abc").CombinedOutput(); err == nil {
		t.Errorf("install.sh took a version with build metadata (not a valid mirror folder): %s", out)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `
terraform {
  required_version = ">= 1.5"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

data "hpcstorage_tuning_profile" "storage" {
  name = "beegfs-storage"
}

output "profile" {
  value = data.hpcstorage_tuning_profile.storage.name
}
`})
	env := []string{"HOME=" + home, "TF_CLI_CONFIG_FILE=" + filepath.Join(dir, "none.tfrc")}
	if err := os.WriteFile(filepath.Join(dir, "none.tfrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := tfRun(t, dir, env, "init", "-no-color")
	if err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Installed hpcstorage/hpcstorage v0.1.0") || strings.Contains(strings.ToLower(out), "override") {
		t.Errorf("init output:\n%s", out)
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{`provider "registry.terraform.io/hpcstorage/hpcstorage"`, `version\s+= "0.1.0"`,
		`constraints = "~> 0.1.0"`, `"h1:[A-Za-z0-9+/=]{44}"`} {
		if !regexp.MustCompile(re).Match(lock) {
			t.Errorf("lock file lacks %s:\n%s", re, lock)
		}
	}
	out, err = tfRun(t, dir, env, "plan", "-no-color")
	if err != nil || !strings.Contains(out, `profile = "beegfs-storage"`) {
		t.Fatalf("terraform plan: %v\n%s", err, out)
	}

	// Another build under the same version: the lock file refuses it (even
	// with init -upgrade) until the provider's block is removed from it.
	other := filepath.Join(t.TempDir(), "terraform-provider-hpcstorage")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, append(b, "another build"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("./scripts/install.sh", other, mirror, "0.1.0").CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if out, err := tfRun(t, dir, env, "init", "-no-color"); err == nil || !strings.Contains(out, "checksum") {
		t.Errorf("init accepted a changed build under a locked version (err %v):\n%s", err, out)
	}
	if out, err := tfRun(t, dir, env, "init", "-upgrade", "-no-color"); err == nil {
		t.Errorf("init -upgrade accepted a changed build under a locked version:\n%s", out)
	}
	block := regexp.MustCompile(`(?s)provider "registry.terraform.io/hpcstorage/hpcstorage" \{.*?\n\}\n`)
	if err := os.WriteFile(filepath.Join(dir, ".terraform.lock.hcl"), block.ReplaceAll(lock, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := tfRun(t, dir, env, "init", "-no-color"); err != nil {
		t.Errorf("init after removing the provider's lock block: %v\n%s", err, out)
	}
	if lock2, _ := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl")); bytes.Equal(lock, lock2) {
		t.Error("init -upgrade left the lock file as it was")
	}

	// The same build filed under its own prerelease version is not selected.
	if err := os.RemoveAll(mirror); err != nil {
		t.Fatal(err)
	}
	install("0.0.0-dev")
	dir2 := t.TempDir()
	main, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	writeFiles(t, dir2, map[string]string{"main.tf": string(main), "none.tfrc": ""})
	out, err = tfRun(t, dir2, []string{"HOME=" + home, "TF_CLI_CONFIG_FILE=" + filepath.Join(dir2, "none.tfrc")}, "init", "-no-color")
	if err == nil || !strings.Contains(out, "no available releases match") {
		t.Errorf("init selected a prerelease for ~> 0.1.0 (err %v):\n%s", err, out)
	}
}

// The binary says its version, with -version and --version.
func TestVersionFlag(t *testing.T) {
	bin := providerBinary(t)
	for _, flag := range []string{"-version", "--version"} {
		out, err := exec.Command(bin, flag).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "terraform-provider-hpcstorage "+testVersion+" (go") {
			t.Errorf("%s: %q, %v", flag, out, err)
		}
	}
}
