package facts

import (
	"context"
	"slices"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"0-3", []int{0, 1, 2, 3}},
		{"0-1,8,10-11\n", []int{0, 1, 8, 10, 11}},
		{"", []int{}},
		{"5-2,x,7", []int{7}},
	}
	for _, tt := range tests {
		if got := ParseCPUList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestGatherClient(t *testing.T) {
	dir := t.TempDir()
	if err := fakenode.SeedWith(dir, fakenode.Client, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f, err := Gather(context.Background(), root, runner.Sim{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if f.OS.ID != "ubuntu" || f.CPUs != 64 || f.CPUModel != "AMD EPYC 7543 32-Core Processor" || f.PackageManager != "dpkg" {
		t.Errorf("facts %+v", f)
	}
	if len(f.BlockDevices) != 1 || f.BlockDevices[0].Name != "nvme0n1" || f.BlockDevices[0].WWN != "" || f.BlockDevices[0].WWID == "" {
		t.Errorf("disks %+v", f.BlockDevices)
	}
	found := false
	for _, p := range f.Packages {
		found = found || p.Name == "beegfs-client" && p.Version == "7.2"
	}
	if !found {
		t.Errorf("packages %+v", f.Packages)
	}
}

// TestGatherSignatures: a fake root's disks report the signature the
// simulation records (cabled with a file system, or formatted by mkfs).
func TestGatherSignatures(t *testing.T) {
	dir := t.TempDir()
	disks := fakenode.ArrayVolumes("storage01", 2)
	disks[0].FSType = "xfs"
	if err := fakenode.SeedWith(dir, fakenode.Storage, fakenode.Options{Disks: disks, Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	run := runner.Sim{Root: root}
	fstypes := func() map[string]string {
		f, err := Gather(context.Background(), root, run)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, d := range f.BlockDevices {
			out[d.Name] = d.FSType
		}
		return out
	}
	if got := fstypes(); got["sdb"] != "xfs" || got["sdc"] != "" || got["sda"] != "" {
		t.Errorf("before mkfs: %v", got)
	}
	if err := run.Run(context.Background(), "mkfs.ext4", "-q", "/dev/disk/by-id/wwn-0x"+disks[1].WWN); err != nil {
		t.Fatal(err)
	}
	if got := fstypes(); got["sdb"] != "xfs" || got["sdc"] != "ext4" {
		t.Errorf("after mkfs: %v", got)
	}
}
