package halvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// r2 is R2's volume group: 8 RAID6 8+2 volumes with 512 KiB segments.
func r2() VolumeGroup {
	v := VolumeGroup{Name: "vg_nfs", LogicalVolume: "lv_nfs", SegmentBytes: 512 << 10, DataDrives: 8}
	for i := 1; i <= 8; i++ {
		v.Devices = append(v.Devices, fmt.Sprintf("/dev/mapper/nfs_vol%d", i))
	}
	return v
}

func TestR2Commands(t *testing.T) {
	v := r2()
	for got, want := range map[string]string{
		strings.Join(v.VGCreateArgv(), " "): "vgcreate --physicalextentsize 4096k --addtag hpcstorage_creating vg_nfs /dev/mapper/nfs_vol1 /dev/mapper/nfs_vol2 /dev/mapper/nfs_vol3 " +
			"/dev/mapper/nfs_vol4 /dev/mapper/nfs_vol5 /dev/mapper/nfs_vol6 /dev/mapper/nfs_vol7 /dev/mapper/nfs_vol8",
		strings.Join(v.LVCreateArgv(), " "): "lvcreate --yes --type striped --stripes 8 --stripesize 4096k --extents 100%FREE --name lv_nfs vg_nfs",
		strings.Join(v.MkfsArgv(), " "):     "mkfs.xfs -q -d su=4096k,sw=8 -l su=256k /dev/vg_nfs/lv_nfs",
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	// A larger stripe than LVM's default extent grows the extent.
	v.SegmentBytes = 1 << 20
	if v.ExtentBytes() != 8<<20 || v.VGCreateArgv()[2] != "8192k" {
		t.Errorf("extent %d for an 8 MiB stripe", v.ExtentBytes())
	}
	item, err := r2().CreateItem()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(protocol.Spec{APIVersion: protocol.APIVersion, Owner: "halvm-test", Items: append(NodeItems(), item)})
	if _, err := protocol.ParseSpec(b); err != nil {
		t.Fatalf("agent rejects the rendered spec: %v\n%s", err, b)
	}
	// The guard holds for a finished volume group (foreign ones too, so
	// --foreign) and for one someone else made; it fails while there is
	// none or its creation was cut short.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "vgs"), []byte("#!/bin/sh\necho \"$*\" > "+filepath.Join(bin, "args")+
		"\n[ -n \"$VG_TAGS\" ] || exit 5\necho \"  $VG_TAGS\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for tags, holds := range map[string]bool{"": false, "hpcstorage_creating": false, "other,hpcstorage_creating": false, "x": true} {
		g := item.Command.Unless
		cmd := exec.Command(g[0], g[1:]...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "VG_TAGS="+tags)
		if err := cmd.Run(); (err == nil) != holds {
			t.Errorf("guard with tags %q: %v, want holds=%v", tags, err, holds)
		}
	}
	if args, _ := os.ReadFile(filepath.Join(bin, "args")); strings.TrimSpace(string(args)) != "--foreign --noheadings -o vg_tags vg_nfs" {
		t.Errorf("guard asks vgs %q", args)
	}
}

// LVM itself reads the node config (lvmconfig with LVM_SYSTEM_DIR on a
// temporary folder): system_id_source is uname.
func TestLocalConfWithLVM(t *testing.T) {
	lvmconfig, err := exec.LookPath("lvmconfig")
	if err != nil {
		lvmconfig = "/usr/sbin/lvmconfig"
		if _, err := os.Stat(lvmconfig); err != nil {
			t.Fatal("lvmconfig not found: apt-get install -y lvm2")
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lvm.conf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lvmlocal.conf"), []byte(LocalConfContent), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lvmconfig, "--validate")
	cmd.Env = append(os.Environ(), "LVM_SYSTEM_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "LVM configuration valid") {
		t.Fatalf("lvmconfig --validate: %v\n%s", err, out)
	}
	cmd = exec.Command(lvmconfig, "global/system_id_source")
	cmd.Env = append(os.Environ(), "LVM_SYSTEM_DIR="+dir)
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != `system_id_source="uname"` {
		t.Fatalf("lvmconfig: %v %q", err, out)
	}
}

// xfsprogs' own mkfs.xfs, dry run (-N) on a sparse file the size of a
// small LV, takes the rendered arguments as they are and lays out the
// data section on the full stripe: sunit = 4 MiB, swidth = 8 of them (in
// 4 KiB blocks), without adjusting anything.
func TestMkfsWithXFSProgs(t *testing.T) {
	mkfs, err := exec.LookPath("mkfs.xfs")
	if err != nil {
		mkfs = "/usr/sbin/mkfs.xfs"
		if _, err := os.Stat(mkfs); err != nil {
			t.Fatal("mkfs.xfs not found: apt-get install -y xfsprogs")
		}
	}
	for _, tc := range []struct {
		segment             int64
		sunit, swidth, logs string
	}{
		{512 << 10, "sunit=1024", "swidth=8192 blks", "sunit=64 blks"}, // R2: 512 KiB x 8 data drives
		{16 << 10, "sunit=32", "swidth=256 blks", "sunit=32 blks"},     // 128 KiB stripes: log su follows
	} {
		v := r2()
		v.SegmentBytes = tc.segment
		img := filepath.Join(t.TempDir(), "lv")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, 64<<30); err != nil {
			t.Fatal(err)
		}
		argv := v.MkfsArgv()
		args := append([]string{"-N"}, argv[2:len(argv)-1]...) // without -q, so it prints the layout
		out, err := exec.Command(mkfs, append(args, img)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", mkfs, strings.Join(args, " "), err, out)
		}
		data := regexp.MustCompile(`(?m)^data\s+=.*\n\s+=\s+(sunit=\d+)\s+(swidth=\d+ blks)`).FindSubmatch(out)
		logsec := regexp.MustCompile(`(?m)^log\s+=.*\n\s+=.*(sunit=\d+ blks)`).FindSubmatch(out)
		if data == nil || string(data[1]) != tc.sunit || string(data[2]) != tc.swidth || logsec == nil || string(logsec[1]) != tc.logs ||
			strings.Contains(string(out), "adjusted") {
			t.Errorf("segment %d: want data %s %s, log %s, nothing adjusted:\n%s", tc.segment, tc.sunit, tc.swidth, tc.logs, out)
		}
	}
}

// The creation script, run with stand-ins for the LVM and XFS commands
// that record their arguments: it refuses a used device unless wipe, and
// otherwise runs vgcreate (which makes the physical volumes), lvcreate,
// mkfs.xfs and vgchange -an in that order with the rendered arguments.
func TestCreateScript(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	for _, name := range []string{"pvcreate", "vgcreate", "lvcreate", "mkfs.xfs", "vgchange", "wipefs"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + log + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// blkid reports a signature for the devices listed in $SIGNED.
	blkid := "#!/bin/sh\nfor a; do d=$a; done\ncase \" $SIGNED \" in *\" $d \"*) [ \"$5\" = TYPE ] && echo xfs; exit 0;; esac\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "blkid"), []byte(blkid), 0o755); err != nil {
		t.Fatal(err)
	}
	runScript := func(v VolumeGroup, signed string) (string, error) {
		os.Remove(log)
		item, err := v.CreateItem()
		if err != nil {
			t.Fatal(err)
		}
		argv := item.Command.Argv
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "SIGNED="+signed)
		out, err := cmd.CombinedOutput()
		got, _ := os.ReadFile(log)
		return string(got) + string(out), err
	}
	v := r2()
	got, err := runScript(v, "")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	want := strings.Join(v.VGCreateArgv(), " ") + "\n" + strings.Join(v.LVCreateArgv(), " ") + "\n" +
		"vgchange --activate y vg_nfs\n" + strings.Join(v.MkfsArgv(), " ") +
		"\nvgchange --deltag hpcstorage_creating vg_nfs\nvgchange --activate n vg_nfs\n"
	if got != want {
		t.Fatalf("commands:\n%s\nwant:\n%s", got, want)
	}
	// A run cut short after vgcreate resumes: no second vgcreate, the
	// rest as before.
	if err := os.WriteFile(filepath.Join(bin, "vgs"), []byte("#!/bin/sh\necho '  vg_nfs'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err = runScript(v, "/dev/mapper/nfs_vol3")
	resumed := strings.Join(v.LVCreateArgv(), " ") + "\n" + "vgchange --activate y vg_nfs\n" + strings.Join(v.MkfsArgv(), " ") +
		"\nvgchange --deltag hpcstorage_creating vg_nfs\nvgchange --activate n vg_nfs\n"
	if err != nil || got != resumed {
		t.Fatalf("resume: %v\n%s\nwant:\n%s", err, got, resumed)
	}
	os.Remove(filepath.Join(bin, "vgs"))
	got, err = runScript(v, "/dev/mapper/nfs_vol3")
	if err == nil || !strings.Contains(got, "/dev/mapper/nfs_vol3 holds a xfs signature") || strings.Contains(got, "vgcreate") {
		t.Fatalf("a used device is not refused: %v\n%s", err, got)
	}
	v.Wipe = true
	got, err = runScript(v, "/dev/mapper/nfs_vol3")
	if err != nil || !strings.HasPrefix(got, "wipefs -a /dev/mapper/nfs_vol1\n") || !strings.Contains(got, "mkfs.xfs") {
		t.Fatalf("wipe: %v\n%s", err, got)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		change   func(v *VolumeGroup)
		at, want string
	}{
		{func(v *VolumeGroup) { v.Devices = nil }, "devices", "want the multipathed volumes"},
		{func(v *VolumeGroup) { v.Devices[1] = v.Devices[0] }, "devices[1]", "/dev/mapper/nfs_vol1 is also devices[0]"},
		{func(v *VolumeGroup) { v.Devices[0] = "/dev/mapper/a b" }, "devices[0]", `"/dev/mapper/a b"`},
		{func(v *VolumeGroup) { v.Name = "vg nfs" }, "volume_group", `"vg nfs"`},
		{func(v *VolumeGroup) { v.LogicalVolume = "-lv" }, "logical_volume", `"-lv"`},
		{func(v *VolumeGroup) { v.DataDrives = 10 }, "segment_size_bytes", "a full stripe of 5242880 bytes"},
		{func(v *VolumeGroup) { v.SegmentBytes = 1000 }, "segment_size_bytes", "1000: want a multiple of 512"},
		{func(v *VolumeGroup) { v.DataDrives = 0 }, "data_drives", "0: want 1 to 64"},
	} {
		v := r2()
		tc.change(&v)
		_, err := v.CreateItem()
		le, ok := located.Find(err)
		if !errors.Is(err, ErrInvalid) || !ok || le.Path.String() != tc.at || !strings.Contains(le.Err.Error(), tc.want) {
			t.Errorf("%v, want %q at %s", err, tc.want, tc.at)
		}
	}
}
