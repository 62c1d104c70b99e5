package sim

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// Two roots linked to one folder see one state, and the lock serialises
// their read-modify-write cycles.
func TestSharedStateAcrossRoots(t *testing.T) {
	shared := t.TempDir()
	var envs []*Env
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		if err := LinkShared(dir, shared); err != nil {
			t.Fatal(err)
		}
		r, err := fsroot.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		envs = append(envs, &Env{Root: r})
	}
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(e *Env) {
			defer wg.Done()
			dir, unlock, err := e.Shared("counter")
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			p := filepath.Join(dir, "n")
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, append(b, 'x'), 0o644); err != nil {
				t.Error(err)
			}
		}(envs[i%2])
	}
	wg.Wait()
	b, err := os.ReadFile(filepath.Join(shared, "counter", "n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 40 {
		t.Fatalf("counter = %d after 40 locked increments from two roots, want 40", len(b))
	}
	if _, _, err := envs[0].Shared("../x"); err == nil {
		t.Fatal("a name with a slash was accepted")
	}
}

// A root without the link keeps its state to itself.
func TestSharedStateWithoutLink(t *testing.T) {
	dir := t.TempDir()
	r, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, unlock, err := (&Env{Root: r}).Shared("gpfs")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	want := filepath.Join(dir, ".hpcstorage-sim", "data", "shared", "gpfs")
	if got != want {
		t.Fatalf("Shared = %s, want %s", got, want)
	}
}
