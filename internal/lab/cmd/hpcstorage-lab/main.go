// Command hpcstorage-lab runs the hpcstorage lab: mock BMCs and arrays
// (Redfish/Swordfish, and SANtricity for E-Series), captured-mockup replay, and fake node roots, so the
// provider and the agent can be exercised without hardware.
package main

import (
	"fmt"
	"io"
	"os"
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
		{"down", "down --dir DIR                                        stop a lab started with up", labDown},
		{"seed-node", "seed-node --dir DIR [--profile NAME]                 lay out a fake node root (proc, sys, etc)", seedNode},
		{"bench-fleet", "bench-fleet --n N [--ansible-dir DIR] [--ansible-forks F] [--max-parallel P]   agent vs tuned Ansible on N real sshd hosts (issue 4's fleet figure)", benchFleet},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hpcstorage-lab COMMAND [flags]")
	for _, c := range commands() {
		fmt.Fprintln(w, "  "+c.usage)
	}
}

func main() {
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
