// Command hpcstorage-sim is the lab's multi-call simulator of a node's
// tools (package internal/lab/sim). The lab installs it in each fake node
// root under .hpcstorage-sim/bin with one link per tool; the agent runs
// those links in place of the real tools when its root is not "/".
package main

import (
	"os"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

func main() {
	os.Exit(sim.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
