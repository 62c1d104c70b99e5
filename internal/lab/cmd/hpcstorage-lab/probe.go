package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
)

// labProbe: probe --dir DIR [--interval 200ms] [--for D]. It samples the
// lab's clusters until D has passed (0: until SIGINT or SIGTERM) and
// prints each cluster's report.
func labProbe(args []string, stdout, stderr io.Writer) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	return probeUntil(args, stdout, stderr, sig)
}

// probeUntil is labProbe with the signal channel given (tests send on it).
func probeUntil(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "lab folder given to up")
	interval := fs.Duration("interval", 200*time.Millisecond, "time between two samples")
	dur := fs.Duration("for", 0, "how long to sample (0: until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *dir == "":
		return errors.New("--dir is required")
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *interval < time.Millisecond:
		return fmt.Errorf("--interval %s: at least 1ms", *interval)
	case *dur < 0:
		return fmt.Errorf("--for %s: not negative", *dur)
	}
	if _, err := os.Stat(*dir); err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	p, err := lab.StartProbe(*dir, *interval)
	if err != nil {
		return err
	}
	var done <-chan time.Time
	if *dur > 0 {
		done = time.After(*dur)
	} else {
		fmt.Fprintf(stderr, "probing %s every %s; interrupt (Ctrl-C) for the report\n", *dir, *interval)
	}
	select {
	case <-done:
	case <-sig:
	}
	reports := p.Stop()
	if len(reports) == 0 {
		fmt.Fprintln(stdout, "no cluster found in the lab (pacemaker, GPFS, Ceph or BeeGFS)")
	}
	for _, name := range slices.Sorted(maps.Keys(reports)) {
		fmt.Fprint(stdout, reports[name])
	}
	return nil
}
