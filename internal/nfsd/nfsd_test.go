package nfsd

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

func TestR2Items(t *testing.T) {
	items, err := Server{Threads: DefaultThreads, IdmapDomain: "hpc.example.com"}.Items()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(protocol.Spec{APIVersion: protocol.APIVersion, Owner: "nfsd-test", Items: append(items, ThreadsProbe())})
	if _, err := protocol.ParseSpec(b); err != nil {
		t.Fatalf("agent rejects the rendered spec: %v\n%s", err, b)
	}
	conf := *items[0].File.Content
	if items[0].File.Path != NFSConf || !strings.Contains(conf, "\n[nfsd]\nthreads=256\n") {
		t.Errorf("nfs.conf:\n%s", conf)
	}
	idmap := *items[1].File.Content
	if items[1].File.Path != IdmapdConf || !strings.Contains(idmap, "[General]\nDomain = hpc.example.com\n") {
		t.Errorf("idmapd.conf:\n%s", idmap)
	}
	svc := items[2].Service
	if svc == nil || svc.Name != Unit || svc.Enabled == nil || *svc.Enabled || svc.State != "" {
		t.Errorf("the NFS unit must be disabled at boot and left running or not: %+v", svc)
	}
	if _, err := (Server{Threads: 8}).Items(); err != nil {
		t.Error(err)
	}
	if idmap := (Server{Threads: 8}).IdmapdContent(); strings.Contains(idmap, "Domain") {
		t.Errorf("no domain given, yet:\n%s", idmap)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		s        Server
		at, want string
	}{
		{Server{Threads: 0}, "threads", "0: want 1 to 8192"},
		{Server{Threads: 8193}, "threads", "8193: want 1 to 8192"},
		{Server{Threads: 256, IdmapDomain: "hpc example"}, "idmap_domain", `"hpc example"`},
	} {
		_, err := tc.s.Items()
		le, ok := located.Find(err)
		if !errors.Is(err, ErrInvalid) || !ok || le.Path.String() != tc.at || !strings.Contains(le.Err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q at %s", tc.s, err, tc.want, tc.at)
		}
	}
}

// The probe is a shell script: run it against a file standing in for
// /proc/fs/nfsd/threads, and against none.
func TestThreadsProbe(t *testing.T) {
	argv := ThreadsProbe().Command.Argv
	dir := t.TempDir()
	f := filepath.Join(dir, "threads")
	if err := os.WriteFile(f, []byte("256\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]int{f: 256, filepath.Join(dir, "missing"): 0} {
		args := append(append([]string{}, argv[1:len(argv)-1]...), file)
		out, err := exec.Command(argv[0], args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		n, running, err := ParseThreads(string(out))
		if err != nil || n != want || running != (want > 0) {
			t.Errorf("%s: %d %v %v, want %d", file, n, running, err, want)
		}
	}
	if _, _, err := ParseThreads("lots"); err == nil {
		t.Error("a non-number parses")
	}
}

// nfs-utils' own parser (nfsconf, Debian nfs-common) reads the rendered
// files as rpc.nfsd and idmapd will.
func TestNfsconfReadsThem(t *testing.T) {
	nfsconf, err := exec.LookPath("nfsconf")
	if err != nil {
		nfsconf = "/usr/sbin/nfsconf"
		if _, err := os.Stat(nfsconf); err != nil {
			t.Fatal("nfsconf not found: apt-get install -y nfs-common")
		}
	}
	s := Server{Threads: 512, IdmapDomain: "hpc.example.com"}
	dir := t.TempDir()
	for _, tc := range []struct {
		file, content, section, key, want string
	}{
		{"nfs.conf", s.NFSConfContent(), "nfsd", "threads", "512"},
		{"idmapd.conf", s.IdmapdContent(), "General", "Domain", "hpc.example.com"},
		{"idmapd.conf", s.IdmapdContent(), "Mapping", "Nobody-User", "nobody"},
	} {
		f := filepath.Join(dir, tc.file)
		if err := os.WriteFile(f, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(nfsconf, "--file", f, "--get", tc.section, tc.key).Output()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("nfsconf --get %s %s in %s: %q %v, want %s", tc.section, tc.key, tc.file, out, err, tc.want)
		}
	}
}
