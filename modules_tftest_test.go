package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// moduleTestEnv is what a module author's machine has: the provider in a
// filesystem mirror named by the CLI config (standing in for the registry,
// so a plain `terraform init` works and nothing is downloaded), a fresh HOME.
func moduleTestEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	mirror := filepath.Join(home, "mirror")
	if out, err := exec.Command("./scripts/install.sh", providerBinary(t), mirror, "0.1.0").CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	cfg := filepath.Join(home, "mirror.tfrc")
	body := "provider_installation {\n  filesystem_mirror {\n    path = \"" + mirror + "\"\n  }\n}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "TF_CLI_CONFIG_FILE=" + cfg}
}

// modulesCopy copies examples/modules (a module may call a sibling folder)
// and returns the copy's folder.
func modulesCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "modules")
	if err := os.CopyFS(dir, os.DirFS("examples/modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

var testSummary = regexp.MustCompile(`(?m)^Success! (\d+) passed, 0 failed\.`)

// tfTest runs terraform init and terraform test in a module folder and
// wants every run of every file to pass.
func tfTest(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	if out, err := tfRun(t, dir, env, "init", "-no-color", "-input=false"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	out, err := tfRun(t, dir, env, append([]string{"test", "-no-color"}, args...)...)
	m := testSummary.FindStringSubmatch(out)
	if err != nil || m == nil || m[1] == "0" {
		t.Fatalf("terraform test %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Every module ships unit tests (tests/*.tftest.hcl, mock_provider: no lab)
// and they pass with the machine's terraform, as a module author runs them.
func TestModulesUnitTests(t *testing.T) {
	env := moduleTestEnv(t)
	root := modulesCopy(t)
	mods, _ := filepath.Glob(filepath.Join(root, "*", "versions.tf"))
	if len(mods) < 5 {
		t.Fatalf("found %d modules", len(mods))
	}
	for _, m := range mods {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			files, _ := filepath.Glob(filepath.Join(dir, "tests", "*.tftest.hcl"))
			if len(files) == 0 {
				t.Fatal("no tests/*.tftest.hcl")
			}
			for _, f := range files {
				b, _ := os.ReadFile(f)
				if !strings.Contains(string(b), `mock_provider "hpcstorage"`) {
					t.Errorf("%s: a unit test mocks the provider", filepath.Base(f))
				}
			}
			out := tfTest(t, dir, env)
			// Each file's runs are listed; none was skipped.
			if strings.Contains(out, "... skip") {
				t.Errorf("skipped runs:\n%s", out)
			}
		})
	}
}

// The nfs-ha module's integration test, run the way its README tells a
// user's CI: the R2 lab, its passwords in the environment, terraform test
// with the lab's variables (apply, checks, destroy).
func TestModuleNFSHAIntegration(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs the R2 lab")
	}
	needAgentDist(t)
	env := moduleTestEnv(t)
	lab := labBinary(t)
	labDir := filepath.Join(t.TempDir(), "lab")
	if out, err := exec.Command(lab, "up", "--design", "r2", "--dir", labDir, "--detach").CombinedOutput(); err != nil {
		t.Fatalf("hpcstorage-lab up: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(lab, "down", "--dir", labDir).Run() })
	f, err := os.Open(filepath.Join(labDir, "lab.env"))
	if err != nil {
		t.Fatal(err)
	}
	for s := bufio.NewScanner(f); s.Scan(); {
		if line := strings.TrimSpace(s.Text()); line != "" && !strings.HasPrefix(line, "#") {
			env = append(env, line)
		}
	}
	f.Close()
	dir := filepath.Join(modulesCopy(t), "nfs-ha")
	out := tfTest(t, dir, env, "-test-directory=tests/lab", "-var-file="+filepath.Join(labDir, "lab.auto.tfvars.json"))
	if !strings.Contains(out, `run "nfs_pair"... pass`) {
		t.Errorf("the lab run did not pass:\n%s", out)
	}
}
