package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// baselineDir is the Ansible baseline beside the repository, when present.
func baselineDir(t *testing.T) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Skip(err)
	}
	d := filepath.Join(root, "..", "shared", "bench", "ansible")
	if _, err := os.Stat(filepath.Join(d, "playbook.yml")); err != nil {
		t.Skipf("no Ansible baseline here: %v", err)
	}
	return d
}

func TestRenderStorageConf(t *testing.T) {
	tmpl := "# for {{ inventory_hostname }}\nsysMgmtdHost = mgmt01\nstoreStorageDirectory = " + storeDirsLoop + "\n\nlogLevel = 3\n"
	got, err := renderStorageConf(tmpl, "h7")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 1; i <= 16; i++ {
		dirs = append(dirs, fmt.Sprintf("/data/beegfs/h7/target%02d", i))
	}
	want := "# for h7\nsysMgmtdHost = mgmt01\nstoreStorageDirectory = " + strings.Join(dirs, ",") + "\nlogLevel = 3\n"
	if got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"no loop here\n", tmpl + "x = {{ other }}\n"} {
		if _, err := renderStorageConf(bad, "h1"); err == nil {
			t.Errorf("template %q rendered without error", bad)
		}
	}
}

// The specs made from the baseline's own files are valid agent specs with
// the playbook's files, byte for byte.
func TestBaselineSpecs(t *testing.T) {
	env, err := newFleetEnv(baselineDir(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := env.baselineSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 {
		t.Fatalf("%d specs", len(specs))
	}
	sysctl, _ := os.ReadFile(filepath.Join(env.ansDir, "files/90-beegfs.conf"))
	for i, b := range specs {
		s, err := protocol.ReadSpec(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("h%d: %v", i, err)
		}
		if len(s.Items) != 6 {
			t.Errorf("h%d: %d items, want 6", i, len(s.Items))
		}
		if !strings.Contains(string(b), "/data/beegfs/h"+strconv.Itoa(i)+"/target16") || !bytes.Contains(b, []byte(`"touch","/run/beegfs-storage.restarted"`)) {
			t.Errorf("h%d spec: %s", i, b)
		}
		if !strings.Contains(string(b), strings.ReplaceAll(strings.TrimSuffix(string(sysctl), "\n"), "\n", `\n`)) {
			t.Errorf("h%d: sysctl drop-in content is not the baseline's file", i)
		}
	}
}

func TestBenchFleetBadInput(t *testing.T) {
	var out, errb bytes.Buffer
	if err := benchFleet([]string{"--n", "0"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "--n 0") {
		t.Errorf("--n 0: %v", err)
	}
	if err := benchFleet([]string{"extra"}, &out, &errb); err == nil {
		t.Error("extra argument accepted")
	}
	if err := benchFleet([]string{"--n", "2", "--ansible-dir", t.TempDir()}, &out, &errb); err == nil ||
		(!strings.Contains(err.Error(), "not the Ansible baseline") && !strings.Contains(err.Error(), "missing:")) {
		t.Errorf("empty --ansible-dir: %v", err)
	}
	// Without the tools on PATH the command says what to install.
	t.Setenv("PATH", t.TempDir())
	err := benchFleet([]string{"--n", "2"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "ansible-playbook") || !strings.Contains(err.Error(), "ansible-core") {
		t.Errorf("no ansible-playbook on PATH: %v", err)
	}
}
