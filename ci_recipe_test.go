package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

var (
	labOnce sync.Once
	labBin  string
	labErr  error
)

// labBinary builds hpcstorage-lab once per test run next to the provider.
func labBinary(t *testing.T) string {
	t.Helper()
	labOnce.Do(func() {
		labBin = filepath.Join(tmpRoot, "bin", "hpcstorage-lab")
		if out, err := exec.Command("go", "build", "-o", labBin, "./internal/lab/cmd/hpcstorage-lab").CombinedOutput(); err != nil {
			labErr = &buildError{err, out}
		}
	})
	if labErr != nil {
		t.Fatal(labErr)
	}
	return labBin
}

// needAgentDist skips when the provider would carry no agent.
func needAgentDist(t *testing.T) {
	t.Helper()
	for _, a := range []string{"amd64", "arm64"} {
		if _, err := os.Stat("internal/agentbin/dist/hpcstorage-agent-linux-" + a); err != nil {
			testenv.Missing(t, "agent builds missing: run make agent-dist (make test does)")
		}
	}
}

// ciEnv is what a CI runner provides once the recipe's install steps ran:
// hpcstorage-lab and terraform on PATH, the provider where `terraform init`
// finds it (a filesystem mirror named in the CLI config, standing in for the
// registry), a fresh HOME.
func ciEnv(t *testing.T) []string {
	t.Helper()
	needAgentDist(t)
	tf := terraformPath(t)
	bin := providerBinary(t)
	lab := labBinary(t)
	mirror := filepath.Join(t.TempDir(), "mirror")
	if out, err := exec.Command("./scripts/install.sh", bin, mirror, "0.1.0").CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "ci.tfrc")
	if err := os.WriteFile(cfg, []byte("provider_installation {\n  filesystem_mirror {\n    path = \""+mirror+"\"\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + filepath.Dir(lab) + ":" + filepath.Dir(tf) + ":" + os.Getenv("PATH"), "HOME=" + home,
		"TF_CLI_CONFIG_FILE=" + cfg, "CHECKPOINT_DISABLE=1"}
}

// runStep runs one shell step as the runner does (bash -e, pipefail).
func runStep(t *testing.T, dir string, env []string, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// recipeDir is a copy of examples/ci: the user's repository.
func recipeDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(dir, os.DirFS("examples/ci")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The GitHub Actions recipe, run step by step from its own file: every
// `run` step except the installs (ciEnv stands in for them), $GITHUB_ENV
// carried between steps as the runner does, the cleanup step always.
func TestCIRecipeGitHubActions(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs the R1 lab and terraform apply")
	}
	base := ciEnv(t)
	repo := recipeDir(t)
	b, err := os.ReadFile(filepath.Join(repo, "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Env   map[string]string `json:"env"`
			Steps []struct {
				Name, Uses, Run, If string
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["lab"]
	if !ok || len(job.Steps) < 6 {
		t.Fatalf("workflow jobs %v", wf.Jobs)
	}
	runnerTemp := t.TempDir()
	env := append([]string{}, base...)
	for k, v := range job.Env {
		v = strings.ReplaceAll(v, "${{ runner.temp }}", runnerTemp)
		if strings.Contains(v, "${{") {
			t.Fatalf("env %s: expression %q not known to this test", k, v)
		}
		env = append(env, k+"="+v)
	}
	labDir := filepath.Join(runnerTemp, "hpcstorage-lab")
	t.Cleanup(func() { exec.Command(labBinary(t), "down", "--dir", labDir).Run() })
	githubEnv := filepath.Join(runnerTemp, "github_env")
	if err := os.WriteFile(githubEnv, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	failed, ran := false, 0
	var logs strings.Builder
	for _, s := range job.Steps {
		if s.Run == "" || strings.HasPrefix(s.Name, "Install") {
			continue
		}
		if failed && s.If != "always()" {
			continue
		}
		if strings.Contains(s.Run, "${{") {
			t.Fatalf("step %q uses an expression this test does not know", s.Name)
		}
		// Lines the earlier steps appended to $GITHUB_ENV.
		extra, _ := os.ReadFile(githubEnv)
		stepEnv := append(append([]string{}, env...), "GITHUB_ENV="+githubEnv)
		stepEnv = append(stepEnv, strings.Fields(string(extra))...)
		out, err := runStep(t, repo, stepEnv, s.Run)
		ran++
		logs.WriteString("== " + s.Name + "\n" + out)
		if err != nil {
			failed = true
			t.Errorf("step %q: %v\n%s", s.Name, err, out)
		}
	}
	if ran != 4 {
		t.Errorf("ran %d steps, want 4 (start, apply, plan, stop)", ran)
	}
	log := logs.String()
	if !strings.Contains(log, "No changes.") || !strings.Contains(log, "Apply complete!") {
		t.Errorf("log lacks the apply or the empty plan:\n%s", log)
	}
	// Every password was masked before it reached the environment.
	pw, _ := os.ReadFile(githubEnv)
	lines := strings.Fields(string(pw))
	if len(lines) != 10 {
		t.Errorf("$GITHUB_ENV got %d lines, want the 10 endpoints' passwords", len(lines))
	}
	for _, l := range lines {
		_, v, _ := strings.Cut(l, "=")
		if !strings.Contains(log, "::add-mask::"+v+"\n") {
			t.Errorf("password of %s not masked", l[:strings.Index(l, "=")])
		}
	}
	if _, err := os.Stat(filepath.Join(labDir, "lab.json")); err == nil {
		if st, _ := os.ReadFile(filepath.Join(labDir, "lab.json")); len(st) > 0 {
			// down leaves lab.json; the process must be gone.
			if out, err := exec.Command(labBinary(t), "status", "--dir", labDir).CombinedOutput(); err == nil {
				t.Errorf("lab still running after the stop step:\n%s", out)
			}
		}
	}
}

// The GitLab CI recipe: its script lines in one shell (as the runner runs
// them), then after_script in another.
func TestCIRecipeGitLab(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs the R1 lab and terraform apply")
	}
	base := ciEnv(t)
	repo := recipeDir(t)
	b, err := os.ReadFile(filepath.Join(repo, "gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var ci map[string]struct {
		Variables    map[string]string `json:"variables"`
		BeforeScript []string          `json:"before_script"`
		Script       []string          `json:"script"`
		AfterScript  []string          `json:"after_script"`
	}
	if err := yaml.Unmarshal(b, &ci); err != nil {
		t.Fatal(err)
	}
	job, ok := ci["lab"]
	if !ok || len(job.Script) < 5 || len(job.AfterScript) != 1 {
		t.Fatalf("gitlab-ci.yml: %+v", ci)
	}
	env := append([]string{}, base...)
	for k, v := range job.Variables {
		env = append(env, k+"="+strings.ReplaceAll(v, "$CI_PROJECT_DIR", repo))
	}
	labDir := filepath.Join(repo, ".hpcstorage-lab")
	t.Cleanup(func() { exec.Command(labBinary(t), "down", "--dir", labDir).Run() })
	// before_script only installs (ciEnv stands in for it).
	for _, l := range job.BeforeScript {
		if !strings.HasPrefix(l, "go install ") {
			t.Errorf("before_script line %q is not an install: the test would skip it", l)
		}
	}
	out, err := runStep(t, repo, env, strings.Join(job.Script, "\n"))
	if err != nil || !strings.Contains(out, "No changes.") {
		t.Errorf("script: %v\n%s", err, out)
	}
	if out, err := runStep(t, repo, env, strings.Join(job.AfterScript, "\n")); err != nil {
		t.Errorf("after_script: %v\n%s", err, out)
	}
	if pw, _ := os.ReadFile(filepath.Join(labDir, "lab.env")); len(pw) > 0 {
		for _, l := range strings.Fields(string(pw)) {
			_, v, _ := strings.Cut(l, "=")
			if strings.Contains(out, v) {
				t.Errorf("the job log shows a password")
			}
		}
	}
}

// The BMC-only recipe: serve-redfish and the provider's environment
// fallbacks, run as its script.
func TestCIRecipeBMCOnly(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs the R2 mock and terraform apply")
	}
	testenv.NeedTool(t, "jq", "jq")
	env := ciEnv(t)
	repo := recipeDir(t)
	out, err := runStep(t, repo, env, "./bmc-only/run.sh")
	if err != nil || !strings.Contains(out, "Apply complete! Resources: 2 added") || !strings.Contains(out, "No changes.") {
		t.Errorf("bmc-only/run.sh: %v\n%s", err, out)
	}
}
