// Package availability measures a cluster over time, one sample at a
// time: each service's longest stretch running nowhere, and how many
// members were out of service at once. The failover drill (internal/day2)
// and the lab's probe measure with it.
package availability

import (
	"maps"
	"slices"
	"time"
)

// Availability follows one cluster.
type Availability struct {
	Samples int
	// Unserved is each service's longest stretch with no node, from the
	// first sample that found it stopped to the next that found it
	// running (or End).
	Unserved map[string]time.Duration
	// MaxOut is the most members out of service in one sample; OutTogether
	// counts the samples with two or more out.
	MaxOut      int
	OutTogether int
	// Order lists members in the order they went out of service.
	Order []string

	stopped map[string]time.Time
	seen    map[string]bool
	out     map[string]bool
}

// Add records one sample: where each service runs ("" for nowhere) and
// each member's state (true: in service).
func (a *Availability) Add(now time.Time, placement map[string]string, inService map[string]bool) {
	if a.Unserved == nil {
		a.Unserved, a.stopped, a.seen, a.out = map[string]time.Duration{}, map[string]time.Time{}, map[string]bool{}, map[string]bool{}
	}
	a.Samples++
	for id, at := range placement {
		if at != "" {
			a.seen[id] = true
			if since, ok := a.stopped[id]; ok {
				a.Unserved[id] = max(a.Unserved[id], now.Sub(since))
				delete(a.stopped, id)
			}
			continue
		}
		// A service that never ran yet is being set up, not unserved.
		if _, ok := a.stopped[id]; !ok && a.seen[id] {
			a.stopped[id] = now
		}
	}
	out := 0
	for _, n := range slices.Sorted(maps.Keys(inService)) {
		if inService[n] {
			a.out[n] = false
			continue
		}
		out++
		if !a.out[n] {
			a.Order = append(a.Order, n)
		}
		a.out[n] = true
	}
	a.MaxOut = max(a.MaxOut, out)
	if out >= 2 {
		a.OutTogether++
	}
}

// End closes the stretches still open at now.
func (a *Availability) End(now time.Time) {
	for id, since := range a.stopped {
		a.Unserved[id] = max(a.Unserved[id], now.Sub(since))
		delete(a.stopped, id)
	}
}

// Longest is the longest unserved stretch of any service, and which.
func (a *Availability) Longest() (string, time.Duration) {
	var id string
	var d time.Duration
	for _, k := range slices.Sorted(maps.Keys(a.Unserved)) {
		if a.Unserved[k] > d {
			id, d = k, a.Unserved[k]
		}
	}
	return id, d
}
