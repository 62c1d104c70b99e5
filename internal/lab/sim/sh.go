package sim

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shell follows sh(1) (POSIX "Shell Command Language") for `sh -c SCRIPT
// [NAME [ARG...]]`, the form the provider wraps its setup steps in: the
// script runs in mvdan.cc/sh's POSIX interpreter with the node confined
// to the root: every command it runs goes to its simulator (a command
// without one succeeds without effect, as the runner records it only),
// and redirections, tests and globs see the root's files, never the
// host's. NAME is $0, the ARGs $1...; the exit status is the script's.

func shell(e *Env, args []string) int {
	var opts []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-c" {
		opts = append(opts, args[0])
		args = args[1:]
	}
	if len(args) < 2 || args[0] != "-c" {
		return e.fail(2, "only `%s -c SCRIPT [NAME [ARG...]]` is simulated", e.tool)
	}
	script, name := args[1], e.tool
	var params []string
	if len(args) > 2 {
		name, params = args[2], args[3:]
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(script), name)
	if err != nil {
		return e.fail(2, "%v", err)
	}
	r, err := interp.New(
		interp.Params(append(append(opts, "--"), params...)...),
		interp.Env(nil),
		interp.Dir("/"),
		interp.StdIO(e.Stdin, e.Stdout, e.Stderr),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return e.execIn }),
		interp.OpenHandler(e.openIn),
		interp.StatHandler(e.statIn),
		interp.ReadDirHandler2(func(_ context.Context, p string) ([]fs.DirEntry, error) { return e.Root.ReadDir(p) }),
	)
	if err != nil {
		return e.fail(2, "%v", err)
	}
	err = r.Run(context.Background(), file)
	if code, ok := interp.IsExitStatus(err); ok {
		return int(code)
	}
	if err != nil {
		return e.fail(2, "%v", err)
	}
	return 0
}

// execIn runs a command of the script through its simulator.
func (e *Env) execIn(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	if !IsTool(path.Base(args[0])) {
		return nil
	}
	code := Run(&Env{Root: e.Root, Stdin: orEmpty(hc.Stdin), Stdout: hc.Stdout, Stderr: hc.Stderr}, args)
	if code != 0 {
		return interp.ExitStatus(code)
	}
	return nil
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

// openIn opens a redirection's file in the root.
func (e *Env) openIn(ctx context.Context, p string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if p == "/dev/null" {
		return devNull{}, nil
	}
	if !path.IsAbs(p) {
		p = path.Join(interp.HandlerCtx(ctx).Dir, p)
	}
	if flag&os.O_CREATE != 0 {
		if _, err := e.Root.Stat(path.Dir(p)); err != nil {
			return nil, err
		}
	}
	return e.Root.OpenFile(p, flag, perm)
}

func (e *Env) statIn(_ context.Context, p string, follow bool) (fs.FileInfo, error) {
	if follow {
		return e.Root.Stat(p)
	}
	return e.Root.Lstat(p)
}

type devNull struct{}

func (devNull) Read([]byte) (int, error)    { return 0, io.EOF }
func (devNull) Write(b []byte) (int, error) { return len(b), nil }
func (devNull) Close() error                { return nil }
