//go:build !linux

package transport

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// Session keepers need Linux (SO_PEERCRED); elsewhere every provider
// process keeps its own sessions.

const DefaultKeeperIdle = 60 * time.Second

type KeeperConfig struct {
	Dir     string
	Command func() *exec.Cmd
	Build   string
	Idle    time.Duration
}

type keeperSlot struct{}

func DefaultKeeperDir() string { return "" }

func (p *Pool) keeperCall(context.Context, *Options, []string, []byte, bool) (*Response, error, bool) {
	return nil, nil, false
}

func (p *Pool) closeKeepers(map[string]*keeperSlot) {}

func RunKeeper(_ io.Reader, stdout io.Writer, _ PoolOptions) int {
	fmt.Fprintln(stdout, "session keepers need Linux")
	return 1
}
