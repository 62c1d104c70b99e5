package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// beegfsLab is a lab folder with two storage nodes in one buddy group.
func beegfsLab(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, h := range []string{"stor1", "stor2"} {
		root := filepath.Join(dir, h)
		if err := fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Hostname: h, Simulator: simtest.Binary(t),
			SharedDir: filepath.Join(dir, lab.SharedDir)}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "etc/beegfs/beegfs-storage.conf"), []byte("storeStorageDirectory = /data/st01\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := fsroot.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		id := []string{"101", "201"}[i]
		for _, argv := range [][]string{{"beegfs-setup-storage", "-C", "-p", "/data/st01", "-s", id[:1], "-i", id},
			{"systemctl", "enable", "beegfs-storage"}, {"systemctl", "start", "beegfs-storage"}} {
			if err := (runner.Sim{Root: r}).Run(context.Background(), argv...); err != nil {
				t.Fatal(err)
			}
		}
		if h == "stor1" {
			if err := (runner.Sim{Root: r}).Run(context.Background(), "beegfs-ctl", "--addmirrorgroup", "--nodetype=storage", "--primary=101", "--secondary=201", "--groupid=1"); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	return dir
}

// probe --for: a node's reboot while it runs shows in the report; SIGINT
// ends it early with the report too.
func TestProbeCommand(t *testing.T) {
	dir := beegfsLab(t)
	var out, errb bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- probeUntil([]string{"--dir", dir, "--interval", "20ms", "--for", "600ms"}, &out, &errb, nil)
	}()
	time.Sleep(150 * time.Millisecond)
	if err := sim.Shutdown(filepath.Join(dir, "stor2")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if err := sim.Boot(filepath.Join(dir, "stor2")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, "cluster beegfs: ") || !strings.Contains(got, "at most 1 member(s) out of service at once (0 samples with two or more), out in this order: stor2\n") {
		t.Errorf("report:\n%s", got)
	}
	if strings.Contains(got, "storage buddy group 1") || strings.Contains(got, "could not be read") {
		t.Errorf("the group was served by stor1 throughout, and every sample read:\n%s", got)
	}

	sig := make(chan os.Signal, 1)
	out.Reset()
	go func() { done <- probeUntil([]string{"--dir", dir, "--interval", "20ms"}, &out, &errb, sig) }()
	time.Sleep(100 * time.Millisecond)
	sig <- os.Interrupt
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "cluster beegfs: ") {
			t.Errorf("after SIGINT: %v\n%s", err, out.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not end the probe")
	}
	if !strings.Contains(errb.String(), "interrupt (Ctrl-C) for the report") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestProbeCommandBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--dir is required"},
		{[]string{"--dir", t.TempDir(), "--interval", "0s"}, "--interval 0s: at least 1ms"},
		{[]string{"--dir", t.TempDir(), "--for", "-1s"}, "--for -1s: not negative"},
		{[]string{"--dir", filepath.Join(t.TempDir(), "none")}, "--dir: stat"},
		{[]string{"--dir", t.TempDir(), "x"}, `unexpected argument "x"`},
	} {
		err := probeUntil(tt.args, &bytes.Buffer{}, &bytes.Buffer{}, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
