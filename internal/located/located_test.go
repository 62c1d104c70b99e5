package located

import (
	"errors"
	"fmt"
	"testing"
)

func TestPathString(t *testing.T) {
	cases := []struct {
		p    Path
		want string
	}{
		{nil, ""},
		{At("name"), "name"},
		{At("groups").Index(2).Name("targets").Index(0), "groups[2].targets[0]"},
		{At("config").Key("maxblocksize"), `config["maxblocksize"]`},
		{At("a").Key(`q"x`).Name("b"), `a["q\"x"].b`},
	}
	for _, c := range cases {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v: got %q, want %q", c.p, got, c.want)
		}
	}
}

func TestPathsDoNotShareSteps(t *testing.T) {
	base := At("groups")
	a := base.Index(0)
	b := base.Index(1)
	if a.String() != "groups[0]" || b.String() != "groups[1]" {
		t.Fatalf("siblings changed each other: %s, %s", a, b)
	}
}

func TestWrapFindAndUnwrap(t *testing.T) {
	sentinel := errors.New("too small")
	err := fmt.Errorf("render: %w", Wrap(At("size").Index(1), sentinel))
	le, ok := Find(err)
	if !ok || le.Path.String() != "size[1]" {
		t.Fatalf("Find: %v %v", le, ok)
	}
	if !errors.Is(err, sentinel) {
		t.Fatal("errors.Is lost the wrapped error")
	}
	if err.Error() != "render: size[1]: too small" {
		t.Fatalf("message: %q", err.Error())
	}
	if Wrap(At("x"), nil) != nil || Under(At("x"), nil) != nil {
		t.Fatal("nil must stay nil")
	}
	if _, ok := Find(errors.New("plain")); ok {
		t.Fatal("a plain error has no location")
	}
}

func TestUnderPrefixesAndKeepsWarning(t *testing.T) {
	inner := Warnf(At("name"), "long")
	got := Under(At("exports").Index(3), inner)
	le, _ := Find(got)
	if le.Path.String() != "exports[3].name" || !le.Warning {
		t.Fatalf("got %s warning=%v", le.Path, le.Warning)
	}
	plain := Under(At("exports"), errors.New("bad"))
	if le, _ := Find(plain); le.Path.String() != "exports" {
		t.Fatalf("plain error under a path: %v", plain)
	}
}

func TestAllWalksJoins(t *testing.T) {
	err := errors.Join(
		Errorf(At("a"), "one"),
		fmt.Errorf("ctx: %w", Errorf(At("b").Index(0), "two")),
		errors.New("unlocated"),
	)
	all := All(err)
	if len(all) != 2 || all[0].Path.String() != "a" || all[1].Path.String() != "b[0]" {
		t.Fatalf("All: %v", all)
	}
}
