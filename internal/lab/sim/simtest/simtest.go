// Package simtest gives tests the lab's simulator program: built once per
// test process from this module's source (the Go build cache makes it
// cheap) and installed into fake node roots.
package simtest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

const pkg = "github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/cmd/hpcstorage-sim"

var (
	once     sync.Once
	bin      string
	buildErr error
)

// Binary returns the path of a freshly built hpcstorage-sim. The build is
// written to a per-user, per-checkout path and replaced atomically, so
// parallel test processes share it and none leaves a copy behind; roots
// hold hard links, which a later rebuild does not disturb.
func Binary(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { bin, buildErr = build() })
	if buildErr != nil {
		tb.Fatalf("building the simulator: %v", buildErr)
	}
	return bin
}

// Install puts the simulator into the node root dir.
func Install(tb testing.TB, dir string) {
	tb.Helper()
	if err := sim.Install(dir, Binary(tb)); err != nil {
		tb.Fatal(err)
	}
}

func build() (string, error) {
	mod, err := moduleDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(mod))
	dir := filepath.Join(os.TempDir(), "hpcstorage-sim-"+strconv.Itoa(os.Getuid()), hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", tmp.Name(), pkg)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	out := filepath.Join(dir, sim.Program)
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return out, nil
}

// moduleDir is the folder of the go.mod above the working directory (a
// test runs in its package's folder).
func moduleDir() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no go.mod above the working directory")
		}
		d = parent
	}
}
