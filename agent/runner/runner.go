// Package runner is the one door through which the agent runs external
// commands (systemctl, udevadm, modprobe, mount, mkfs, command items).
//
// On a real node (root "/") Exec runs them. Under any other root Sim never
// executes a host command: it appends the argv as a JSON line to a log in
// the agent's state folder and, when the root carries a simulator for the
// tool (SimBinDir/<tool>, installed by the lab), runs that instead and
// returns what it printed and its exit status as the real tool's. The
// simulators are no part of the agent: they live in the lab build.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync/atomic"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// ErrCommand wraps every failed command.
var ErrCommand = errors.New("command failed")

// Runner runs commands. Run is for commands that change the system; Query
// for read-only ones (systemctl is-active, unless guards) and returns the
// exit status instead of failing on a non-zero one.
type Runner interface {
	Run(ctx context.Context, argv ...string) error
	Query(ctx context.Context, argv ...string) (stdout string, exit int, err error)
}

// Quote renders argv the way a shell would accept it, for messages and logs.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@+%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Exec runs commands on the host.
type Exec struct{}

// Run runs argv and fails with its stderr when it exits non-zero.
func (Exec) Run(ctx context.Context, argv ...string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: empty argv", ErrCommand)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s: %v: %s", ErrCommand, Quote(argv), err, tail(out.String()))
	}
	return nil
}

// Query runs a read-only command and returns stdout and the exit status.
func (Exec) Query(ctx context.Context, argv ...string) (string, int, error) {
	if len(argv) == 0 {
		return "", 0, fmt.Errorf("%w: empty argv", ErrCommand)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return "", -1, fmt.Errorf("%w: %s: %v", ErrCommand, Quote(argv), err)
	}
	return out.String(), 0, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// LogPath is the simulated-command log, relative to the root's state folder.
const LogPath = "/" + protocol.StateDir + "/commands.log"

// SimBinDir holds a fake root's simulators, one executable per tool name
// (usually links to one multi-call program). A tool without one is
// recorded only.
const SimBinDir = "/.hpcstorage-sim/bin"

// SimRootEnv names the environment variable that tells a simulator the
// host path of the root it acts on.
const SimRootEnv = "HPCSTORAGE_SIM_ROOT"

// Sim records commands for a fake root and hands them to the root's
// simulators.
type Sim struct {
	Root *fsroot.Root
}

// LogEntry is one line of the simulated-command log.
type LogEntry struct {
	Argv []string `json:"argv"`
}

// Run logs argv, then runs its simulator if the root has one; a non-zero
// exit fails like Exec.Run, with the simulator's output.
func (s Sim) Run(ctx context.Context, argv ...string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: empty argv", ErrCommand)
	}
	if err := s.log(argv); err != nil {
		return err
	}
	cmd, err := s.simulator(ctx, argv)
	if err != nil || cmd == nil {
		return err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s: %v: %s", ErrCommand, Quote(argv), err, tail(out.String()))
	}
	return nil
}

// Query runs argv's simulator and returns its stdout and exit status, like
// Exec.Query. Without a simulator the answer is exit status 1 ("guard not
// met"): nothing is assumed about a tool the lab does not model.
func (s Sim) Query(ctx context.Context, argv ...string) (string, int, error) {
	if len(argv) == 0 {
		return "", 0, fmt.Errorf("%w: empty argv", ErrCommand)
	}
	cmd, err := s.simulator(ctx, argv)
	if err != nil {
		return "", -1, err
	}
	if cmd == nil {
		return "", 1, nil
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return "", -1, fmt.Errorf("%w: %s: %v", ErrCommand, Quote(argv), err)
	}
	return out.String(), 0, nil
}

// simulator is the command that simulates argv under the root, nil when
// the root has no simulator for the tool. The simulator gets the argv as
// given (its argv[0] names the tool), an empty stdin, the root's host path
// in SimRootEnv and the root as working directory; nothing of the
// agent's own environment.
func (s Sim) simulator(ctx context.Context, argv []string) (*exec.Cmd, error) {
	tool := path.Base(argv[0])
	if tool == "." || tool == ".." || tool == "/" || strings.ContainsRune(tool, 0) {
		return nil, nil
	}
	p := SimBinDir + "/" + tool
	st, err := s.Root.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: simulator: %v", ErrCommand, Quote(argv), err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("%w: %s: simulator %s is not an executable file", ErrCommand, Quote(argv), p)
	}
	// The link (if any) must stay in the root: a simulator is the lab's
	// program, never one of the host's.
	if err := s.Root.CheckConfined(p); err != nil {
		return nil, fmt.Errorf("%w: %s: simulator: %v", ErrCommand, Quote(argv), err)
	}
	cmd := exec.CommandContext(ctx, s.Root.HostPath(p))
	cmd.Args = append([]string(nil), argv...)
	cmd.Env = []string{SimRootEnv + "=" + s.Root.Dir(), "LC_ALL=C"}
	cmd.Dir = s.Root.Dir()
	spawns.Add(1)
	return cmd, nil
}

// spawns counts the simulator processes Sim has started in this process.
var spawns atomic.Int64

// Spawns is the number of simulator processes started so far: each costs
// a process spawn, so benchmarks report it per run.
func Spawns() int64 { return spawns.Load() }

func (s Sim) log(argv []string) error {
	if _, err := s.Root.MkdirAll("/"+protocol.StateDir, 0o700); err != nil {
		return err
	}
	line, err := json.Marshal(LogEntry{Argv: argv})
	if err != nil {
		return err
	}
	f, err := s.Root.OpenFile(LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// One write per line: a killed run leaves whole lines.
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("command log: %w", err)
	}
	return f.Close()
}

// ReadLog returns the simulated commands recorded under root, oldest first.
func ReadLog(root *fsroot.Root) ([][]string, error) {
	data, err := root.ReadFile(LogPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var e LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			continue // a line cut by a kill
		}
		out = append(out, e.Argv)
	}
	return out, nil
}
