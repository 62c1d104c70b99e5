package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/agentbin"
)

// Pool holds one SSH connection per host, shared by all callers, and bounds
// how many calls run at once. The zero Pool is not usable; call NewPool.
//
// Connections are keyed by user@host:port (and jump host) together with
// the credentials and host-key settings: callers share a connection only
// when they would have opened the same one.
//
// The first call on a new connection runs the agent at agent_path straight
// away with --expect-sha256 of the build for the host's architecture as
// last seen by this pool (DefaultExpectedArch at first): a node that
// already has that build costs one SSH exec. Only when the agent is
// missing (127), of another architecture (126) or another build (exit 3)
// does the call fall back to the probe, the upload and the run: over sftp
// when the user may write agent_path (see sftp.go), else through sh (see
// commands.go). The probe result is then cached for the connection.
type Pool struct {
	opts  PoolOptions
	total chan struct{}

	mu      sync.Mutex
	closed  bool
	conns   map[string]*entry
	perHost map[string]chan struct{}
	dials   int64 // successful connections made, for tests and benchmarks
	// archs is the architecture last seen per host (pool key), so a new
	// connection to it runs the right build in one exec.
	archs map[string]string
	// plain: hosts without gzip, which get the agent uncompressed.
	plain map[string]bool
	// noSFTP: hosts without a usable sftp subsystem, which get the exec
	// upload.
	noSFTP map[string]bool
	gz     sync.Map // agent build sha256 -> *gzBuild

	sessionStarts atomic.Int64 // agent sessions started, for tests and benchmarks
	keepers       map[string]*keeperSlot
}

// entry is a connection being made or made; concurrent callers for one
// host wait on ready instead of dialing twice.
type entry struct {
	ready chan struct{}
	c     *conn
	err   error
}

// NewPool returns an empty pool.
func NewPool(o PoolOptions) *Pool {
	if o.MaxParallel <= 0 {
		o.MaxParallel = DefaultMaxParallel
	}
	if o.MaxPerHost <= 0 {
		o.MaxPerHost = DefaultMaxPerHost
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { fmt.Fprintln(os.Stderr, msg) }
	}
	if o.Agent == nil {
		o.Agent = agentbin.For
	}
	return &Pool{
		opts:    o,
		total:   make(chan struct{}, o.MaxParallel),
		conns:   map[string]*entry{},
		perHost: map[string]chan struct{}{},
		archs:   map[string]string{},
		plain:   map[string]bool{},
		noSFTP:  map[string]bool{},
	}
}

// hostFact reads what the pool learned about o's host (in p.plain or
// p.noSFTP).
func (p *Pool) hostFact(facts map[string]bool, o *Options) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return facts[o.poolKey()]
}

func (p *Pool) learn(facts map[string]bool, o *Options) {
	p.mu.Lock()
	facts[o.poolKey()] = true
	p.mu.Unlock()
}

// expectedArch is the agent build to try first on a new connection to o.
func (p *Pool) expectedArch(o *Options) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.archs[o.poolKey()]; ok {
		return a
	}
	return DefaultExpectedArch
}

func (p *Pool) rememberArch(o *Options, goarch string) {
	p.mu.Lock()
	p.archs[o.poolKey()] = goarch
	p.mu.Unlock()
}

// Dials reports how many SSH connections the pool has opened.
func (p *Pool) Dials() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials
}

// Close closes every connection. Calls in flight fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = map[string]*entry{}
	keepers := p.keepers
	p.keepers = nil
	p.mu.Unlock()
	p.closeKeepers(keepers)
	for _, e := range conns {
		<-e.ready
		if e.c != nil {
			e.c.client.Close()
		}
	}
	return nil
}

// acquire takes a fan-out slot overall and for the host.
func (p *Pool) acquire(ctx context.Context, key string) (release func(), err error) {
	p.mu.Lock()
	h, ok := p.perHost[key]
	if !ok {
		h = make(chan struct{}, p.opts.MaxPerHost)
		p.perHost[key] = h
	}
	p.mu.Unlock()
	select {
	case p.total <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case h <- struct{}{}:
	case <-ctx.Done():
		<-p.total
		return nil, ctx.Err()
	}
	return func() { <-h; <-p.total }, nil
}

// get returns the live connection for o, dialing it if needed.
func (p *Pool) get(ctx context.Context, o *Options) (*conn, error) {
	key := o.connKey()
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, &StepError{Host: o.name(), Step: StepDial, ExitStatus: -1, Err: ErrPoolClosed}
		}
		e, ok := p.conns[key]
		if !ok {
			e = &entry{ready: make(chan struct{})}
			p.conns[key] = e
			p.mu.Unlock()
			e.c, e.err = p.dial(ctx, o)
			p.mu.Lock()
			if e.err != nil {
				if p.conns[key] == e {
					delete(p.conns, key)
				}
			} else {
				p.dials++
			}
			p.mu.Unlock()
			close(e.ready)
			if e.c != nil {
				go func() {
					<-e.c.done
					p.mu.Lock()
					if p.conns[key] == e {
						delete(p.conns, key)
					}
					p.mu.Unlock()
				}()
			}
			return e.c, e.err
		}
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, &StepError{Host: o.name(), Step: StepDial, ExitStatus: -1, Err: ctx.Err()}
		}
		if e.err != nil {
			// The dialer gave up because of its own context, not the host:
			// dial again under ours.
			if ctx.Err() == nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
				continue
			}
			return nil, e.err
		}
		if e.c.alive() {
			return e.c, nil
		}
		p.mu.Lock()
		if p.conns[key] == e {
			delete(p.conns, key)
		}
		p.mu.Unlock()
	}
}

// conn is one SSH connection and what has been learnt about its host.
type conn struct {
	name   string
	client *ssh.Client
	done   chan struct{} // closed when the connection is gone
	lost   error         // why, once done is closed (keepalive failure)

	activity *activityConn
	// unverified is the host key accepted under insecure_ignore_host_key.
	unverified ssh.PublicKey

	mu       sync.Mutex
	agents   map[string]*agentState  // by agent path
	sessions map[string]*sessionSlot // by agent path, sudo, preinstalled
}

// activityConn notes when the peer last sent anything: a host busy
// receiving a large upload answers keepalives late, but it still sends
// window adjustments, so it is alive.
type activityConn struct {
	net.Conn
	reads atomic.Int64
}

func (a *activityConn) Read(p []byte) (int, error) {
	n, err := a.Conn.Read(p)
	if n > 0 {
		a.reads.Add(1)
	}
	return n, err
}

func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func (c *conn) agentState(path string) *agentState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.agents == nil {
		c.agents = map[string]*agentState{}
	}
	s, ok := c.agents[path]
	if !ok {
		s = &agentState{}
		c.agents[path] = s
	}
	return s
}

func (p *Pool) dial(ctx context.Context, o *Options) (*conn, error) {
	name := o.name()
	fail := func(step string, err error) error {
		return &StepError{Host: name, Step: step, ExitStatus: -1, Err: err}
	}
	auth, closeAgent, err := authMethods(ctx, o)
	if err != nil {
		return nil, fail(StepConfig, err)
	}
	defer closeAgent()
	// The callback also runs on re-keys, in the library's goroutine.
	var keyMu sync.Mutex
	var unverified ssh.PublicKey
	hkcb, algos, err := hostKeyConfig(o, func(k ssh.PublicKey) { keyMu.Lock(); unverified = k; keyMu.Unlock() })
	if err != nil {
		return nil, fail(StepConfig, err)
	}
	cfg := &ssh.ClientConfig{
		User:              o.User,
		Auth:              auth,
		HostKeyCallback:   hkcb,
		HostKeyAlgorithms: algos,
		Timeout:           o.DialTimeout,
	}
	addr := o.Addr()

	var nc net.Conn
	dctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	if o.Bastion != nil {
		bc, err := p.get(dctx, o.Bastion)
		if err != nil {
			cancel()
			return nil, fail(StepDial, fmt.Errorf("bastion: %w", err))
		}
		if bc.unverified != nil {
			p.opts.Warn(insecureWarning("bastion "+bc.name, bc.unverified))
		}
		nc, err = bc.client.DialContext(dctx, "tcp", addr)
		if err != nil {
			err = dialError(ctx, dctx, o, err)
			cancel()
			return nil, fail(StepDial, fmt.Errorf("through bastion %s: %w", o.Bastion.name(), err))
		}
	} else {
		var d net.Dialer
		nc, err = d.DialContext(dctx, "tcp", addr)
		if err != nil {
			err = dialError(ctx, dctx, o, err)
			cancel()
			return nil, fail(StepDial, err)
		}
	}
	cancel()
	ac := &activityConn{Conn: nc}
	nc = ac

	// Bastion channels have no deadlines, so a timer closes the connection
	// if the handshake hangs.
	var expired atomic.Bool
	timer := time.AfterFunc(o.HandshakeTimeout, func() { expired.Store(true); nc.Close() })
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	sc, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	timer.Stop()
	stop()
	if err != nil {
		nc.Close()
		switch {
		case expired.Load():
			err = fmt.Errorf("no SSH handshake within handshake_timeout %s (%v): %w", o.HandshakeTimeout, err, ErrTimeout)
		case ctx.Err() != nil:
			err = fmt.Errorf("%v: %w", err, ctxErr(ctx, ctx.Err()))
		case isAuthError(err):
			err = fmt.Errorf("user %q: %v (check the key, ssh-agent or password given for this host): %w", o.User, err, ErrAuth)
		}
		return nil, fail(StepHandshake, err)
	}
	client := ssh.NewClient(sc, chans, reqs)
	keyMu.Lock()
	defer keyMu.Unlock()
	c := &conn{name: name, client: client, done: make(chan struct{}), activity: ac, unverified: unverified}
	go func() {
		_ = client.Wait()
		close(c.done)
	}()
	if o.KeepaliveInterval > 0 {
		go c.keepalive(o.KeepaliveInterval, o.KeepaliveCountMax)
	}
	return c, nil
}

func isAuthError(err error) bool {
	return err != nil && (containsAny(err.Error(), "unable to authenticate", "no supported methods remain"))
}

// dialError tells a dial_timeout from the caller's own deadline
// (run_timeout) and from a refused or unroutable host.
func dialError(parent, dctx context.Context, o *Options, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("%v: %w", err, ctxErr(parent, parent.Err()))
	}
	var ne net.Error
	if errors.Is(dctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("no TCP connection to %s within dial_timeout %s: %w", o.Addr(), o.DialTimeout, errors.Join(ErrUnreachable, ErrTimeout))
	}
	return fmt.Errorf("%v: %w", err, ErrUnreachable)
}

// keepalive sends OpenSSH keepalive requests and closes the connection when
// countMax intervals pass with no answer and nothing else received, so a
// dead host fails the calls on it instead of hanging them.
func (c *conn) keepalive(every time.Duration, countMax int) {
	t := time.NewTicker(every)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		replied := make(chan struct{})
		go func() {
			// Any answer, even "unsupported", proves the peer is alive.
			_, _, _ = c.client.SendRequest("keepalive@openssh.com", true, nil)
			close(replied)
		}()
		seen := c.activity.reads.Load()
		select {
		case <-replied:
			missed = 0
		case <-time.After(every):
			if c.activity.reads.Load() != seen {
				missed = 0 // no reply yet, but the peer is talking
				continue
			}
			missed++
			if missed >= countMax {
				c.mu.Lock()
				c.lost = fmt.Errorf("no answer to %d keepalives %s apart: %w", missed, every, ErrConnectionLost)
				c.mu.Unlock()
				c.client.Close()
				return
			}
		case <-c.done:
			return
		}
	}
}

func (c *conn) lostErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

var _ io.Closer = (*Pool)(nil)
