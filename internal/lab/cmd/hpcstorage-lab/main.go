// Command hpcstorage-lab runs the hpcstorage lab: mock BMCs and arrays
// (Redfish/Swordfish, and SANtricity for E-Series), captured-mockup replay, and fake node roots, so the
// provider and the agent can be exercised without hardware.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// command is one lab subcommand; each lives in its own file.
type command struct {
	name, usage string
	run         func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve-redfish", "serve-redfish --design rN --listen 127.0.0.1:PORT   serve a design's mock BMCs and arrays", serveRedfish},
		{"serve-santricity", "serve-santricity --design r3 --listen 127.0.0.1:PORT  serve a design's E-Series arrays (SANtricity REST)", serveSantricity},
		{"replay", "replay --dir MOCKUP --listen 127.0.0.1:PORT          serve a captured Redfish mockup folder", replay},
		{"up", "up --design rN --dir DIR [--clients N]               start mock BMCs/arrays and SSH lab nodes, write DIR/lab.auto.tfvars.json", labUp},
		{"status", "status --dir DIR                                      print what each lab node has configured", labStatus},
		{"reboot", "reboot --dir DIR --node NAME                         power-cycle a lab node (servers: prefer their BMC's ComputerSystem.Reset)", labReboot},
		{"down", "down --dir DIR                                        stop a lab started with up", labDown},
		{"seed-node", "seed-node --dir DIR [--profile NAME]                 lay out a fake node root (proc, sys, etc)", seedNode},
		{"bench-fleet", "bench-fleet --n N [--ansible-dir DIR] [--ansible-forks F] [--max-parallel P]   agent vs tuned Ansible on N real sshd hosts (issue 4's fleet figure)", benchFleet},
	}
}

// simulator is the program installed in the node roots this command
// seeds: hpcstorage-sim beside it (or $HPCSTORAGE_SIM_BIN), else this
// program itself, which runs as the simulator under a tool's name.
func simulator() (string, error) {
	if p, err := sim.Locate(); err == nil {
		return p, nil
	}
	return os.Executable()
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hpcstorage-lab COMMAND [flags]")
	for _, c := range commands() {
		fmt.Fprintln(w, "  "+c.usage)
	}
}

func main() {
	// Linked into a node root as a tool (when no hpcstorage-sim is beside
	// this program), it is that tool's simulator.
	if b := filepath.Base(os.Args[0]); sim.IsTool(b) || b == sim.Program {
		os.Exit(sim.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(1)
	}
	for _, c := range commands() {
		if c.name == os.Args[1] {
			if err := c.run(os.Args[2:], os.Stdout, os.Stderr); err != nil {
				fmt.Fprintf(os.Stderr, "hpcstorage-lab %s: %v\n", c.name, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "hpcstorage-lab: unknown command %q\n", os.Args[1])
	usage(os.Stderr)
	os.Exit(1)
}
