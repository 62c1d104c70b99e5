//go:build realnodes

package realnode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// realAgent applies specs to one real node through the provider's
// transport (real SSH, the embedded agent delivered and run on the node).
type realAgent struct {
	t    *testing.T
	pool *transport.Pool
	opts transport.Options
}

func newRealAgent(t *testing.T, l *Lab, n *Node) *realAgent {
	pool := transport.NewPool(transport.PoolOptions{})
	t.Cleanup(func() { pool.Close() })
	return &realAgent{t: t, pool: pool, opts: transport.Options{Host: n.IP, Port: 22, User: "root",
		PrivateKeyFile: filepath.Join(l.Dir, KeyFile), KnownHostsFiles: []string{filepath.Join(l.Dir, KnownHostsFile)},
		RunTimeout: 3 * time.Minute}}
}

// apply runs the spec and returns the result and the items by id.
func (a *realAgent) apply(items ...protocol.Item) (*protocol.Result, map[string]protocol.ItemResult, error) {
	a.t.Helper()
	spec, err := json.Marshal(protocol.Spec{APIVersion: "hpcstorage/v1", Owner: "realnode-test", Items: items})
	if err != nil {
		a.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	resp, err := a.pool.Apply(ctx, a.opts, transport.Request{Spec: spec})
	if resp == nil || resp.Result == nil {
		a.t.Fatalf("apply: no result: %v", err)
	}
	byID := map[string]protocol.ItemResult{}
	for _, it := range resp.Result.Items {
		byID[it.ID] = it
	}
	return resp.Result, byID, err
}

// node runs a command on the node over its own SSH connection: what the
// real system says, not the agent's records.
func nodeRun(t *testing.T, c *ssh.Client, cmd string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := Run(ctx, c, cmd)
	if err != nil {
		t.Fatalf("%s: %v: %s", cmd, err, out)
	}
	return strings.TrimSpace(out)
}

// show is `systemctl show` of some properties, as a map.
func show(t *testing.T, c *ssh.Client, unit string, props ...string) map[string]string {
	out := nodeRun(t, c, "systemctl show "+unit+" -p "+strings.Join(props, " -p "))
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// TestAgentOnRealNode runs the agent's node items for real on a booted
// Debian 12 node over real SSH, reads each result back from the system
// (systemctl show, findmnt, dpkg), and checks that what a container may
// not do (the shared kernel's /proc/sys and /sys, modules) is refused
// there and leaves this machine's own settings as they were.
func TestAgentOnRealNode(t *testing.T) {
	l := upLab(t, []string{"node1"}, 1)
	n := l.Nodes[0]
	loop := l.Loops[0]
	hostBefore := hostSettings(t, loop)
	a := newRealAgent(t, l, n)
	c, err := l.Dial(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	unit := "[Unit]\nDescription=hpcstorage real-node probe\n\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n"
	items := func(env string) []protocol.Item {
		return []protocol.Item{
			{File: &protocol.File{Path: "/etc/hpcstorage-real/app.conf", Content: ptr("a = 1\n"), Mode: "0640", Notify: []string{"hpcs-probe.service"}}},
			{File: &protocol.File{Path: "/etc/systemd/system/hpcs-probe.service", Content: ptr(unit)}},
			{Service: &protocol.Service{Name: "hpcs-probe.service", Enabled: ptr(true), State: "started",
				DropIns: []protocol.DropIn{{Name: "10-env", Content: "[Service]\nEnvironment=PROBE=" + env + "\n"}}}},
			{Command: &protocol.Command{Name: "mkfs", Argv: []string{"mkfs.xfs", "-q", "-L", "realtest", loop},
				Unless: []string{"blkid", "-p", "-s", "TYPE", "-o", "value", loop}, UnlessMatch: []string{"^xfs"}}},
			{Mount: &protocol.Mount{Device: loop, Path: "/srv/real", FSType: "xfs", Options: []string{"noatime"}}},
			{PackageVersion: &protocol.PackageVersion{Name: "pacemaker", Min: "2.1"}},
		}
	}
	res, byID, err := a.apply(items("1")...)
	if err != nil || res.Failed {
		t.Fatalf("first apply: %v: %+v", err, res.Items)
	}
	for id, it := range byID {
		if it.Error != "" {
			t.Errorf("%s: %s", id, it.Error)
		}
	}
	for _, id := range []string{"file:/etc/hpcstorage-real/app.conf", "service:hpcs-probe.service", "command:mkfs", "mount:/srv/real"} {
		if !byID[id].Changed {
			t.Errorf("%s: not changed on the first apply", id)
		}
	}
	// Read back from the real system.
	svc := show(t, c, "hpcs-probe.service", "ActiveState", "UnitFileState", "DropInPaths", "Environment", "MainPID")
	if svc["ActiveState"] != "active" || svc["UnitFileState"] != "enabled" || !strings.Contains(svc["DropInPaths"], "hpcs-probe.service.d/10-env.conf") ||
		svc["Environment"] != "PROBE=1" {
		t.Errorf("systemctl show hpcs-probe.service: %v", svc)
	}
	var fm struct {
		Filesystems []struct{ Source, Fstype, Options string } `json:"filesystems"`
	}
	if err := json.Unmarshal([]byte(nodeRun(t, c, "findmnt -J -o SOURCE,FSTYPE,OPTIONS /srv/real")), &fm); err != nil || len(fm.Filesystems) != 1 ||
		fm.Filesystems[0].Source != loop || fm.Filesystems[0].Fstype != "xfs" || !strings.Contains(fm.Filesystems[0].Options, "noatime") {
		t.Errorf("findmnt /srv/real: %+v (%v)", fm, err)
	}
	if fstab := nodeRun(t, c, "cat /etc/fstab"); !regexpLine(fstab, regexp.QuoteMeta(loop)+`\s+/srv/real\s+xfs\s+noatime`) {
		t.Errorf("fstab has no line for /srv/real:\n%s", fstab)
	}
	if got := nodeRun(t, c, "stat -c '%a %U %F' /etc/hpcstorage-real/app.conf /etc/hpcstorage-real"); got != "640 root regular file\n755 root directory" {
		t.Errorf("file and its directory: %q", got)
	}
	if v := nodeRun(t, c, "dpkg-query -W -f '${Version}' pacemaker"); !strings.HasPrefix(v, "2.1") {
		t.Errorf("pacemaker %s", v)
	}
	pid := svc["MainPID"]

	// Again: nothing changes, nothing restarts.
	res, byID, err = a.apply(items("1")...)
	if err != nil || res.Changed {
		t.Errorf("second apply changed: %v %+v", err, res.Items)
	}
	if now := show(t, c, "hpcs-probe.service", "MainPID")["MainPID"]; now != pid {
		t.Errorf("unchanged apply restarted the service: pid %s -> %s", pid, now)
	}
	// A changed drop-in restarts the unit for real, with the new environment.
	if _, _, err = a.apply(items("2")...); err != nil {
		t.Fatal(err)
	}
	svc = show(t, c, "hpcs-probe.service", "ActiveState", "Environment", "MainPID")
	if svc["MainPID"] == pid || svc["Environment"] != "PROBE=2" || svc["ActiveState"] != "active" {
		t.Errorf("after a drop-in change: %v (pid before %s)", svc, pid)
	}
	// After a reboot (the container's own) the unit comes back enabled. The
	// fstab line stays, but systemd in a container ignores fstab entries of
	// devices ("Running in a container, ignoring fstab device entry"), so
	// the next apply mounts it again: what the provider's re-apply does.
	if err := n.Shutdown(true); err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if c, err = l.Dial(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	if got := nodeRun(t, c, "systemctl is-active hpcs-probe.service; findmnt -n /srv/real || echo unmounted; grep -c /srv/real /etc/fstab"); got != "active\nunmounted\n1" {
		t.Errorf("after reboot: %q", got)
	}
	if got := nodeRun(t, c, "/lib/systemd/system-generators/systemd-fstab-generator /tmp /tmp /tmp 2>&1"); !strings.Contains(got, "ignoring fstab device entry for "+loop) {
		t.Errorf("fstab generator in a container: %q", got)
	}
	if _, byID, err = a.apply(items("2")...); err != nil || !byID["mount:/srv/real"].Changed || byID["service:hpcs-probe.service"].Changed {
		t.Errorf("re-apply after reboot: %v, %+v", err, byID)
	}
	if got := nodeRun(t, c, "findmnt -n -o FSTYPE /srv/real"); got != "xfs" {
		t.Errorf("after re-apply: /srv/real %q", got)
	}
	t.Logf("measured: reboot (graceful off, boot to running) %s", n.BootTook.Round(100*time.Millisecond))

	// A package floor above the installed version is refused by the real dpkg.
	_, byID, err = a.apply(protocol.Item{PackageVersion: &protocol.PackageVersion{Name: "pacemaker", Min: "99.0", Why: "test floor"}})
	if it := byID["package_version:pacemaker"]; !errors.Is(err, transport.ErrItemFailed) || !strings.Contains(it.Error, "99.0") {
		t.Errorf("package floor 99.0: %v, item %+v", err, it)
	}

	// What the container may not do: refused there, reported per item.
	hostDirty := readTrim(t, "/proc/sys/vm/dirty_ratio")
	want := "31"
	if hostDirty == want {
		want = "32"
	}
	refused := []protocol.Item{
		{Sysctl: &protocol.Sysctl{Key: "vm.dirty_ratio", Value: protocol.Scalar(want)}},
		{BlockQueue: &protocol.BlockQueue{Match: protocol.DiskMatch{Name: filepath.Base(loop)}, ReadAheadKB: ptr(4096 + 128)}},
		{KernelModule: &protocol.KernelModule{Name: "dummy"}},
		{UdevRule: &protocol.UdevRule{Name: "60-hpcstorage-real.rules", Content: "ACTION==\"add\", KERNEL==\"loop*\", ATTR{queue/read_ahead_kb}=\"4096\"\n"}},
	}
	for _, it := range refused {
		_, byID, err := a.apply(it)
		r := byID[it.ID()]
		t.Logf("refused in a container: %s: %s", it.ID(), r.Error)
		if !errors.Is(err, transport.ErrItemFailed) || r.Error == "" {
			t.Errorf("%s: applied in a container (%v, %+v): it must be refused", it.ID(), err, r)
		}
	}
	// The udev rule file itself is in place; only udev's reload is refused.
	if got := nodeRun(t, c, "cat /etc/udev/rules.d/60-hpcstorage-real.rules"); !strings.Contains(got, "read_ahead_kb") {
		t.Errorf("udev rule file: %q", got)
	}
	if after := hostSettings(t, loop); fmt.Sprint(after) != fmt.Sprint(hostBefore) {
		t.Errorf("this machine's settings changed:\nbefore %v\nafter  %v", hostBefore, after)
	}
}

// hostSettings are this machine's values the refused items aimed at: every
// vm.* sysctl and the loop device's queue settings.
func hostSettings(t *testing.T, loop string) map[string]string {
	m := map[string]string{}
	for _, glob := range []string{"/proc/sys/vm/*", "/sys/block/" + filepath.Base(loop) + "/queue/*"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				m[f] = strings.TrimSpace(string(b))
			}
		}
	}
	if len(m) < 10 {
		t.Fatalf("read only %d host settings", len(m))
	}
	if _, err := os.Stat("/proc/modules"); err == nil {
		b, _ := os.ReadFile("/proc/modules")
		m["/proc/modules"] = string(b)
	}
	return m
}

func readTrim(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func regexpLine(text, re string) bool {
	return regexp.MustCompile(`(?m)^` + re).MatchString(text)
}
