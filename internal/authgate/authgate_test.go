package authgate

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// Many concurrent first requests log in once; many requests refused with
// the same credentials renew them once.
func TestOneLoginForConcurrentCallers(t *testing.T) {
	var g Gate
	var logins atomic.Int32
	var ready atomic.Bool
	login := func(context.Context) error {
		logins.Add(1)
		ready.Store(true)
		g.Bump()
		return nil
	}
	run := func(f func()) {
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() { defer wg.Done(); f() }()
		}
		wg.Wait()
	}
	run(func() {
		if err := g.Ensure(t.Context(), ready.Load, login); err != nil {
			t.Error(err)
		}
	})
	if n := logins.Load(); n != 1 || g.Gen() != 1 {
		t.Fatalf("first use: %d logins, gen %d; want 1, 1", n, g.Gen())
	}
	failed := g.Gen()
	run(func() {
		if err := g.Renew(t.Context(), failed, login); err != nil {
			t.Error(err)
		}
	})
	if n := logins.Load(); n != 2 || g.Gen() != 2 {
		t.Fatalf("renewal: %d logins, gen %d; want 2, 2", n, g.Gen())
	}
}
