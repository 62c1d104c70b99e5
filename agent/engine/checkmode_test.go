package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// scratchSpec installs a custom unit, a drop-in and a udev rule, enables
// and starts the unit, then mounts a file system on a mount point an
// earlier item creates (it holds the usual "not mounted" marker file).
func scratchSpec(t *testing.T) *protocol.Spec {
	t.Helper()
	wwn := fakenode.ArrayVolumes("storage01", 4)[0].WWN
	return parse(t, fmt.Sprintf(`
apiVersion: hpcstorage/v1
owner: scratch
items:
  - file:
      path: /etc/systemd/system/scratch-cleaner.service
      content: |
        [Unit]
        Description=Purge old files from the scratch file system
        RequiresMountsFor=/scratch

        [Service]
        ExecStart=/usr/local/sbin/scratch-cleaner /scratch

        [Install]
        WantedBy=multi-user.target
  - file:
      path: /etc/systemd/system/scratch-cleaner.service.d/10-idle.conf
      content: "[Service]\nNice=19\nIOSchedulingClass=idle\n"
      notify: [scratch-cleaner]
  - udev_rule:
      name: 60-scratch-readahead
      content: 'ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_WWN}=="0x%[1]s", ATTR{bdi/read_ahead_kb}="16384"'
  - service: {name: scratch-cleaner, enabled: true, state: started}
  - file: {path: /scratch/NOT-MOUNTED, content: "the scratch file system is not mounted here\n"}
  - mount: {device: /dev/disk/by-id/wwn-0x%[1]s, path: /scratch, fstype: xfs, options: [noatime]}
`, wwn))
}

// checkThenApply runs --check (which must fail nothing and write nothing:
// the whole tree is hashed), then apply, and asserts that apply did item
// by item what the check said.
func checkThenApply(t *testing.T, root *fsroot.Root, spec *protocol.Spec) (check, applied protocol.Result) {
	t.Helper()
	before := treeHash(t, root.Dir())
	check, err := Apply(context.Background(), root, spec, Options{Check: true, Diff: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, it := range check.Items {
		if it.Error != "" {
			t.Errorf("check: %s: %s", it.ID, it.Error)
		}
	}
	if check.Failed {
		t.Fatal("check failed")
	}
	if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
		t.Fatalf("--check wrote:\n%s", strings.Join(d, "\n"))
	}
	applied = mustApply(t, root, spec, Options{Diff: true})
	sameAsCheck(t, check, applied)
	return check, applied
}

// sameAsCheck compares a check result with the apply that followed it.
func sameAsCheck(t *testing.T, check, applied protocol.Result) {
	t.Helper()
	if len(check.Items) != len(applied.Items) {
		t.Fatalf("check has %d items, apply %d:\ncheck %+v\napply %+v", len(check.Items), len(applied.Items), check.Items, applied.Items)
	}
	for i, c := range check.Items {
		a := applied.Items[i]
		// Commands say "would run" in a check and "run" when applied.
		cdiff := strings.ReplaceAll(c.Diff, "would run: ", "run: ")
		if c.ID != a.ID || c.Changed != a.Changed || cdiff != a.Diff || c.Error != a.Error || !slices.Equal(c.Warnings, a.Warnings) {
			t.Errorf("item %d differs:\ncheck: %s changed=%t error=%q warnings=%q\n%s\napply: %s changed=%t error=%q warnings=%q\n%s",
				i, c.ID, c.Changed, c.Error, c.Warnings, c.Diff, a.ID, a.Changed, a.Error, a.Warnings, a.Diff)
		}
	}
	if check.Changed != applied.Changed {
		t.Errorf("check changed=%t, apply changed=%t", check.Changed, applied.Changed)
	}
	if len(check.Handlers) != len(applied.Handlers) {
		t.Fatalf("handlers: check %+v, apply %+v", check.Handlers, applied.Handlers)
	}
	for i, h := range check.Handlers {
		a := applied.Handlers[i]
		if h.ID != a.ID || h.Reason != a.Reason || h.Action != "would restart" || a.Action != "restarted" {
			t.Errorf("handler %d: check %+v, apply %+v", i, h, a)
		}
	}
}

func TestCheckSeesEarlierItems(t *testing.T) {
	root := seededRoot(t)
	spec := scratchSpec(t)
	check, _ := checkThenApply(t, root, spec)

	// The plan itself: every item changes, the fresh unit is enabled and
	// started from "disabled, inactive", and it is not restarted for its
	// drop-in (it starts after it).
	byID := map[string]protocol.ItemResult{}
	for _, it := range check.Items {
		byID[it.ID] = it
		if !it.Changed {
			t.Errorf("%s: check plans no change", it.ID)
		}
	}
	svc := byID["service:scratch-cleaner"].Diff
	for _, want := range []string{
		"-scratch-cleaner.service: disabled\n+scratch-cleaner.service: enabled\n",
		"-scratch-cleaner.service: inactive\n+scratch-cleaner.service: active\n",
	} {
		if !strings.Contains(svc, want) {
			t.Errorf("service diff lacks %q:\n%s", want, svc)
		}
	}
	if len(check.Handlers) != 0 {
		t.Errorf("handlers %+v: the unit starts after its drop-in", check.Handlers)
	}
	if d := byID["file:/etc/systemd/system/scratch-cleaner.service.d/10-idle.conf"].Diff; !strings.HasPrefix(d, "+folder /etc/systemd/system/scratch-cleaner.service.d\n") {
		t.Errorf("drop-in diff:\n%s", d)
	}
	if d := byID["mount:/scratch"].Diff; !strings.Contains(d, "+/scratch: /dev/disk/by-id/") || !strings.Contains(d, " /scratch xfs noatime 0 0\n") {
		t.Errorf("mount diff:\n%s", d)
	}

	// What apply did, through the commands it ran.
	cmds := strings.Join(commands(t, root), "\n")
	for _, want := range []string{"systemctl enable scratch-cleaner.service", "systemctl start scratch-cleaner.service",
		"udevadm control --reload", "mount -t xfs -o noatime /dev/disk/by-id/wwn-0x"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("apply did not run %q:\n%s", want, cmds)
		}
	}
	if strings.Contains(cmds, "restart") {
		t.Errorf("apply restarted a unit:\n%s", cmds)
	}

	// Converged: a second check and apply change nothing.
	res := mustApply(t, root, spec, Options{Check: true, Diff: true})
	if res.Changed {
		t.Errorf("check after apply plans changes: %+v", res.Items)
	}
	if res := mustApply(t, root, spec, Options{}); res.Changed {
		t.Errorf("second apply changed: %+v", res.Items)
	}
}

func TestCheckSeesEarlierItemsCases(t *testing.T) {
	wwn := fakenode.ArrayVolumes("storage01", 4)[1].WWN
	tests := []struct {
		name  string
		items string
		// in names an item whose check diff must contain a text
		in, want string
		// out: a text its check diff must not contain
		out string
	}{
		{
			name: "module options then modprobe",
			items: `
  - file: {path: /etc/modprobe.d/lnet.conf, content: "options lnet networks=o2ib0(ib0)\n"}
  - kernel_module: {name: lnet}
`,
			in: "kernel_module:lnet", want: "+module lnet: loaded (modprobe lnet)\n",
		},
		{
			name: "module options in a new folder then a module's own options",
			items: `
  - file: {path: /etc/modprobe.d/site/lnet.conf, content: "options lnet networks=o2ib0(ib0)\n"}
  - file: {path: /etc/modprobe.d/site/ko2iblnd.conf, content: "options ko2iblnd peer_credits=32\n"}
  - kernel_module: {name: ko2iblnd, options: "map_on_demand=32"}
`,
			in: "file:/etc/modprobe.d/site/ko2iblnd.conf", want: "+options ko2iblnd peer_credits=32\n", out: "+folder",
		},
		{
			name: "fstab then mount",
			items: fmt.Sprintf(`
  - file: {path: /etc/fstab, content: "# /etc/fstab (site)\n/dev/sda2  /  xfs  defaults  0 0\ntmpfs /tmp tmpfs nosuid,nodev 0 0\n"}
  - mount: {device: /dev/disk/by-id/wwn-0x%s, path: /data/st02, fstype: xfs}
`, wwn),
			// The mount's fstab diff is against the file the first item writes.
			in: "mount:/data/st02", want: " tmpfs /tmp tmpfs nosuid,nodev 0 0\n+/dev/disk/by-id/wwn-0x" + wwn + " /data/st02 xfs defaults 0 0\n",
		},
		{
			name: "directory then file inside it",
			items: `
  - file: {path: /etc/beegfs/site/a.conf, content: "a\n"}
  - file: {path: /etc/beegfs/site/b.conf, content: "b\n"}
`,
			in: "file:/etc/beegfs/site/b.conf", want: "+b\n", out: "+folder",
		},
		{
			name: "command then a command with the same guard",
			items: `
  - command: {name: format, argv: [mkfs.xfs, /dev/sde], creates: /var/lib/site/sde.formatted}
  - command: {name: format-again, argv: [mkfs.xfs, -f, /dev/sde], creates: /var/lib/site/sde.formatted}
`,
			in: "command:format", want: "run: mkfs.xfs /dev/sde\n",
		},
		{
			name: "unit file then its own drop-in and start",
			items: `
  - file: {path: /etc/systemd/system/site-agent.service, content: "[Service]\nExecStart=/usr/sbin/site-agent\n[Install]\nWantedBy=multi-user.target\n"}
  - service: {name: site-agent, enabled: true, state: started, dropins: [{name: limits, content: "[Service]\nLimitNOFILE=65536\n"}]}
`,
			in: "service:site-agent", want: "run: systemctl daemon-reload\n-site-agent.service: disabled\n+site-agent.service: enabled\n",
		},
		{
			name: "sysctl drop-in of another tool then sysctl (boot-order warning)",
			items: `
  - file: {path: /etc/sysctl.d/95-site.conf, content: "vm.min_free_kbytes = 1048576\n"}
  - sysctl: {key: vm.min_free_kbytes, value: 262144}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := seededRoot(t)
			spec := parse(t, "apiVersion: hpcstorage/v1\nowner: cases\nitems:"+tt.items)
			check, _ := checkThenApply(t, root, spec)
			for _, it := range check.Items {
				if it.ID != tt.in {
					continue
				}
				if !strings.Contains(it.Diff, tt.want) || tt.out != "" && strings.Contains(it.Diff, tt.out) {
					t.Errorf("%s check diff (want %q, not %q):\n%s", it.ID, tt.want, tt.out, it.Diff)
				}
			}
			if tt.name == "sysctl drop-in of another tool then sysctl (boot-order warning)" {
				w := check.Items[1].Warnings
				if len(w) != 1 || !strings.Contains(w[0], "/etc/sysctl.d/95-site.conf sets vm.min_free_kbytes = 1048576") {
					t.Errorf("warnings %q", w)
				}
			}
		})
	}
}

// A file removed by an earlier step is gone for the steps after it: when
// an item is dropped, the check shows its file and the folder the agent
// made for it both going, as the apply that follows does.
func TestCheckSeesEarlierRemovals(t *testing.T) {
	root := seededRoot(t)
	first := parse(t, `
apiVersion: hpcstorage/v1
owner: cases
items:
  - file: {path: /opt/site/etc/site.conf, content: "x = 1\n"}
  - sysctl: {key: vm.swappiness, value: 10}
`)
	mustApply(t, root, first, Options{})
	dropped := parse(t, "apiVersion: hpcstorage/v1\nowner: cases\nitems:\n  - sysctl: {key: vm.swappiness, value: 10}\n")
	check, _ := checkThenApply(t, root, dropped)
	var reverts []string
	for _, it := range check.Items {
		if strings.HasPrefix(it.ID, "revert:") {
			reverts = append(reverts, it.ID+" "+strings.TrimSpace(it.Diff))
		}
	}
	want := []string{
		"revert:file:/opt/site/etc/site.conf --- /opt/site/etc/site.conf\n+++ /opt/site/etc/site.conf\n@@ -1 +0,0 @@\n-x = 1",
		"revert:dir:/opt/site/etc -folder /opt/site/etc",
		"revert:dir:/opt/site -folder /opt/site",
		"revert:dir:/opt -folder /opt",
	}
	if !slices.Equal(reverts, want) {
		t.Errorf("check reverts:\n%q\nwant\n%q", reverts, want)
	}
	if _, err := os.Stat(filepath.Join(root.Dir(), "opt")); !os.IsNotExist(err) {
		t.Errorf("apply left /opt: %v", err)
	}

	// remove --check against remove, the same way.
	mustApply(t, root, first, Options{})
	before := treeHash(t, root.Dir())
	rmCheck, err := Remove(context.Background(), root, "cases", Options{Check: true, Diff: true})
	if err != nil || rmCheck.Failed {
		t.Fatalf("remove --check: %v %+v", err, rmCheck)
	}
	if d := diffTrees(before, treeHash(t, root.Dir())); len(d) > 0 {
		t.Fatalf("remove --check wrote:\n%s", strings.Join(d, "\n"))
	}
	rm, err := Remove(context.Background(), root, "cases", Options{Diff: true})
	if err != nil || rm.Failed {
		t.Fatalf("remove: %v %+v", err, rm)
	}
	sameAsCheck(t, rmCheck, rm)
}
