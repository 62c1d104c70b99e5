package main

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// make release's layout, built for one platform and checked the way the
// registry and a site use it: names from .goreleaser.yml, every file in
// SHA256SUMS verified by sha256sum, the zip's contents, the stamped version,
// and terraform installing the zip from a packed filesystem mirror.
func TestSnapshotLayout(t *testing.T) {
	t.Chdir("../../..")
	for _, a := range []string{"amd64", "arm64"} {
		if _, err := os.Stat("internal/agentbin/dist/hpcstorage-agent-linux-" + a); err != nil {
			testenv.Missing(t, "agent builds missing: run make agent-dist (make test does)")
		}
	}
	c, err := load(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.Platforms() {
		got = append(got, p.String())
	}
	if want := []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64"}; !slices.Equal(got, want) {
		t.Errorf("platforms %v, want %v", got, want)
	}
	if err := run(".goreleaser.yml", "0.1.0", "", "linux_amd64"); err == nil {
		t.Error("an empty -out was accepted")
	}
	if err := run(".goreleaser.yml", "0.1.0", t.TempDir(), "plan9_amd64"); err == nil {
		t.Error("a platform not in the config was accepted")
	}

	out := t.TempDir()
	const v = "0.1.0-rc.1"
	if err := run(".goreleaser.yml", v, out, "linux_amd64"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	const p = "terraform-provider-hpcstorage_" + v
	if want := []string{p + "_SHA256SUMS", p + "_linux_amd64.zip", p + "_manifest.json"}; !slices.Equal(names, want) {
		t.Fatalf("dist has %v, want %v", names, want)
	}
	sums, _ := os.ReadFile(filepath.Join(out, p+"_SHA256SUMS"))
	if n := strings.Count(string(sums), "\n"); n != 2 {
		t.Errorf("SHA256SUMS has %d lines, want 2 (zip, manifest):\n%s", n, sums)
	}
	cmd := exec.Command("sha256sum", "--strict", "-c", p+"_SHA256SUMS")
	cmd.Dir = out
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, b)
	}
	manifest, _ := os.ReadFile(filepath.Join(out, p+"_manifest.json"))
	if orig, _ := os.ReadFile("terraform-registry-manifest.json"); !bytes.Equal(manifest, orig) || !bytes.Contains(manifest, []byte(`"6.0"`)) {
		t.Errorf("manifest %s", manifest)
	}

	zr, err := zip.OpenReader(filepath.Join(out, p+"_linux_amd64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var files []string
	bin := filepath.Join(t.TempDir(), "provider")
	for _, f := range zr.File {
		files = append(files, f.Name)
		if f.Name == "terraform-provider-hpcstorage_v"+v {
			if f.Mode()&0o111 == 0 {
				t.Errorf("%s is not executable in the zip (%v)", f.Name, f.Mode())
			}
			rc, _ := f.Open()
			var b bytes.Buffer
			if _, err := b.ReadFrom(rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
			if err := os.WriteFile(bin, b.Bytes(), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(files)
	if want := []string{"CHANGELOG.md", "LICENSE", "README.md", "hpcstorage-agent-linux-amd64", "hpcstorage-agent-linux-arm64",
		"spec.schema.json", "terraform-provider-hpcstorage_v" + v}; !slices.Equal(files, want) {
		t.Errorf("zip holds %v, want %v", files, want)
	}
	if b, err := exec.Command(bin, "-version").CombinedOutput(); err != nil || !strings.HasPrefix(string(b), "terraform-provider-hpcstorage "+v+" ") {
		t.Errorf("-version: %q, %v", b, err)
	}

	// A site's packed mirror holds the zip as released; terraform installs
	// it (an exact constraint selects the prerelease).
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		if tf, err = exec.LookPath("terraform"); err != nil {
			testenv.Missing(t, "no terraform for the mirror check: set TF_ACC_TERRAFORM_PATH")
		}
	}
	mirror := filepath.Join(t.TempDir(), "mirror")
	pkgDir := filepath.Join(mirror, "registry.terraform.io", "hpcstorage", "hpcstorage")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	zb, _ := os.ReadFile(filepath.Join(out, p+"_linux_amd64.zip"))
	if err := os.WriteFile(filepath.Join(pkgDir, p+"_linux_amd64.zip"), zb, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := "provider_installation {\n  filesystem_mirror {\n    path = \"" + mirror + "\"\n  }\n}\n"
	main := "terraform {\n  required_providers {\n    hpcstorage = {\n      source  = \"hpcstorage/hpcstorage\"\n      version = \"" + v + "\"\n    }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "cli.tfrc"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	init := exec.Command(tf, "init", "-no-color")
	init.Dir = dir
	init.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=" + filepath.Join(dir, "cli.tfrc")}
	if b, err := init.CombinedOutput(); err != nil || !strings.Contains(string(b), "Installed hpcstorage/hpcstorage v"+v) {
		t.Errorf("terraform init from the packed mirror: %v\n%s", err, b)
	}
}
