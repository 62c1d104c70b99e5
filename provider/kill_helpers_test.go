package provider

// What the kill tests share: a state store a SIGKILL cannot tear, the
// provider as its own plugin process in terraform's process group, and
// the kill of that group at a chosen point.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stateServer is a remote state store (Terraform's http backend) that
// keeps a snapshot only once its whole body has arrived. The local backend
// truncates terraform.tfstate and rewrites it in place, so a SIGKILL during
// that write leaves a file Terraform itself refuses to load
// (hashicorp/terraform#34266); runs that can be killed keep state remotely.
// No lock_address: a killed run would leave its lock held.
type stateServer struct {
	mu   sync.Mutex
	body []byte
	url  string
}

func startStateServer(t *testing.T) *stateServer {
	t.Helper()
	s := &stateServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.Method {
		case http.MethodGet:
			if s.body == nil {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			_, _ = w.Write(s.body)
		case http.MethodPost:
			b, err := io.ReadAll(r.Body)
			if err != nil || !json.Valid(b) {
				http.Error(w, "incomplete state", http.StatusBadRequest)
				return
			}
			s.body = b
		case http.MethodDelete:
			s.body = nil
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/state"
	return s
}

func (s *stateServer) snapshot() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.body)
}

func (s *stateServer) clear() {
	s.mu.Lock()
	s.body = nil
	s.mu.Unlock()
}

// pluginCLI is a terraform working directory whose CLI config installs the
// provider, built from main.go as users get it, from a local mirror (no
// registry), so terraform runs it as its own plugin process. It is built
// without the race detector: under -race the applies run several times
// slower, and the provider's races are the in-process tests' business.
type pluginCLI struct {
	t       *testing.T
	tf, dir string
	env     []string
}

func newPluginCLI(t *testing.T, config string) *pluginCLI {
	t.Helper()
	dir, work := workDir(t, config)
	return pluginCLIIn(t, dir, work)
}

// workDir is a fresh folder with config as work/main.tf.
func workDir(t *testing.T, config string) (dir, work string) {
	t.Helper()
	dir = t.TempDir()
	work = filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, work
}

// pluginCLIIn runs terraform in work with the provider built into a
// filesystem mirror under dir (a real plugin process, which a kill of
// terraform's process group takes down too).
func pluginCLIIn(t *testing.T, dir, work string) *pluginCLI {
	t.Helper()
	mirror := filepath.Join(dir, "mirror")
	pkg := filepath.Join(mirror, "registry.terraform.io", "hpcstorage", "hpcstorage", "0.1.0", runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(pkg, "terraform-provider-hpcstorage"), ".")
	build.Dir = filepath.Join(filepath.Dir(file), "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build the provider: %v\n%s", err, out)
	}
	rc := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)
	if err := os.WriteFile(filepath.Join(dir, "cli.tfrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_CLI_CONFIG_FILE="+filepath.Join(dir, "cli.tfrc"))
	return &pluginCLI{t: t, tf: terraformCLI(t), dir: work, env: env}
}

// command prepares terraform in its own process group, so one signal
// reaches it and the provider it starts.
func (c *pluginCLI) command(out *bytes.Buffer, args ...string) *exec.Cmd {
	// Options go before the positional arguments (import ADDR ID, apply PLAN).
	cmd := exec.Command(c.tf, append([]string{args[0], "-no-color", "-input=false"}, args[1:]...)...)
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// run runs terraform to the end: its output, and its exit code.
func (c *pluginCLI) run(args ...string) (string, int) {
	c.t.Helper()
	var out bytes.Buffer
	err := c.command(&out, args...).Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	c.t.Fatalf("terraform %v: %v", args, err)
	return "", -1
}

// killWhen starts terraform apply (with args) and SIGKILLs its process
// group once at() holds, then waits until neither terraform nor its
// provider is left. It fails the test when the apply ends first.
func killWhen(t *testing.T, cli *pluginCLI, at func() bool, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := cli.command(&out, append([]string{"apply", "-auto-approve"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !at() {
		select {
		case err := <-done:
			t.Fatalf("apply ended (%v) before the kill point:\n%s", err, out.String())
		case <-tick.C:
		}
	}
	killGroup(t, cmd, done)
	return out.String()
}

// killGroup SIGKILLs terraform's process group (terraform and the
// provider it started) and waits until nothing of it is left.
func killGroup(t *testing.T, cmd *exec.Cmd, done <-chan error) {
	t.Helper()
	pgid := cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-done
	// The provider is reaped by init, not by us: wait until the group is gone.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive 10s after SIGKILL", pgid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
