package transport

// Agent sessions: one `hpcstorage-agent serve` per connection and agent
// path answers every call of the provider process on that node, so a plan
// over a node with dozens of resources starts one agent process and costs
// one SSH exec instead of one of each per call; for root (no sudo) that
// exec also takes the agent's first delivery (ServeOrUploadCommand). Calls are multiplexed over
// the session (framed requests with IDs, agent/protocol/serve.go); the
// agent takes the node's run lock per request. The exec-per-call path
// (run.go) stays for agents without `serve` (an older agent_preinstalled
// one) and whenever a session cannot start.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// errSessionLost: the session ended while a request was in flight; the
// request may or may not have run.
var errSessionLost = errors.New("agent session ended")

// agentSession is one running `hpcstorage-agent serve`.
type agentSession struct {
	c      *conn
	s      *ssh.Session
	stdin  io.WriteCloser
	stderr *limitedBuffer

	wmu sync.Mutex // one frame at a time

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan protocol.ServeResponse
	done    chan struct{} // closed when the session is gone
	err     error         // why, once done is closed
}

// sessionSlot is what a connection knows about sessions for one agent
// (path, sudo): the live one, or that this agent cannot serve.
type sessionSlot struct {
	mu   sync.Mutex // held while opening, so callers share one session
	sess *agentSession
	// off: serve did not start on this connection (an agent without the
	// command, or a failure the exec path reports better).
	off bool
}

func (c *conn) sessionSlot(o *Options) *sessionSlot {
	key := fmt.Sprintf("%s\x00%t\x00%t", o.AgentPath, o.Sudo, o.AgentPreinstalled)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = map[string]*sessionSlot{}
	}
	s, ok := c.sessions[key]
	if !ok {
		s = &sessionSlot{}
		c.sessions[key] = s
	}
	return s
}

func (s *agentSession) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// startSession runs cmd (the agent's serve command) and waits for its
// hello frame. When the agent does not get that far (missing, another
// build, no serve command, sudo refusing) sess is nil and res holds the
// command's exit status and stderr, as an exec would. With deliver (cmd
// is a ServeOrUploadCommand), a node that asks for the agent
// (UploadMarker) gets it from deliver, then UploadReady on stdin; uploaded
// says it did. When deliver fails, stdin ends: the command exits 1 and
// the caller takes the probe and upload path.
func (c *conn) startSession(ctx context.Context, cmd string, deliver func() error) (sess *agentSession, res execResult, uploaded bool, err error) {
	res.status = -1
	s, err := c.client.NewSession()
	if err != nil {
		return nil, res, uploaded, &sessionOpenError{c.connErr(fmt.Errorf("opening a session: %v", err))}
	}
	stdin, err := s.StdinPipe()
	var stdout io.Reader
	if err == nil {
		stdout, err = s.StdoutPipe()
	}
	if err != nil {
		s.Close()
		return nil, res, uploaded, c.connErr(err)
	}
	stderr := &limitedBuffer{max: 1 << 20, buf: new(bytes.Buffer)}
	s.Stderr = stderr
	if err := s.Start(cmd); err != nil {
		s.Close()
		return nil, res, uploaded, c.connErr(fmt.Errorf("starting remote command: %v", err))
	}
	type helloResult struct {
		h        protocol.ServeHello
		uploaded bool
		err      error
	}
	hc := make(chan helloResult, 1)
	out := bufio.NewReader(stdout)
	go func() {
		var hr helloResult
		if deliver != nil {
			// Four bytes tell the marker from a frame's length.
			if b, err := out.Peek(4); err == nil && string(b) == UploadMarker[:4] {
				line, err := out.ReadString('\n')
				if err == nil && line != UploadMarker+"\n" {
					err = fmt.Errorf("unexpected output %q", strings.TrimSpace(line))
				}
				if err == nil {
					if derr := deliver(); derr != nil {
						// The command sees the end of stdin and exits.
						_ = stdin.Close()
					} else {
						hr.uploaded = true
						_, err = io.WriteString(stdin, UploadReady+"\n")
					}
				}
				if err != nil {
					hr.err = err
					hc <- hr
					return
				}
			}
		}
		hr.err = protocol.ReadFrame(out, &hr.h)
		hc <- hr
	}()
	var hr helloResult
	select {
	case hr = <-hc:
		uploaded = hr.uploaded
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGKILL)
		s.Close()
		return nil, res, uploaded, ctxErr(ctx, ctx.Err())
	}
	if hr.err != nil {
		// No hello: the command ended (or printed something else). Its
		// exit status says why. The end of stdin ends a command still
		// waiting for a delivery or a request.
		_ = stdin.Close()
		werr := s.Wait()
		s.Close()
		res.stderr = stderr.buf.Bytes()
		var ee *ssh.ExitError
		switch {
		case werr == nil:
			res.status = 0
		case errors.As(werr, &ee) && ee.Signal() == "":
			res.status = ee.ExitStatus()
		default:
			return nil, res, uploaded, c.connErr(fmt.Errorf("agent session: %v", werr))
		}
		return nil, res, uploaded, nil
	}
	if hr.h.Protocol != protocol.ServeProtocol {
		stdin.Close()
		s.Close()
		res.stderr = []byte(fmt.Sprintf("agent speaks serve protocol %d, want %d", hr.h.Protocol, protocol.ServeProtocol))
		return nil, res, uploaded, nil
	}
	sess = &agentSession{c: c, s: s, stdin: stdin, stderr: stderr, pending: map[uint64]chan protocol.ServeResponse{}, done: make(chan struct{})}
	go sess.readLoop(out)
	return sess, res, uploaded, nil
}

// readLoop hands each response to its caller until the session ends.
func (s *agentSession) readLoop(stdout io.Reader) {
	var err error
	for {
		var r protocol.ServeResponse
		if err = protocol.ReadFrame(stdout, &r); err != nil {
			break
		}
		s.mu.Lock()
		ch, ok := s.pending[r.ID]
		delete(s.pending, r.ID)
		s.mu.Unlock()
		if ok {
			ch <- r
		}
	}
	werr := s.s.Wait()
	s.s.Close()
	why := fmt.Errorf("%w (%v)", errSessionLost, err)
	if werr != nil {
		why = fmt.Errorf("%w (%v)", errSessionLost, werr)
	}
	if tail := strings.TrimSpace(string(s.stderr.buf.Bytes())); tail != "" {
		why = fmt.Errorf("%w; agent stderr: %s", why, tail)
	}
	// An exit status or signal: the agent process ended (killed on the
	// node) while the connection lives; none: the connection went.
	var ee *ssh.ExitError
	if werr == nil || errors.As(werr, &ee) {
		why = fmt.Errorf("%w: %w", why, ErrAgentExit)
	} else {
		why = s.c.connErr(why)
	}
	s.mu.Lock()
	s.err = why
	close(s.done)
	s.mu.Unlock()
}

// call sends one request and waits for its answer. sent is false when the
// request never reached the agent (the session was already gone), so it
// can go on a new session whatever it does.
func (s *agentSession) call(ctx context.Context, args []string, stdin []byte) (res execResult, sent bool, err error) {
	res.status = -1
	ch := make(chan protocol.ServeResponse, 1)
	s.mu.Lock()
	select {
	case <-s.done:
		err := s.err
		s.mu.Unlock()
		return res, false, err
	default:
	}
	s.next++
	id := s.next
	s.pending[id] = ch
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}
	s.wmu.Lock()
	werr := protocol.WriteFrame(s.stdin, protocol.ServeRequest{ID: id, Args: args, Stdin: stdin})
	s.wmu.Unlock()
	if werr != nil {
		// A failed channel write delivers no whole frame: the agent cannot
		// have run it.
		forget()
		s.close()
		<-s.done
		return res, false, s.err
	}
	select {
	case r := <-ch:
		res.stdout, res.stderr, res.status = r.Stdout, r.Stderr, r.Exit
		return res, true, nil
	case <-s.done:
		forget()
		// The answer may have arrived just before the end.
		select {
		case r := <-ch:
			res.stdout, res.stderr, res.status = r.Stdout, r.Stderr, r.Exit
			return res, true, nil
		default:
		}
		return res, true, s.err
	case <-ctx.Done():
		forget()
		// Tell the agent, without waiting on a channel a hung node may
		// never drain.
		go func() {
			s.wmu.Lock()
			_ = protocol.WriteFrame(s.stdin, protocol.ServeRequest{ID: id, Cancel: true})
			s.wmu.Unlock()
		}()
		return res, true, ctxErr(ctx, ctx.Err())
	}
}

// close ends the session: the agent sees the end of its stdin, finishes
// what is in flight and exits.
func (s *agentSession) close() {
	s.wmu.Lock()
	_ = s.stdin.Close()
	s.wmu.Unlock()
}

// serveArgs is the session command's arguments.
func serveArgs(o *Options, sum string) []string {
	return withExpect(o, []string{"serve"}, sum)
}

// unknownServe: the agent at agent_path is too old to know `serve`.
func unknownServe(r execResult) bool {
	return r.status == protocol.ExitUsage && strings.Contains(string(r.stderr), `unknown command "serve"`)
}

// session returns the live agent session on c for o, starting it (and
// delivering the agent first when the node lacks this build) if needed.
// It returns nil when this agent cannot serve on this connection: the
// caller uses the exec path, which also reports sudo and missing-agent
// errors in full. delivered is true when this call uploaded the agent.
func (p *Pool) session(ctx context.Context, c *conn, o *Options) (sess *agentSession, delivered bool, err error) {
	if p.opts.ExecPerCall {
		return nil, false, nil
	}
	slot := c.sessionSlot(o)
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.sess != nil && slot.sess.alive() {
		return slot.sess, false, nil
	}
	slot.sess = nil
	if slot.off {
		return nil, false, nil
	}
	st := c.agentState(o.AgentPath)
	st.mu.Lock()
	arch, probed := st.goarch, st.probed
	st.mu.Unlock()
	if !probed {
		arch = p.expectedArch(o)
	}
	sum := ""
	var data []byte
	if !o.AgentPreinstalled {
		if data, sum, err = p.opts.Agent(arch); err != nil {
			// No build for that architecture here: the exec path probes
			// and says what is missing.
			slot.off = true
			return nil, false, nil
		}
	}
	start := func(sum string, deliver func() error) (*agentSession, execResult, error) {
		cmd := AgentCommand(o.AgentPath, o.Sudo, serveArgs(o, sum)...)
		if deliver != nil {
			cmd = ServeOrUploadCommand(o.AgentPath, serveArgs(o, sum)...)
		}
		sess, res, uploaded, err := c.startSession(ctx, cmd, deliver)
		delivered = delivered || uploaded
		if err == nil && sess != nil {
			p.sessionStarts.Add(1)
		}
		return sess, res, err
	}
	// Root, or a user who owns agent_path, gets the agent delivered while
	// the session's own exec waits for it, when the node lacks it: one
	// exec either way. Sudo users keep the agent alone on the sudo line
	// (sudoers may allow just that); the compressed delivery is an exec.
	var deliver func() error
	if !o.Sudo && !o.AgentPreinstalled && !p.opts.CompressedDelivery && !p.hostFact(p.noSFTP, o) {
		deliver = func() error {
			ss, err := c.openSFTP(ctx)
			if errors.Is(err, errNoSFTP) {
				p.learn(p.noSFTP, o)
			}
			if err != nil {
				return err
			}
			defer ss.Close()
			return ss.putTemp(o.AgentPath, data)
		}
	}
	sess, res, err := start(sum, deliver)
	if err != nil {
		return nil, delivered, err
	}
	if sess == nil && !o.AgentPreinstalled && sudoError(o, res) == nil {
		// Missing, another build or architecture, one from before
		// sessions, or something else at agent_path: deliver this build
		// when the node's copy differs (as the exec path would), then
		// serve from it.
		st.mu.Lock()
		st.noDirect, st.stale = true, lacksBuild(res) || unknownServe(res)
		st.uploadLeft = delivered
		st.mu.Unlock()
		d, derr := p.ensureAgent(ctx, c, o)
		if derr != nil {
			return nil, delivered, derr
		}
		delivered = delivered || d.sum != ""
		st.mu.Lock()
		arch = st.goarch
		st.mu.Unlock()
		if _, sum, err = p.opts.Agent(arch); err != nil {
			slot.off = true
			return nil, delivered, nil
		}
		sess, res, err = start(sum, nil)
		if err != nil {
			return nil, delivered, err
		}
	}
	if sess == nil {
		// An old preinstalled agent (no serve), sudo refusing, a chrooted
		// sftp that wrote elsewhere: the exec path handles each. Unless
		// the agent lacks only serve, a single-exec run would fail the
		// same way: the exec path goes straight to its probe.
		slot.off = true
		if !unknownServe(res) {
			st.mu.Lock()
			st.noDirect = true
			st.mu.Unlock()
		}
		if delivered {
			c.agentState(o.AgentPath).forget()
		}
		return nil, delivered, nil
	}
	st.mu.Lock()
	st.probed, st.goarch, st.sum = true, arch, sum
	if o.AgentPreinstalled {
		st.sum = "preinstalled"
	}
	st.mu.Unlock()
	p.rememberArch(o, arch)
	slot.sess = sess
	return sess, delivered, nil
}

// SessionStarts reports how many agent sessions the pool has started.
func (p *Pool) SessionStarts() int64 { return p.sessionStarts.Load() }
