// Package engine runs a spec against a root: validate, check confinement,
// lock, load state, then per item plan, record originals, apply; then
// revert keys the owner no longer manages, run notified restarts, save.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/items"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
)

// DefaultLockTimeout is how long a run waits for another one on the root.
const DefaultLockTimeout = 60 * time.Second

// Options control a run.
type Options struct {
	Check       bool          // plan only: read, never write
	Diff        bool          // include diffs in the result
	LockTimeout time.Duration // 0 = DefaultLockTimeout
	Runner      runner.Runner // nil = Exec on "/", Sim elsewhere
}

// RunnerFor is the runner a root gets by default.
func RunnerFor(root *fsroot.Root) runner.Runner {
	if root.IsHost() {
		return runner.Exec{}
	}
	return runner.Sim{Root: root}
}

func (o Options) runner(root *fsroot.Root) runner.Runner {
	if o.Runner != nil {
		return o.Runner
	}
	return RunnerFor(root)
}

func (o Options) lockTimeout() time.Duration {
	if o.LockTimeout > 0 {
		return o.LockTimeout
	}
	return DefaultLockTimeout
}

// checkConfinement reports spec paths that leave the root (through a link
// on the node) as a SpecError: the spec is rejected whole, exit 1.
func checkConfinement(root *fsroot.Root, spec *protocol.Spec) error {
	serr := &protocol.SpecError{}
	for i, it := range spec.Items {
		for _, p := range items.Paths(it) {
			if err := root.CheckConfined(p); err != nil {
				serr.Errors = append(serr.Errors, protocol.FieldError{
					Path: fmt.Sprintf("items[%d].%s", i, it.Kind()),
					Msg:  err.Error(),
				})
			}
		}
	}
	if len(serr.Errors) > 0 {
		return serr
	}
	return nil
}

// run is one apply in progress.
type run struct {
	env    *items.Env
	store  *state.Store
	owner  *state.Owner
	opts   Options
	result protocol.Result
}

func (r *run) save() error { return r.store.Save(r.env.Owner) }

// Apply converges root to spec. The error is for runs that could not start
// (invalid spec, escaping paths, lock timeout, unreadable state); item
// failures are in the result (Failed, exit 2).
func Apply(ctx context.Context, root *fsroot.Root, spec *protocol.Spec, opts Options) (protocol.Result, error) {
	start := time.Now()
	res := protocol.Result{APIVersion: protocol.APIVersion, Owner: spec.Owner, Check: opts.Check, Command: "apply",
		Items: []protocol.ItemResult{}, Handlers: []protocol.HandlerResult{}}
	if err := spec.Validate(); err != nil {
		return res, err
	}
	if err := checkConfinement(root, spec); err != nil {
		return res, err
	}
	lock, err := state.Acquire(ctx, root, opts.lockTimeout(), opts.Check)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	store, err := state.Load(root)
	if err != nil {
		return res, err
	}
	r := &run{
		env:    &items.Env{Root: root, Run: opts.runner(root), Owner: spec.Owner, Spec: spec, Check: opts.Check},
		store:  store,
		owner:  store.Owner(spec.Owner),
		opts:   opts,
		result: res,
	}
	owed := slices.Clone(r.owner.Pending)
	impls := make([]items.Item, len(spec.Items))
	for i, it := range spec.Items {
		impls[i] = items.New(it)
	}
	r.result.Items = make([]protocol.ItemResult, len(impls))
	for i, im := range impls {
		r.result.Items[i].ID = im.ID()
	}

	// Preflight: package floors are checked before anything changes.
	preflightFailed := ""
	for i, it := range spec.Items {
		if it.PackageVersion == nil {
			continue
		}
		if _, err := impls[i].Plan(ctx, r.env); err != nil {
			r.fail(i, err)
			if preflightFailed == "" {
				preflightFailed = impls[i].ID()
			}
		}
	}

	claimedBy := map[string]int{} // key -> item index, this run
	var notified []string
	lastNotify := map[string]int{} // unit -> last item index that notified it
	startedAt := map[string]int{}  // unit -> item index that started it
	firstFailure := -1
	for i, it := range spec.Items {
		if it.PackageVersion != nil {
			continue
		}
		ir := &r.result.Items[i]
		if err := ctx.Err(); err != nil {
			// Interrupted (SIGINT/SIGTERM, or the caller's deadline): stop
			// between items; owed restarts stay in the state.
			ir.Skipped = true
			ir.Error = fmt.Sprintf("not run: interrupted (%v)", err)
			r.result.Failed = true
			continue
		}
		if preflightFailed != "" {
			ir.Skipped = true
			ir.Error = fmt.Sprintf("not applied: preflight %s failed", preflightFailed)
			continue
		}
		if firstFailure >= 0 && (it.Command != nil || it.Mount != nil) {
			// Setup steps usually build on earlier items (a mount on a
			// formatted volume, a command in a mounted folder).
			ir.Skipped = true
			ir.Error = fmt.Sprintf("not run: items[%d] (%s) failed before it", firstFailure, r.result.Items[firstFailure].ID)
			r.result.Failed = true
			continue
		}
		plan, err := impls[i].Plan(ctx, r.env)
		ir.Output = plan.Output
		if err == nil {
			err = r.claim(i, plan.Claims, claimedBy)
		}
		if err != nil {
			r.fail(i, err)
			if firstFailure < 0 {
				firstFailure = i
			}
			continue
		}
		ir.Warnings = plan.Warnings
		if !plan.Changed() {
			if !opts.Check && r.owner.Claim(plan.Claims...) {
				if err := r.save(); err != nil {
					return r.result, err
				}
			}
			continue
		}
		ir.Changed = true
		if opts.Diff {
			ir.Diff = plan.Diff()
		}
		notify := unitNames(append(slices.Clone(it.Notifies()), plan.Notify...))
		for _, u := range notify {
			if !slices.Contains(notified, u) {
				notified = append(notified, u)
			}
			lastNotify[u] = i
		}
		if opts.Check {
			// Nothing is written: later items are planned against what
			// this one would have done.
			plan.RecordPending()
			for _, u := range plan.Starts {
				startedAt[u] = i
			}
			continue
		}
		if err := r.applyPlan(ctx, plan, notify); err != nil {
			r.fail(i, err)
			if firstFailure < 0 {
				firstFailure = i
			}
			continue
		}
		for _, u := range plan.Starts {
			startedAt[u] = i
		}
	}
	// A unit this run started after its last notifier changed already
	// runs the new configuration: no restart.
	fresh := map[string]bool{}
	for u, at := range startedAt {
		if n, ok := lastNotify[u]; ok && at > n {
			fresh[u] = true
		}
	}

	interrupted := ctx.Err() != nil
	if firstFailure < 0 && preflightFailed == "" && !interrupted {
		if err := r.prune(ctx, claimedBy); err != nil {
			return r.result, err
		}
	}
	if !interrupted {
		if err := r.handlers(ctx, notified, owed, fresh); err != nil {
			return r.result, err
		}
	}
	for _, ir := range r.result.Items {
		if ir.Changed {
			r.result.Changed = true
		}
		if ir.Error != "" {
			r.result.Failed = true
		}
	}
	r.result.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return r.result, nil
}

func unitNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		u := protocol.UnitName(n)
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

func (r *run) fail(i int, err error) {
	r.result.Items[i].Error = err.Error()
	r.result.Failed = true
}

// claim checks keys against other owners and earlier items of this run.
func (r *run) claim(i int, keys []string, claimedBy map[string]int) error {
	if err := r.store.CheckClaims(r.env.Owner, keys); err != nil {
		return err
	}
	for _, k := range keys {
		if j, ok := claimedBy[k]; ok && j != i && !sharedKey(k, r.env.Owner) {
			return fmt.Errorf("%s is also managed by items[%d] (%s): one item per key", k, j, r.result.Items[j].ID)
		}
	}
	for _, k := range keys {
		claimedBy[k] = i
	}
	return nil
}

// sharedKey: the generated per-owner files are written by several items.
func sharedKey(k, owner string) bool {
	return k == "file:"+items.SysctlDropIn(owner) || k == "file:"+items.BlockQueueRule(owner)
}

// applyPlan records originals and owed restarts, saves the state, then runs
// the steps. Recording first means a run killed mid-step can still be
// reverted and still owes its restart.
func (r *run) applyPlan(ctx context.Context, plan items.Plan, notify []string) error {
	dirty := r.owner.Claim(plan.Claims...)
	for _, s := range plan.Steps {
		for _, o := range s.Origs {
			if r.owner.Record(o) {
				dirty = true
			}
		}
	}
	if r.owner.AddPending(notify...) {
		dirty = true
	}
	if dirty {
		if err := r.save(); err != nil {
			return fmt.Errorf("save state: %w", err)
		}
	}
	var errs []error
	for _, s := range plan.Steps {
		if err := s.Do(ctx); err != nil {
			errs = append(errs, err)
			break
		}
	}
	return errors.Join(errs...)
}

// prune reverts keys the owner claimed on an earlier run that no item
// claims now (an item was dropped from the spec).
func (r *run) prune(ctx context.Context, claimedBy map[string]int) error {
	var stale []string
	for _, k := range r.owner.Claims {
		if _, ok := claimedBy[k]; !ok {
			stale = append(stale, k)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	// Newest change first, like remove. Folders the agent created are
	// removed when the revert left them empty.
	for _, o := range r.owner.Ordered() {
		isDir := o.Kind == state.KindDir
		if !slices.Contains(stale, o.Key) && !isDir {
			continue
		}
		ir := protocol.ItemResult{ID: "revert:" + o.Key}
		diff, err := items.Restore(ctx, r.env, o)
		if isDir && diff == "" && err == nil {
			continue // still in use: keep it, and its original
		}
		if err != nil {
			ir.Error = err.Error()
		}
		ir.Changed = diff != ""
		if r.opts.Diff {
			ir.Diff = diff
		}
		r.result.Items = append(r.result.Items, ir)
		if err == nil && !r.opts.Check {
			delete(r.owner.Originals, o.Key)
		}
	}
	if r.opts.Check {
		return nil
	}
	r.owner.Claims = slices.DeleteFunc(r.owner.Claims, func(k string) bool {
		_, still := r.owner.Originals[k]
		return slices.Contains(stale, k) && !still
	})
	return r.save()
}

// handlers restarts notified units, and units owed by an earlier run that
// was killed before its restarts, once each, after all items.
func (r *run) handlers(ctx context.Context, notified, owed []string, fresh map[string]bool) error {
	var units []string
	reason := map[string]string{}
	for _, u := range notified {
		units = append(units, u)
		reason[u] = "notified"
	}
	for _, u := range owed {
		if !slices.Contains(units, u) {
			units = append(units, u)
			reason[u] = "owed"
		}
	}
	dirty := false
	for _, u := range units {
		if r.stopped(u) || fresh[u] {
			if !r.opts.Check {
				r.owner.DonePending(u)
				dirty = true
			}
			continue
		}
		h := protocol.HandlerResult{ID: "service:" + strings.TrimSuffix(u, ".service"), Reason: reason[u]}
		if r.opts.Check {
			h.Action = "would restart"
			r.result.Handlers = append(r.result.Handlers, h)
			continue
		}
		if err := r.env.Run.Run(ctx, "systemctl", "restart", u); err != nil {
			h.Action, h.Error = "failed", err.Error()
			r.result.Failed = true
		} else {
			h.Action = "restarted"
			r.owner.DonePending(u)
			dirty = true
		}
		r.result.Handlers = append(r.result.Handlers, h)
		r.result.Changed = true
	}
	if dirty {
		return r.save()
	}
	return nil
}

// stopped: a unit the spec wants stopped or masked is not restarted.
func (r *run) stopped(unit string) bool {
	for _, it := range r.env.Spec.Items {
		if s := it.Service; s != nil && protocol.UnitName(s.Name) == unit {
			return s.State == "stopped" || s.Masked != nil && *s.Masked
		}
	}
	return false
}

// Remove puts back everything owner changed, newest change first, and
// deletes the owner's state. Keys that fail to restore stay in the state.
func Remove(ctx context.Context, root *fsroot.Root, owner string, opts Options) (protocol.Result, error) {
	start := time.Now()
	res := protocol.Result{APIVersion: protocol.APIVersion, Owner: owner, Check: opts.Check, Command: "remove",
		Items: []protocol.ItemResult{}, Handlers: []protocol.HandlerResult{}}
	lock, err := state.Acquire(ctx, root, opts.lockTimeout(), opts.Check)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	store, err := state.Load(root)
	if err != nil {
		return res, err
	}
	if !store.Has(owner) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("no state for owner %q under %s: nothing to remove", owner, root.Dir()))
		return res, nil
	}
	o := store.Owner(owner)
	env := &items.Env{Root: root, Run: opts.runner(root), Owner: owner, Check: opts.Check,
		Spec: &protocol.Spec{APIVersion: protocol.APIVersion, Owner: owner}}
	for _, orig := range o.Ordered() {
		ir := protocol.ItemResult{ID: "revert:" + orig.Key}
		diff, err := items.Restore(ctx, env, orig)
		if err != nil {
			ir.Error = err.Error()
			res.Failed = true
		} else if !opts.Check {
			delete(o.Originals, orig.Key)
		}
		ir.Changed = diff != ""
		if opts.Diff {
			ir.Diff = diff
		}
		if ir.Changed {
			res.Changed = true
		}
		res.Items = append(res.Items, ir)
	}
	if !opts.Check {
		if res.Failed {
			o.Claims = slices.DeleteFunc(o.Claims, func(k string) bool { _, keep := o.Originals[k]; return !keep })
			o.Pending = nil
			if err := store.Save(owner); err != nil {
				return res, err
			}
		} else if err := store.Delete(owner); err != nil {
			return res, err
		}
	}
	res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}
