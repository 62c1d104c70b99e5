package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// node is a seeded storage root with the simulator installed, driven the
// way the agent drives it: through runner.Sim and the built program.
type node struct {
	t   *testing.T
	dir string
	run runner.Sim
}

func newNode(t *testing.T, disks ...fakenode.Disk) *node {
	t.Helper()
	dir := t.TempDir()
	if len(disks) == 0 {
		disks = fakenode.ArrayVolumes("storage01", 2)
	}
	if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Hostname: "storage01", Disks: disks, Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data/st01"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &node{t: t, dir: dir, run: runner.Sim{Root: root}}
}

func (n *node) ok(argv ...string) {
	n.t.Helper()
	if err := n.run.Run(context.Background(), argv...); err != nil {
		n.t.Fatalf("%q: %v", argv, err)
	}
}

// refused runs argv and wants it to fail with msg in its output.
func (n *node) refused(msg string, argv ...string) {
	n.t.Helper()
	err := n.run.Run(context.Background(), argv...)
	if err == nil {
		n.t.Errorf("%q succeeded, want %q", argv, msg)
	} else if !strings.Contains(err.Error(), msg) {
		n.t.Errorf("%q: %v, want %q", argv, err, msg)
	}
}

func (n *node) query(argv ...string) (string, int) {
	n.t.Helper()
	out, code, err := n.run.Query(context.Background(), argv...)
	if err != nil {
		n.t.Fatalf("%q: %v", argv, err)
	}
	return out, code
}

// tool runs the simulator program directly, for its stderr and stdin.
func (n *node) tool(stdin string, argv ...string) (stdout, stderr string, code int) {
	n.t.Helper()
	var o, e strings.Builder
	root, err := fsroot.Open(n.dir)
	if err != nil {
		n.t.Fatal(err)
	}
	defer root.Close()
	code = sim.Run(&sim.Env{Root: root, Stdin: strings.NewReader(stdin), Stdout: &o, Stderr: &e}, argv)
	return o.String(), e.String(), code
}

func (n *node) read(p string) string {
	n.t.Helper()
	b, err := os.ReadFile(filepath.Join(n.dir, p))
	if err != nil && !os.IsNotExist(err) {
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

// TestContractConstants: the simulator and the agent agree on where
// simulators live and how the root is passed.
func TestContractConstants(t *testing.T) {
	if sim.BinDir != runner.SimBinDir || sim.RootEnv != runner.SimRootEnv {
		t.Errorf("sim %s %s, runner %s %s", sim.BinDir, sim.RootEnv, runner.SimBinDir, runner.SimRootEnv)
	}
}

func TestUndoRestoresFilesExactly(t *testing.T) {
	n := newNode(t)
	modules, mounts, units := n.read("proc/modules"), n.read("proc/mounts"), n.read("run/hpcstorage-sim/systemd.json")
	n.ok("mkfs.xfs", "-q", "/dev/sdb")
	for _, argv := range [][]string{
		{"modprobe", "beegfs"}, {"mount", "-t", "xfs", "-o", "noatime", "/dev/sdb", "/data/st01"},
		{"systemctl", "enable", "beegfs-storage.service"}, {"systemctl", "start", "beegfs-storage.service"},
		{"systemctl", "start", "beegfs-meta@meta1.service"},
	} {
		n.ok(argv...)
	}
	if out, code := n.query("systemctl", "is-active", "beegfs-storage.service"); code != 0 || out != "active\n" {
		t.Errorf("is-active = %q %d", out, code)
	}
	if out, code := n.query("systemctl", "is-enabled", "beegfs-storage.service"); code != 0 || out != "enabled\n" {
		t.Errorf("is-enabled = %q %d", out, code)
	}
	if !strings.Contains(n.read("proc/mounts"), "/dev/sdb /data/st01 xfs noatime 0 0") || !strings.Contains(n.read("proc/modules"), "beegfs ") {
		t.Fatalf("effects missing:\n%s\n%s", n.read("proc/mounts"), n.read("proc/modules"))
	}
	for _, argv := range [][]string{{"umount", "/data/st01"}, {"modprobe", "-r", "beegfs"}, {"systemctl", "stop", "beegfs-storage.service"},
		{"systemctl", "disable", "beegfs-storage.service"}, {"systemctl", "stop", "beegfs-meta@meta1.service"}} {
		n.ok(argv...)
	}
	if n.read("proc/modules") != modules || n.read("proc/mounts") != mounts || n.read("run/hpcstorage-sim/systemd.json") != units {
		t.Errorf("undo did not restore:\n%s\n%s\n%s", n.read("proc/modules"), n.read("proc/mounts"), n.read("run/hpcstorage-sim/systemd.json"))
	}
}

// TestSystemctlRefusals: unknown units, masked units, unknown verbs.
func TestSystemctlRefusals(t *testing.T) {
	n := newNode(t)
	n.refused("Unit nfs-server.service not found.", "systemctl", "start", "nfs-server.service")
	n.refused("Unit file nfs-server.service does not exist.", "systemctl", "enable", "nfs-server")
	n.refused("Unit nfs-server.service not loaded.", "systemctl", "stop", "nfs-server.service")
	n.refused("Unknown command verb frobnicate.", "systemctl", "frobnicate", "beegfs-storage.service")
	if out, code := n.query("systemctl", "is-enabled", "nfs-server.service"); out != "" || code != 1 {
		t.Errorf("is-enabled of an unknown unit: %q %d", out, code)
	}
	n.ok("systemctl", "mask", "beegfs-storage.service")
	n.refused("Unit beegfs-storage.service is masked.", "systemctl", "start", "beegfs-storage.service")
	n.refused("is masked", "systemctl", "enable", "beegfs-storage.service")
	if out, code := n.query("systemctl", "is-enabled", "beegfs-storage.service"); out != "masked\n" || code != 1 {
		t.Errorf("is-enabled of a masked unit: %q %d", out, code)
	}
	n.refused("Job type reload is not applicable", "systemctl", "reload", "beegfs-meta.service")
}

// TestSystemctlShow: show prints the asked properties of each unit as
// Key=Value, empty ones only with --all, and exits 0 for a unit without a
// unit file (LoadState=not-found) as systemd does.
func TestSystemctlShow(t *testing.T) {
	n := newNode(t)
	const props = "--property=Id,LoadState,ActiveState,UnitFileState"
	show := func(want string, args ...string) {
		t.Helper()
		out, code := n.query(append([]string{"systemctl", "show"}, args...)...)
		if code != 0 || out != want {
			t.Errorf("systemctl show %q = %q exit %d, want %q exit 0", args, out, code, want)
		}
	}
	show("Id=beegfs-storage.service\nLoadState=loaded\nActiveState=inactive\nUnitFileState=disabled\n", props, "beegfs-storage.service")
	n.ok("systemctl", "enable", "beegfs-storage.service")
	n.ok("systemctl", "start", "beegfs-storage")
	show("Id=beegfs-storage.service\nLoadState=loaded\nActiveState=active\nUnitFileState=enabled\n", props, "beegfs-storage")
	// An instance loads from its template's file.
	show("Id=beegfs-meta@meta1.service\nLoadState=loaded\nActiveState=inactive\nUnitFileState=disabled\n", props, "beegfs-meta@meta1.service")
	// Unknown: exit 0, not-found, no UnitFileState unless --all.
	show("Id=nfs-server.service\nLoadState=not-found\nActiveState=inactive\n", props, "nfs-server.service")
	show("LoadState=not-found\nUnitFileState=\n", "--all", "-p", "LoadState", "-p", "UnitFileState,NoSuchProperty", "nfs-server.service")
	n.ok("systemctl", "stop", "beegfs-storage.service")
	n.ok("systemctl", "mask", "beegfs-storage.service")
	show("masked\nmasked\n", "--value", "-pLoadState,UnitFileState", "beegfs-storage.service")
	// Several units: a blank line between them; without --property the
	// simulated set, SubState included.
	show("Id=beegfs-storage.service\nLoadState=masked\nActiveState=inactive\nSubState=dead\nUnitFileState=masked\n\n"+
		"Id=nfs-server.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\n", "beegfs-storage.service", "nfs-server.service")
	n.refused("not simulated", "systemctl", "show")
}

// TestSystemctlWarnsWithoutDaemonReload: a drop-in written under a
// running unit warns on the next start/restart until daemon-reload, like
// systemctl; a new unit file needs no reload.
func TestSystemctlWarnsWithoutDaemonReload(t *testing.T) {
	n := newNode(t)
	const warn = "Warning: The unit file, source configuration file or drop-ins of beegfs-storage.service changed on disk. Run 'systemctl daemon-reload' to reload units.\n"
	if _, stderr, code := n.tool("", "systemctl", "start", "beegfs-storage.service"); code != 0 || stderr != "" {
		t.Fatalf("start: %d %q", code, stderr)
	}
	// A file newer than the last load (mtimes are coarse: set it).
	n.write("etc/systemd/system/beegfs-storage.service.d/10-limits.conf", "[Service]\nLimitNOFILE=1048576\n")
	st, err := os.Stat(filepath.Join(n.dir, "run/hpcstorage-sim/daemon-reload"))
	if err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(2e9)
	if err := os.Chtimes(filepath.Join(n.dir, "etc/systemd/system/beegfs-storage.service.d/10-limits.conf"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := n.tool("", "systemctl", "restart", "beegfs-storage.service"); code != 0 || stderr != warn {
		t.Errorf("restart without daemon-reload: %d %q", code, stderr)
	}
	n.write("etc/systemd/system/hpc-new.service", "[Service]\nExecStart=/bin/true\n")
	if _, stderr, code := n.tool("", "systemctl", "start", "hpc-new.service"); code != 0 || stderr != "" {
		t.Errorf("start of a new unit: %d %q", code, stderr)
	}
	// daemon-reload's stamp is "now"; move the drop-in back before it.
	n.ok("systemctl", "daemon-reload")
	if err := os.Chtimes(filepath.Join(n.dir, "etc/systemd/system/beegfs-storage.service.d/10-limits.conf"), st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := n.tool("", "systemctl", "restart", "beegfs-storage.service"); code != 0 || stderr != "" {
		t.Errorf("restart after daemon-reload: %d %q", code, stderr)
	}
}

// TestModprobeRefusals: a module the running kernel's lib/modules does
// not have is refused; so is removing one that is not loaded.
func TestModprobeRefusals(t *testing.T) {
	n := newNode(t)
	n.refused("FATAL: Module zfs not found in directory /lib/modules/4.18.0-305.3.1.el8.x86_64", "modprobe", "zfs")
	n.refused("FATAL: Module ib_ipoib is not in kernel.", "modprobe", "-r", "ib_ipoib")
	n.ok("modprobe", "ib-ipoib") // "-" and "_" alike
	n.ok("modprobe", "loop")     // built in: nothing to load
	if got := n.read("proc/modules"); !strings.Contains(got, "\nib_ipoib ") || strings.Contains(got, "loop") {
		t.Errorf("proc/modules:\n%s", got)
	}
}

// TestMountRefusals: missing device, missing mount point, a type that is
// not the device's signature, a blank device, a double mount, and
// umount of what is not mounted.
func TestMountRefusals(t *testing.T) {
	n := newNode(t)
	n.refused("special device /dev/sdz does not exist.", "mount", "-t", "xfs", "/dev/sdz", "/data/st01")
	n.refused("wrong fs type, bad option, bad superblock on /dev/sdb", "mount", "-t", "xfs", "/dev/sdb", "/data/st01")
	n.ok("mkfs.ext4", "-q", "/dev/sdb")
	n.refused("wrong fs type", "mount", "-t", "xfs", "/dev/sdb", "/data/st01")
	n.refused("mount point does not exist.", "mount", "-t", "ext4", "/dev/sdb", "/data/missing")
	n.ok("mount", "/dev/sdb", "/data/st01") // type from the signature
	if !strings.Contains(n.read("proc/mounts"), "/dev/sdb /data/st01 ext4 rw 0 0\n") {
		t.Errorf("proc/mounts:\n%s", n.read("proc/mounts"))
	}
	n.refused("already mounted on /data/st01", "mount", "-t", "ext4", "/dev/sdb", "/data/st01")
	n.refused("contains a mounted filesystem", "mkfs.xfs", "-f", "/dev/sdb")
	n.refused("Device or resource busy", "wipefs", "-a", "/dev/sdb")
	n.ok("umount", "/data/st01")
	n.refused("/data/st01: not mounted.", "umount", "/data/st01")
	// Network and pseudo file systems have no device to check.
	n.ok("mount", "-t", "tmpfs", "tmpfs", "/data/st01")
}

// TestMkfsRefusesASignatureUnlessForced: -f for xfs, -F for ext4 (which
// otherwise asks on stdin and gives up without a "y").
func TestMkfsRefusesASignatureUnlessForced(t *testing.T) {
	disks := fakenode.ArrayVolumes("storage01", 2)
	disks[0].FSType = "ext4"
	n := newNode(t, disks...)
	n.refused("/dev/sdb appears to contain an existing filesystem (ext4).", "mkfs.xfs", "-q", "/dev/sdb")
	n.refused("Proceed anyway? (y,N)", "mkfs.ext4", "-q", "/dev/sdb")
	if out, _, code := n.tool("y\n", "mkfs.ext3", "/dev/sdb"); code != 0 || !strings.Contains(out, "contains a ext4 file system") {
		t.Errorf("mkfs.ext3 answered y: %d %q", code, out)
	}
	n.ok("mkfs.xfs", "-f", "-q", "/dev/sdb")
	n.ok("mkfs.ext4", "-F", "-q", "/dev/sdb")
	n.ok("mkfs.xfs", "-q", "/dev/disk/by-id/wwn-0x"+disks[1].WWN) // blank: no force needed
	if got := n.read(".hpcstorage-sim/data/blkid/sdc"); got != "xfs\n" {
		t.Errorf("signature of sdc %q", got)
	}
	n.refused("cannot open /dev/sdz", "mkfs.xfs", "/dev/sdz")
	n.refused("The file /dev/sdz does not exist", "mkfs.ext4", "/dev/sdz")
	n.refused("probing initialization failed: No such file or directory", "wipefs", "-a", "/dev/sdz")
}

func TestBlkidForms(t *testing.T) {
	disks := fakenode.ArrayVolumes("storage01", 1)
	n := newNode(t, disks...)
	link := "/dev/disk/by-id/wwn-0x" + disks[0].WWN
	if _, code := n.query("blkid", "/dev/sdb"); code != 2 {
		t.Errorf("blank disk: blkid exit %d", code)
	}
	// The provider's format script, mkfs run as "$@".
	n.ok("/bin/sh", "-c", `dev=$1; shift 3; "$@"`, "hpcstorage-format", link, "/m", "0", "mkfs.ext4", "-q", "-J", "size=400", link)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"blkid", "-p", "-o", "value", "-s", "TYPE", "/dev/sdb"}, "ext4\n"},
		{[]string{"blkid", "-p", "-o", "export", "/dev/sdb"}, "DEVNAME=/dev/sdb\nTYPE=ext4\n"},
		{[]string{"blkid", link}, link + ": TYPE=\"ext4\"\n"},
	} {
		if out, code := n.query(c.argv...); code != 0 || out != c.want {
			t.Errorf("%q: %q %d, want %q", c.argv, out, code, c.want)
		}
	}
	n.ok("wipefs", "-a", link)
	if _, code := n.query("blkid", "-p", "/dev/sdb"); code != 2 {
		t.Errorf("after wipefs: blkid exit %d, want 2", code)
	}
}

func TestBeegfsStripe(t *testing.T) {
	n := newNode(t)
	info := func(p string) string {
		out, code := n.query("beegfs-ctl", "--getentryinfo", p)
		if code != 0 {
			t.Fatalf("getentryinfo %s: %d", p, code)
		}
		return out
	}
	if out := info("/mnt/beegfs/bench"); !strings.Contains(out, "Stripe pattern details:\n+ Type: RAID0\n+ Chunksize: 512K\n+ Number of storage targets: desired: 4\n+ Storage Pool: 1 (Default)\n") {
		t.Errorf("default pattern:\n%s", out)
	}
	// The provider's stripe item: its script makes the folder, then runs
	// beegfs-ctl as "$@".
	items, err := beegfs.Stripe{MountPoint: "/mnt/beegfs", Path: "bench", ChunkSize: 1 << 20, NumTargets: 1, Pool: 2}.Items()
	if err != nil {
		t.Fatal(err)
	}
	n.ok(items[0].Command.Argv...)
	if st, err := os.Stat(filepath.Join(n.dir, "mnt/beegfs/bench")); err != nil || !st.IsDir() {
		t.Errorf("the script's mkdir -p did not create the folder in the root: %v", err)
	}
	if out := info("/mnt/beegfs/bench/sub"); !strings.Contains(out, "+ Chunksize: 1M\n+ Number of storage targets: desired: 1\n+ Storage Pool: 2\n") {
		t.Errorf("inherited pattern:\n%s", out)
	}
	n.ok("beegfs-ctl", "--setpattern", "--numtargets=8", "/mnt/beegfs/bench")
	if out := info("/mnt/beegfs/bench"); !strings.Contains(out, "+ Chunksize: 1M\n+ Number of storage targets: desired: 8\n+ Storage Pool: 2\n") {
		t.Errorf("after a partial setpattern:\n%s", out)
	}
	n.refused("a power of two of at least 64k", "beegfs-ctl", "--setpattern", "--chunksize=1000", "/mnt/beegfs/bench")
	if _, code := n.query("beegfs-ctl", "--liststoragepools"); code == 0 {
		t.Error("an unmodelled beegfs-ctl mode reported success")
	}
}

// TestShellFormatScript runs the provider's own format script
// (beegfs.Target.FormatCommand: refuse a signature unless wipe, wipefs,
// mkfs, marker) through the simulated sh: its files land in the root,
// never on the host.
func TestShellFormatScript(t *testing.T) {
	disks := fakenode.ArrayVolumes("storage01", 1)
	disks[0].FSType = "ext4"
	n := newNode(t, disks...)
	target := beegfs.Target{WWN: disks[0].WWN, Kind: beegfs.KindStorage, MountPoint: "/data/st01", SegmentBytes: 512 << 10, DataDrives: 8}
	n.refused("exit status 3: "+beegfs.DevicePath(disks[0].WWN)+" already has a signature (ext4); refusing", target.FormatCommand().Argv...)
	if got := n.read(".hpcstorage-sim/data/blkid/sdb"); got != "ext4\n" {
		t.Errorf("the refused format changed the signature: %q", got)
	}
	target.Wipe = true
	format := target.FormatCommand()
	n.ok(format.Argv...)
	if got := n.read(".hpcstorage-sim/data/blkid/sdb"); got != "xfs\n" {
		t.Errorf("signature %q", got)
	}
	if got := n.read(format.Creates[1:]); got != strings.Join(target.MkfsArgv(), " ")+"\n" {
		t.Errorf("marker %q", got)
	}
	if _, err := os.Stat(format.Creates); err == nil {
		t.Fatalf("the script wrote %s on the host", format.Creates)
	}
	log, err := runner.ReadLog(n.run.Root)
	if err != nil || len(log) != 2 || !slices.Equal(log[1], format.Argv) {
		t.Errorf("log %q %v", log, err)
	}
}

// TestPowerCycle: a reboot keeps what a real node keeps on disk (enabled
// units, fstab, modules-load.d, signatures) and loses the rest: a unit
// started but not enabled comes back stopped, a mount not in fstab and a
// module not in modules-load.d are gone.
func TestPowerCycle(t *testing.T) {
	disks := fakenode.ArrayVolumes("storage01", 2)
	disks[0].FSType, disks[1].FSType = "xfs", "xfs"
	n := newNode(t, disks...)
	if err := os.MkdirAll(filepath.Join(n.dir, "data/st02"), 0o755); err != nil {
		t.Fatal(err)
	}
	n.ok("systemctl", "enable", "beegfs-storage.service")
	n.ok("systemctl", "start", "beegfs-storage.service")
	n.ok("systemctl", "start", "beegfs-meta.service") // started, not enabled
	n.ok("mount", "-t", "xfs", "-o", "noatime", "/dev/sdb", "/data/st01")
	n.ok("mount", "-t", "xfs", "/dev/sdc", "/data/st02")
	n.write("etc/fstab", n.read("etc/fstab")+"/dev/disk/by-id/wwn-0x"+disks[0].WWN+" /data/st01 xfs noatime,nofail 0 0\n")
	n.ok("modprobe", "ib_ipoib")
	n.ok("modprobe", "rdma_ucm")
	n.write("etc/modules-load.d/rdma.conf", "# boot\nrdma_ucm\n")
	if err := sim.PowerOff(n.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.dir, "run/hpcstorage-sim/daemon-reload")); !os.IsNotExist(err) {
		t.Errorf("power off kept run/hpcstorage-sim/daemon-reload: %v", err)
	}
	if out, _ := n.query("systemctl", "is-active", "beegfs-storage.service"); out != "inactive\n" {
		t.Errorf("powered off, beegfs-storage is %q", out)
	}
	if err := sim.Boot(n.dir); err != nil {
		t.Fatal(err)
	}
	for unit, want := range map[string]string{"beegfs-storage.service": "active\n", "beegfs-meta.service": "inactive\n", "sshd.service": "active\n"} {
		if out, _ := n.query("systemctl", "is-active", unit); out != want {
			t.Errorf("after boot %s is %q, want %q", unit, out, want)
		}
	}
	if out, code := n.query("systemctl", "is-enabled", "beegfs-storage.service"); code != 0 || out != "enabled\n" {
		t.Errorf("enablement lost: %q %d", out, code)
	}
	mounts, modules := n.read("proc/mounts"), n.read("proc/modules")
	if !strings.Contains(mounts, "/dev/sdb /data/st01 xfs noatime,nofail 0 0\n") || strings.Contains(mounts, "/data/st02") {
		t.Errorf("mounts after boot:\n%s", mounts)
	}
	if !strings.Contains(modules, "\nrdma_ucm ") || strings.Contains(modules, "ib_ipoib") || !strings.HasPrefix(modules, "xfs ") {
		t.Errorf("modules after boot:\n%s", modules)
	}
	if got := n.read(".hpcstorage-sim/data/blkid/sdc"); got != "xfs\n" {
		t.Errorf("a reboot lost a disk's signature: %q", got)
	}
}
