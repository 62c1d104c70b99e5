package pacemaker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/engine"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// fileNode is the push node for Push: the real agent engine on a folder
// root, whose commands run pacemaker's own tools against a file CIB
// (CIB_file) with the node's paths moved into the folder.
type fileNode struct {
	root  *fsroot.Root
	tools fileTools
	runs  []string // owner/check of each run, in order
}

func newFileNode(t *testing.T, cib string) *fileNode {
	t.Helper()
	dir := t.TempDir()
	// The node's accounts, for the owner of the files the push writes.
	if err := os.MkdirAll(dir+"/etc", 0o755); err != nil {
		t.Fatal(err)
	}
	for f, line := range map[string]string{"passwd": "root:x:0:0:root:/root:/bin/sh\n", "group": "root:x:0:\n"} {
		if err := os.WriteFile(dir+"/etc/"+f, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CIB_file", cib)
	t.Setenv("PATH", "/usr/sbin:/sbin:"+os.Getenv("PATH"))
	return &fileNode{root: root, tools: fileTools{dir: dir}}
}

func (n *fileNode) Run(ctx context.Context, owner string, items []protocol.Item, check bool) (*protocol.Result, error) {
	n.runs = append(n.runs, fmt.Sprintf("%s/%t", owner, check))
	res, err := engine.Apply(ctx, n.root, &protocol.Spec{APIVersion: protocol.APIVersion, Owner: owner, Items: items},
		engine.Options{Check: check, Runner: n.tools})
	return &res, err
}

// fileTools runs the node's commands on this machine (runner.Exec, with
// CIB_file in the test's environment) with the node's state paths moved
// into the root.
type fileTools struct{ dir string }

func (f fileTools) moved(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "/var/lib/hpcstorage/", f.dir+"/var/lib/hpcstorage/")
	}
	return out
}

func (f fileTools) Run(ctx context.Context, argv ...string) error {
	return runner.Exec{}.Run(ctx, f.moved(argv)...)
}

func (f fileTools) Query(ctx context.Context, argv ...string) (string, int, error) {
	return runner.Exec{}.Query(ctx, f.moved(argv)...)
}

// TestPushOnFileCIB: Push on a started R2 CIB with pacemaker's tools. The
// same configuration sends nothing (one read-only query); one changed
// parameter is patched and verified (query, push, query); a CIB rendered
// for Pacemaker 3 is refused on this 2.x cluster, located at
// pacemaker_version, before anything is written; a configuration the
// cluster refuses comes back as ErrRefused with the CIB unchanged.
func TestPushOnFileCIB(t *testing.T) {
	_, cib := liveR2(t)
	ctx := context.Background()
	c := r2()
	want, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	n := newFileNode(t, cib)
	changed, err := c.Push(ctx, n, want)
	if err != nil || changed || strings.Join(n.runs, " ") != QueryOwner(c.Name)+"/true" {
		t.Fatalf("unchanged cluster: changed %v, %v, runs %v", changed, err, n.runs)
	}

	c.Groups[0].Members[1].Params["options"] = "noatime"
	want2, err := c.Configuration()
	if err != nil {
		t.Fatal(err)
	}
	n.runs = nil
	changed, err = c.Push(ctx, n, want2)
	if err != nil || !changed {
		t.Fatalf("one parameter: changed %v, %v", changed, err)
	}
	if got := strings.Join(n.runs, " "); got != QueryOwner(c.Name)+"/true "+CIBOwner(c.Name)+"/false "+QueryOwner(c.Name)+"/true" {
		t.Errorf("runs %s", got)
	}
	if d, err := ConfigDiff(liveConfiguration(t, cib), want2); err != nil || d != "" {
		t.Fatalf("the file CIB after the push: %v\n%s", err, d)
	}
	// Again: nothing left to send.
	if changed, err := c.Push(ctx, n, want2); err != nil || changed {
		t.Fatalf("second push: changed %v, %v", changed, err)
	}

	before := liveConfiguration(t, cib)
	c3 := c
	c3.Version = Version3
	n.runs = nil
	_, err = c3.Push(ctx, n, want)
	le, ok := located.Find(err)
	if !errors.Is(err, ErrInvalid) || !ok || le.Path.String() != "pacemaker_version" || !strings.Contains(err.Error(), "dc-version") {
		t.Fatalf("Pacemaker 3 CIB on 2.x: %v", err)
	}
	if len(n.runs) != 1 || string(liveConfiguration(t, cib)) != string(before) {
		t.Fatalf("a refused version wrote: runs %v", n.runs)
	}

	// A constraint on a resource the CIB does not have: cibadmin refuses
	// the patch (schema and references are checked on the whole CIB).
	bad := strings.Replace(string(want2), "</constraints>",
		`<rsc_location id="loc-ghost" rsc="ghost" node="nfs1" score="100"/></constraints>`, 1)
	if bad == string(want2) {
		t.Fatal("no constraints section to break")
	}
	_, err = c.Push(ctx, n, []byte(bad))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "command:cib-patch") {
		t.Fatalf("a patch the cluster refuses: %v", err)
	}
	t.Logf("refused: %v", err)
	if d, derr := ConfigDiff(liveConfiguration(t, cib), want2); derr != nil || d != "" {
		t.Fatalf("a refused patch changed the CIB: %v\n%s", derr, d)
	}
}

// TestWaitJoined reads crm_mon (the real one, on a file CIB): both R2
// nodes online but no controller elected yet is not joined (nothing may be
// pushed: the CIB could be lost when the partitions merge); with a DC it
// is; with nfs2 gone it is not, naming nfs2.
func TestWaitJoined(t *testing.T) {
	_, cib := liveR2(t)
	ctx := context.Background()
	c := r2()
	n := newFileNode(t, cib)
	data, err := os.ReadFile(cib)
	if err != nil {
		t.Fatal(err)
	}
	joined := string(data)
	if !strings.Contains(joined, ` dc-uuid="1"`) {
		t.Fatalf("crm_simulate elected no DC:\n%.300s", joined)
	}
	if err := os.WriteFile(cib, []byte(strings.Replace(joined, ` dc-uuid="1"`, "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	err = c.WaitJoined(ctx, n, 300*time.Millisecond, 100*time.Millisecond)
	if !errors.Is(err, ErrNotJoined) || !strings.Contains(err.Error(), "no DC") {
		t.Fatalf("no DC yet: %v", err)
	}
	if err := os.WriteFile(cib, []byte(joined), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitJoined(ctx, n, time.Second, 100*time.Millisecond); err != nil {
		t.Fatalf("both online with a DC: %v", err)
	}
	if out, errs, code := run(t, cib, "crm_simulate", "--xml-file", cib, "--node-down", "nfs2", "--save-output", cib+".down", "--simulate"); code != 0 {
		t.Fatalf("crm_simulate: %d %s %s", code, out, errs)
	}
	n2 := newFileNode(t, cib+".down")
	err = c.WaitJoined(ctx, n2, 300*time.Millisecond, 100*time.Millisecond)
	if !errors.Is(err, ErrNotJoined) || !strings.Contains(err.Error(), "not online: nfs2") {
		t.Fatalf("nfs2 down: %v", err)
	}
}
