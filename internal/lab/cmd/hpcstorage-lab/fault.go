package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
)

// labFault: fault --dir DIR --node NAME [drop flags]. Without a drop flag
// it clears the node's faults.
func labFault(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fault", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "lab folder given to up")
	node := fs.String("node", "", "lab node (e.g. stor1)")
	var f lab.NodeFaults
	fs.Int64Var(&f.DropAfterBytes, "drop-after-bytes", 0, "cut each SSH connection once it has carried this many bytes")
	fs.IntVar(&f.DropAtRequest, "drop-at-request", 0, "cut the connection of the node's Nth request from now (1: the next), once")
	fs.Float64Var(&f.DropRate, "drop-rate", 0, "cut each request's connection with this probability (0 to 1)")
	fs.StringVar(&f.DropAt, "drop-at", "", "where in the request: before (it never runs), while (after a random delay), after (it ran; the answer is lost); default: before for --drop-at-request, random for --drop-rate")
	fs.Uint64Var(&f.DropSeed, "seed", 0, "seed of --drop-rate's choices (0: random)")
	fs.DurationVar(&f.DropWhileMax, "drop-while-max", 0, "longest random delay of --drop-at while (default 200ms)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" || *node == "" {
		return errors.New("--dir and --node are required")
	}
	rep, err := lab.SetNodeFaults(*dir, *node, f)
	if err != nil {
		return err
	}
	what := "faults cleared"
	if f != (lab.NodeFaults{}) {
		what = "faults set"
	}
	fmt.Fprintf(stdout, "%s: %s; %d connections cut since the lab started\n", rep.Node, what, rep.Drops)
	return nil
}
