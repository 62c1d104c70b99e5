package realnode

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// ApplyPower is what a BMC's power transition does to the node's
// container: off stops it (graceful: its systemd shuts down; else every
// process is killed at once), on boots it from the same overlay, so the
// node keeps its disk across the cycle and loses everything else.
func ApplyPower(ctx context.Context, n *Node, on, graceful bool) error {
	if on {
		return n.Start(ctx)
	}
	return n.Shutdown(graceful)
}

// PowerHook is the mock BMCs' power listener (redfishmock.Design.OnPower)
// for a lab of real nodes: each transition of a server's host powers its
// container, in order, one worker per node (the mock calls listeners
// synchronously; a boot takes seconds). Failures go to log.
func (l *Lab) PowerHook(ctx context.Context, log io.Writer) func(redfishmock.PowerEvent) {
	var mu sync.Mutex
	queues := map[string]chan redfishmock.PowerEvent{}
	return func(ev redfishmock.PowerEvent) {
		n := l.Node(ev.Node)
		if n == nil {
			return
		}
		mu.Lock()
		q, ok := queues[ev.Node]
		if !ok {
			q = make(chan redfishmock.PowerEvent, 64)
			queues[ev.Node] = q
			go func() {
				for ev := range q {
					if err := ApplyPower(ctx, n, ev.State == redfishmock.PowerOn, ev.Graceful); err != nil {
						fmt.Fprintf(log, "power %s of %s: %v\n", ev.State, ev.Node, err)
					}
					l.recordNSpawn()
				}
			}()
		}
		mu.Unlock()
		q <- ev
	}
}
