package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

func TestSeedNode(t *testing.T) {
	t.Setenv(sim.BinEnv, simtest.Binary(t))
	dir := filepath.Join(t.TempDir(), "node")
	var out, errb bytes.Buffer
	if err := seedNode([]string{"--dir", dir, "--profile", "metadata", "--hostname", "meta01", "--volumes", "3"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "seeded metadata node meta01") {
		t.Errorf("stdout %q", out.String())
	}
	for _, p := range []string{"etc/beegfs/beegfs-meta.conf", "sys/block/sdd/queue/scheduler", "proc/sys/kernel/hostname",
		".hpcstorage-sim/bin/hpcstorage-sim", ".hpcstorage-sim/bin/systemctl", "lib/modules/4.18.0-305.3.1.el8.x86_64/modules.dep"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "etc/hostname")); string(b) != "meta01\n" {
		t.Errorf("hostname %q", b)
	}
}

func TestSeedNodeBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "--dir is required"},
		{[]string{"--dir", t.TempDir(), "--profile", "gateway"}, "unknown node profile"},
		{[]string{"--dir", t.TempDir(), "--volumes", "-1"}, "--volumes -1"},
		{[]string{"--dir", t.TempDir(), "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		err := seedNode(tt.args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
	err := seedNode([]string{"--dir", t.TempDir(), "--profile", "x"}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.Is(err, fakenode.ErrUnknownProfile) {
		t.Errorf("not wrapped: %v", err)
	}
}
