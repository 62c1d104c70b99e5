package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// seedNode lays out a fake node root: seed-node --dir DIR [--profile P]
// [--hostname H] [--volumes N].
func seedNode(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "folder to lay the node root out in (created if missing)")
	profile := fs.String("profile", string(fakenode.Storage), "node profile: storage, metadata or client")
	hostname := fs.String("hostname", "", "host name (default <profile>01)")
	volumes := fs.Int("volumes", 0, "number of ME4084-like array volumes to cable (sdb, sdc, ...)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	p, err := fakenode.ParseProfile(*profile)
	if err != nil {
		return fmt.Errorf("--profile: %w", err)
	}
	if *volumes < 0 || *volumes > 600 {
		return fmt.Errorf("--volumes %d: want 0 to 600", *volumes)
	}
	host := *hostname
	if host == "" {
		host = string(p) + "01"
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	simBin, err := simulator()
	if err != nil {
		return err
	}
	opts := fakenode.Options{Hostname: host, Disks: fakenode.ArrayVolumes(host, *volumes), Simulator: simBin}
	if err := fakenode.SeedWith(*dir, p, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seeded %s node %s in %s (%d array volumes)\n", p, host, *dir, *volumes)
	return nil
}
