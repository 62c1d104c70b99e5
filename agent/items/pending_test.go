package items

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// hostQueries is a runner for plans that must not touch the host: it
// records every command and answers systemctl queries as for a disabled,
// inactive unit.
type hostQueries struct{ asked []string }

func (h *hostQueries) Run(_ context.Context, argv ...string) error {
	h.asked = append(h.asked, "run "+strings.Join(argv, " "))
	return errors.New("a plan ran a command")
}

func (h *hostQueries) Query(_ context.Context, argv ...string) (string, int, error) {
	h.asked = append(h.asked, strings.Join(argv, " "))
	if len(argv) == 4 && argv[1] == "show" {
		return "Id=" + argv[3] + "\nLoadState=loaded\nActiveState=inactive\nUnitFileState=disabled\n", 0, nil
	}
	return "", 1, nil
}

// checkPlans plans every item of s in check mode, as the engine does:
// each plan's steps are recorded before the next item is planned.
func checkPlans(t *testing.T, env *Env, s *protocol.Spec) []Plan {
	t.Helper()
	var out []Plan
	for _, it := range s.Items {
		p, err := New(it).Plan(context.Background(), env)
		if err != nil {
			t.Fatalf("%s: %v", it.ID(), err)
		}
		p.RecordPending()
		out = append(out, p)
	}
	return out
}

func TestViewSeesPendingWrites(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	s := spec(t, `
  - file: {path: /etc/sysctl.d/99-sysctl.conf, content: "vm.swappiness = 1\n"}
  - file: {path: /etc/site/conf.d/a.conf, content: "a\n", mode: "0600"}
`)
	env := &Env{Root: n.root, Run: &hostQueries{}, Owner: s.Owner, Spec: s, Check: true}
	plans := checkPlans(t, env, s)
	if !strings.HasPrefix(plans[1].Diff(), "+folder /etc/site/conf.d\n") {
		t.Errorf("diff:\n%s", plans[1].Diff())
	}
	v := env.fs()

	// A write through a link is seen at the link and at its target.
	for _, p := range []string{"/etc/sysctl.conf", "/etc/sysctl.d/99-sysctl.conf"} {
		if b, err := v.ReadFile(p); err != nil || string(b) != "vm.swappiness = 1\n" {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
	if got, err := v.Resolve("/etc/sysctl.d/99-sysctl.conf"); err != nil || got != "/etc/sysctl.conf" {
		t.Errorf("resolve: %q %v", got, err)
	}
	fi, err := v.fileInfo("/etc/site/conf.d/a.conf")
	if err != nil || !fi.exists || string(fi.content) != "a\n" || fi.mode != 0o600 || fi.uid != os.Geteuid() {
		t.Errorf("fileInfo %+v %v", fi, err)
	}
	// New folders exist, with their new entries listed.
	for _, p := range []string{"/etc/site", "/etc/site/conf.d"} {
		if ok, err := v.Exists(p); !ok || err != nil {
			t.Errorf("%s exists=%t %v", p, ok, err)
		}
	}
	names := func(p string) []string {
		ents, err := v.ReadDir(p)
		if err != nil {
			t.Fatalf("readdir %s: %v", p, err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names("/etc/site"); !slices.Equal(got, []string{"conf.d"}) {
		t.Errorf("etc/site: %q", got)
	}
	if ents, _ := v.ReadDir("/etc/site"); !ents[0].IsDir() {
		t.Error("conf.d is not a folder")
	}
	etc := names("/etc")
	if !slices.Contains(etc, "site") || !slices.Contains(etc, "fstab") || !slices.IsSorted(etc) {
		t.Errorf("etc: %q", etc)
	}

	// Removals hide a file and what is under a folder.
	env.wouldRemove("/etc/site/conf.d/a.conf")
	if ok, _ := v.Exists("/etc/site/conf.d/a.conf"); ok {
		t.Error("removed file exists")
	}
	if got := names("/etc/site/conf.d"); len(got) != 0 {
		t.Errorf("conf.d after removal: %q", got)
	}
	env.wouldRemove("/etc/site")
	if _, err := v.ReadFile("/etc/site/conf.d/a.conf"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read under a removed folder: %v", err)
	}
	if _, err := v.ReadDir("/etc/site"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("readdir of a removed folder: %v", err)
	}
	env.wouldRemove("/etc/fstab") // on the root: the view hides it
	if ok, _ := v.Exists("/etc/fstab"); ok || slices.Contains(names("/etc"), "fstab") {
		t.Error("removed root file still seen")
	}

	// Nothing reached the root, and no command ran.
	if _, err := os.Stat(filepath.Join(n.dir, "etc/site")); !os.IsNotExist(err) {
		t.Errorf("check wrote etc/site: %v", err)
	}
	if n.read("etc/sysctl.conf") == "vm.swappiness = 1\n" {
		t.Error("check wrote etc/sysctl.conf")
	}
	if q := env.Run.(*hostQueries).asked; len(q) != 0 {
		t.Errorf("commands: %q", q)
	}
}

func TestFreshUnitIsNotAskedOfTheHost(t *testing.T) {
	tests := []struct {
		name, unitPath, unitFile, service string
		diff                              string
		asks                              bool
	}{
		{
			name:     "installable unit",
			unitPath: "/etc/systemd/system/site-agent.service",
			unitFile: `[Service]\nExecStart=/usr/sbin/site-agent\n\n[Install]\nWantedBy=multi-user.target\n`,
			service:  "{name: site-agent, enabled: true, state: started}",
			diff:     "-site-agent.service: disabled\n+site-agent.service: enabled\n-site-agent.service: inactive\n+site-agent.service: active\n",
		},
		{
			name:     "static unit (no [Install] rules) is not enabled",
			unitPath: "/etc/systemd/system/site-agent.service",
			unitFile: `[Service]\nExecStart=/usr/sbin/site-agent\n\n[Install]\n# WantedBy=multi-user.target\n`,
			service:  "{name: site-agent, enabled: true, state: started}",
			diff:     "-site-agent.service: inactive\n+site-agent.service: active\n",
		},
		{
			name:     "instance of a new template in /run",
			unitPath: "/run/systemd/system/site-agent@.service",
			unitFile: `[Service]\nExecStart=/usr/sbin/site-agent %i\n\n[Install]\nWantedBy=multi-user.target\n`,
			service:  "{name: site-agent@ib0, enabled: true}",
			diff:     "-site-agent@ib0.service: disabled\n+site-agent@ib0.service: enabled\n",
		},
		{
			name:     "a unit the host has is asked about, even when rewritten",
			unitPath: "/etc/systemd/system/beegfs-storage.service",
			unitFile: `[Service]\nExecStart=/opt/beegfs/sbin/beegfs-storage\n\n[Install]\nWantedBy=multi-user.target\n`,
			service:  "{name: beegfs-storage, state: started}",
			diff:     "-beegfs-storage.service: inactive\n+beegfs-storage.service: active\n",
			asks:     true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newNode(t, fakenode.Storage)
			if tt.asks {
				// The host's file is the vendor one, under lib.
				n.write("etc/systemd/system/beegfs-storage.service", "[Service]\nExecStart=/old\n")
			}
			s := spec(t, "  - file: {path: "+tt.unitPath+", content: \""+tt.unitFile+"\"}\n  - service: "+tt.service+"\n")
			run := &hostQueries{}
			env := &Env{Root: n.root, Run: run, Owner: s.Owner, Spec: s, Check: true}
			plans := checkPlans(t, env, s)
			if got := plans[1].Diff(); got != tt.diff {
				t.Errorf("diff:\n%s\nwant\n%s", got, tt.diff)
			}
			if asked := len(run.asked) > 0; asked != tt.asks {
				t.Errorf("host asked: %q", run.asked)
			}
		})
	}
}

func TestInstallState(t *testing.T) {
	for unit, want := range map[string]string{
		"[Unit]\nDescription=x\n[Service]\nExecStart=/x\n":                  "static",
		"[Service]\nExecStart=/x\n[Install]\n":                              "static",
		"[Service]\nExecStart=/x\n[Install]\nWantedBy=\n":                   "static",
		"[Service]\nExecStart=/x\n[Install]\nWantedBy=multi-user.target\n":  "disabled",
		"[Service]\nExecStart=/x\n[Install]\nRequiredBy=remote-fs.target\n": "disabled",
		"[Service]\nExecStart=/x\n[Install]\nAlias=y.service\n":             "disabled",
		"[Service]\nExecStart=/x\n[Install]\nAlso=x.socket\n":               "indirect",
		"[Service]\nWantedBy=multi-user.target\n":                           "static",
	} {
		if got := installState([]byte(unit)); got != want {
			t.Errorf("%q: %s, want %s", unit, got, want)
		}
	}
}

// Every read items do while planning goes through Env's view (pending.go),
// so check mode sees what earlier items would have written. Reading the
// root directly is allowed only in the view itself and in apply-only code.
func TestPlanningReadsGoThroughTheView(t *testing.T) {
	reads := []string{"ReadFile", "Stat", "Lstat", "Exists", "ReadDir", "Resolve", "OpenFile"}
	allowed := map[string]bool{
		"restore.go:restoreKernel": true, // Stat for the mode of a write-back (apply only)
		"items.go:readFileInfo":    true, // the view's fallback to the root
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "pending.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || allowed[f+":"+fn.Name.Name] {
				continue
			}
			ast.Inspect(fn.Body, func(node ast.Node) bool {
				call, ok := node.(*ast.CallExpr)
				if !ok {
					return true
				}
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "readFileInfo" {
					t.Errorf("%s: %s calls readFileInfo: use env.fs().fileInfo", fset.Position(call.Pos()), fn.Name.Name)
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !slices.Contains(reads, sel.Sel.Name) {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Root" {
					t.Errorf("%s: %s reads the root directly (%s): use env.fs()", fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
}
