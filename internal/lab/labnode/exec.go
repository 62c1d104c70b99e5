package labnode

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// session runs one exec request on a node.
type session struct {
	node   *Node
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// onAgent is called when the agent process starts, with a kill func.
	onAgent func(kill func())
	// drop closes the whole SSH connection (the DropAfter fault).
	drop func()
	// release stops counting this exec as a running command.
	release func()
	// execing: the agent about to start replaces the sh that runs the
	// exec builtin (the same process, counted once).
	execing bool
}

// rel maps an absolute node path into the node root.
func rel(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", fmt.Errorf("lab node: only absolute paths are mapped, got %q", p)
	}
	r := strings.TrimPrefix(path.Clean(p), "/")
	if r == "" {
		r = "."
	}
	return r, nil
}

// run interprets a command line and returns the exit status.
func (s *session) run(cmdline string) (int, error) {
	l, err := parse(cmdline)
	if err != nil {
		return 127, err
	}
	st, err := s.list(l, s.stdout, s.stderr)
	var ex exitError
	if errors.As(err, &ex) {
		return ex.code, nil
	}
	return st, err
}

func (s *session) list(l *list, stdout, stderr io.Writer) (int, error) {
	st := 0
	for _, a := range l.items {
		var err error
		st, err = s.andOr(&a, stdout, stderr)
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

func (s *session) andOr(a *andOr, stdout, stderr io.Writer) (int, error) {
	st, err := s.command(&a.cmds[0], stdout, stderr)
	if err != nil {
		return st, err
	}
	for i, op := range a.ops {
		if (op == "&&") == (st == 0) {
			st, err = s.command(&a.cmds[i+1], stdout, stderr)
			if err != nil {
				return st, err
			}
		}
	}
	return st, nil
}

func (s *session) command(c *command, stdout, stderr io.Writer) (int, error) {
	if c.group != nil {
		return s.list(c.group, stdout, stderr)
	}
	if c.stderrNull {
		stderr = io.Discard
	}
	if c.stdoutFile != "" {
		r, err := rel(c.stdoutFile)
		if err != nil {
			return 1, err
		}
		f, err := s.node.root.OpenFile(r, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "sh: %s: %v\n", c.stdoutFile, unwrapPath(err))
			return 1, nil
		}
		defer f.Close()
		stdout = f
	}
	return s.simple(c.words, stdout, stderr)
}

// unwrapPath drops the host-side path from an error.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *session) simple(w []string, stdout, stderr io.Writer) (int, error) {
	root := s.node.root
	fileArg := func(i int) (string, error) {
		if i >= len(w) {
			return "", fmt.Errorf("%w: %s needs an argument", errUnsupported, w[0])
		}
		return rel(w[i])
	}
	switch w[0] {
	case "sudo", "sh", "uname", "sha256sum", "mkdir", "cat", "gzip", "chmod", "mv", "rm":
		s.node.procs.Add(1)
	}
	switch w[0] {
	case "true":
		return 0, nil
	case "false":
		return 1, nil
	case "exit":
		code := 0
		if len(w) > 1 {
			n, err := strconv.Atoi(w[1])
			if err != nil {
				return 2, fmt.Errorf("%w: exit %q", errUnsupported, w[1])
			}
			code = n
		}
		return code, exitError{code}
	case "echo":
		fmt.Fprintln(stdout, strings.Join(w[1:], " "))
		return 0, nil
	case "test":
		// test -x FILE: an executable regular file (following links, as
		// sh's builtin does).
		if len(w) != 3 || w[1] != "-x" {
			return 2, fmt.Errorf("%w: test %q", errUnsupported, w[1:])
		}
		r, err := fileArg(2)
		if err != nil {
			return 2, err
		}
		if fi, err := root.Stat(r); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return 0, nil
		}
		return 1, nil
	case "exec":
		// Only the agent is ever exec'd; it replaces the shell, whose
		// status is the agent's (a failed exec ends the shell too).
		if len(w) < 2 || !strings.HasPrefix(w[1], "/") {
			return 2, fmt.Errorf("%w: exec %q", errUnsupported, w[1:])
		}
		s.execing = true
		st, err := s.agent(w[1:], stdout, stderr)
		s.execing = false
		if err != nil {
			return st, err
		}
		return st, exitError{st}
	case "read":
		// read NAME: one line from stdin, a byte at a time as sh's builtin
		// reads a pipe (what follows the newline is the next program's);
		// 1 at the end of stdin. The value is not kept: the lab shell has
		// no variables.
		if len(w) != 2 {
			return 2, fmt.Errorf("%w: read %q", errUnsupported, w[1:])
		}
		var b [1]byte
		for {
			n, err := s.stdin.Read(b[:])
			if n == 1 && b[0] == '\n' {
				return 0, nil
			}
			if err != nil {
				return 1, nil
			}
		}
	case "uname":
		if len(w) != 2 || w[1] != "-m" {
			return 2, fmt.Errorf("%w: uname %q", errUnsupported, w[1:])
		}
		fmt.Fprintln(stdout, s.node.Arch())
		return 0, nil
	case "sudo":
		if len(w) < 3 || w[1] != "-n" {
			return 1, fmt.Errorf("%w: sudo without -n would prompt: %q", errUnsupported, w)
		}
		if s.node.Faults().SudoPassword {
			fmt.Fprintln(stderr, "sudo: a password is required")
			return 1, nil
		}
		return s.simple(w[2:], stdout, stderr)
	case "sh":
		if len(w) != 3 || w[1] != "-c" {
			return 2, fmt.Errorf("%w: sh %q", errUnsupported, w[1:])
		}
		l, err := parse(w[2])
		if err != nil {
			return 2, err
		}
		st, err := s.list(l, stdout, stderr)
		var ex exitError
		if errors.As(err, &ex) {
			return ex.code, nil // exit leaves this sh only
		}
		return st, err
	case "sha256sum":
		r, err := fileArg(1)
		if err != nil || len(w) != 2 {
			return 2, fmt.Errorf("%w: sha256sum %q", errUnsupported, w[1:])
		}
		f, err := root.Open(r)
		if err != nil {
			fmt.Fprintf(stderr, "sha256sum: %s: No such file or directory\n", w[1])
			return 1, nil
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			fmt.Fprintf(stderr, "sha256sum: %s: %v\n", w[1], unwrapPath(err))
			return 1, nil
		}
		fmt.Fprintf(stdout, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), w[1])
		return 0, nil
	case "mkdir":
		if len(w) != 3 || w[1] != "-p" {
			return 2, fmt.Errorf("%w: mkdir %q", errUnsupported, w[1:])
		}
		r, err := fileArg(2)
		if err != nil {
			return 2, err
		}
		if err := root.MkdirAll(r, 0o755); err != nil {
			fmt.Fprintf(stderr, "mkdir: %s: %v\n", w[2], unwrapPath(err))
			return 1, nil
		}
		return 0, nil
	case "cat":
		if len(w) != 1 {
			return 2, fmt.Errorf("%w: cat with files", errUnsupported)
		}
		if _, err := io.Copy(stdout, s.stdin); err != nil {
			fmt.Fprintf(stderr, "cat: %v\n", err)
			return 1, nil
		}
		return 0, nil
	case "gzip":
		if len(w) != 2 || w[1] != "-dc" {
			return 2, fmt.Errorf("%w: gzip %q", errUnsupported, w[1:])
		}
		if s.node.Faults().NoGzip {
			fmt.Fprintln(stderr, "sh: gzip: not found")
			return 127, nil
		}
		zr, err := gzip.NewReader(s.stdin)
		if err == nil {
			_, err = io.Copy(stdout, zr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "gzip: stdin: %v\n", err)
			return 1, nil
		}
		return 0, nil
	case "chmod":
		if len(w) != 3 {
			return 2, fmt.Errorf("%w: chmod %q", errUnsupported, w[1:])
		}
		mode, err := strconv.ParseUint(w[1], 8, 32)
		if err != nil {
			return 2, fmt.Errorf("%w: chmod mode %q", errUnsupported, w[1])
		}
		r, err := fileArg(2)
		if err != nil {
			return 2, err
		}
		if err := root.Chmod(r, os.FileMode(mode)); err != nil {
			fmt.Fprintf(stderr, "chmod: %s: %v\n", w[2], unwrapPath(err))
			return 1, nil
		}
		return 0, nil
	case "mv":
		if len(w) != 4 || w[1] != "-f" {
			return 2, fmt.Errorf("%w: mv %q", errUnsupported, w[1:])
		}
		from, err := fileArg(2)
		if err != nil {
			return 2, err
		}
		to, err := fileArg(3)
		if err != nil {
			return 2, err
		}
		if err := root.Rename(from, to); err != nil {
			fmt.Fprintf(stderr, "mv: %v\n", unwrapPath(err))
			return 1, nil
		}
		return 0, nil
	case "rm":
		if len(w) != 3 || w[1] != "-f" {
			return 2, fmt.Errorf("%w: rm %q", errUnsupported, w[1:])
		}
		r, err := fileArg(2)
		if err != nil {
			return 2, err
		}
		if err := root.Remove(r); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "rm: %s: %v\n", w[2], unwrapPath(err))
			return 1, nil
		}
		return 0, nil
	}
	if strings.HasPrefix(w[0], "/") {
		return s.agent(w, stdout, stderr)
	}
	fmt.Fprintf(stderr, "sh: %s: not found\n", w[0])
	return 127, fmt.Errorf("%w: command %q", errUnsupported, w[0])
}

// agent runs an executable from the node root (the delivered agent) as a
// real subprocess, with --root pointing into the node folder.
func (s *session) agent(w []string, stdout, stderr io.Writer) (int, error) {
	r, err := rel(w[0])
	if err != nil {
		return 127, err
	}
	fi, err := s.node.root.Lstat(r)
	if err != nil || !fi.Mode().IsRegular() {
		fmt.Fprintf(stderr, "sh: %s: not found\n", w[0])
		return 127, nil
	}
	if fi.Mode().Perm()&0o111 == 0 {
		fmt.Fprintf(stderr, "sh: %s: Permission denied\n", w[0])
		return 126, nil
	}
	if msg, ok := s.node.archMismatch(r); !ok {
		fmt.Fprintf(stderr, "sh: %s: %s\n", w[0], msg)
		return 126, nil
	}
	args, err := s.node.mapRootArgs(w[1:])
	if err != nil {
		fmt.Fprintf(stderr, "lab node: %v\n", err)
		return 1, nil
	}
	if d := s.node.Faults().RunDelay; d > 0 {
		select {
		case <-time.After(d):
		case <-s.ctx.Done():
			return 255, nil
		}
	}
	serving := len(args) > 0 && args[0] == "serve"
	var cmd *exec.Cmd
	var px *serveProxy
	for attempt := 0; ; attempt++ {
		cmd = exec.CommandContext(s.ctx, filepath.Join(s.node.Root, r), args...)
		cmd.Dir = s.node.Root
		cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = s.stdin, stdout, stderr
		if serving {
			// Requests carry node paths in --root: the proxy maps them
			// into the node folder, frame by frame.
			px = newServeProxy(s, cmd, stdout)
			if px.err != nil {
				px.abort()
				return 1, fmt.Errorf("lab node %s: serve pipes: %w", s.node.Name, px.err)
			}
		}
		err = cmd.Start()
		// A just-uploaded agent can be briefly "busy" while a concurrent
		// fork in this process still holds the upload's fd (golang/go#22315).
		if errors.Is(err, syscall.ETXTBSY) && attempt < 50 {
			if px != nil {
				px.abort()
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		break
	}
	if err != nil {
		if px != nil {
			px.abort()
		}
		fmt.Fprintf(stderr, "sh: %s: %v\n", w[0], unwrapPath(err))
		return 126, nil
	}
	s.node.agentStarts.Add(1)
	if s.execing {
		s.node.procs.Add(-1)
	}
	kill := func() { _ = cmd.Process.Kill() }
	stop := context.AfterFunc(s.ctx, kill)
	defer stop()
	if s.onAgent != nil {
		s.onAgent(kill)
	}
	var dropMu sync.Mutex
	finished := false
	if px != nil {
		px.start(kill)
	}
	if d := s.node.Faults().DropAfter; d > 0 && s.drop != nil && px == nil {
		// Only while this agent runs: a timer that fires late must not cut
		// the next command on the same connection.
		t := time.AfterFunc(d, func() {
			dropMu.Lock()
			defer dropMu.Unlock()
			if !finished {
				kill()
				s.drop()
			}
		})
		defer t.Stop()
	}
	err = cmd.Wait()
	if ps := cmd.ProcessState; ps != nil {
		s.node.agentCPU.Add(int64(ps.UserTime() + ps.SystemTime()))
	}
	s.node.agentEnds.Add(1)
	if px != nil {
		px.wait()
	}
	dropMu.Lock()
	finished = true
	dropMu.Unlock()
	if err != nil && s.ctx.Err() != nil {
		// The client went away (a session's connection closed): the agent
		// was killed with it.
		return -int(syscall.SIGKILL), nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 1, fmt.Errorf("lab node %s: running agent: %w", s.node.Name, err)
	}
	return 0, nil
}

// mapRootArgs points the agent's --root at the node folder: an explicit
// --root X becomes <node>/X, and the commands that take --root get the node
// folder when none is given (the node's "/" is its folder).
func (n *Node) mapRootArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args)+2)
	seen := false
	// next maps the node path after flag (--root, or --install-as: the
	// agent renames itself there) to the host.
	next := func(i int, flag string) error {
		if i+1 >= len(args) {
			return fmt.Errorf("%s without a value", flag)
		}
		m, err := n.hostPath(args[i+1])
		if err != nil {
			return err
		}
		out = append(out, flag, m)
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--root" || a == "-root", a == "--install-as":
			flag := a
			if flag == "-root" {
				flag = "--root"
			}
			if err := next(i, flag); err != nil {
				return nil, err
			}
			i++
			seen = seen || flag == "--root"
		case strings.HasPrefix(a, "--root="):
			m, err := n.hostPath(strings.TrimPrefix(a, "--root="))
			if err != nil {
				return nil, err
			}
			out = append(out, "--root", m)
			seen = true
		default:
			out = append(out, a)
		}
	}
	if !seen && len(args) > 0 {
		switch args[0] {
		case "apply", "facts", "remove":
			out = append(out, "--root", n.Root)
		}
	}
	return out, nil
}

// hostPath is where node path p lives on the host.
func (n *Node) hostPath(p string) (string, error) {
	r, err := rel(p)
	if err != nil {
		return "", err
	}
	return filepath.Join(n.Root, filepath.FromSlash(r)), nil
}

// ELF machine numbers of the architectures a node can claim.
var elfMachines = map[string]elf.Machine{"x86_64": elf.EM_X86_64, "aarch64": elf.EM_AARCH64, "arm64": elf.EM_AARCH64}

// archMismatch plays the kernel's exec for a node whose `uname -m` is not
// this machine's: an ELF built for another architecture than the node's
// fails as "Exec format error" (126), like on a real node; one built for
// the node's architecture cannot run here either, and says so. Scripts and
// non-ELF files are left to the real exec.
func (n *Node) archMismatch(rel string) (string, bool) {
	f, err := n.root.Open(rel)
	if err != nil {
		return "", true
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return "", true
	}
	nodeM, known := elfMachines[n.Arch()]
	hostM := elfMachines[UnameM(runtime.GOARCH)]
	switch {
	case known && ef.Machine != nodeM:
		return "cannot execute binary file: Exec format error", false
	case ef.Machine != hostM:
		return fmt.Sprintf("lab node (%s) cannot run a %s binary on this %s machine", n.Arch(), ef.Machine, runtime.GOARCH), false
	}
	return "", true
}
