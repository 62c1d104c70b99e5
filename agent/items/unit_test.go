package items

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// showAnswer is a runner that answers `systemctl show` with a fixed
// output and exit status, and records every command it is given.
type showAnswer struct {
	out   string
	code  int
	err   error
	asked [][]string
}

func (s *showAnswer) Run(_ context.Context, argv ...string) error {
	s.asked = append(s.asked, append([]string{"run"}, argv...))
	return nil
}

func (s *showAnswer) Query(_ context.Context, argv ...string) (string, int, error) {
	s.asked = append(s.asked, argv)
	return s.out, s.code, s.err
}

// show renders systemctl show's answer for the four properties, leaving
// out an empty UnitFileState as show does without --all.
func show(id, load, active, file string) string {
	out := "Id=" + id + "\nLoadState=" + load + "\nActiveState=" + active + "\n"
	if file != "" {
		out += "UnitFileState=" + file + "\n"
	}
	return out
}

// TestQueryUnitStates: one `systemctl show` per unit, and each
// UnitFileState/ActiveState reads as is-enabled/is-active did.
func TestQueryUnitStates(t *testing.T) {
	const unit = "beegfs-storage.service"
	tests := []struct {
		name string
		out  string
		want unitState
	}{
		{"enabled", show(unit, "loaded", "active", "enabled"), unitState{exists: true, enabled: true, active: true, raw: "enabled"}},
		{"enabled-runtime", show(unit, "loaded", "inactive", "enabled-runtime"), unitState{exists: true, enabled: true, raw: "enabled-runtime"}},
		{"linked", show(unit, "loaded", "inactive", "linked"), unitState{exists: true, enabled: true, raw: "linked"}},
		{"linked-runtime", show(unit, "loaded", "inactive", "linked-runtime"), unitState{exists: true, enabled: true, raw: "linked-runtime"}},
		{"static", show(unit, "loaded", "active", "static"), unitState{exists: true, enabled: true, active: true, raw: "static"}},
		{"indirect", show(unit, "loaded", "inactive", "indirect"), unitState{exists: true, enabled: true, raw: "indirect"}},
		{"generated", show(unit, "loaded", "active", "generated"), unitState{exists: true, enabled: true, active: true, raw: "generated"}},
		{"alias file state", show(unit, "loaded", "inactive", "alias"), unitState{exists: true, enabled: true, raw: "alias"}},
		// Asked by an alias, show describes the unit it points to.
		{"alias name", show("beegfs-storage-real.service", "loaded", "inactive", "disabled"), unitState{exists: true, enabled: true, raw: "alias"}},
		{"disabled", show(unit, "loaded", "inactive", "disabled"), unitState{exists: true, raw: "disabled"}},
		{"transient", show(unit, "loaded", "active", "transient"), unitState{exists: true, active: true, raw: "transient"}},
		{"bad", show(unit, "bad-setting", "inactive", "bad"), unitState{exists: true, raw: "bad"}},
		{"masked", show(unit, "masked", "inactive", "masked"), unitState{exists: true, masked: true, raw: "masked"}},
		{"masked-runtime", show(unit, "masked", "inactive", "masked-runtime"), unitState{exists: true, masked: true, raw: "masked-runtime"}},
		{"reloading is active", show(unit, "loaded", "reloading", "enabled"), unitState{exists: true, enabled: true, active: true, raw: "enabled"}},
		{"refreshing is active", show(unit, "loaded", "refreshing", "enabled"), unitState{exists: true, enabled: true, active: true, raw: "enabled"}},
		{"failed is not active", show(unit, "loaded", "failed", "enabled"), unitState{exists: true, enabled: true, raw: "enabled"}},
		{"activating is not active", show(unit, "loaded", "activating", "enabled"), unitState{exists: true, enabled: true, raw: "enabled"}},
		{"deactivating is not active", show(unit, "loaded", "deactivating", "enabled"), unitState{exists: true, enabled: true, raw: "enabled"}},
		{"not found", show(unit, "not-found", "inactive", ""), unitState{}},
		// A unit whose file is gone while it still runs: is-enabled
		// found no file, so it is no unit to manage.
		{"file removed while running", show(unit, "not-found", "active", ""), unitState{}},
		// Written since the manager last looked (its cache says
		// not-found); is-enabled read the file and said disabled.
		{"file not yet loaded", show(unit, "not-found", "inactive", "disabled"), unitState{exists: true, raw: "disabled"}},
		{"--all shows it empty", show(unit, "not-found", "inactive", "") + "UnitFileState=\n", unitState{}},
		{"any order, no final newline", "UnitFileState=enabled\nActiveState=active\nLoadState=loaded\nId=" + unit, unitState{exists: true, enabled: true, active: true, raw: "enabled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &showAnswer{out: tt.out}
			got, err := queryUnit(context.Background(), &Env{Run: r}, unit)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			want := [][]string{{"systemctl", "show", "--property=Id,LoadState,ActiveState,UnitFileState", unit}}
			if !slices.EqualFunc(r.asked, want, slices.Equal[[]string]) {
				t.Errorf("asked %q, want %q", r.asked, want)
			}
		})
	}
}

// TestQueryUnitFailures: show failing (no manager to ask) is an error
// naming the unit, never "not installed".
func TestQueryUnitFailures(t *testing.T) {
	r := &showAnswer{code: 1}
	_, err := queryUnit(context.Background(), &Env{Run: r}, "chronyd.service")
	if !errors.Is(err, runner.ErrCommand) || !strings.Contains(err.Error(), "chronyd.service") || errors.Is(err, ErrNotFound) {
		t.Errorf("exit 1: %v", err)
	}
	boom := errors.New("boom")
	r = &showAnswer{err: boom}
	if _, err := queryUnit(context.Background(), &Env{Run: r}, "chronyd.service"); !errors.Is(err, boom) {
		t.Errorf("runner error: %v", err)
	}
}

// TestServicePlanFromShow: the plan built on each file state is the one
// is-enabled's answer gave: only enabled(-runtime) units are disabled,
// others warn; enabled-like states need no enable; a missing unit is
// ErrNotFound.
func TestServicePlanFromShow(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	const unit = "chronyd.service"
	tests := []struct {
		item, out string
		diff      string
		warn      string
	}{
		{"{name: chronyd, enabled: false}", show(unit, "loaded", "active", "enabled"), "-chronyd.service: enabled\n+chronyd.service: disabled\n", ""},
		{"{name: chronyd, enabled: false}", show(unit, "loaded", "active", "enabled-runtime"), "-chronyd.service: enabled\n+chronyd.service: disabled\n", ""},
		{"{name: chronyd, enabled: false}", show(unit, "loaded", "active", "static"), "", "chronyd.service is static and cannot be disabled"},
		{"{name: chronyd, enabled: false}", show(unit, "loaded", "active", "indirect"), "", "chronyd.service is indirect and cannot be disabled"},
		{"{name: chronyd, enabled: false}", show(unit, "loaded", "active", "generated"), "", "chronyd.service is generated and cannot be disabled"},
		{"{name: chronyd, enabled: false}", show("chrony.service", "loaded", "active", "enabled"), "", "chronyd.service is alias and cannot be disabled"},
		{"{name: chronyd, enabled: true}", show(unit, "loaded", "active", "static"), "", ""},
		{"{name: chronyd, enabled: true, state: started}", show(unit, "loaded", "inactive", "disabled"),
			"-chronyd.service: disabled\n+chronyd.service: enabled\n-chronyd.service: inactive\n+chronyd.service: active\n", ""},
		{"{name: chronyd, enabled: true}", show(unit, "masked", "inactive", "masked"), "", ""},
		{"{name: chronyd, masked: false}", show(unit, "masked", "inactive", "masked-runtime"), "-chronyd.service: masked\n+chronyd.service: not masked\n", ""},
		{"{name: chronyd, state: stopped}", show(unit, "loaded", "reloading", "enabled"), "-chronyd.service: active\n+chronyd.service: inactive\n", ""},
	}
	for _, tt := range tests {
		s := spec(t, "  - service: "+tt.item+"\n")
		r := &showAnswer{out: tt.out}
		env := &Env{Root: n.root, Run: r, Owner: s.Owner, Spec: s}
		p, err := New(s.Items[0]).Plan(context.Background(), env)
		if err != nil {
			t.Errorf("%s on %q: %v", tt.item, tt.out, err)
			continue
		}
		if p.Diff() != tt.diff || strings.Join(p.Warnings, "\n") != tt.warn {
			t.Errorf("%s on %q:\ndiff %q, want %q\nwarnings %q, want %q", tt.item, tt.out, p.Diff(), tt.diff, p.Warnings, tt.warn)
		}
		if len(r.asked) != 1 {
			t.Errorf("%s: asked %q, want one show", tt.item, r.asked)
		}
	}
	s := spec(t, "  - service: {name: chronyd, enabled: true}\n")
	r := &showAnswer{out: show(unit, "not-found", "inactive", "")}
	_, err := New(s.Items[0]).Plan(context.Background(), &Env{Root: n.root, Run: r, Owner: s.Owner, Spec: s})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("not-found unit: %v", err)
	}
}
