package benchmark

// The sweep a benchmark resource runs: for each thread count, each step
// (after a remount and a cache drop when asked), Repeat times for the
// tools without their own iterations; the clients' measurements of a step
// add up and the repeats are averaged. It runs over Clients, so it is
// tested without Terraform or SSH.

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Clients runs commands on a run's clients.
type Clients interface {
	// Run runs argv[i] read-only on client i (nil: nothing there), the
	// clients at once, and returns each one's output (stderr folded in).
	Run(ctx context.Context, argv [][]string) []Output
	// Remount unmounts and mounts again each client's file system and
	// checks it is back; an error stops the sweep.
	Remount(ctx context.Context) error
}

// Output is one client's answer to one command.
type Output struct {
	Out string
	Err error
}

// The ways a client fails a sweep (ClientError.Stage).
const (
	StageDropCaches = "drop_caches"
	StageRun        = "run"
	StageParse      = "parse"
)

// ClientError is one client's failure in the sweep; the sweep stops after
// the round it happened in, with every client's failure of that round.
type ClientError struct {
	Client  int
	Stage   string
	Phases  []string
	Threads int
	Output  string // the command's output (run failures)
	Err     error
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("client %d, %s at %d threads (%s): %v", e.Client, strings.Join(e.Phases, "+"), e.Threads, e.Stage, e.Err)
}

func (e *ClientError) Unwrap() error { return e.Err }

// Sweep is what a run measured, and the commands it ran ("client: argv").
type Sweep struct {
	Points   []Point
	Commands []string
}

// Run runs p's sweep in dir on the clients (names for the commands list,
// hosts as they know each other).
func Run(ctx context.Context, p Params, dir string, names, hosts []string, c Clients) (Sweep, error) {
	var s Sweep
	repeats := p.Repeat
	if p.Tool == IOR || p.Tool == Mdtest {
		repeats = 1 // their -i averages
	}
	for _, threads := range p.Threads {
		for _, step := range p.Steps(threads, dir, hosts) {
			rounds := roundsOf(step, len(names))
			for _, inv := range step.Invocations {
				s.Commands = append(s.Commands, fmt.Sprintf("%s: %s", names[inv.Client], ShellQuote(inv.Argv)))
			}
			var runs [][]Measurement
			for range repeats {
				combined, err := runStep(ctx, p, step, threads, rounds, c)
				if err != nil {
					return Sweep{}, err
				}
				runs = append(runs, combined)
			}
			for k := range step.Phases {
				s.Points = append(s.Points, Point{Threads: threads, Measurement: MeanOf(runs, k)})
			}
		}
	}
	return s, nil
}

// roundsOf splits a step's invocations into rounds: a client's k-th
// invocation runs beside the other clients' k-th (one per client, except
// raw devices: one per device, in turn).
func roundsOf(step Step, clients int) [][][]string {
	var rounds [][][]string
	seen := map[int]int{}
	for _, inv := range step.Invocations {
		k := seen[inv.Client]
		seen[inv.Client]++
		if k == len(rounds) {
			rounds = append(rounds, make([][]string, clients))
		}
		rounds[k][inv.Client] = inv.Argv
	}
	return rounds
}

// runStep runs one repeat of a step: remount, drop caches, every round;
// it returns the step's measurement per phase.
func runStep(ctx context.Context, p Params, step Step, threads int, rounds [][][]string, c Clients) ([]Measurement, error) {
	fail := func(i int, stage string, out string, err error) error {
		return &ClientError{Client: i, Stage: stage, Phases: step.Phases, Threads: threads, Output: out, Err: err}
	}
	if p.Remount {
		if err := c.Remount(ctx); err != nil {
			return nil, err
		}
	}
	if p.DropCaches {
		all := make([][]string, len(rounds[0]))
		for i := range all {
			all[i] = DropCaches()
		}
		var errs []error
		for i, o := range c.Run(ctx, all) {
			if o.Err != nil {
				errs = append(errs, fail(i, StageDropCaches, o.Out, o.Err))
			}
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	var ms [][]Measurement // per client and round
	for _, round := range rounds {
		var errs []error
		for i, o := range c.Run(ctx, round) {
			if round[i] == nil {
				continue
			}
			if o.Err != nil {
				errs = append(errs, fail(i, StageRun, o.Out, o.Err))
				continue
			}
			got, err := Parse(p.Tool, step.Phases, p.BlockSize, []byte(o.Out))
			if err != nil {
				errs = append(errs, fail(i, StageParse, o.Out, err))
				continue
			}
			ms = append(ms, got)
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	combined := make([]Measurement, len(step.Phases))
	for k := range step.Phases {
		per := make([]Measurement, 0, len(ms))
		for _, m := range ms {
			per = append(per, m[k])
		}
		// Clients running at once add up; devices taken in turn give a
		// per-device mean.
		if len(p.Devices) > 0 {
			combined[k] = PerDevice(per)
		} else {
			combined[k] = Combine(per)
		}
	}
	return combined, nil
}

// MeanOf averages phase k over repeated runs.
func MeanOf(runs [][]Measurement, k int) Measurement {
	var m Measurement
	n := float64(len(runs))
	for _, r := range runs {
		x := r[k]
		m.Phase = x.Phase
		m.BandwidthBps += x.BandwidthBps / n
		m.IOPS += x.IOPS / n
		m.OpsPerSec += x.OpsPerSec / n
		m.MeanLatencyNs += x.MeanLatencyNs / n
		m.P9999LatencyNs += x.P9999LatencyNs / n
	}
	return m
}

// ShellQuote writes argv as a shell would take it, for the commands list.
func ShellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"$`\\|&;()<>*?[]{}!#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
