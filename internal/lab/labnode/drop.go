package labnode

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Dropped connections: the node cuts an SSH connection without a goodbye,
// as a flaky network, a NAT that forgot the flow or an sshd that died
// would. The agent runs of the connection's sessions are killed with it,
// the harder case for the client (what a request had done on the node is
// then whatever it got through before the kill).
//
// A "request" is what the client asks a node for: an exec, an sftp
// session, or one request over an agent session (each is one agent call,
// probe or upload). Requests are counted per node from the last
// SetFaults.

// DropPoint is where in a request a dropped connection is cut.
type DropPoint int

// Drop points.
const (
	// DropBefore cuts it when the request arrives: it never runs.
	DropBefore DropPoint = iota + 1
	// DropWhile cuts it after a random delay while the request runs (a
	// request that answers first survives).
	DropWhile
	// DropAfterAnswer lets the request run to its end and cuts the
	// connection before the answer leaves the node: it ran, and the client
	// cannot know.
	DropAfterAnswer
)

func (p DropPoint) String() string {
	switch p {
	case DropBefore:
		return "before"
	case DropWhile:
		return "while"
	case DropAfterAnswer:
		return "after"
	}
	return "none"
}

// ParseDropPoint reads a DropPoint's name (before, while, after).
func ParseDropPoint(s string) (DropPoint, error) {
	for _, p := range []DropPoint{DropBefore, DropWhile, DropAfterAnswer} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%q is not one of before, while, after", s)
}

// DefaultDropWhileMax bounds DropWhile's random delay when the faults set
// none.
const DefaultDropWhileMax = 200 * time.Millisecond

// DropEvent is one connection the node cut.
type DropEvent struct {
	Point   DropPoint
	Request string // the command line or agent request, "" for a byte limit
	Bytes   int64  // the connection's bytes at the cut, for a byte limit
}

// dropState is a node's drop bookkeeping since its last SetFaults.
type dropState struct {
	mu       sync.Mutex
	gen      uint64 // bumped by SetFaults: connections restart their byte counts
	requests int
	fired    bool // DropAtRequest is once
	rng      *rand.Rand
	events   []DropEvent
}

// resetDrops starts counting afresh for f (SetFaults).
func (n *Node) resetDrops(f Faults) {
	d := &n.drops
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gen++
	d.requests, d.fired = 0, false
	seed := f.DropSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	d.rng = rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
}

// dropPlan is what the node does to one request.
type dropPlan struct {
	point DropPoint
	delay time.Duration // for DropWhile
}

// planDrop counts request what (a command line, SFTPCommand or an agent
// request's arguments) and decides whether its connection is cut, and
// where. Requests DropOnly refuses are neither counted nor cut.
func (n *Node) planDrop(what string) dropPlan {
	f := n.Faults()
	if f.DropOnly != nil && !f.DropOnly(what) {
		return dropPlan{}
	}
	d := &n.drops
	d.mu.Lock()
	defer d.mu.Unlock()
	d.requests++
	var p dropPlan
	switch {
	case f.DropAtRequest > 0 && !d.fired && d.requests == f.DropAtRequest:
		d.fired = true
		p.point = cmp.Or(f.DropAt, DropBefore)
	case f.DropRate > 0 && d.rng.Float64() < f.DropRate:
		p.point = cmp.Or(f.DropAt, DropPoint(1+d.rng.IntN(3)))
	default:
		return p
	}
	if p.point == DropWhile {
		p.delay = time.Duration(d.rng.Int64N(int64(cmp.Or(f.DropWhileMax, DefaultDropWhileMax))))
	}
	return p
}

// recordDrop keeps a cut for Drops.
func (n *Node) recordDrop(ev DropEvent) {
	n.drops.mu.Lock()
	n.drops.events = append(n.drops.events, ev)
	n.drops.mu.Unlock()
}

// Drops lists the connections the node cut, in order (since it started).
func (n *Node) Drops() []DropEvent {
	n.drops.mu.Lock()
	defer n.drops.mu.Unlock()
	return append([]DropEvent(nil), n.drops.events...)
}

// Requests counts the requests the node saw since its last SetFaults
// (those DropOnly accepts, when it is set).
func (n *Node) Requests() int {
	n.drops.mu.Lock()
	defer n.drops.mu.Unlock()
	return n.drops.requests
}

// counted cuts a connection once it has carried DropAfterBytes bytes
// (both directions, SSH framing included) since it opened or the faults
// were last set.
type counted struct {
	net.Conn
	n     *Node
	mu    sync.Mutex
	gen   uint64
	bytes int64
	cut   atomic.Bool
}

func (c *counted) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.add(k)
	return k, err
}

func (c *counted) Write(p []byte) (int, error) {
	if c.cut.Load() {
		return 0, net.ErrClosed
	}
	limit := c.n.Faults().DropAfterBytes
	if limit > 0 {
		// Only the bytes up to the limit leave: the cut can fall inside
		// a packet, as a network's does.
		if room := c.room(limit); int64(len(p)) > room {
			k, _ := c.Conn.Write(p[:room])
			c.add(k)
			return k, net.ErrClosed
		}
	}
	k, err := c.Conn.Write(p)
	c.add(k)
	return k, err
}

// room is how many bytes the connection may still carry under limit.
func (c *counted) room(limit int64) int64 {
	c.n.drops.mu.Lock()
	gen := c.n.drops.gen
	c.n.drops.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		c.gen, c.bytes = gen, 0
	}
	return max(limit-c.bytes, 0)
}

func (c *counted) add(k int) {
	limit := c.n.Faults().DropAfterBytes
	c.n.drops.mu.Lock()
	gen := c.n.drops.gen
	c.n.drops.mu.Unlock()
	c.mu.Lock()
	if c.gen != gen {
		c.gen, c.bytes = gen, 0
	}
	c.bytes += int64(k)
	total := c.bytes
	c.mu.Unlock()
	if limit > 0 && total >= limit && c.cut.CompareAndSwap(false, true) {
		c.n.recordDrop(DropEvent{Bytes: total})
		c.Conn.Close()
	}
}

// armDrop plays plan on one request described by what; cut closes its
// connection (and so kills the agent runs on it). run is false when the
// request must not run (DropBefore: cut already). end is called when the
// request has its answer: true means the connection was cut instead, and
// the answer must not be sent.
func (n *Node) armDrop(plan dropPlan, what string, cut func()) (run bool, end func() bool) {
	switch plan.point {
	case DropBefore:
		n.recordDrop(DropEvent{Point: DropBefore, Request: what})
		cut()
		return false, nil
	case DropWhile:
		var mu sync.Mutex
		done, fired := false, false
		t := time.AfterFunc(plan.delay, func() {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				fired = true
				n.recordDrop(DropEvent{Point: DropWhile, Request: what})
				cut()
			}
		})
		return true, func() bool {
			mu.Lock()
			defer mu.Unlock()
			done = true
			t.Stop()
			return fired
		}
	case DropAfterAnswer:
		return true, func() bool {
			n.recordDrop(DropEvent{Point: DropAfterAnswer, Request: what})
			cut()
			return true
		}
	}
	return true, func() bool { return false }
}
