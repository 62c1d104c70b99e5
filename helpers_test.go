package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// These tests try the product the way a site does: the provider binary as
// `make build` leaves it, installed into a mirror, and the real terraform.

var tmpRoot string

func TestMain(m *testing.M) {
	var err error
	if tmpRoot, err = os.MkdirTemp("", "hpcstorage-root-test"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// terraformPath is the CLI the acceptance tests use.
func terraformPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	if p, err := exec.LookPath("terraform"); err == nil {
		return p
	}
	testenv.Missing(t, "no terraform: set TF_ACC_TERRAFORM_PATH or put terraform on PATH (make test does)")
	return ""
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// testVersion is what the test build is stamped with.
const testVersion = "0.1.0"

// providerBinary builds the provider once per test run, stamped testVersion.
func providerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtBin = filepath.Join(tmpRoot, "bin", "terraform-provider-hpcstorage")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
			"-X github.com/hpcstorage/terraform-provider-hpcstorage/internal/version.Version="+testVersion, "-o", builtBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

// tfRun runs terraform in dir with env (on top of a minimal environment:
// no TF_* of the caller's, never the user's CLI config unless env sets it).
func tfRun(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(terraformPath(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0",
		"HOME=" + filepath.Join(tmpRoot, "nohome")}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.TrimLeft(body, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	tfVerOnce sync.Once
	tfMinor   int // 1.x
)

// terraformMinor is the CLI's minor version (Terraform 1.x).
func terraformMinor(t *testing.T) int {
	t.Helper()
	tf := terraformPath(t)
	tfVerOnce.Do(func() {
		out, err := exec.Command(tf, "version", "-json").Output()
		if err != nil {
			return
		}
		var v struct {
			Version string `json:"terraform_version"`
		}
		if json.Unmarshal(out, &v) == nil {
			parts := strings.SplitN(v.Version, ".", 3)
			if len(parts) >= 2 && parts[0] == "1" {
				tfMinor, _ = strconv.Atoi(parts[1])
			}
		}
	})
	return tfMinor
}

// requiredMinor reads `required_version = ">= 1.N"` from a folder's .tf files.
func requiredMinor(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	min := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range requiredRE.FindAllStringSubmatch(string(b), -1) {
			if n, _ := strconv.Atoi(m[1]); n > min {
				min = n
			}
		}
	}
	return min
}

var requiredRE = regexp.MustCompile(`required_version\s*=\s*">=\s*1\.(\d+)`)
