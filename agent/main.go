// Command hpcstorage-agent converges a node to a declarative spec (sysctls,
// block queues, THP, config files, kernel modules, services, mounts, setup
// commands, package floors), with check and diff modes and revert by owner.
// See docs/guides/agent.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	// A run is short and allocates a few MB: collect only when the heap
	// nears the limit (it stays well under the 30 MB RSS budget).
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(20 << 20)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
