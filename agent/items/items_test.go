package items

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// node is a seeded fake root with a spec's items ready to plan and apply.
type node struct {
	t    *testing.T
	root *fsroot.Root
	dir  string
}

func newNode(t *testing.T, p fakenode.Profile, disks ...fakenode.Disk) *node {
	t.Helper()
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, p, fakenode.Options{Disks: disks, Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &node{t: t, root: root, dir: dir}
}

func (n *node) env(spec *protocol.Spec, check bool) *Env {
	return &Env{Root: n.root, Run: runner.Sim{Root: n.root}, Owner: spec.Owner, Spec: spec, Check: check}
}

func spec(t *testing.T, items string) *protocol.Spec {
	t.Helper()
	s, err := protocol.ParseSpec([]byte("apiVersion: hpcstorage/v1\nowner: test\nitems:\n" + items))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// plan plans item i of s.
func (n *node) plan(s *protocol.Spec, i int, check bool) (Plan, error) {
	return New(s.Items[i]).Plan(context.Background(), n.env(s, check))
}

// apply plans and runs every item of s; it returns the plans.
func (n *node) apply(s *protocol.Spec) []Plan {
	n.t.Helper()
	env := n.env(s, false)
	var out []Plan
	for _, it := range s.Items {
		p, err := New(it).Plan(context.Background(), env)
		if err != nil {
			n.t.Fatalf("%s: plan: %v", it.ID(), err)
		}
		for _, st := range p.Steps {
			if err := st.Do(context.Background()); err != nil {
				n.t.Fatalf("%s: %v", it.ID(), err)
			}
		}
		out = append(out, p)
	}
	return out
}

// converged asserts that nothing in s would change.
func (n *node) converged(s *protocol.Spec) {
	n.t.Helper()
	for i, it := range s.Items {
		p, err := n.plan(s, i, true)
		if err != nil {
			n.t.Fatalf("%s: %v", it.ID(), err)
		}
		if p.Changed() {
			n.t.Errorf("%s not converged:\n%s", it.ID(), p.Diff())
		}
	}
}

func (n *node) read(p string) string {
	n.t.Helper()
	b, err := os.ReadFile(filepath.Join(n.dir, p))
	if err != nil {
		n.t.Fatal(err)
	}
	return string(b)
}

func (n *node) write(p, content string) {
	n.t.Helper()
	full := filepath.Join(n.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		n.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) commands() []string {
	log, err := runner.ReadLog(n.root)
	if err != nil {
		n.t.Fatal(err)
	}
	var out []string
	for _, a := range log {
		out = append(out, strings.Join(a, " "))
	}
	return out
}

func TestSysctl(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - sysctl: {key: vm.dirty_ratio, value: 20}\n  - sysctl: {key: net.ipv4.tcp_rmem, value: \"4096 131072 6291456\"}\n")
	p, err := n.plan(s, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Diff(), "-vm.dirty_ratio = 40\n+vm.dirty_ratio = 20\n--- /etc/sysctl.d/90-hpcstorage-test.conf") {
		t.Errorf("diff:\n%s", p.Diff())
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], `tuned profile "throughput-performance" sets vm.dirty_ratio = 40`) {
		t.Errorf("tuned override not reported: %q", p.Warnings)
	}
	// Whitespace-only differences (the kernel prints tabs) are not changes.
	p, _ = n.plan(s, 1, true)
	if len(p.Steps) != 0 {
		t.Errorf("tcp_rmem with spaces vs tabs planned a change:\n%s", p.Diff())
	}
	n.apply(s)
	if got := n.read("proc/sys/vm/dirty_ratio"); got != "20\n" {
		t.Errorf("live value %q", got)
	}
	want := "# Managed by hpcstorage-agent for owner test; local edits are overwritten.\nvm.dirty_ratio = 20\nnet.ipv4.tcp_rmem = 4096 131072 6291456\n"
	if got := n.read("etc/sysctl.d/90-hpcstorage-test.conf"); got != want {
		t.Errorf("drop-in:\n%s", got)
	}
	n.converged(s)

	// A later-sorting sysctl.d file that sets another value is reported.
	n.write("etc/sysctl.d/99-site.conf", "vm.dirty_ratio=30\n")
	n.write("etc/sysctl.d/10-early.conf", "vm.dirty_ratio=35\n")
	p, _ = n.plan(s, 0, true)
	var late, early bool
	for _, w := range p.Warnings {
		late = late || strings.Contains(w, "/etc/sysctl.d/99-site.conf sets vm.dirty_ratio = 30")
		early = early || strings.Contains(w, "10-early.conf")
	}
	if !late || early {
		t.Errorf("override warnings: %q", p.Warnings)
	}

	_, err = n.plan(spec(t, "  - sysctl: {key: vm.no_such_knob, value: 1}\n"), 0, true)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/proc/sys/vm/no_such_knob") {
		t.Errorf("unknown key: %v", err)
	}
}

func TestFile(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, `
  - file: {path: /etc/beegfs/beegfs-storage.conf, set: {connMaxInternodeNum: 64, newKey: x}}
  - file: {path: /opt/site/conf.d/a.conf, content: "a\n", mode: "0600", owner: "0", group: root}
  - file: {path: /etc/sysctl.d/99-sysctl.conf, content: "# replaced through the link\n"}
`)
	orig := n.read("etc/beegfs/beegfs-storage.conf")
	plans := n.apply(s)
	got := n.read("etc/beegfs/beegfs-storage.conf")
	if !strings.Contains(got, "connMaxInternodeNum           = 64\n") || !strings.HasSuffix(got, "newKey = x\n") {
		t.Errorf("overlay:\n%s", got)
	}
	if strings.Replace(strings.Replace(got, "= 64\nconnInterfacesFile", "= 12\nconnInterfacesFile", 1), "newKey = x\n", "", 1) != orig {
		t.Errorf("overlay changed more than its keys:\n%s", got)
	}
	if !strings.Contains(plans[1].Diff(), "+folder /opt/site/conf.d") {
		t.Errorf("new folders not in the plan:\n%s", plans[1].Diff())
	}
	st, err := os.Stat(filepath.Join(n.dir, "opt/site/conf.d/a.conf"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", st.Mode(), err)
	}
	// The symlink is kept and its target replaced.
	if target, err := os.Readlink(filepath.Join(n.dir, "etc/sysctl.d/99-sysctl.conf")); err != nil || target != "../sysctl.conf" {
		t.Errorf("link replaced: %q %v", target, err)
	}
	if got := n.read("etc/sysctl.conf"); got != "# replaced through the link\n" {
		t.Errorf("link target: %q", got)
	}
	n.converged(s)

	// Mode only.
	m := spec(t, "  - file: {path: /opt/site/conf.d/a.conf, mode: \"0640\"}\n")
	p, _ := n.plan(m, 0, true)
	if p.Diff() != "mode /opt/site/conf.d/a.conf: 0600 -> 0640\n" {
		t.Errorf("mode diff: %q", p.Diff())
	}
	_, err = n.plan(spec(t, "  - file: {path: /etc/x.conf, content: x, owner: beegfs}\n"), 0, true)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"beegfs" is not in /etc/passwd`) {
		t.Errorf("unknown owner: %v", err)
	}
	_, err = n.plan(spec(t, "  - file: {path: /etc/missing.conf, mode: \"0644\"}\n"), 0, true)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("mode on a missing file: %v", err)
	}
}

func TestSensitiveFileDiffIsHidden(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - file: {path: /etc/beegfs/connauthfile, content: \"s3cret\\n\", mode: \"0400\", sensitive: true}\n")
	p, err := n.plan(s, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Diff(); strings.Contains(d, "s3cret") || !strings.Contains(d, "content changed (sensitive, not shown)") {
		t.Errorf("diff:\n%s", d)
	}
	n.apply(s)
	if got := n.read("etc/beegfs/connauthfile"); got != "s3cret\n" {
		t.Errorf("content %q", got)
	}
	for _, o := range p.Steps[len(p.Steps)-1].Origs {
		d, err := Restore(context.Background(), n.env(s, true), &o)
		if err != nil || strings.Contains(d, "s3cret") {
			t.Errorf("restore diff %q %v", d, err)
		}
	}
}

// Bytes that are not UTF-8 (a corosync authkey) arrive intact through
// content_base64; a JSON string would have turned each into U+FFFD.
func TestFileContentBase64(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	key := []byte{0x00, 0xff, 0xfe, 0x80, '\n', 0xc3, 0x28, 0x01}
	var f protocol.File
	f.SetBytes(key)
	if f.Content != nil || f.ContentBase64 == nil {
		t.Fatalf("SetBytes of binary: %+v", f)
	}
	s := spec(t, fmt.Sprintf("  - file: {path: /etc/corosync/authkey, content_base64: %q, mode: \"0400\", sensitive: true}\n", *f.ContentBase64))
	n.apply(s)
	if got := n.read("etc/corosync/authkey"); got != string(key) {
		t.Errorf("content %q, want %q", got, key)
	}
	n.converged(s)
	f.SetBytes([]byte("text\n"))
	if f.Content == nil || *f.Content != "text\n" || f.ContentBase64 != nil {
		t.Errorf("SetBytes of text: %+v", f)
	}
}

func TestOverlay(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"keeps spacing and comments", "# c\nkey   =  old # not a comment in beegfs\nother=1\n", "# c\nkey   =  new\nother=1\n"},
		{"commented keys stay", "#key = 1\n", "#key = 1\nkey = new\n"},
		{"no final newline", "a = 1", "a = 1\nkey = new\n"},
		{"empty value", "key =\n", "key = new\n"},
		{"every occurrence", "key=1\nkey=2\n", "key=new\nkey=new\n"},
		{"empty file", "", "key = new\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Overlay([]byte(tt.in), map[string]protocol.Scalar{"key": "new"})); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUdevRule(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - udev_rule: {name: 60-beegfs-block, content: 'SUBSYSTEM==\"block\", KERNEL==\"sd*\", ATTR{queue/nr_requests}=\"2048\"'}\n")
	n.apply(s)
	if got := n.commands(); !slices.Equal(got, []string{"udevadm control --reload", "udevadm trigger --action=change --subsystem-match=block"}) {
		t.Errorf("commands %q", got)
	}
	if !strings.HasSuffix(n.read("etc/udev/rules.d/60-beegfs-block.rules"), "\"2048\"\n") {
		t.Error("rule not written with a final newline")
	}
	n.apply(s)
	if got := len(n.commands()); got != 2 {
		t.Errorf("unchanged rule reloaded udev again (%d commands)", got)
	}
}

func TestBlockQueue(t *testing.T) {
	vols := fakenode.ArrayVolumes("st", 2)
	n := newNode(t, fakenode.Storage, vols...)
	s := spec(t, "  - block_queue: {match: {wwn: \"0x"+vols[1].WWN+"\"}, nr_requests: 2048, read_ahead_kb: 4096, scheduler: none}\n")
	plans := n.apply(s)
	if got := n.read("sys/block/sdc/queue/nr_requests"); got != "2048\n" {
		t.Errorf("sdc nr_requests %q", got)
	}
	if got := n.read("sys/block/sdc/queue/scheduler"); got != "mq-deadline kyber bfq [none]\n" {
		t.Errorf("sdc scheduler %q", got)
	}
	if got := n.read("sys/block/sdb/queue/nr_requests"); got != "256\n" {
		t.Errorf("sdb touched: %q", got)
	}
	if d := plans[0].Diff(); !strings.HasPrefix(d, "-sdc queue/scheduler = mq-deadline\n+sdc queue/scheduler = none\n") {
		t.Errorf("diff:\n%s", d)
	}
	if got := n.commands(); !slices.Equal(got, []string{"udevadm control --reload", "udevadm trigger --action=change --subsystem-match=block"}) {
		t.Errorf("commands %q", got)
	}
	rule := n.read("etc/udev/rules.d/61-hpcstorage-test-block.rules")
	if !strings.Contains(rule, `ATTRS{wwid}=="naa.`+vols[1].WWN+`", ATTR{queue/scheduler}="none", ATTR{queue/nr_requests}="2048"`) {
		t.Errorf("rule:\n%s", rule)
	}
	n.converged(s)

	tests := []struct {
		name, item string
		want       string
		wantErr    error
	}{
		{"deadline on blk-mq", `{match: {name: "sd*"}, scheduler: deadline}`, `use "mq-deadline"`, ErrUnsupported},
		{"noop on blk-mq", `{match: {name: "sd*"}, scheduler: noop}`, `use "none"`, ErrUnsupported},
		{"unknown scheduler", `{match: {name: "sd*"}, scheduler: cfq2}`, "offers: mq-deadline kyber bfq none", ErrUnsupported},
		{"above hardware limit", `{match: {name: sdb}, max_sectors_kb: 65536}`, "max_hw_sectors_kb 32767", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := n.plan(spec(t, "  - block_queue: "+tt.item+"\n"), 0, true)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// Match by model and rotational: the array volumes, not the system SSD.
	p, err := n.plan(spec(t, "  - block_queue: {match: {model: \"ME40*\", rotational: true}, read_ahead_kb: 8192}\n"), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Diff(); !strings.Contains(d, "sdb queue/read_ahead_kb") || !strings.Contains(d, "sdc queue/read_ahead_kb") || strings.Contains(d, "sda") {
		t.Errorf("model match:\n%s", d)
	}
	p, _ = n.plan(spec(t, "  - block_queue: {match: {name: \"nvme*\"}, read_ahead_kb: 8192}\n"), 0, true)
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "matched no block device") {
		t.Errorf("no match warning: %q", p.Warnings)
	}
}

func TestTHP(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - thp: {enabled: never, defrag: defer+madvise}\n")
	n.apply(s)
	if got := n.read("sys/kernel/mm/transparent_hugepage/enabled"); got != "always madvise [never]\n" {
		t.Errorf("enabled %q", got)
	}
	if got := n.read("sys/kernel/mm/transparent_hugepage/defrag"); got != "always defer [defer+madvise] madvise never\n" {
		t.Errorf("defrag %q", got)
	}
	if got := n.read("etc/tmpfiles.d/hpcstorage-test-thp.conf"); !strings.Contains(got, "w /sys/kernel/mm/transparent_hugepage/enabled - - - - never\n") {
		t.Errorf("tmpfiles:\n%s", got)
	}
	n.converged(s)
	// A plain word (some fake roots) is read as the value.
	n.write("sys/kernel/mm/transparent_hugepage/enabled", "never\n")
	n.converged(s)
}

func TestKernelModule(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - kernel_module: {name: beegfs, options: \"a=1\"}\n  - kernel_module: {name: mpt3sas, options: \"max_queue_depth=10000\", boot: false}\n")
	plans := n.apply(s)
	if got := n.commands(); !slices.Equal(got, []string{"modprobe beegfs"}) {
		t.Errorf("commands %q", got)
	}
	if !strings.Contains(n.read("proc/modules"), "\nbeegfs ") {
		t.Error("simulated modprobe did not load beegfs")
	}
	if got := n.read("etc/modprobe.d/hpcstorage-mpt3sas.conf"); !strings.HasSuffix(got, "options mpt3sas max_queue_depth=10000\n") {
		t.Errorf("options file %q", got)
	}
	if _, err := os.Stat(filepath.Join(n.dir, "etc/modules-load.d/hpcstorage-mpt3sas.conf")); !os.IsNotExist(err) {
		t.Error("boot: false still wrote modules-load.d")
	}
	if len(plans[1].Warnings) != 1 || !strings.Contains(plans[1].Warnings[0], "mpt3sas is loaded") {
		t.Errorf("loaded-module options warning: %q", plans[1].Warnings)
	}
	n.converged(s)
}

func TestService(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, `
  - service: {name: beegfs-storage, enabled: true, state: started, dropins: [{name: 10-limits, content: "[Service]\nLimitNOFILE=1048576\n"}]}
  - service: {name: tuned, enabled: false, state: stopped}
`)
	n.apply(s)
	want := []string{"systemctl daemon-reload", "systemctl enable beegfs-storage.service", "systemctl start beegfs-storage.service",
		"systemctl disable tuned.service", "systemctl stop tuned.service"}
	if got := n.commands(); !slices.Equal(got, want) {
		t.Errorf("commands:\n%q\nwant\n%q", got, want)
	}
	if got := n.read("etc/systemd/system/beegfs-storage.service.d/10-limits.conf"); got != "[Service]\nLimitNOFILE=1048576\n" {
		t.Errorf("drop-in %q", got)
	}
	n.converged(s)
	// A changed drop-in on a running unit reloads and asks for a restart.
	s2 := spec(t, "  - service: {name: beegfs-storage, state: started, dropins: [{name: 10-limits, content: \"[Service]\\nLimitNOFILE=65536\\n\"}]}\n")
	p, err := n.plan(s2, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Notify, []string{"beegfs-storage.service"}) || !strings.Contains(p.Diff(), "run: systemctl daemon-reload") {
		t.Errorf("drop-in change: notify %q diff\n%s", p.Notify, p.Diff())
	}
	mask := spec(t, "  - service: {name: chronyd, masked: true}\n")
	n.apply(mask)
	if got := n.commands(); !slices.Equal(got[len(got)-2:], []string{"systemctl stop chronyd.service", "systemctl mask chronyd.service"}) {
		t.Errorf("mask: %q", got)
	}
	n.converged(mask)
	_, err = n.plan(spec(t, "  - service: {name: nfs-server, state: started}\n"), 0, true)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing unit: %v", err)
	}
}

func TestMount(t *testing.T) {
	vols := fakenode.ArrayVolumes("st", 2)
	vols[0].FSType = "xfs" // mount refuses a blank device
	n := newNode(t, fakenode.Storage, vols...)
	s := spec(t, "  - mount: {device: /dev/disk/by-id/wwn-0x"+vols[0].WWN+", path: /data/st01, fstype: xfs, options: [noatime, largeio]}\n")
	p, err := n.plan(s, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Diff(), "+/dev/disk/by-id/wwn-0x"+vols[0].WWN+" /data/st01 xfs noatime,largeio 0 0\n") {
		t.Errorf("fstab diff:\n%s", p.Diff())
	}
	n.apply(s)
	if !strings.Contains(n.read("proc/mounts"), "/dev/sdb /data/st01 xfs noatime,largeio 0 0\n") {
		t.Errorf("not mounted:\n%s", n.read("proc/mounts"))
	}
	n.converged(s)
	// Another device already mounted there: refuse.
	other := spec(t, "  - mount: {device: /dev/sdc, path: /data/st01, fstype: xfs, persist: none}\n")
	if _, err := n.plan(other, 0, true); err == nil || !strings.Contains(err.Error(), "refusing to mount over it") {
		t.Errorf("mount over: %v", err)
	}
	missing := spec(t, "  - mount: {device: /dev/disk/by-id/wwn-0x600c0ff0000000000000000000000000, path: /data/x, fstype: xfs}\n")
	if _, err := n.plan(missing, 0, true); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "mapped to this host") {
		t.Errorf("missing device: %v", err)
	}
	// Restore the fstab line and the mount.
	for _, st := range p.Steps {
		for _, o := range st.Origs {
			if _, err := Restore(context.Background(), n.env(s, false), &o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.Contains(n.read("proc/mounts"), "/data/st01") || strings.Contains(n.read("etc/fstab"), "/data/st01") {
		t.Error("restore left the mount")
	}
}

func TestCommand(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, "  - command: {argv: [beegfs-setup-storage, -p, /data/st01, -i, \"101\"], creates: /data/st01/targetNumID}\n")
	p, err := n.plan(s, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Diff() != "would run: beegfs-setup-storage -p /data/st01 -i 101\n" {
		t.Errorf("check diff %q", p.Diff())
	}
	n.apply(s)
	if got := n.commands(); !slices.Equal(got, []string{"beegfs-setup-storage -p /data/st01 -i 101"}) {
		t.Errorf("commands %q", got)
	}
	n.converged(s)
	u := spec(t, "  - command: {argv: [mkfs.xfs, /dev/sdb], unless: [blkid, /dev/sdb]}\n")
	p, _ = n.plan(u, 0, false)
	if p.Diff() != "run: mkfs.xfs /dev/sdb\n" {
		t.Errorf("unless guard in a fake root: %q", p.Diff())
	}
}

func TestPackageVersion(t *testing.T) {
	tests := []struct {
		profile fakenode.Profile
		item    string
		want    string // "" = passes
	}{
		{fakenode.Storage, "{name: lvm2, min: \"2.02.180-10.el7_6.2\"}", ""},
		{fakenode.Storage, "{name: lvm2, min: \"8:2.03.11-5.el8\"}", ""},
		{fakenode.Storage, "{name: lvm2, min: \"8:2.03.11-6.el8\"}", "lvm2 8:2.03.11-5.el8 is installed; at least 8:2.03.11-6.el8 is required"},
		{fakenode.Storage, "{name: resource-agents, min: \"4.1.1-12.el7_6.4\"}", ""},
		{fakenode.Storage, "{name: kernel, min: \"4.18.0-305.10.2.el8\"}", "kernel 0:4.18.0-305.3.1.el8 is installed"},
		{fakenode.Storage, "{name: pacemaker, min: \"1.0\"}", "pacemaker is not installed"},
		// The refusal says why the floor is there.
		{fakenode.Storage, "{name: lvm2, min: \"8:2.03.11-6.el8\", why: \"the first 128 KB of a PV can be corrupted\"}",
			"lvm2 8:2.03.11-5.el8 is installed; at least 8:2.03.11-6.el8 is required (below it: the first 128 KB of a PV can be corrupted)"},
		{fakenode.Storage, "{name: pacemaker, min: \"1.0\", why: \"no cluster\"}", "pacemaker is not installed; at least 1.0 is required (below it: no cluster)"},
		{fakenode.Client, "{name: lvm2, min: \"2.03.11-2\"}", ""},
		{fakenode.Client, "{name: lvm2, min: \"2.03.11-2.1ubuntu5\"}", "lvm2 2.03.11-2.1ubuntu4 is installed"},
	}
	for _, tt := range tests {
		t.Run(string(tt.profile)+tt.item, func(t *testing.T) {
			n := newNode(t, tt.profile)
			_, err := n.plan(spec(t, "  - package_version: "+tt.item+"\n"), 0, true)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrPreflight)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// A floor is about the release its dist tag (or platforms) names: on
	// the el8 node an el7 floor is not checked, with a warning; el8 is.
	platforms := []struct {
		item, err, warning string
	}{
		{"{name: pacemaker, min: \"1.1.19-8.el7_6.4\"}", "", "floor pacemaker >= 1.1.19-8.el7_6.4 is for el7; this node is el8: not checked"},
		{"{name: pacemaker, min: \"1.0\", platforms: [el9, el10]}", "", "is for el9, el10; this node is el8: not checked"},
		{"{name: pacemaker, min: \"2.0.5-9.el8\"}", "pacemaker is not installed; at least 2.0.5-9.el8 is required", ""},
		{"{name: pacemaker, min: \"1.0\", platforms: [el8]}", "pacemaker is not installed", ""},
	}
	for _, tt := range platforms {
		p, err := newNode(t, fakenode.Storage).plan(spec(t, "  - package_version: "+tt.item+"\n"), 0, true)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: err = %v, want %q", tt.item, err, tt.err)
		}
		if got := strings.Join(p.Warnings, "; "); tt.warning != "" && !strings.Contains(got, tt.warning) {
			t.Errorf("%s: warnings %q, want %q", tt.item, got, tt.warning)
		}
	}
	// On a node outside the Red Hat family an el7 floor is not checked.
	p, err := newNode(t, fakenode.Client).plan(spec(t, "  - package_version: {name: kernel, min: \"3.10.0-957.5.1.el7\"}\n"), 0, true)
	if err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "this node is not of the Red Hat family") {
		t.Errorf("el7 floor on Ubuntu: err %v, warnings %q", err, p.Warnings)
	}

	// The running kernel counts, not only the installed package.
	n := newNode(t, fakenode.Storage)
	n.write(FakeRPMDB[1:], "kernel\t0:4.18.0-305.3.1.el8\tx86_64\nkernel\t0:4.18.0-348.el8\tx86_64\n")
	_, err = n.plan(spec(t, "  - package_version: {name: kernel, min: \"4.18.0-348.el8\"}\n"), 0, true)
	if err == nil || !strings.Contains(err.Error(), "running kernel 4.18.0-305.3.1.el8 is below 4.18.0-348.el8") {
		t.Errorf("running kernel: %v", err)
	}
}

func TestCompareVersions(t *testing.T) {
	rpm := []struct {
		a, b string
		want int
	}{
		{"3.10.0-957.el7", "3.10.0-957.5.1.el7", -1},
		{"2.02.180-10.el7_6.2", "2.02.180-10.el7_6.1", 1},
		{"4.1.1-12.el7_6.4", "4.1.1-12.el7_6.4", 0},
		{"1:1.0-1", "2.0-1", 1},
		{"1.0~rc1-1", "1.0-1", -1},
		{"1.0^git1-1", "1.0-1", 1},
		{"1.0^git1-1", "1.0.1-1", -1},
		{"1.010", "1.9", 1},
		{"1.0a", "1.0", 1},
		{"1.0", "1.0", 0},
		{"2.0", "2.0-5", 0},
		{"5.0.0-8.el8", "5.0.0", 0},
	}
	for _, tt := range rpm {
		if got := CompareRPM(tt.a, tt.b); got != tt.want {
			t.Errorf("rpm %s vs %s = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := CompareRPM(tt.b, tt.a); got != -tt.want {
			t.Errorf("rpm %s vs %s = %d, want %d (antisymmetry)", tt.b, tt.a, got, -tt.want)
		}
	}
	deb := []struct {
		a, b string
		want int
	}{
		{"1.0~rc1", "1.0", -1},
		{"1.0", "1.0+b1", -1},
		{"1:0.1", "2.0", 1},
		{"2.03.11-2.1ubuntu4", "2.03.11-2.1ubuntu5", -1},
		{"1.0-1", "1.0-1", 0},
		{"1.0a", "1.0+", -1},
		{"5.15.0-91.101", "5.15.0-91.99", 1},
	}
	for _, tt := range deb {
		if got := CompareDpkg(tt.a, tt.b); got != tt.want {
			t.Errorf("dpkg %s vs %s = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := CompareDpkg(tt.b, tt.a); got != -tt.want {
			t.Errorf("dpkg %s vs %s = %d, want %d (antisymmetry)", tt.b, tt.a, got, -tt.want)
		}
	}
}

// TestStripeCommands: a read-only query runs in check mode and returns its
// output without counting as a change; an unless_match guard reruns the
// command when the query's output shows a hand change.
func TestStripeCommands(t *testing.T) {
	n := newNode(t, fakenode.Client)
	probe := spec(t, "  - command: {name: info, argv: [beegfs-ctl, --getentryinfo, /mnt/beegfs/bench], read_only: true}\n")
	p, err := n.plan(probe, 0, true)
	if err != nil || p.Changed() || !strings.Contains(p.Output, "+ Chunksize: 512K\n") {
		t.Fatalf("probe before: %+v %v", p, err)
	}
	set := spec(t, `  - command:
      name: setpattern
      argv: [/bin/sh, -c, 'dir=$1; shift; mkdir -p "$dir" && exec "$@"', x, /mnt/beegfs/bench, beegfs-ctl, --setpattern, --chunksize=1m, --numtargets=1, --storagepoolid=1, /mnt/beegfs/bench]
      unless: [beegfs-ctl, --getentryinfo, /mnt/beegfs/bench]
      unless_match: ['(?m)^\+ Chunksize: 1M$', '(?m)^\+ Number of storage targets: desired: 1$']
`)
	if p, _ := n.plan(set, 0, true); !p.Changed() {
		t.Fatal("setpattern not planned")
	}
	n.apply(set)
	n.converged(set)
	p, err = n.plan(probe, 0, false)
	if err != nil || p.Changed() || !strings.Contains(p.Output, "+ Chunksize: 1M\n+ Number of storage targets: desired: 1\n+ Storage Pool: 1 (Default)\n") {
		t.Fatalf("probe after: %q %v", p.Output, err)
	}
	// A hand change: the guard no longer holds.
	if err := (runner.Sim{Root: n.root}).Run(context.Background(), "beegfs-ctl", "--setpattern", "--numtargets=4", "/mnt/beegfs/bench"); err != nil {
		t.Fatal(err)
	}
	if p, _ := n.plan(set, 0, true); !p.Changed() {
		t.Error("hand change not seen by the guard")
	}
	n.apply(set)
	n.converged(set)
	// A failing query is an item error with its exit status.
	bad := spec(t, "  - command: {argv: [beegfs-ctl, --no-such-mode], read_only: true}\n")
	if _, err := n.plan(bad, 0, true); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("failing query: %v", err)
	}
}

// On a Rocky 9 node R2's RHEL 7 floors are not checked (each says so), and
// floors written for el9 are checked against its el9 packages.
func TestPackageFloorsOnRocky9(t *testing.T) {
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Release: fakenode.ReleaseRocky9, Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	n := &node{t: t, root: root, dir: dir}
	cases := []struct{ item, err, warning string }{
		{`{name: kernel, min: "3.10.0-957.5.1.el7"}`, "", "is for el7; this node is el9: not checked"},
		{`{name: resource-agents, min: "4.1.1-12.el7_6.4"}`, "", "is for el7; this node is el9: not checked"},
		{`{name: kernel, min: "5.14.0-427.el9"}`, "", ""},
		{`{name: kernel, min: "5.14.0-503.11.1.el9_5"}`, "kernel 0:5.14.0-427.13.1.el9_4 is installed; at least 5.14.0-503.11.1.el9_5 is required", ""},
		{`{name: lvm2, min: "9:2.03.23-2.el9"}`, "", ""},
		{`{name: beegfs-storage, min: "7.4.2", platforms: [el9]}`, "", ""},
	}
	for _, c := range cases {
		p, err := n.plan(spec(t, "  - package_version: "+c.item+"\n"), 0, true)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: err = %v, want %q", c.item, err, c.err)
		}
		got := strings.Join(p.Warnings, "; ")
		if c.warning == "" && got != "" || !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q, want %q", c.item, got, c.warning)
		}
	}
	if err := fakenode.SeedWith(t.TempDir(), fakenode.Client, fakenode.Options{Release: fakenode.ReleaseRocky9}); err == nil {
		t.Error("an Ubuntu profile took the Rocky 9 release")
	}
}
