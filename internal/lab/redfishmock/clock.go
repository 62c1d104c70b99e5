package redfishmock

import (
	"sync"
	"time"
)

// Clock is the time source of a mock. Every delayed behaviour (power
// transitions, session idle expiry, job progress) reads it, so tests can move
// time forward instead of sleeping.
type Clock interface {
	Now() time.Time
	// Advance moves the clock forward by d (negative values are ignored).
	Advance(d time.Duration)
}

// ManualClock stands still until Advance is called: deterministic tests.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock frozen at start (a fixed date when zero).
func NewManualClock(start time.Time) *ManualClock {
	if start.IsZero() {
		start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return &ManualClock{t: start}
}

// Now returns the frozen time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the frozen time forward.
func (c *ManualClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// WallClock follows real time plus an offset that Advance grows, so a lab
// run by hand behaves in real time and can still be fast-forwarded.
type WallClock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now returns the real time plus the accumulated offset.
func (c *WallClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Add(c.offset)
}

// Advance adds d to the offset.
func (c *WallClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}
