package lab

import (
	"fmt"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// Reboot power-cycles a node of the lab running in dir without going
// through a BMC (clients have none): its volatile state is lost, then it
// boots (sim.PowerOff, sim.Boot). A server is better restarted through its
// BMC (ComputerSystem.Reset), which does the same and keeps the BMC's
// power state true.
func Reboot(dir, node string) error {
	st, err := ReadState(dir)
	if err != nil {
		return err
	}
	for _, n := range st.Nodes {
		if n.Name != node {
			continue
		}
		if err := sim.PowerOff(n.Root); err != nil {
			return fmt.Errorf("reboot %s: %w", node, err)
		}
		if err := sim.Boot(n.Root); err != nil {
			return fmt.Errorf("reboot %s: %w", node, err)
		}
		return nil
	}
	names := make([]string, 0, len(st.Nodes))
	for _, n := range st.Nodes {
		names = append(names, n.Name)
	}
	return fmt.Errorf("no node %q in the lab in %s (nodes: %v)", node, dir, names)
}
