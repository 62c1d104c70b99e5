// Package day2 runs disruptive work on a live cluster one failure domain
// member at a time, the way an administrator does in a maintenance
// window: take the domain's lock, check the domain can lose the member,
// take the member out (pacemaker standby, mmshutdown, noout), wait until
// it is drained, do the work (a reboot for BIOS or firmware), wait until
// it is back, put it back in service, wait until the domain is whole
// again, release the lock. Every step is verified before the next; a wait
// that times out fails naming the member and the step and leaves the lock
// held, so the next run resumes the same member from where it stopped.
//
// Two locks keep members of a domain apart. In one process (Terraform
// updates the servers of a domain in parallel) Turns hands the domain to
// one member at a time, in member name order among those waiting. Across
// processes (two CI jobs applying at once) the lock lives in the cluster
// itself, taken with the cluster's own compare-and-set.
package day2

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Failure domain kinds, defined once for validators and docs.
const (
	KindPacemaker = "pacemaker"
	KindGPFS      = "gpfs"
	KindCeph      = "ceph"
	KindBeeGFS    = "beegfs"
)

// Kinds lists the failure domain kinds the provider sequences.
var Kinds = []string{KindPacemaker, KindGPFS, KindCeph, KindBeeGFS}

// Steps of a member's sequence, in order (errors name them).
const (
	StepLock    = "lock"
	StepCheck   = "check"
	StepEnter   = "enter"
	StepDrain   = "drain"
	StepWork    = "work"
	StepRejoin  = "rejoin"
	StepLeave   = "leave"
	StepSettle  = "settle"
	StepRelease = "release"
)

// Runner sends agent items to a node: check runs read-only items (a
// query), otherwise the items may change the node. Item failures are in
// the result (Failed); the error is for a node that could not be reached.
type Runner interface {
	Run(ctx context.Context, host string, items []protocol.Item, check bool) (*protocol.Result, error)
}

// Member is one server in one failure domain.
type Member struct {
	Domain string // the domain's name: members of one domain never go down together
	Kind   string // one of Kinds
	Host   string // where the member's own commands run (its SSH host)
	Node   string // its name in the cluster
	// Admin is where cluster-wide commands run while the member is down
	// (another member); "" runs them on Host, waiting while it is away.
	Admin string
}

// Options tune a sequence.
type Options struct {
	// Timeout bounds each wait (drain, rejoin, settle, the lock); 0 is
	// DefaultTimeout.
	Timeout time.Duration
	// Poll is the pause between two reads of a wait; 0 is DefaultPoll.
	Poll time.Duration
	// Log, when set, hears each step as it starts.
	Log func(m Member, step, msg string)
}

// Defaults of Options.
const (
	DefaultTimeout = 20 * time.Minute
	DefaultPoll    = 2 * time.Second
)

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) log(m Member, step, msg string) {
	if o.Log != nil {
		o.Log(m, step, msg)
	}
}

func (o Options) poll() time.Duration {
	if o.Poll > 0 {
		return o.Poll
	}
	return DefaultPoll
}

// StepError is a sequence that stopped: which member, at which step. The
// member is left as the step found it (in standby, shut down) and the
// domain's lock stays held by it, so the next run resumes it.
type StepError struct {
	Member Member
	Step   string
	Err    error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s (domain %s, %s): step %s: %v", e.Member.Node, e.Member.Domain, e.Member.Kind, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// ErrNotReady is wrapped by a wait that ran out of time.
var ErrNotReady = errors.New("not ready before the timeout")

// domain is what a kind of failure domain does; each method is one step.
type domain interface {
	// lock takes the in-cluster lock for m (true) or reports who holds it;
	// a lock m already holds (an interrupted run) is taken.
	lock(ctx context.Context) (holder string, err error)
	// pending reports whether m holds the lock (a run stopped half-way).
	pending(ctx context.Context) (bool, error)
	// canLeave is nil when the domain keeps its service without m.
	canLeave(ctx context.Context) error
	enter(ctx context.Context) error
	drained(ctx context.Context) error
	rejoined(ctx context.Context) error
	leave(ctx context.Context) error
	settled(ctx context.Context) error
	release(ctx context.Context) error
}

func domainFor(r Runner, m Member) (domain, error) {
	switch m.Kind {
	case KindPacemaker:
		return &pcmkDomain{r: r, m: m}, nil
	case KindGPFS:
		return &gpfsDomain{r: r, m: m}, nil
	case KindCeph:
		return &cephDomain{r: r, m: m}, nil
	case KindBeeGFS:
		return &beegfsDomain{r: r, m: m}, nil
	}
	return nil, fmt.Errorf("failure domain kind %q: want one of %s", m.Kind, strings.Join(Kinds, ", "))
}

// Roll runs work on m inside its domain's sequence. Members of one
// domain in this process queue on turns; across processes the cluster's
// own lock keeps them apart.
func Roll(ctx context.Context, r Runner, m Member, o Options, turns *Turns, work func(context.Context) error) error {
	d, err := domainFor(r, m)
	if err != nil {
		return &StepError{Member: m, Step: StepCheck, Err: err}
	}
	done, err := take(ctx, d, m, o, turns)
	if err != nil {
		return err
	}
	defer done()
	steps := []struct {
		name string
		wait bool
		do   func(context.Context) error
	}{
		{StepEnter, false, d.enter},
		{StepDrain, true, d.drained},
		{StepWork, false, work},
		{StepRejoin, true, d.rejoined},
		{StepLeave, false, d.leave},
		{StepSettle, true, d.settled},
		{StepRelease, false, d.release},
	}
	for _, s := range steps {
		if s.wait {
			if err := wait(ctx, o, m, s.name, s.do); err != nil {
				return stopped(turns, m, err)
			}
			continue
		}
		o.log(m, s.name, "running")
		if err := s.do(ctx); err != nil {
			return stopped(turns, m, &StepError{Member: m, Step: s.name, Err: err})
		}
	}
	return nil
}

// take is the start every sequence shares: m's turn in this process, the
// domain's lock in the cluster, and the check that the domain can lose
// m (refused: the lock is given back, nothing changed). done gives the
// turn back; the lock stays with m until its sequence releases it.
func take(ctx context.Context, d domain, m Member, o Options, turns *Turns) (done func(), err error) {
	done = func() {}
	if turns != nil {
		if done, err = turns.Acquire(ctx, m.Domain, m.Node); err != nil {
			return nil, &StepError{Member: m, Step: StepLock, Err: err}
		}
	}
	err = wait(ctx, o, m, StepLock, func(ctx context.Context) error {
		holder, err := d.lock(ctx)
		if err == nil && holder != m.Node {
			return fmt.Errorf("%w: the domain is held by %s (another run, or one that stopped: apply again where it ran)", ErrBusy, holder)
		}
		if errors.Is(err, ErrNoCluster) {
			return &final{err} // no cluster runs there: nothing to keep served
		}
		return err
	})
	if err == nil {
		if err = wait(ctx, o, m, StepCheck, d.canLeave); err != nil {
			_ = d.release(ctx)
		}
	}
	if err != nil {
		done()
		return nil, err
	}
	return done, nil
}

// wait runs one waiting step of m's sequence.
func wait(ctx context.Context, o Options, m Member, step string, check func(context.Context) error) error {
	o.log(m, step, "waiting")
	if err := waitFor(ctx, o, check); err != nil {
		return &StepError{Member: m, Step: step, Err: err}
	}
	return nil
}

// stopped marks m's domain as stopped in this run (turns): the others do
// not start while m holds the cluster's lock.
func stopped(turns *Turns, m Member, err error) error {
	if turns != nil {
		turns.Fail(m.Domain, fmt.Errorf("%w: %s's sequence stopped (%v); the next apply resumes it first", ErrBusy, m.Node, err))
	}
	return err
}

// Pending reports whether m holds its domain's lock: a run stopped in the
// middle of m's sequence, which the next Roll resumes.
func Pending(ctx context.Context, r Runner, m Member) (bool, error) {
	d, err := domainFor(r, m)
	if err != nil {
		return false, err
	}
	return d.pending(ctx)
}

// Precheck runs m's check step alone, read-only, as a plan does before it
// shows a disruptive change: an error wrapping ErrRefused is a domain
// that can never lose m as built; any other error is the domain's state
// now (it may change by the apply).
func Precheck(ctx context.Context, r Runner, m Member) error {
	d, err := domainFor(r, m)
	if err != nil {
		return err
	}
	return d.canLeave(ctx)
}

// ErrBusy is wrapped while another member holds the domain.
var ErrBusy = errors.New("busy")

// ErrRefused is wrapped by a check that no wait can pass: the domain as
// built cannot lose the member (a two-node GPFS cluster without
// tiebreaker disks, a pool whose min_size the other hosts cannot hold).
var ErrRefused = errors.New("the domain as built cannot lose this member")

// ErrNoCluster is wrapped when the domain's cluster does not run where it
// was asked (not formed yet, or stopped): there is no service to keep.
var ErrNoCluster = errors.New("the cluster does not run there")

// final marks an error no wait can change in this step. (A cluster that
// does not answer is final when taking the lock, where it means there is
// none; later in the sequence it is a member still booting.)
type final struct{ err error }

func (f *final) Error() string { return f.err.Error() }
func (f *final) Unwrap() error { return f.err }

// waitFor retries check until it returns nil, the timeout passes or ctx
// ends; the last error says what was not ready. The pauses start short
// and double up to Poll: most waits end within a second or two.
func waitFor(ctx context.Context, o Options, check func(context.Context) error) error {
	deadline := time.Now().Add(o.timeout())
	pause := min(o.poll(), 100*time.Millisecond)
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if f := new(final); errors.As(err, &f) {
			return f.err
		}
		if se := new(protocol.SpecError); errors.As(err, &se) || errors.Is(err, ErrRefused) {
			return err // neither passes by waiting
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w (%s): %v", ErrNotReady, o.timeout(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ctx.Err(), err)
		case <-time.After(pause):
		}
		pause = min(2*pause, o.poll())
	}
}

// Turns hands each domain to one member at a time within a process.
// Members that wait together go in name order, so a plan's "nfs1 then
// nfs2" is what happens; the first grant waits Gather for the others of
// the same apply to arrive.
type Turns struct {
	Gather time.Duration

	mu      sync.Mutex
	domains map[string]*turn
}

type turn struct {
	held bool
	// failed: a member's sequence stopped in this process; the others
	// of the domain do not start (the stopped one holds the cluster's
	// lock, and the next apply resumes it first).
	failed  error
	waiting map[string]int // member -> waiters
	since   time.Time      // when the first of a free domain's waiters came
	wake    chan struct{}
}

// DefaultGather is how long a free domain waits for the other members of
// one apply before its first grant.
const DefaultGather = time.Second

// Fail marks the domain's turn as stopped by err: members still waiting,
// and later ones, get err instead of a turn.
func (t *Turns) Fail(dom string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d := t.domains[dom]; d != nil && d.failed == nil {
		d.failed = err
		close(d.wake)
		d.wake = make(chan struct{})
	}
}

// Acquire waits for the domain's turn; release hands it on.
func (t *Turns) Acquire(ctx context.Context, dom, member string) (release func(), err error) {
	t.mu.Lock()
	if t.domains == nil {
		t.domains = map[string]*turn{}
	}
	d := t.domains[dom]
	if d == nil {
		d = &turn{waiting: map[string]int{}, wake: make(chan struct{})}
		t.domains[dom] = d
	}
	if len(d.waiting) == 0 && !d.held {
		d.since = time.Now()
	}
	d.waiting[member]++
	t.mu.Unlock()
	leave := func() {
		if d.waiting[member]--; d.waiting[member] == 0 {
			delete(d.waiting, member)
		}
	}
	for {
		t.mu.Lock()
		if d.failed != nil {
			leave()
			err := d.failed
			t.mu.Unlock()
			return nil, err
		}
		gather := t.Gather
		if gather == 0 {
			gather = DefaultGather
		}
		early := time.Until(d.since.Add(gather))
		if !d.held && early <= 0 && first(d.waiting) == member {
			d.held = true
			leave()
			t.mu.Unlock()
			return func() {
				t.mu.Lock()
				d.held = false
				d.since = time.Time{}
				close(d.wake)
				d.wake = make(chan struct{})
				t.mu.Unlock()
			}, nil
		}
		wake := d.wake
		t.mu.Unlock()
		timer := time.NewTimer(max(early, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			t.mu.Lock()
			leave()
			t.mu.Unlock()
			return nil, ctx.Err()
		case <-wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

func first(m map[string]int) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// query runs read-only items on host and returns each item's output;
// an item that failed is an error naming it.
func query(ctx context.Context, r Runner, host string, items ...protocol.Item) ([]string, error) {
	res, err := r.Run(ctx, host, items, true)
	if err != nil {
		return nil, err
	}
	return outputs(host, res, len(items))
}

// change runs items that change the node; a failed item is an error.
func change(ctx context.Context, r Runner, host string, items ...protocol.Item) (*protocol.Result, error) {
	res, err := r.Run(ctx, host, items, false)
	if err != nil {
		return nil, err
	}
	if res.Failed {
		return res, fmt.Errorf("host %s: %s", host, itemErrors(res))
	}
	return res, nil
}

func outputs(host string, res *protocol.Result, n int) ([]string, error) {
	if res == nil || len(res.Items) < n {
		return nil, fmt.Errorf("host %s: the agent returned no result", host)
	}
	out := make([]string, n)
	for i := range n {
		if e := res.Items[i].Error; e != "" {
			return nil, fmt.Errorf("host %s: %s: %s", host, res.Items[i].ID, e)
		}
		out[i] = res.Items[i].Output
	}
	return out, nil
}

func itemErrors(res *protocol.Result) string {
	var b []string
	for _, it := range res.Items {
		if it.Error != "" {
			b = append(b, it.ID+": "+it.Error)
		}
	}
	return strings.Join(b, "; ")
}
