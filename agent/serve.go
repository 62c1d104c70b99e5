package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
)

// cmdServe answers framed requests on stdin until it ends: one agent
// process per node and provider run instead of one per call. Each request
// runs like the one-shot command it names, concurrently with the others;
// the root's run lock is taken per request (check runs share it, applies
// hold it alone), never for the session. The build is checked once, before
// the hello frame.
func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var c common
	fs := newFlags("serve", stderr, &c, false)
	installAs := fs.String("install-as", "", "once --expect-sha256 has verified this executable, rename it to PATH (same folder, atomic) and serve")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if *installAs != "" && c.expectSHA256 == "" {
		return 0, fmt.Errorf("%w: --install-as needs --expect-sha256: an unverified file is never installed", errUsage)
	}
	if code, err := c.checkBuild(stderr); err != nil || code != 0 {
		return code, err
	}
	if *installAs != "" {
		if err := installSelf(*installAs, strings.ToLower(c.expectSHA256)); err != nil {
			return 0, fmt.Errorf("--install-as %s: %w", *installAs, err)
		}
		// Serve as the installed file (its name in ps and in
		// /proc/self/exe), in this process: the session's pipes stay. The
		// same flags but this one.
		argv := []string{*installAs, "serve"}
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "install-as" {
				argv = append(argv, "--"+f.Name+"="+f.Value.String())
			}
		})
		err := syscall.Exec(*installAs, argv, os.Environ())
		return 0, fmt.Errorf("--install-as %s: exec: %w", *installAs, err)
	}
	// A long-lived process: collect garbage as usual (main turns the
	// collector off for one-shot runs).
	debug.SetGCPercent(100)
	// The provider going away closes our stdout: writes must fail, not
	// kill a run that is still putting a file in place.
	signal.Ignore(syscall.SIGPIPE)

	var wmu sync.Mutex
	write := func(v any) error {
		wmu.Lock()
		defer wmu.Unlock()
		return protocol.WriteFrame(stdout, v)
	}
	if err := write(protocol.ServeHello{Protocol: protocol.ServeProtocol, Version: version.Version, GOARCH: runtime.GOARCH}); err != nil {
		return 0, fmt.Errorf("writing the hello frame: %w", err)
	}

	var mu sync.Mutex
	running := map[uint64]context.CancelFunc{}
	var wg sync.WaitGroup
	defer wg.Wait() // requests in flight finish even when stdin ends
	for {
		var req protocol.ServeRequest
		err := protocol.ReadFrame(stdin, &req)
		if errors.Is(err, io.EOF) {
			return protocol.ExitOK, nil
		}
		if err != nil {
			return 0, fmt.Errorf("reading a request: %w", err)
		}
		if req.Cancel {
			mu.Lock()
			if cancel, ok := running[req.ID]; ok {
				cancel()
			}
			mu.Unlock()
			continue
		}
		rctx, cancel := context.WithCancel(ctx)
		mu.Lock()
		running[req.ID] = cancel
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := serveOne(rctx, req)
			mu.Lock()
			delete(running, req.ID)
			mu.Unlock()
			cancel()
			if err := write(resp); err != nil {
				fmt.Fprintf(stderr, "hpcstorage-agent serve: writing the answer to request %d: %v\n", req.ID, err)
			}
		}()
	}
}

// serveOne runs one request as its one-shot command would run.
func serveOne(ctx context.Context, req protocol.ServeRequest) protocol.ServeResponse {
	var out, errb bytes.Buffer
	resp := protocol.ServeResponse{ID: req.ID}
	if len(req.Args) == 0 || !slices.Contains(protocol.ServeCommands, req.Args[0]) {
		name := ""
		if len(req.Args) > 0 {
			name = req.Args[0]
		}
		fmt.Fprintf(&errb, "hpcstorage-agent serve: request %d: command %q cannot be served (one of %v)\n", req.ID, name, protocol.ServeCommands)
		resp.Exit, resp.Stderr = protocol.ExitUsage, errb.Bytes()
		return resp
	}
	resp.Exit = run(ctx, req.Args, bytes.NewReader(req.Stdin), &out, &errb)
	resp.Stdout, resp.Stderr = out.Bytes(), errb.Bytes()
	return resp
}
