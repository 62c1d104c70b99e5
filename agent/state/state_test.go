package state

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

func root(t *testing.T) *fsroot.Root {
	t.Helper()
	r, err := fsroot.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestOwnerStateRoundTrip(t *testing.T) {
	r := root(t)
	s, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	o := s.Owner("alpha")
	o.Claim("sysctl:vm.dirty_ratio", "file:/etc/a")
	if !o.Record(Original{Key: "file:/etc/a", Kind: KindFile, Path: "/etc/a", Content: []byte("old\x00bytes"), Mode: 0o600}) {
		t.Fatal("first record refused")
	}
	if o.Record(Original{Key: "file:/etc/a", Kind: KindFile, Content: []byte("newer")}) {
		t.Fatal("a second record replaced the original")
	}
	o.Record(Original{Key: "sysctl:vm.dirty_ratio", Kind: KindKernel, Value: "40"})
	o.AddPending("beegfs-storage.service")
	if err := s.Save("alpha"); err != nil {
		t.Fatal(err)
	}
	s2, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	o2 := s2.Owner("alpha")
	if got := string(o2.Originals["file:/etc/a"].Content); got != "old\x00bytes" {
		t.Errorf("content %q", got)
	}
	if order := o2.Ordered(); order[0].Key != "sysctl:vm.dirty_ratio" {
		t.Errorf("newest first: %s", order[0].Key)
	}
	if !slices.Equal(o2.Pending, []string{"beegfs-storage.service"}) {
		t.Errorf("pending %q", o2.Pending)
	}
	err = s2.CheckClaims("beta", []string{"file:/etc/b", "sysctl:vm.dirty_ratio"})
	if !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), `owner "alpha"`) {
		t.Errorf("claims: %v", err)
	}
	if err := s2.CheckClaims("alpha", []string{"sysctl:vm.dirty_ratio"}); err != nil {
		t.Errorf("own claim: %v", err)
	}
	if err := s2.Delete("alpha"); err != nil || s2.Has("alpha") {
		t.Errorf("delete: %v", err)
	}
}

func TestCorruptStateIsAClearError(t *testing.T) {
	r := root(t)
	if _, err := r.MkdirAll(OwnersDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.HostPath(OwnersDir+"/x.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(r); !errors.Is(err, ErrBadState) {
		t.Errorf("err = %v", err)
	}
}

func TestLock(t *testing.T) {
	r := root(t)
	// A check run on a root never applied creates nothing.
	l, err := Acquire(context.Background(), r, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if ok, _ := r.Exists(Dir); ok {
		t.Fatal("shared lock created the state folder")
	}
	held, err := Acquire(context.Background(), r, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, shared := range []bool{false, true} {
		if _, err := Acquire(context.Background(), r, 100*time.Millisecond, shared); !errors.Is(err, ErrLocked) {
			t.Errorf("shared=%t: %v", shared, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, r, time.Minute, false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	held.Unlock()
	l, err = Acquire(context.Background(), r, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
}
