// Command hpcstorage-agent converges a node to a declarative spec (sysctls,
// block queues, THP, config files, kernel modules, services, mounts, setup
// commands, package floors), with check and diff modes and revert by owner.
// See docs/agent.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
