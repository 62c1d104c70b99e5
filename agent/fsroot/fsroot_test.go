package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newRoot(t *testing.T) (*Root, string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"etc/sysctl.d", "etc/beegfs", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"etc/sysctl.conf": "a\n", "etc/beegfs/x.conf": "x\n"}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"etc/sysctl.d/99-sysctl.conf": "../sysctl.conf", // relative, inside: fine
		"etc/abs":                     "/etc/passwd",    // absolute: refused
		"etc/climb":                   "../../../../../../etc/passwd",
		"etc/loop":                    "loop",
		"etc/beegfs-link":             "beegfs", // folder link inside
	}
	for p, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func TestConfinement(t *testing.T) {
	r, _ := newRoot(t)
	tests := []struct {
		path    string
		wantErr error
	}{
		{"/etc/sysctl.d/99-sysctl.conf", nil},
		{"/etc/beegfs-link/x.conf", nil},
		{"/etc/not-yet.conf", nil},
		{"/etc/abs", ErrEscape},
		{"/etc/climb", ErrEscape},
		{"/etc/../../x", ErrEscape},
		{"etc/x", ErrNotAbs},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			err := r.CheckConfined(tt.path)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("CheckConfined = %v, want %v", err, tt.wantErr)
			}
		})
	}
	if _, err := r.ReadFile("/etc/abs"); !errors.Is(err, ErrEscape) {
		t.Errorf("read through an absolute link: %v", err)
	}
	if err := r.WriteAtomic("/etc/climb", []byte("x"), WriteOpts{Mode: 0o644, UID: -1, GID: -1}); !errors.Is(err, ErrEscape) {
		t.Errorf("write through a climbing link: %v", err)
	}
	if _, err := r.Resolve("/etc/loop"); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("link loop: %v", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	r, dir := newRoot(t)
	if err := r.WriteAtomic("/etc/sysctl.d/99-sysctl.conf", []byte("b\n"), WriteOpts{Mode: 0o640, UID: -1, GID: -1}); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(filepath.Join(dir, "etc/sysctl.d/99-sysctl.conf")); target != "../sysctl.conf" {
		t.Errorf("the link was replaced (now %q)", target)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "etc/sysctl.conf"))
	st, _ := os.Stat(filepath.Join(dir, "etc/sysctl.conf"))
	if string(b) != "b\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("content %q mode %v", b, st.Mode())
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "etc"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), TempSuffix) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	// A temp left by a killed run is reused, not a reason to fail.
	stale := filepath.Join(dir, "etc/beegfs/.x.conf"+TempSuffix)
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAtomic("/etc/beegfs/x.conf", []byte("y\n"), WriteOpts{Mode: 0o644, UID: -1, GID: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temp still there: %v", err)
	}
	if err := r.WriteAtomic("/nope/x", []byte("y"), WriteOpts{Mode: 0o644, UID: -1, GID: -1}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("write into a missing folder: %v", err)
	}
}

func TestMkdirAllReportsCreated(t *testing.T) {
	r, _ := newRoot(t)
	created, err := r.MkdirAll("/etc/beegfs/a/b", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(created, ",") != "/etc/beegfs/a,/etc/beegfs/a/b" {
		t.Errorf("created %q", created)
	}
	created, _ = r.MkdirAll("/etc/beegfs/a/b", 0o755)
	if len(created) != 0 {
		t.Errorf("second MkdirAll created %q", created)
	}
	if err := r.Remove("/etc/beegfs/a/b"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Exists("/etc/beegfs/a/b"); ok {
		t.Error("still there after Remove (stale folder handle?)")
	}
}
