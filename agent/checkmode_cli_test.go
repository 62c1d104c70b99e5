package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// hashTree digests every path under dir: type, mode and content or link.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %s", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(h, " -> %s", target)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The agent binary's `apply --check` plans a spec whose later items need
// what earlier ones write (a unit file, then starting the unit; a marker
// file in the mount point, then the mount) without an error or a write,
// and `apply` then does what it said, item by item.
func TestCLIBinaryCheckSeesEarlierItems(t *testing.T) {
	root := storageRoot(t, t.TempDir())
	wwn := fakenode.ArrayVolumes("storage01", 4)[0].WWN
	spec := fmt.Sprintf(`apiVersion: hpcstorage/v1
owner: scratch
items:
  - file:
      path: /etc/systemd/system/scratch-cleaner.service
      content: "[Unit]\nDescription=Purge old scratch files\n\n[Service]\nExecStart=/usr/local/sbin/scratch-cleaner\n\n[Install]\nWantedBy=multi-user.target\n"
  - file: {path: /etc/systemd/system/scratch-cleaner.service.d/10-idle.conf, content: "[Service]\nNice=19\n"}
  - udev_rule: {name: 60-scratch, content: 'ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_WWN}=="0x%[1]s", ATTR{bdi/read_ahead_kb}="16384"'}
  - service: {name: scratch-cleaner, enabled: true, state: started}
  - file: {path: /scratch/NOT-MOUNTED, content: "not mounted\n"}
  - mount: {device: /dev/disk/by-id/wwn-0x%[1]s, path: /scratch, fstype: xfs}
`, wwn)
	agent := func(args ...string) (int, protocol.Result, string) {
		t.Helper()
		cmd := exec.Command(agentBin, args...)
		cmd.Stdin = strings.NewReader(spec)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		var res protocol.Result
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return cmd.ProcessState.ExitCode(), res, errb.String()
	}

	before := hashTree(t, root)
	code, check, errOut := agent("apply", "-f", "-", "--root", root, "--check", "--diff")
	if code != 0 || check.Failed || !check.Check || !check.Changed {
		t.Fatalf("apply --check: exit %d, failed=%t changed=%t, stderr %s\n%+v", code, check.Failed, check.Changed, errOut, check.Items)
	}
	if after := hashTree(t, root); after != before {
		t.Fatal("apply --check changed the root")
	}
	if len(check.Items) != 6 {
		t.Fatalf("check items %+v", check.Items)
	}
	for _, it := range check.Items {
		if !it.Changed || it.Error != "" {
			t.Errorf("check %s: changed=%t error=%q", it.ID, it.Changed, it.Error)
		}
	}
	if d := check.Items[3].Diff; d != "-scratch-cleaner.service: disabled\n+scratch-cleaner.service: enabled\n-scratch-cleaner.service: inactive\n+scratch-cleaner.service: active\n" {
		t.Errorf("service plan:\n%s", d)
	}

	code, applied, errOut := agent("apply", "-f", "-", "--root", root, "--diff")
	if code != 0 || applied.Failed {
		t.Fatalf("apply: exit %d, stderr %s\n%+v", code, errOut, applied.Items)
	}
	if len(applied.Items) != len(check.Items) {
		t.Fatalf("apply items %+v", applied.Items)
	}
	for i, c := range check.Items {
		a := applied.Items[i]
		if c.ID != a.ID || c.Changed != a.Changed || c.Diff != a.Diff || !slices.Equal(c.Warnings, a.Warnings) || a.Error != "" {
			t.Errorf("item %d: check %+v\napply %+v", i, c, a)
		}
	}
	if len(check.Handlers) != 0 || len(applied.Handlers) != 0 {
		t.Errorf("handlers: check %+v, apply %+v", check.Handlers, applied.Handlers)
	}
	if code, again, _ := agent("apply", "-f", "-", "--root", root, "--check"); code != 0 || again.Changed {
		t.Errorf("check after apply: exit %d %+v", code, again.Items)
	}
}
