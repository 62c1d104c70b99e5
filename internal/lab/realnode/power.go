package realnode

import "context"

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
