// Command hpcstorage-lab runs the hpcstorage lab: mock BMCs and arrays
// (Redfish/Swordfish, and SANtricity for E-Series), captured-mockup replay, and fake node roots, so the
// provider and the agent can be exercised without hardware.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
		{"up", "up --design rN --dir DIR [--clients N]               start mock BMCs/arrays and SSH lab nodes, write DIR/lab.auto.tfvars.json (variable lab) and DIR/lab.env (passwords)", labUpAny},
		{"up --real", "up --real --dir DIR (--nodes N | --design rN) [--disks K] [--detach]   boot real Debian 12 nodes (systemd-nspawn, as root) on a lab bridge; a design's mock BMCs power them", upReal},
		{"status", "status --dir DIR                                      print what each lab node has configured", labStatus},
		{"probe", "probe --dir DIR [--interval 200ms] [--for D]         sample the lab's clusters (pacemaker, GPFS, Ceph, BeeGFS) and print each one's longest unserved time and members out at once (at the end, or on Ctrl-C)", labProbe},
		{"reboot", "reboot --dir DIR --node NAME                         power-cycle a lab node (servers: prefer their BMC's ComputerSystem.Reset)", labReboot},
		{"fault", "fault --dir DIR --node NAME [--drop-rate P] [--drop-at-request N] [--drop-after-bytes N] [--drop-at before|while|after]   make a lab node drop SSH connections (no drop flag: clear)", labFault},
		{"down", "down --dir DIR                                        stop a lab started with up", labDown},
		{"seed-node", "seed-node --dir DIR [--profile NAME]                 lay out a fake node root (proc, sys, etc)", seedNode},
		{"real-image", "real-image [--cache DIR] [--mirror URL]              build or reuse the Debian 12 image of up --real (debootstrap, cached)", realImage},
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
	fmt.Fprintln(w, "hpcstorage-lab help COMMAND (or COMMAND --help) lists a command's flags.")
}

func main() {
	// Linked into a node root as a tool (when no hpcstorage-sim is beside
	// this program), it is that tool's simulator.
	if b := filepath.Base(os.Args[0]); sim.IsTool(b) || b == sim.Program {
		os.Exit(sim.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit: help goes to stdout with status 0, misuse
// to stderr with status 1 (2 for an unknown flag, as flag does).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 1
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		c, ok := find(args[1])
		if !ok {
			fmt.Fprintf(stderr, "hpcstorage-lab help: unknown command %q\n", args[1])
			usage(stderr)
			return 1
		}
		synopsis, what, _ := strings.Cut(c.usage, "   ")
		fmt.Fprintf(stdout, "usage: hpcstorage-lab %s\n\n%s\n\n", synopsis, strings.TrimSpace(what))
		// The command's flag set prints its flags for -h and returns ErrHelp.
		if err := c.run([]string{"-h"}, stdout, stdout); !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "hpcstorage-lab help %s: %v\n", c.name, err)
			return 1
		}
		return 0
	}
	c, ok := find(args[0])
	if !ok {
		fmt.Fprintf(stderr, "hpcstorage-lab: unknown command %q\n", args[0])
		usage(stderr)
		return 1
	}
	for _, a := range args[1:] {
		if a == "-h" || a == "-help" || a == "--help" {
			return run([]string{"help", c.name}, stdout, stderr)
		}
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "hpcstorage-lab %s: %v\n", c.name, err)
		if strings.HasPrefix(err.Error(), "flag provided but not defined") {
			return 2
		}
		return 1
	}
	return 0
}

func find(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}
