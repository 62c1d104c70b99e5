//go:build realnodes

package realnode

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// requireReal stops a test that cannot boot real nodes here: a failure
// under CI=true (CI runs make test-real where it must work), else a skip
// that says why.
func requireReal(t *testing.T) {
	t.Helper()
	why := ""
	switch {
	case os.Geteuid() != 0:
		why = "real nodes need root (mounts, bridge, loop devices, systemd-nspawn)"
	default:
		for _, tool := range []string{"systemd-nspawn", "debootstrap", "losetup", "ip"} {
			if _, err := exec.LookPath(tool); err != nil {
				why = tool + " not installed (scripts/deps.sh install real)"
				break
			}
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot start real nodes under CI: %s", why)
	}
	t.Skip(why)
}

// testImage returns the cached node image, building it (minutes) if
// needed.
func testImage(t *testing.T) Image {
	t.Helper()
	requireReal(t)
	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	img, err := EnsureImage(ctx, ImageConfig{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if img.Built {
		t.Logf("measured: node image built in %s", img.Took.Round(time.Second))
	}
	return img
}

// upLab boots names and closes the lab when the test ends.
func upLab(t *testing.T, names []string, disks int) *Lab {
	t.Helper()
	img := testImage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*BootTimeout)
	defer cancel()
	l, err := Up(ctx, Config{Dir: t.TempDir(), Nodes: names, Image: img, Disks: disks, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	for _, n := range l.Nodes {
		pss, procs, err := n.MemoryPSS()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("measured: %s booted in %s (%s), %d processes, %d MiB PSS", n.Name, n.BootTook.Round(100*time.Millisecond),
			n.SystemState, procs, pss>>20)
	}
	return l
}

type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
