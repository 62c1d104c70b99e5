package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"mount", "-o", "noatime,largeio", "/dev/sdb"}, "mount -o noatime,largeio /dev/sdb"},
		{[]string{"sh", "-c", "echo 'hi' > x"}, `sh -c 'echo '\''hi'\'' > x'`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		if got := Quote(tt.argv); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}

// scriptRoot is a fake root whose only simulator is a shell script
// standing for `tool`: it prints its argv, the root it was given and its
// working directory, writes "err" to stderr and exits with the status in
// its first argument.
func scriptRoot(t *testing.T, tool string) (*fsroot.Root, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(SimBinDir, "/")))
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s|' \"${0##*/}\" \"$@\"; echo; echo \"root=$" + SimRootEnv + " pwd=$(pwd) in=$(cat)\"; echo err >&2; exit \"$1\"\n"
	if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// TestSimContract: under a fake root the runner records every Run and
// hands the argv to the root's simulator, returning its stdout and exit
// status as a real tool's; a tool without a simulator is recorded only.
func TestSimContract(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		testenv.Missing(t, "no /bin/sh for the stand-in simulator")
	}
	root, dir := scriptRoot(t, "systemctl")
	s := Sim{Root: root}
	ctx := context.Background()
	out, code, err := s.Query(ctx, "/usr/bin/systemctl", "3", "is-active", "x.service")
	if err != nil || code != 3 {
		t.Fatalf("query: %q %d %v", out, code, err)
	}
	// The tool's arguments as given (argv[0] too, for a multi-call
	// program; a script sees its own path, named after the tool), stdin is
	// empty, the root is passed in the environment and is
	// the working directory; stderr stays out of stdout.
	want := "systemctl|3|is-active|x.service|\nroot=" + dir + " pwd=" + dir + " in=\n"
	if out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if err := s.Run(ctx, "systemctl", "0", "start", "x.service"); err != nil {
		t.Fatal(err)
	}
	err = s.Run(ctx, "systemctl", "5", "start", "y.service")
	if !errors.Is(err, ErrCommand) || !strings.Contains(err.Error(), "exit status 5") || !strings.Contains(err.Error(), "err") {
		t.Errorf("failing simulator: %v", err)
	}
	// No simulator: recorded, nothing run, and a query is "guard not met".
	if err := s.Run(ctx, "udevadm", "trigger"); err != nil {
		t.Errorf("unsimulated run: %v", err)
	}
	if out, code, err := s.Query(ctx, "blkid", "/dev/sdb"); out != "" || code != 1 || err != nil {
		t.Errorf("unsimulated query: %q %d %v", out, code, err)
	}
	log, err := ReadLog(root)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := [][]string{{"systemctl", "0", "start", "x.service"}, {"systemctl", "5", "start", "y.service"}, {"udevadm", "trigger"}}
	if !slices.EqualFunc(log, wantLog, slices.Equal) {
		t.Errorf("log %q, want %q", log, wantLog)
	}
}

// TestSimRefusesForeignSimulators: a simulator must be an executable file
// inside the root; a link that leaves it is refused, never run.
func TestSimRefusesForeignSimulators(t *testing.T) {
	root, dir := scriptRoot(t, "systemctl")
	bin := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(SimBinDir, "/")))
	if err := os.Symlink("/bin/true", filepath.Join(bin, "mount")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "wipefs"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Sim{Root: root}
	for _, argv := range [][]string{{"mount", "/dev/sdb", "/x"}, {"wipefs", "-a", "/dev/sdb"}} {
		if err := s.Run(context.Background(), argv...); err == nil {
			t.Errorf("%q ran a simulator it should refuse", argv)
		}
	}
}
