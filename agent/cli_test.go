package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// agentBin is the agent built once for this test binary (see TestMain),
// the way the Makefile builds it.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hpcstorage-agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "hpcstorage-agent")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", agentBin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const r1Path = "../examples/agent/r1-storage-server.yaml"

// storageRoot seeds a storage node with four array volumes under dir.
func storageRoot(t testing.TB, dir string) string {
	t.Helper()
	opts := fakenode.Options{Hostname: "storage01", Disks: fakenode.ArrayVolumes("storage01", 4), Simulator: simtest.Binary(t)}
	// sdb-sdd are formatted targets (the simulated mount refuses a blank
	// device); sde is a fresh volume.
	for i := range opts.Disks[:3] {
		opts.Disks[i].FSType = "xfs"
	}
	if err := fakenode.SeedWith(dir, fakenode.Storage, opts); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIExitCodes(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	bad := "apiVersion: hpcstorage/v1\nowner: x\nitems:\n  - sysctl: {key: vm.dirty_ratio}\n"
	failing := "apiVersion: hpcstorage/v1\nowner: x\nitems:\n  - sysctl: {key: vm.no_such, value: 1}\n  - sysctl: {key: vm.swappiness, value: 1}\n"
	good := "apiVersion: hpcstorage/v1\nowner: x\nitems:\n  - sysctl: {key: vm.swappiness, value: 1}\n"
	empty := t.TempDir()
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"no command", "", nil, 1, "", "usage:"},
		{"unknown command", "", []string{"frobnicate"}, 1, "", `unknown command "frobnicate"`},
		{"apply without -f", "", []string{"apply", "--root", root}, 1, "", "-f FILE"},
		{"bad output", "", []string{"apply", "-f", "-", "--output", "yaml"}, 1, "", "want json or text"},
		{"invalid spec", bad, []string{"apply", "-f", "-", "--root", root}, 1, "", "items[0].sysctl.value: required"},
		{"empty root", good, []string{"apply", "-f", "-", "--root", empty}, 1, "", "hpcstorage-lab seed-node --dir " + empty},
		{"missing root", "", []string{"facts", "--root", filepath.Join(empty, "nope")}, 1, "", "the agent expects a node's file tree"},
		{"validate invalid", bad, []string{"validate", "-f", "-"}, 1, "", "items[0].sysctl.value"},
		{"validate ok", "", []string{"validate", "-f", r1Path}, 0, "valid: owner r1-storage-tuning", ""},
		{"item failure", failing, []string{"apply", "-f", "-", "--root", root}, 2, `"failed": true`, ""},
		{"remove bad owner", "", []string{"remove", "--owner", "Bad Owner", "--root", root}, 1, "", "--owner"},
		{"remove unknown owner", "", []string{"remove", "--owner", "nobody", "--root", root}, 0, "nothing to remove", ""},
		{"missing root", "", []string{"facts", "--root", filepath.Join(root, "nope")}, 1, "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.inStdout) || !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
		})
	}
}

func TestCLIApplyCheckTextAndRemove(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	code, out, errOut := runCLI(t, "", "apply", "-f", r1Path, "--root", root, "--check", "--diff", "--output", "text")
	if code != 0 || !strings.Contains(out, "+ sysctl:vm.dirty_ratio\n    -vm.dirty_ratio = 40\n    +vm.dirty_ratio = 20\n") ||
		!strings.Contains(out, "+ service:beegfs-storage\n    -beegfs-storage.service: disabled\n") {
		t.Fatalf("check text (exit %d):\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "apply", "-f", r1Path, "--root", root, "--diff")
	var res protocol.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !res.Changed || res.Failed {
		t.Fatalf("apply json (exit %d, %v):\n%s", code, err, out)
	}
	// beegfs-storage is started after its config changed: no restart.
	if len(res.Handlers) != 0 {
		t.Errorf("handlers %+v", res.Handlers)
	}
	// A config change on the running service restarts it once.
	tuned := strings.Replace(string(mustRead(t, r1Path)), "tuneNumWorkers: 12", "tuneNumWorkers: 16", 1)
	code, out, _ = runCLI(t, tuned, "apply", "-f", "-", "--root", root)
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Handlers) != 1 ||
		res.Handlers[0] != (protocol.HandlerResult{ID: "service:beegfs-storage", Action: "restarted", Reason: "notified"}) {
		t.Fatalf("config change (exit %d): handlers %+v", code, res.Handlers)
	}
	code, out, _ = runCLI(t, tuned, "apply", "-f", "-", "--root", root)
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Changed {
		t.Fatalf("second apply from stdin changed something (exit %d): %s", code, out)
	}
	code, out, _ = runCLI(t, "", "remove", "--owner", "r1-storage-tuning", "--root", root, "--output", "text")
	if code != 0 || !strings.Contains(out, "+ revert:sysctl:vm.dirty_ratio") {
		t.Fatalf("remove (exit %d):\n%s", code, out)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCLIFacts(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	code, out, errOut := runCLI(t, "", "facts", "--root", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var f protocol.Facts
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	vols := fakenode.ArrayVolumes("storage01", 4)
	if f.CPUs != 40 || len(f.NUMANodes) != 2 || f.NUMANodes[1].CPUList != "20-39" || len(f.NUMANodes[1].CPUs) != 20 {
		t.Errorf("cpus %d numa %+v", f.CPUs, f.NUMANodes)
	}
	if f.MemoryBytes != 384<<30 || f.KernelRelease != "4.18.0-305.3.1.el8.x86_64" || f.OS.ID != "rhel" || f.Hostname != "storage01" {
		t.Errorf("memory %d kernel %q os %+v host %q", f.MemoryBytes, f.KernelRelease, f.OS, f.Hostname)
	}
	if len(f.BlockDevices) != 5 {
		t.Fatalf("block devices %+v", f.BlockDevices)
	}
	sdb := f.BlockDevices[1]
	if sdb.Name != "sdb" || sdb.WWN != "0x"+vols[0].WWN || !sdb.Rotational || sdb.Model != "ME4084" || sdb.Scheduler != "mq-deadline" ||
		strings.Join(sdb.Schedulers, " ") != "mq-deadline kyber bfq none" || sdb.SizeBytes != 80e12 {
		t.Errorf("sdb %+v", sdb)
	}
	types := map[string]string{}
	for _, n := range f.NICs {
		types[n.Name] = n.Type
	}
	if types["ib0"] != "infiniband" || types["eno1"] != "ethernet" {
		t.Errorf("nics %+v", f.NICs)
	}
	if f.PackageManager != "rpm" || len(f.Packages) == 0 {
		t.Errorf("packages %q %d", f.PackageManager, len(f.Packages))
	}
}

func TestVersionChecksum(t *testing.T) {
	out, err := exec.Command(agentBin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v protocol.VersionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if v.SHA256 != hex.EncodeToString(sum[:]) || v.Version == "" || v.GOOS != "linux" {
		t.Errorf("version %+v, want sha256 %x", v, sum)
	}
}

// --expect-sha256: the built agent runs only when it is the named build;
// otherwise it exits 3 before reading the spec or touching the root.
func TestExpectSHA256(t *testing.T) {
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	sum := hex.EncodeToString(s[:])
	other := strings.Repeat("0", 64)
	root := storageRoot(t, t.TempDir())
	spec := "apiVersion: hpcstorage/v1\nowner: x\nitems:\n  - sysctl: {key: vm.dirty_ratio, value: 20}\n"
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(agentBin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}
	dirty := func() string {
		return strings.TrimSpace(string(mustRead(t, filepath.Join(root, "proc/sys/vm/dirty_ratio"))))
	}

	for _, args := range [][]string{
		{"apply", "-f", "-", "--root", root, "--expect-sha256", other},
		{"remove", "--owner", "x", "--root", root, "--expect-sha256", other},
		{"facts", "--root", root, "--expect-sha256", other},
	} {
		code, out, errOut := run(spec, args...)
		if code != protocol.ExitWrongBuild || out != "" || !strings.Contains(errOut, "expected "+other) || !strings.Contains(errOut, sum) {
			t.Errorf("%s with another build's sha: exit %d, stdout %q, stderr %q", args[0], code, out, errOut)
		}
	}
	if dirty() != "40" {
		t.Fatal("a wrong-build run changed the node")
	}
	if _, err := os.Stat(filepath.Join(root, "var/lib/hpcstorage-agent")); !os.IsNotExist(err) {
		t.Errorf("a wrong-build run created agent state: %v", err)
	}
	// The right build (hex case does not matter) runs as usual.
	code, out, errOut := run(spec, "apply", "-f", "-", "--root", root, "--expect-sha256", strings.ToUpper(sum))
	if code != 0 || !strings.Contains(out, `"changed": true`) || dirty() != "20" {
		t.Fatalf("right build: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := run("", "facts", "--root", root, "--expect-sha256", sum); code != 0 {
		t.Errorf("facts with the right sha: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(spec, "apply", "-f", "-", "--root", root, "--expect-sha256", "abc"); code != protocol.ExitUsage || !strings.Contains(errOut, "64 hex") {
		t.Errorf("malformed sha: exit %d %s", code, errOut)
	}
}

// The first --expect-sha256 run of a build leaves its sum beside it, and
// later runs trust that sidecar only while the file is the same one: a
// binary changed in place, or a sidecar naming another sum or another
// file, is hashed again, so a wrong build still exits 3. That first run
// also clears old upload temps beside the binary (an sftp upload cut off),
// not a fresh one.
func TestExpectSHA256Sidecar(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hpcstorage-agent")
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	stale, fresh := bin+".tmp-0a0a0a0a0a0a", bin+".tmp-0b0b0b0b0b0b"
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("half an agent"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	sum := hex.EncodeToString(s[:])
	side := bin + ".sha256"
	root := storageRoot(t, t.TempDir())
	run := func(want string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, "facts", "--root", root, "--expect-sha256", want)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	if code, errOut := run(sum); code != 0 {
		t.Fatalf("right build: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old upload temp left by the first run: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh upload temp removed: %v", err)
	}
	line := string(mustRead(t, side))
	if !strings.HasPrefix(line, sum+" ") {
		t.Fatalf("sidecar %q, want the sum first", line)
	}
	// A sidecar left by another file (its identity differs) is ignored
	// and rewritten.
	other := strings.Repeat("1", 64)
	if err := os.WriteFile(side, []byte(other+" 0 0 0 0.0 0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, errOut := run(sum); code != 0 {
		t.Fatalf("a sidecar for another file made the right build fail: exit %d %s", code, errOut)
	}
	if !strings.HasPrefix(string(mustRead(t, side)), sum+" ") {
		t.Fatal("the stale sidecar was not rewritten")
	}
	// The binary changed in place (its ctime moves): hashed again, and
	// now it is another build.
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if code, errOut := run(sum); code != protocol.ExitWrongBuild || !strings.Contains(errOut, "wrong build") {
		t.Fatalf("changed binary with the old sidecar: exit %d %s", code, errOut)
	}
}
