package day2

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/availability"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// The failover drill is what the R3 paper's functional tests do by hand:
// each server of a pair in turn goes to standby and back, then loses its
// power through its BMC while the cluster is watched from its peer; each
// exercise reports how long every service ran nowhere.

// Exercises of the drill.
const (
	ExerciseStandby  = "standby"
	ExercisePowerOff = "power-off"
)

// Power changes a member's power through its BMC and waits until the
// server is in that state: "ForceOff" (pulling the plug) or "On".
type Power func(ctx context.Context, m Member, resetType string) error

// DrillResult is one exercise of one member.
type DrillResult struct {
	Member   string
	Exercise string
	Took     time.Duration
	// Seen is what the peer saw meanwhile: each service's longest stretch
	// running nowhere.
	Seen availability.Availability
}

// Drill runs the exercises on each member in order. Members must be of a
// pacemaker domain and name a peer in Admin, from where the cluster is
// watched while they are away. power nil skips the power-off exercise.
func Drill(ctx context.Context, r Runner, power Power, members []Member, o Options, turns *Turns, progress func(string)) ([]DrillResult, error) {
	var out []DrillResult
	say := func(f string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(f, a...))
		}
	}
	for _, m := range members {
		if m.Kind != KindPacemaker || m.Admin == "" || m.Admin == m.Host {
			return out, &StepError{Member: m, Step: StepCheck, Err: fmt.Errorf("the drill needs a pacemaker member and a peer to watch from (admin host other than %s)", m.Host)}
		}
		d := &pcmkDomain{r: r, m: m}
		say("%s: standby and back", m.Node)
		w := watch(ctx, d, o)
		start := time.Now()
		err := Roll(ctx, r, m, o, turns, func(context.Context) error { return nil })
		res := DrillResult{Member: m.Node, Exercise: ExerciseStandby, Took: time.Since(start), Seen: w.stop()}
		out = append(out, res)
		if err != nil {
			return out, err
		}
		say("%s: %s", m.Node, res)
		if power == nil {
			continue
		}
		say("%s: power off through the BMC", m.Node)
		start = time.Now()
		res, err = powerOffExercise(ctx, d, power, o, turns)
		res.Took = time.Since(start)
		out = append(out, res)
		if err != nil {
			return out, err
		}
		say("%s: %s", m.Node, res)
	}
	return out, nil
}

func (r DrillResult) String() string {
	id, d := r.Seen.Longest()
	if id == "" {
		return fmt.Sprintf("%s took %s, every service served throughout (%d samples)", r.Exercise, r.Took.Round(100*time.Millisecond), r.Seen.Samples)
	}
	return fmt.Sprintf("%s took %s, %s unserved for %s at most (%d samples)", r.Exercise, r.Took.Round(100*time.Millisecond), id, d.Round(10*time.Millisecond), r.Seen.Samples)
}

// powerOffExercise: the member loses its power, the cluster fences it and
// moves its services, it boots again, the failure is cleaned up and the
// services go home.
func powerOffExercise(ctx context.Context, d *pcmkDomain, power Power, o Options, turns *Turns) (res DrillResult, err error) {
	m := d.m
	res = DrillResult{Member: m.Node, Exercise: ExercisePowerOff}
	done, err := take(ctx, d, m, o, turns)
	if err != nil {
		return res, err
	}
	defer done()
	step := func(name string, f func(context.Context) error) error { return wait(ctx, o, m, name, f) }
	w := watch(ctx, d, o)
	defer func() { res.Seen = w.stop() }()
	if err := power(ctx, m, "ForceOff"); err != nil {
		return res, &StepError{Member: m, Step: StepWork, Err: err}
	}
	// The peer has fenced it and runs its services.
	err = step(StepDrain, func(ctx context.Context) error {
		nodes, top, err := d.status(ctx, m.Admin)
		if err != nil {
			return err
		}
		if nodes[m.Node].Online {
			return fmt.Errorf("%s is still online", m.Node)
		}
		for id, at := range top {
			if at == "" {
				return fmt.Errorf("%s runs nowhere yet", id)
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if err := power(ctx, m, "On"); err != nil {
		return res, &StepError{Member: m, Step: StepWork, Err: err}
	}
	if err := step(StepRejoin, d.rejoined); err != nil {
		return res, err
	}
	// What an administrator runs after a real crash: the failed actions
	// and the fencing history cleared, then the failback.
	if _, err := change(ctx, d.r, m.Admin, pacemaker.CleanupItems(true, true)...); err != nil {
		return res, &StepError{Member: m, Step: StepLeave, Err: err}
	}
	if err := step(StepSettle, d.settled); err != nil {
		return res, err
	}
	if err := d.release(ctx); err != nil {
		return res, &StepError{Member: m, Step: StepRelease, Err: err}
	}
	return res, nil
}

// watcher samples the cluster from the member's peer until stopped.
type watcher struct {
	stopc chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	a     availability.Availability
}

// samplePeriod is how often a watcher reads the cluster.
const samplePeriod = 200 * time.Millisecond

func watch(ctx context.Context, d *pcmkDomain, o Options) *watcher {
	w := &watcher{stopc: make(chan struct{}), done: make(chan struct{})}
	period := min(o.poll(), samplePeriod)
	go func() {
		defer close(w.done)
		for {
			if nodes, top, err := d.status(ctx, d.m.Admin); err == nil {
				in := map[string]bool{}
				for n, s := range nodes {
					in[n] = s.Online && !s.Standby
				}
				w.mu.Lock()
				w.a.Add(time.Now(), top, in)
				w.mu.Unlock()
			}
			select {
			case <-w.stopc:
				return
			case <-ctx.Done():
				return
			case <-time.After(period):
			}
		}
	}()
	return w
}

func (w *watcher) stop() availability.Availability {
	close(w.stopc)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	w.a.End(time.Now())
	return w.a
}
