package labnode

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: `uname -m; sha256sum '/a b' 2>/dev/null || echo absent`, want: []string{"uname", "-m", ";", "sha256sum", "/a b", "2>", "/dev/null", "||", "echo", "absent"}},
		{in: `sh -c 'it'\''s'`, want: []string{"sh", "-c", "it's"}},
		{in: `echo "a \"q\" b" x\ y`, want: []string{"echo", `a "q" b`, "x y"}},
		{in: `a&&b||{ c; }`, want: []string{"a", "&&", "b", "||", "{", "c", ";", "}"}},
		{in: `cat > /f`, want: []string{"cat", ">", "/f"}},
		{in: `echo $HOME`, wantErr: true},
		{in: "echo `id`", wantErr: true},
		{in: `a | b`, wantErr: true},
		{in: `a & b`, wantErr: true},
		{in: `echo 'open`, wantErr: true},
		{in: `ls *`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			toks, err := tokenize(tt.in)
			if tt.wantErr {
				if !errors.Is(err, errUnsupported) {
					t.Fatalf("tokenize(%q) err = %v, want errUnsupported", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tk := range toks {
				got = append(got, tk.s)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("tokenize(%q) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

// newTestNode is a node with a root folder but no server.
func newTestNode(t *testing.T) *Node {
	t.Helper()
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	n := &Node{Name: "t", Root: dir, root: r, arch: "x86_64", lab: &Lab{ctx: ctx, errs: make(chan error, 8)}, thaw: make(chan struct{})}
	close(n.thaw)
	return n
}

func runIn(t *testing.T, n *Node, cmd, stdin string) (status int, stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	s := &session{node: n, ctx: t.Context(), stdin: strings.NewReader(stdin), stdout: &o, stderr: &e}
	status, err = s.run(cmd)
	return status, o.String(), e.String(), err
}

// The exact forms internal/transport sends, run against a node folder.
func TestShellCommandForms(t *testing.T) {
	n := newTestNode(t)
	const p = "/var/lib/hpcstorage-agent/bin/hpcstorage-agent"
	probe := `sh -c 'uname -m; sha256sum ` + p + ` 2>/dev/null || echo absent'`
	st, out, _, err := runIn(t, n, probe, "")
	if err != nil || st != 0 || out != "x86_64\nabsent\n" {
		t.Fatalf("probe on an empty node: %d %q %v", st, out, err)
	}
	data := "#!/bin/sh\necho agent\n"
	upload := `sh -c 'mkdir -p /var/lib/hpcstorage-agent/bin && cat > ` + p + `.tmp-1 && chmod 0755 ` + p + `.tmp-1 && mv -f ` + p + `.tmp-1 ` + p + ` && sha256sum ` + p + ` || { rm -f ` + p + `.tmp-1; exit 1; }'`
	st, out, _, err = runIn(t, n, "sudo -n "+upload, data)
	sum := sha256.Sum256([]byte(data))
	if err != nil || st != 0 || out != hex.EncodeToString(sum[:])+"  "+p+"\n" {
		t.Fatalf("upload: %d %q %v", st, out, err)
	}
	fi, err := os.Stat(filepath.Join(n.Root, p))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("uploaded agent: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(n.Root, p+".tmp-1")); !os.IsNotExist(err) {
		t.Error("temp file left behind")
	}
	st, out, _, _ = runIn(t, n, probe, "")
	if st != 0 || !strings.HasPrefix(out, "x86_64\n"+hex.EncodeToString(sum[:])) {
		t.Errorf("probe after upload: %q", out)
	}
	// A failed step runs the cleanup branch and exits 1.
	st, _, stderr, err := runIn(t, n, `sh -c 'mkdir -p /d && cat > /d/x.tmp && chmod 0755 /d/missing && mv -f /d/x.tmp /d/x || { rm -f /d/x.tmp; exit 1; }'`, "x")
	if err != nil || st != 1 || !strings.Contains(stderr, "chmod") {
		t.Errorf("failing upload: %d %q %v", st, stderr, err)
	}
	if _, err := os.Stat(filepath.Join(n.Root, "d/x.tmp")); !os.IsNotExist(err) {
		t.Error("cleanup branch did not remove the temp file")
	}
	// Run: the agent executes for real with --root mapped into the node.
	st, out, _, err = runIn(t, n, "'"+p+"' version", "")
	if err != nil || st != 0 || out != "agent\n" {
		t.Errorf("run: %d %q %v", st, out, err)
	}
	st, _, stderr, _ = runIn(t, n, "/usr/bin/missing-agent apply -f -", "")
	if st != 127 || !strings.Contains(stderr, "not found") {
		t.Errorf("missing agent: %d %q", st, stderr)
	}
	n.SetFaults(Faults{SudoPassword: true})
	st, _, stderr, _ = runIn(t, n, "sudo -n "+probe, "")
	if st != 1 || stderr != "sudo: a password is required\n" {
		t.Errorf("sudo password fault: %d %q", st, stderr)
	}
}

func TestShellRefusesUnknownForms(t *testing.T) {
	n := newTestNode(t)
	for _, cmd := range []string{"bash -c true", "rm -rf /", "cat /etc/passwd", "sudo true", "uname -a", "echo $PATH", "ls"} {
		if _, _, _, err := runIn(t, n, cmd, ""); !errors.Is(err, errUnsupported) {
			t.Errorf("%q: err = %v, want errUnsupported", cmd, err)
		}
	}
}

// Every path stays inside the node folder, whatever the command says.
func TestPathsStayInNodeFolder(t *testing.T) {
	outside := t.TempDir()
	n := newTestNode(t)
	if err := os.Symlink(outside, filepath.Join(n.Root, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"sh -c 'cat > /../../../" + filepath.Base(outside) + "/x'",
		"sh -c 'cat > /escape/x'",
		"sh -c 'mkdir -p /escape/sub'",
		"sh -c 'mv -f /escape /moved'",
	} {
		runIn(t, n, cmd, "data")
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("a command wrote outside the node folder: %v", entries)
	}
	got, err := n.mapRootArgs([]string{"apply", "-f", "-", "--root", "/srv/../x"})
	if err != nil || got[len(got)-1] != filepath.Join(n.Root, "x") {
		t.Errorf("--root mapping: %q %v", got, err)
	}
	got, _ = n.mapRootArgs([]string{"facts"})
	if d := cmp.Diff([]string{"facts", "--root", n.Root}, got); d != "" {
		t.Errorf("default --root (-want +got):\n%s", d)
	}
	got, _ = n.mapRootArgs([]string{"version"})
	if d := cmp.Diff([]string{"version"}, got); d != "" {
		t.Errorf("version gets no --root (-want +got):\n%s", d)
	}
}

func TestStartValidates(t *testing.T) {
	for _, cfg := range []Config{{Nodes: 0, Dir: t.TempDir(), Password: "x"}, {Nodes: 1, Password: "x"}, {Nodes: 1, Dir: t.TempDir()}} {
		if _, err := Start(cfg); err == nil {
			t.Errorf("Start(%+v) succeeded", cfg)
		}
	}
}

// The compressed upload: gzip -dc writes the temp file.
func TestGzipUploadForm(t *testing.T) {
	n := newTestNode(t)
	const p = "/opt/a/agent"
	data := "#!/bin/sh\necho agent\n"
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(data))
	w.Close()
	cmd := `sh -c 'mkdir -p /opt/a && gzip -dc > ` + p + `.tmp-1 && chmod 0755 ` + p + `.tmp-1 && mv -f ` + p + `.tmp-1 ` + p + ` && sha256sum ` + p + ` || { rm -f ` + p + `.tmp-1; exit 1; }'`
	sum := sha256.Sum256([]byte(data))
	st, out, stderr, err := runIn(t, n, "sudo -n "+cmd, gz.String())
	if err != nil || st != 0 || out != hex.EncodeToString(sum[:])+"  "+p+"\n" {
		t.Fatalf("gzip upload: %d %q %q %v", st, out, stderr, err)
	}
	st, _, stderr, err = runIn(t, n, cmd, "not gzip")
	if err != nil || st != 1 || !strings.Contains(stderr, "gzip") {
		t.Errorf("corrupt gzip upload: %d %q %v", st, stderr, err)
	}
	n.SetFaults(Faults{NoGzip: true})
	st, _, stderr, _ = runIn(t, n, cmd, gz.String())
	if st != 1 || !strings.Contains(stderr, "gzip: not found") {
		t.Errorf("node without gzip: %d %q", st, stderr)
	}
	if _, err := os.Stat(filepath.Join(n.Root, p+".tmp-1")); !os.IsNotExist(err) {
		t.Error("temp file left behind")
	}
}

// The transport's single-exec run on a new connection: the agent at its
// path, straight away, with --expect-sha256; with and without sudo -n.
func TestDirectRunForm(t *testing.T) {
	n := newTestNode(t)
	const p = "/var/lib/hpcstorage-agent/bin/hpcstorage-agent"
	sum := strings.Repeat("ab", 32)
	for _, prefix := range []string{"", "sudo -n "} {
		cmd := prefix + p + " apply -f - --output json --expect-sha256 " + sum
		st, _, stderr, err := runIn(t, n, cmd, "{}")
		if err != nil || st != 127 || !strings.Contains(stderr, "not found") {
			t.Errorf("%q on a node without agent: %d %q %v", cmd, st, stderr, err)
		}
	}
	if err := os.MkdirAll(filepath.Join(n.Root, filepath.Dir(p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(n.Root, p), []byte("#!/bin/sh\necho \"$@\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", "sudo -n "} {
		st, out, _, err := runIn(t, n, prefix+p+" facts --expect-sha256 "+sum, "")
		if err != nil || st != 3 || out != "facts --expect-sha256 "+sum+" --root "+n.Root+"\n" {
			t.Errorf("%sdirect run: %d %q %v", prefix, st, out, err)
		}
	}
}

// A node that claims another architecture than this machine's refuses
// binaries of a third one as the kernel would (exec format error), and says
// that it cannot run its own architecture's binaries here.
func TestArchOfBinaries(t *testing.T) {
	self, err := os.ReadFile("/proc/self/exe") // an ELF for this machine
	if err != nil {
		t.Skip(err)
	}
	other := append([]byte{}, self...)
	other[18], other[19] = 183, 0 // EM_AARCH64
	if self[18] == 183 {
		other[18] = 62 // EM_X86_64 on an arm64 machine
	}
	n := newTestNode(t)
	for name, data := range map[string][]byte{"own": self, "other": other} {
		if err := os.WriteFile(filepath.Join(n.Root, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostArch := n.Arch() // newTestNode plays an x86_64 node
	if UnameM("amd64") != hostArch {
		t.Skip("test node arch is not this machine's")
	}
	n.SetArch("aarch64")
	st, _, stderr, err := runIn(t, n, "/own -test.run=NoSuchTest", "")
	if err != nil || st != 126 || !strings.Contains(stderr, "Exec format error") {
		t.Errorf("x86_64 binary on an aarch64 node: %d %q %v", st, stderr, err)
	}
	st, _, stderr, err = runIn(t, n, "sudo -n /other version", "")
	if err != nil || st != 126 || !strings.Contains(stderr, "cannot run") || !strings.Contains(stderr, "aarch64") {
		t.Errorf("aarch64 binary on an aarch64 node: %d %q %v", st, stderr, err)
	}
	n.SetArch("x86_64")
	st, _, stderr, _ = runIn(t, n, "/other version", "")
	if st != 126 || !strings.Contains(stderr, "Exec format error") {
		t.Errorf("aarch64 binary on an x86_64 node: %d %q", st, stderr)
	}
	st, _, _, err = runIn(t, n, "/own -test.run=NoSuchTest", "")
	if err != nil || st != 0 {
		t.Errorf("own binary on its own arch: %d %v", st, err)
	}
}
