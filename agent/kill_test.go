package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// fastTempDir prefers tmpfs: the kill test runs ~400 agent processes and
// fsyncs on a disk-backed /tmp would dominate. Atomicity against SIGKILL does
// not depend on the file system (the page cache survives the process).
func fastTempDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "hpcstorage-kill-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// snapshot maps each regular file under dir (outside skip) to its content.
func snapshot(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func agent(t *testing.T, args ...string) (protocol.Result, int, string) {
	t.Helper()
	cmd := exec.Command(agentBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var res protocol.Result
	if code != 1 {
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("result is not JSON (exit %d): %v\n%s\n%s", code, err, out.String(), errb.String())
		}
	}
	return res, code, errb.String()
}

// TestKillAtRandomMoments SIGKILLs the agent at random moments of apply and
// of remove (half each), at least 200 times. After each kill every managed
// file holds its old or its new content, never a torn mix, and the next run
// completes: apply converges (a further apply changes nothing), remove
// leaves the root as it was seeded.
func TestKillAtRandomMoments(t *testing.T) {
	iterations := 200
	if s := os.Getenv("HPCSTORAGE_KILL_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		iterations = n
	}
	const state = protocol.StateDir
	// Sim files change through many small steps (one per command); they are
	// checked by the convergence and byte-identity checks instead.
	volatile := []string{state, "run/hpcstorage-sim", "proc/modules"}

	// Old and new content of every managed file, from two reference roots.
	refOld := storageRoot(t, fastTempDir(t))
	refNew := storageRoot(t, fastTempDir(t))
	start := time.Now()
	if res, code, errOut := agent(t, "apply", "-f", r1Path, "--root", refNew); code != 0 {
		t.Fatalf("reference apply: exit %d %s %+v", code, errOut, res)
	}
	applyTime := time.Since(start)
	scratch := storageRoot(t, fastTempDir(t))
	agent(t, "apply", "-f", r1Path, "--root", scratch)
	start = time.Now()
	agent(t, "remove", "--owner", "r1-storage-tuning", "--root", scratch)
	removeTime := time.Since(start)
	oldFiles := snapshot(t, refOld, volatile...)
	newFiles := snapshot(t, refNew, volatile...)
	managed := map[string]bool{}
	for p, c := range newFiles {
		if oldFiles[p] != c {
			managed[p] = true
		}
	}
	for p := range oldFiles {
		if _, ok := newFiles[p]; !ok {
			managed[p] = true
		}
	}
	if len(managed) < 20 {
		t.Fatalf("only %d managed files: the reference apply did little", len(managed))
	}

	root := storageRoot(t, fastTempDir(t))
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	killedMidway := 0
	for i := range iterations {
		removing := i%2 == 1
		args := []string{"apply", "-f", r1Path, "--root", root}
		window := applyTime
		if removing {
			args = []string{"remove", "--owner", "r1-storage-tuning", "--root", root}
			window = removeTime
		}
		// The agent leads its own process group, so the kill takes the
		// lab's simulators it started too, as a crash of the node would;
		// the next run starts once no process of the group is left.
		cmd := exec.Command(agentBin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window) + 1)))
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err := cmd.Wait()
		for deadline := time.Now().Add(5 * time.Second); syscall.Kill(-cmd.Process.Pid, 0) == nil; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("iteration %d: the agent's simulators outlived the kill", i)
			}
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killedMidway++
		} else if err != nil && !strings.Contains(err.Error(), "exit status") {
			t.Fatalf("iteration %d: %v", i, err)
		}

		// Every managed file is whole: its old content (or absent) or its new one.
		now := snapshot(t, root, volatile...)
		for p := range managed {
			cur, exists := now[p]
			old, hadOld := oldFiles[p]
			nw, hasNew := newFiles[p]
			if exists && (hadOld && cur == old || hasNew && cur == nw) || !exists && (!hadOld || !hasNew) {
				continue
			}
			t.Fatalf("iteration %d (%s killed): %s is torn or unknown:\n%q\nold %q\nnew %q", i, args[0], p, cur, old, nw)
		}
		for p := range now {
			if !managed[p] && now[p] != oldFiles[p] && !strings.HasSuffix(p, ".hpcstorage-tmp") {
				t.Fatalf("iteration %d: unmanaged file %s changed", i, p)
			}
		}

		// The next run completes.
		res, code, errOut := agent(t, args...)
		if code != 0 {
			t.Fatalf("iteration %d: %s after a kill: exit %d %s %+v", i, args[0], code, errOut, res)
		}
		if removing {
			if d := diffContent(oldFiles, snapshot(t, root, volatile...)); d != "" {
				t.Fatalf("iteration %d: remove after a kill left the root different: %s", i, d)
			}
			continue
		}
		res, code, _ = agent(t, args...)
		if code != 0 || res.Changed {
			t.Fatalf("iteration %d: apply after a kill did not converge: %+v", i, res)
		}
		if d := diffContent(newFiles, snapshot(t, root, volatile...)); d != "" {
			t.Fatalf("iteration %d: converged root differs from the reference: %s", i, d)
		}
	}
	t.Logf("%d kills (%d mid-run), apply window %s, remove window %s", iterations, killedMidway, applyTime, removeTime)
	if killedMidway < iterations/4 {
		t.Errorf("only %d of %d kills landed while the agent ran", killedMidway, iterations)
	}
}

func diffContent(want, got map[string]string) string {
	for p, c := range want {
		if g, ok := got[p]; !ok {
			return "missing " + p
		} else if g != c {
			return "changed " + p
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			return "extra " + p
		}
	}
	return ""
}
