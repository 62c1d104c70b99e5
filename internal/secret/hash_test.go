package secret

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The stored form must not change between releases (state compares it),
// must be slow to guess from (scrypt, not the bare sha256 of earlier
// builds) and must tell secrets apart.
func TestHashStable(t *testing.T) {
	if Hash("x") != "scrypt:5886eabafbce57569c43590b9ca942df144b765c06968dd179050426854edf7c" {
		t.Errorf("hash %s", Hash("x"))
	}
	if Hash("x") == "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" || Hash("x") == Hash("y") {
		t.Error("Hash is the bare sha256 or does not tell secrets apart")
	}
}

// Many resources hashing one new secret at once (a site's clients) run
// scrypt once: its 32 MiB are allocated once, not once per caller.
func TestHashOnceUnderConcurrency(t *testing.T) {
	const callers = 8
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	got := make([]string, callers)
	for i := range callers {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = Hash("shared by every client") }()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	for _, h := range got {
		if h != got[0] || !strings.HasPrefix(h, "scrypt:") {
			t.Fatalf("hashes %v", got)
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*32<<20 {
		t.Errorf("%d callers allocated %d MiB: scrypt ran more than once", callers, alloc>>20)
	}
}
