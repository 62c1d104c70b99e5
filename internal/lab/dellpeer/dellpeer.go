// Package dellpeer runs another Redfish client against the lab: Dell's own
// Terraform provider (dell/terraform-provider-redfish), unmodified, built
// from the Go module proxy and driven by the real terraform CLI. Tests and
// benchmarks use it to check that the mock's iDRAC personality is good
// enough for tools we did not write. Lab code: the product never imports it.
package dellpeer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Module and Version are the provider release the lab is checked against.
const (
	Module  = "github.com/dell/terraform-provider-redfish"
	Version = "v1.6.1"
	// Source is the provider address configurations use.
	Source = "registry.terraform.io/dell/redfish"
	binary = "terraform-provider-redfish"
)

var buildMu sync.Mutex

// Build returns the directory holding a terraform-provider-redfish binary of
// Version, building it once into cacheDir (default: the user cache
// directory) from the module cache: `go mod download -json` gives its source,
// which is built with its own go.mod.
func Build(ctx context.Context, cacheDir string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for the Dell provider build: %w", err)
		}
		cacheDir = filepath.Join(base, "hpcstorage-lab")
	}
	dir := filepath.Join(cacheDir, "dell-redfish-"+Version)
	bin := filepath.Join(dir, binary)
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src, err := download(ctx)
	if err != nil {
		return "", err
	}
	tmp := bin + fmt.Sprintf(".tmp%d", os.Getpid())
	defer os.Remove(tmp)
	if err := goBuild(ctx, src, tmp); err != nil {
		// The module cache is read-only; should the build need to write
		// (go.sum entries), build a private copy instead.
		cp, cerr := os.MkdirTemp("", "dell-redfish-src-")
		if cerr != nil {
			return "", errors.Join(err, cerr)
		}
		defer os.RemoveAll(cp)
		if cerr := copyTree(src, cp); cerr != nil {
			return "", errors.Join(err, cerr)
		}
		if err2 := goBuild(ctx, cp, tmp); err2 != nil {
			return "", err2
		}
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return dir, nil
}

func download(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", Module+"@"+Version)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Outside any module, so the project's go.mod is neither read nor changed.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GO111MODULE=on")
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w: %s%s", Module, Version, err, errb.String(), out.String())
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", Module, Version, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", Module, Version, info.Error)
	}
	return info.Dir, nil
}

func goBuild(ctx context.Context, src, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s@%s: %w: %s", Module, Version, err, b)
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// Workspace is a terraform working directory wired to the Dell provider
// binary through dev_overrides: no `terraform init` and no installation
// source, so Terraform never downloads anything.
type Workspace struct {
	Dir       string
	Terraform string
	env       []string
}

// NewWorkspace prepares dir (it must exist) for running terraform with the
// provider in pluginDir. caFile is the lab's CA: Dell's provider verifies
// TLS with the system roots, which Go reads from SSL_CERT_FILE.
func NewWorkspace(dir, terraform, pluginDir, caFile string) (*Workspace, error) {
	// dev_overrides alone: the Dell provider comes from pluginDir, and with
	// no installation method listed nothing else can be installed.
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n}\n", Source, pluginDir)
	cfg := filepath.Join(dir, ".terraformrc")
	if err := os.WriteFile(cfg, []byte(rc), 0o600); err != nil {
		return nil, err
	}
	env := []string{"TF_CLI_CONFIG_FILE=" + cfg, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0"}
	if caFile != "" {
		env = append(env, "SSL_CERT_FILE="+caFile)
	}
	return &Workspace{Dir: dir, Terraform: terraform, env: env}, nil
}

// Run runs terraform with args and returns its combined output.
func (w *Workspace) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, w.Terraform, args...)
	cmd.Dir = w.Dir
	env := make([]string, 0, len(os.Environ())+len(w.env))
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TF_CLI_CONFIG_FILE", "TF_REATTACH_PROVIDERS", "SSL_CERT_FILE", "TF_LOG", "TF_LOG_PATH":
			continue // ours, or another provider's debugging session
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, w.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("terraform %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// Server is one BMC in a generated configuration.
type Server struct {
	Name, Endpoint, Username, Password string
}

// BiosConfig renders a redfish_bios resource setting attrs on each server,
// with timeouts short enough for the lab (a failure then shows in minutes,
// not the default 20), and, when power is true, a redfish_power keeping
// each server on (polled every second instead of every 10).
func BiosConfig(servers []Server, attrs map[string]string, power bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "terraform {\n  required_providers {\n    redfish = { source = %q }\n  }\n}\n\nprovider \"redfish\" {}\n", "dell/redfish")
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, s := range servers {
		block := fmt.Sprintf("  redfish_server {\n    endpoint = %q\n    user     = %q\n    password = %q\n  }\n", s.Endpoint, s.Username, s.Password)
		fmt.Fprintf(&b, "\nresource \"redfish_bios\" %q {\n%s  attributes = {\n", s.Name, block)
		for _, k := range keys {
			fmt.Fprintf(&b, "    %s = %q\n", k, attrs[k])
		}
		// reset_timeout bounds the wait for the host to come back on;
		// bios_job_timeout the wait for the job. Both are polled every 10 s
		// by the provider, and it then sleeps a fixed 180 s regardless.
		b.WriteString("  }\n  reset_type       = \"GracefulRestart\"\n  reset_timeout    = 60\n  bios_job_timeout = 120\n}\n")
		if power {
			fmt.Fprintf(&b, "\nresource \"redfish_power\" %q {\n%s  desired_power_action = \"On\"\n  maximum_wait_time    = 30\n  check_interval       = 1\n}\n", s.Name, block)
		}
	}
	return b.String()
}
