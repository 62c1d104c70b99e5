package transport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/agentbin"
)

// Request is one agent apply.
type Request struct {
	Spec  []byte // JSON or YAML spec, sent on stdin
	Check bool   // read only: report what would change
	Diff  bool
	Root  string // --root on the node; "" leaves the agent's default (/)
}

// Response is what came back from one node.
type Response struct {
	Host       string
	Result     *protocol.Result // nil when stdout was not a result
	Stdout     []byte
	Stderr     string
	ExitStatus int
	// Delivered is true when this call uploaded the agent.
	Delivered bool
}

// Apply runs `hpcstorage-agent apply` on the host with the spec on stdin,
// delivering the agent first if needed. When the agent reports failed items
// (exit 2) both the Response and an error wrapping ErrItemFailed are
// returned.
func (p *Pool) Apply(ctx context.Context, opts Options, req Request) (*Response, error) {
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, &StepError{Host: o.name(), Step: StepConfig, ExitStatus: -1, Err: err}
	}
	if len(bytes.TrimSpace(req.Spec)) == 0 {
		return nil, &StepError{Host: o.name(), Step: StepConfig, ExitStatus: -1, Err: fmt.Errorf("empty spec: %w", ErrConfig)}
	}
	return p.agentCall(ctx, &o, ApplyArgs(req), req.Spec, true, req.Check)
}

// Remove runs `hpcstorage-agent remove --owner OWNER` on the host: the
// agent puts back what that owner changed (the provider's Delete).
func (p *Pool) Remove(ctx context.Context, opts Options, owner string, check bool, root string) (*Response, error) {
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, &StepError{Host: o.name(), Step: StepConfig, ExitStatus: -1, Err: err}
	}
	if strings.TrimSpace(owner) == "" {
		return nil, &StepError{Host: o.name(), Step: StepConfig, ExitStatus: -1, Err: fmt.Errorf("remove: empty owner: %w", ErrConfig)}
	}
	args := []string{"remove", "--owner", owner, "--output", "json"}
	if check {
		args = append(args, "--check")
	}
	if root != "" {
		args = append(args, "--root", root)
	}
	return p.agentCall(ctx, &o, args, nil, true, check)
}

// Facts runs `hpcstorage-agent facts` on the host.
func (p *Pool) Facts(ctx context.Context, opts Options, root string) (*protocol.Facts, error) {
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, &StepError{Host: o.name(), Step: StepConfig, ExitStatus: -1, Err: err}
	}
	args := []string{"facts"}
	if root != "" {
		args = append(args, "--root", root)
	}
	resp, err := p.agentCall(ctx, &o, args, nil, false, true)
	if err != nil {
		return nil, err
	}
	var f protocol.Facts
	if err := decodeJSON(resp.Stdout, &f); err != nil {
		return nil, &StepError{Host: resp.Host, Step: StepRun, ExitStatus: resp.ExitStatus, Stderr: resp.Stderr,
			Err: fmt.Errorf("facts: %v: %w", err, ErrBadResult)}
	}
	return &f, nil
}

// Target is one host and what to apply there.
type Target struct {
	Options Options
	Request Request
}

// Outcome is one target's answer in ApplyAll.
type Outcome struct {
	Response *Response
	Err      error
}

// ApplyAll applies on every target in parallel within the pool's fan-out
// limits. A failure on one host does not stop the others; outcomes are in
// target order.
func (p *Pool) ApplyAll(ctx context.Context, targets []Target) []Outcome {
	out := make([]Outcome, len(targets))
	var wg sync.WaitGroup
	for i := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].Response, out[i].Err = p.Apply(ctx, targets[i].Options, targets[i].Request)
		}()
	}
	wg.Wait()
	return out
}

// agentCall runs the agent with args on the host and maps its exit status
// to an error: through the node's session keeper when the pool has one
// (keeper.go), else in this process (agentRun).
func (p *Pool) agentCall(ctx context.Context, o *Options, args []string, stdin []byte, isApply, readOnly bool) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, o.RunTimeout,
		fmt.Errorf("run_timeout %s exceeded: %w", o.RunTimeout, ErrTimeout))
	defer cancel()
	resp, err, ok := p.keeperCall(ctx, o, args, stdin, readOnly)
	if !ok {
		resp, err = p.agentRun(ctx, o, args, stdin, readOnly)
	}
	if err != nil {
		return resp, err
	}
	return resp, agentOutcome(o, resp, isApply)
}

// agentRun runs the agent with args on the host: over the connection's
// agent session when it has one (see session.go), else as one exec.
// readOnly calls (facts, check runs) are retried once on a new session
// (or connection) when it drops under them; others are not, since they
// may have run: their error says the connection was lost while the
// request was in flight. A connection lost before the request left
// (while the session started, or the agent was probed or delivered) is
// dialed again, twice at most, whatever the call: nothing of it ran. The
// caller maps the agent's exit status (agentOutcome).
func (p *Pool) agentRun(ctx context.Context, o *Options, args []string, stdin []byte, readOnly bool) (*Response, error) {
	name := o.name()
	release, err := p.acquire(ctx, o.poolKey())
	if err != nil {
		return nil, &StepError{Host: name, Step: StepDial, ExitStatus: -1, Err: ctxErr(ctx, err)}
	}
	defer release()

	retried, sftpRetried := false, false
	reopens, redials, delivered := 0, 0, false
	// lost is the session drop a read-only call is being retried after:
	// when the retry fails too, that drop is what the user needs to see.
	var lost error
	fail := func(err error) error {
		if lost == nil {
			return err
		}
		return &StepError{Host: name, Step: StepRun, ExitStatus: -1, Err: fmt.Errorf("%w; retried on a new session: %v", lost, err)}
	}
	for attempt := 0; ; attempt++ {
		c, err := p.get(ctx, o)
		if err != nil {
			return nil, fail(err)
		}
		if c.unverified != nil && attempt == 0 {
			p.opts.Warn(insecureWarning(name, c.unverified))
		}
		// A pooled connection can die between two calls (the node
		// rebooted, a NAT forgot it). If not even a session opens, nothing
		// ran on the node: drop the connection and redial, once.
		retry := func(err error) bool {
			var so *sessionOpenError
			if retried || !errors.As(err, &so) {
				return false
			}
			retried = true
			c.client.Close()
			<-c.done
			return true
		}
		// The connection went while the call was being set up (the
		// session's start, the probe, the delivery): nothing of it ran.
		redial := func(err error) bool {
			if redials >= 2 || ctx.Err() != nil || !errors.Is(err, ErrConnectionLost) {
				return false
			}
			redials++
			c.client.Close()
			<-c.done
			return true
		}
		// A read-only run the connection dropped under runs again on a
		// new one, once: it changed nothing.
		rerun := func(err error) bool {
			if !readOnly || lost != nil || ctx.Err() != nil || !(errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrAgentExit)) {
				return false
			}
			lost = err
			c.client.Close()
			<-c.done
			return true
		}
		newReader := func() io.Reader {
			if stdin == nil {
				return nil
			}
			return bytes.NewReader(stdin)
		}
		sess, sdelivered, err := p.session(ctx, c, o)
		delivered = delivered || sdelivered
		if err != nil {
			if retry(err) || redial(err) {
				continue
			}
			var se *StepError
			if errors.As(err, &se) {
				return nil, fail(err)
			}
			return nil, fail(&StepError{Host: name, Step: StepRun, ExitStatus: -1, Err: err})
		}
		if sess != nil {
			res, sent, err := sess.call(ctx, args, stdin)
			if err != nil && ctx.Err() == nil {
				switch {
				case !sent && reopens < 2:
					// It never reached the agent: send it on a new session.
					reopens++
					continue
				case sent && readOnly && lost == nil:
					lost = err
					continue
				}
			}
			if err != nil {
				return nil, fail(&StepError{Host: name, Step: StepRun, ExitStatus: -1, Stderr: string(res.stderr), Err: inFlight(err, readOnly)})
			}
			return &Response{Host: name, Stdout: res.stdout, Stderr: string(res.stderr), ExitStatus: res.status, Delivered: delivered}, nil
		}
		// On a connection that has not probed yet, run the agent straight
		// away (one exec); only a missing or other build falls back to the
		// probe and delivery.
		res, ran, err := p.runDirect(ctx, c, o, args, newReader)
		if err != nil && (retry(err) || rerun(err)) {
			continue
		}
		if err != nil {
			return nil, fail(&StepError{Host: name, Step: StepRun, ExitStatus: -1, Stderr: string(res.stderr), Err: inFlight(err, readOnly)})
		}
		if !ran {
			var d delivery
			d, err = p.ensureAgent(ctx, c, o)
			if err != nil {
				if retry(err) || redial(err) {
					continue
				}
				return nil, fail(err)
			}
			delivered = delivered || d.sum != ""
			// A build delivered over sftp verifies itself on this run (the
			// exec upload already checked its sha256sum).
			runArgs := args
			if d.sftp {
				runArgs = withExpect(o, args, d.sum)
			}
			res, err = c.exec(ctx, AgentCommand(o.AgentPath, o.Sudo, runArgs...), newReader())
			if err != nil && (retry(err) || rerun(err)) {
				continue
			}
			if err != nil {
				return nil, fail(&StepError{Host: name, Step: StepRun, ExitStatus: -1, Stderr: string(res.stderr), Err: inFlight(err, readOnly)})
			}
			if d.sftp && (res.status == protocol.ExitWrongBuild || res.status == 127) {
				c.agentState(o.AgentPath).forget()
				// The sftp subsystem wrote somewhere else than exec sees
				// (a chrooted sftp): use the exec upload, once.
				if !sftpRetried {
					sftpRetried = true
					p.learn(p.noSFTP, o)
					continue
				}
				return nil, &StepError{Host: name, Step: StepUpload, ExitStatus: res.status, Stderr: string(res.stderr),
					Err: fmt.Errorf("%s is not the delivered build after upload: %w", o.AgentPath, ErrAgentChecksum)}
			}
		}
		resp := &Response{Host: name, Stdout: res.stdout, Stderr: string(res.stderr), ExitStatus: res.status, Delivered: delivered}
		if serr := sudoError(o, res); serr != nil {
			return resp, &StepError{Host: name, Step: StepRun, ExitStatus: res.status, Stderr: resp.Stderr, Err: serr}
		}
		// 126/127: the agent vanished or lost its exec bit since the
		// probe. Forget the probe and deliver again, once.
		if notRunnable(o, res) && !o.AgentPreinstalled && attempt == 0 {
			c.agentState(o.AgentPath).forget()
			continue
		}
		return resp, nil
	}
}

// inFlight says of a connection lost (or an agent session ended) under a
// call that changes the node that it may have run in part: what the user
// needs to know to go on (apply again; every item converges from where the
// node is).
func inFlight(err error, readOnly bool) error {
	switch {
	case readOnly:
		return err
	case errors.Is(err, ErrConnectionLost):
		return fmt.Errorf("the connection was lost while the agent was applying, so the change may be partly applied on the node: %w: %w", ErrInterrupted, err)
	case errors.Is(err, errSessionLost):
		return fmt.Errorf("the agent ended while applying, so the change may be partly applied on the node: %w: %w", ErrInterrupted, err)
	}
	return err
}

// DefaultExpectedArch is the node architecture a pool assumes for a host
// it has not probed yet in this process: its agent build's checksum goes
// with the first, single-exec run.
const DefaultExpectedArch = "amd64"

// withExpect adds --expect-sha256 to the single-exec run of an agent the
// transport delivers. A pre-installed agent is the site's business and runs
// as it is.
func withExpect(o *Options, args []string, sum string) []string {
	if o.AgentPreinstalled || sum == "" {
		return args
	}
	return append(append(args[:len(args):len(args)], "--expect-sha256"), sum)
}

// notRunnable reports an agent run that did not start: missing (127), not
// executable or another architecture (126), or sudo not finding or not
// executing it (sudo exits 1 then, naming the path).
func notRunnable(o *Options, r execResult) bool {
	switch r.status {
	case 126, 127:
		return true
	case 1:
		return o.Sudo && sudoNamesAgent(o, r.stderr)
	}
	return false
}

// sudoNamesAgent: "sudo: /path: command not found", "sudo: unable to
// execute /path: Exec format error".
func sudoNamesAgent(o *Options, stderr []byte) bool {
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(l, "sudo: ") && strings.Contains(l, o.AgentPath) {
			return true
		}
	}
	return false
}

// directRan tells whether the single-exec run really ran the expected
// agent. Exit 0 and 2 are its results; exit 1 counts only when it is the
// agent's own refusal (an invalid spec, a lock timeout), not an older agent
// that does not know --expect-sha256 or sudo failing. Anything else (3:
// another build; 126/127: missing or another architecture; a foreign
// program's status) sends the caller to the probe and delivery.
func directRan(o *Options, r execResult) bool {
	switch r.status {
	case protocol.ExitOK, protocol.ExitItemFailed:
		return true
	case protocol.ExitUsage:
		s := string(r.stderr)
		return strings.Contains(s, "hpcstorage-agent ") && !strings.Contains(s, "flag provided but not defined") &&
			!(o.Sudo && (sudoNamesAgent(o, r.stderr) || sudoError(o, r) != nil))
	}
	return false
}

// lacksBuild tells from a failed direct run that the node's copy cannot be
// this build: missing (127), the agent itself saying it is another build
// (3), or one too old to know --expect-sha256. Other failures (126: not
// executable, a noexec mount) say nothing about the file.
func lacksBuild(r execResult) bool {
	switch r.status {
	case 127, protocol.ExitWrongBuild:
		return true
	case protocol.ExitUsage:
		return strings.Contains(string(r.stderr), "flag provided but not defined")
	}
	return false
}

// runDirect is the single-exec run on a connection whose probe is not
// cached: the agent at agent_path runs with --expect-sha256 of the build
// for the architecture this pool last saw on the host (DefaultExpectedArch
// at first). If it ran, the node has that build: the probe is cached and
// ran is true. If the agent is missing, another build or architecture, or
// sudo refused, ran is false and the caller takes the probe + upload path
// (which also reports sudo and missing-agent errors as before); the state
// then records whether the node's copy is known not to be this build
// (lacksBuild), for every caller on the connection.
func (p *Pool) runDirect(ctx context.Context, c *conn, o *Options, args []string, stdin func() io.Reader) (res execResult, ran bool, err error) {
	st := c.agentState(o.AgentPath)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.probed || st.noDirect {
		return execResult{}, false, nil
	}
	arch := p.expectedArch(o)
	sum := ""
	if !o.AgentPreinstalled {
		if _, sum, err = p.opts.Agent(arch); err != nil {
			st.noDirect = true
			return execResult{}, false, nil
		}
	}
	res, err = c.exec(ctx, AgentCommand(o.AgentPath, o.Sudo, withExpect(o, args, sum)...), stdin())
	if err != nil {
		return res, false, err
	}
	if !directRan(o, res) {
		st.noDirect, st.stale = true, lacksBuild(res)
		return execResult{}, false, nil
	}
	st.probed, st.goarch, st.sum = true, arch, sum
	if o.AgentPreinstalled {
		st.sum = "preinstalled"
	}
	p.rememberArch(o, arch)
	return res, true, nil
}

// agentOutcome maps the agent's exit status and output to an error.
func agentOutcome(o *Options, resp *Response, isApply bool) error {
	fail := func(err error) error {
		return &StepError{Host: resp.Host, Step: StepRun, ExitStatus: resp.ExitStatus, Stderr: resp.Stderr, Err: err}
	}
	if isApply && (resp.ExitStatus == protocol.ExitOK || resp.ExitStatus == protocol.ExitItemFailed) {
		var r protocol.Result
		if err := decodeJSON(resp.Stdout, &r); err != nil {
			return fail(fmt.Errorf("%v (stdout starts %.200q): %w", err, resp.Stdout, ErrBadResult))
		}
		resp.Result = &r
	}
	switch resp.ExitStatus {
	case protocol.ExitOK:
		return nil
	case protocol.ExitItemFailed:
		var failed []string
		if resp.Result != nil {
			for _, it := range resp.Result.Items {
				if it.Error != "" {
					failed = append(failed, it.ID+": "+it.Error)
				}
			}
			for _, h := range resp.Result.Handlers {
				if h.Error != "" {
					failed = append(failed, h.ID+": "+h.Error)
				}
			}
		}
		return fail(fmt.Errorf("%s: %w", strings.Join(failed, "; "), ErrItemFailed))
	case protocol.ExitUsage:
		return fail(ErrSpecInvalid)
	case 126, 127:
		return fail(fmt.Errorf("%s cannot be executed: %w", o.AgentPath, ErrAgentMissing))
	default:
		return fail(ErrAgentExit)
	}
}

// sudoError recognises sudo's own refusals in a failed command.
func sudoError(o *Options, r execResult) error {
	if !o.Sudo || r.status == 0 {
		return nil
	}
	s := string(r.stderr)
	if !strings.Contains(s, "sudo") {
		return nil
	}
	switch {
	case containsAny(s, "password is required", "terminal is required", "askpass"):
		return fmt.Errorf("user %q needs a password for sudo on this host; the transport never types one (sudo -n): grant NOPASSWD in sudoers, or connect as root: %w", o.User, ErrSudoPassword)
	case containsAny(s, "not in the sudoers", "is not allowed to", "may not run sudo"):
		return fmt.Errorf("user %q may not use sudo on this host: %w", o.User, ErrSudoDenied)
	case containsAny(s, "sudo: not found", "sudo: command not found", "sudo: No such file"):
		return fmt.Errorf("sudo is not installed on this host (sudo = true for user %q): %w", o.User, ErrSudoDenied)
	}
	return nil
}

// agentState is what a connection knows about the agent at one path.
type agentState struct {
	mu     sync.Mutex
	probed bool
	goarch string
	sum    string // sha256 hex of the node's copy, "" when absent
	// noDirect: the single-exec run failed once on this connection; use
	// the probe from now on.
	noDirect bool
	// stale: that run showed the node's copy is not this build, so only
	// the architecture needs probing before the upload.
	stale bool
	// uploadLeft: this connection's session delivery wrote the
	// UploadTempSuffix file and its run failed (another architecture, a
	// wrong sum): the upload that follows removes it.
	uploadLeft bool
}

func (s *agentState) forget() {
	s.mu.Lock()
	s.probed, s.stale = false, false
	s.mu.Unlock()
}

// delivery is what ensureAgent did: sum is the sha256 of the build it
// uploaded ("" when it uploaded nothing), sftp whether it went over sftp.
type delivery struct {
	sum  string
	sftp bool
}

// ensureAgent probes the node once per connection and uploads the agent
// when it is missing or differs. The probe is `uname -m` and the agent's
// checksum in one round trip; after a direct run that showed the node's
// copy is not this build (agentState.stale), only the architecture. A user
// who is root or owns agent_path gets the upload over sftp; sudo users get
// the exec upload.
func (p *Pool) ensureAgent(ctx context.Context, c *conn, o *Options) (delivery, error) {
	name := o.name()
	st := c.agentState(o.AgentPath)
	st.mu.Lock()
	defer st.mu.Unlock()
	// The sftp session, when the upload can use one; opened before the
	// probe when an upload is certain, so the probe can read the kernel's
	// architecture in it.
	var ss *sftpSession
	defer func() {
		if ss != nil {
			ss.Close()
		}
	}()
	openSFTP := func() error {
		if ss != nil || o.Sudo || p.opts.CompressedDelivery || p.hostFact(p.noSFTP, o) {
			return nil
		}
		var err error
		ss, err = c.openSFTP(ctx)
		if errors.Is(err, errNoSFTP) {
			p.learn(p.noSFTP, o)
			return nil
		}
		return err
	}
	if !st.probed {
		// After a direct run that showed the node lacks this build, only
		// the architecture is unknown.
		archOnly := st.stale && !o.Sudo && !o.AgentPreinstalled
		var arch, sum string
		if archOnly {
			if err := openSFTP(); err != nil {
				return delivery{}, &StepError{Host: name, Step: StepProbe, ExitStatus: -1, Err: err}
			}
			if ss != nil {
				a, err := ss.kernelArch()
				switch {
				case errors.Is(err, ErrUnsupportedArch):
					return delivery{}, &StepError{Host: name, Step: StepProbe, ExitStatus: -1, Err: err}
				case err == nil:
					arch = a
				}
			}
		}
		if arch == "" {
			// A preinstalled agent needs no root to be checksummed, so
			// sudoers may allow just the agent itself.
			cmd := ProbeCommand(o.AgentPath, o.Sudo && !o.AgentPreinstalled)
			if archOnly {
				cmd = ArchCommand
			}
			res, err := c.exec(ctx, cmd, nil)
			if err == nil && res.status != 0 {
				err = sudoError(o, res)
				if err == nil {
					err = errors.New("probe command failed")
				}
			}
			if err != nil {
				return delivery{}, &StepError{Host: name, Step: StepProbe, ExitStatus: res.status, Stderr: string(res.stderr), Err: err}
			}
			if archOnly {
				arch, err = parseArch(res.stdout)
			} else {
				arch, sum, err = parseProbe(res.stdout)
			}
			if err != nil {
				return delivery{}, &StepError{Host: name, Step: StepProbe, ExitStatus: res.status, Stderr: string(res.stderr), Err: err}
			}
		}
		st.goarch, st.sum, st.probed = arch, sum, true
		p.rememberArch(o, arch)
	}
	if o.AgentPreinstalled {
		if st.sum == "" {
			return delivery{}, &StepError{Host: name, Step: StepProbe, ExitStatus: -1,
				Err: fmt.Errorf("agent_path %s does not exist (agent_preinstalled is set, so nothing is uploaded): %w", o.AgentPath, ErrAgentMissing)}
		}
		return delivery{}, nil
	}
	data, want, err := p.opts.Agent(st.goarch)
	if err != nil {
		return delivery{}, &StepError{Host: name, Step: StepUpload, ExitStatus: -1, Err: err}
	}
	if st.sum == want {
		return delivery{}, nil
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := hex.EncodeToString(rnd[:])
	if err := openSFTP(); err != nil {
		st.probed = false
		return delivery{}, &StepError{Host: name, Step: StepUpload, ExitStatus: -1, Err: err}
	}
	if ss != nil {
		if st.uploadLeft {
			_ = ss.cl.Remove(o.AgentPath + UploadTempSuffix)
			st.uploadLeft = false
		}
		if err := ss.put(o.AgentPath, tmp, data); err != nil {
			st.probed = false
			return delivery{}, &StepError{Host: name, Step: StepUpload, ExitStatus: -1, Err: err}
		}
		st.sum = want
		return delivery{sum: want, sftp: true}, nil
	}
	var res execResult
	// Compressed when the node has gzip (less than half the bytes to
	// encrypt, send and decrypt); plain otherwise.
	if gz, gzErr := p.gzipped(data, want); gzErr == nil && !p.hostFact(p.plain, o) {
		res, err = c.exec(ctx, UploadGzipCommand(o.AgentPath, tmp, o.Sudo), bytes.NewReader(gz))
		if err == nil && res.status != 0 && noGzip(res.stderr) {
			p.learn(p.plain, o)
			res, err = c.exec(ctx, UploadCommand(o.AgentPath, tmp, o.Sudo), bytes.NewReader(data))
		}
	} else {
		res, err = c.exec(ctx, UploadCommand(o.AgentPath, tmp, o.Sudo), bytes.NewReader(data))
	}
	if err == nil && res.status != 0 {
		err = sudoError(o, res)
		if err == nil {
			err = fmt.Errorf("writing %s failed", o.AgentPath)
		}
	}
	if err != nil {
		st.probed = false
		return delivery{}, &StepError{Host: name, Step: StepUpload, ExitStatus: res.status, Stderr: string(res.stderr), Err: err}
	}
	got := firstField(lastLine(res.stdout))
	if got != want {
		st.probed = false
		return delivery{}, &StepError{Host: name, Step: StepUpload, ExitStatus: res.status, Stderr: string(res.stderr),
			Err: fmt.Errorf("%s has sha256 %q after upload, want %s: %w", o.AgentPath, got, want, ErrAgentChecksum)}
	}
	st.sum = got
	return delivery{sum: want}, nil
}

// decodeJSON decodes the agent's JSON document from stdout. A login script
// on the node (a chatty .bashrc) may have printed lines before it, so when
// the whole output does not parse, the document is taken from the first
// line that starts with "{".
func decodeJSON(out []byte, v any) error {
	err := json.Unmarshal(out, v)
	if err == nil {
		return nil
	}
	if i := bytes.Index(out, []byte("\n{")); i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		if err2 := json.Unmarshal(out[i+1:], v); err2 == nil {
			return nil
		}
	}
	return err
}

// parseProbe reads ProbeCommand's output: the last two lines are
// `uname -m` and the sha256sum line (or AbsentMarker). Anything a login
// script printed before them is ignored.
func parseProbe(out []byte) (goarch, sum string, err error) {
	lines := nonEmptyLines(out)
	if len(lines) < 2 {
		return "", "", fmt.Errorf("unexpected probe output %q", out)
	}
	if goarch, err = parseArch([]byte(lines[len(lines)-2])); err != nil {
		return "", "", err
	}
	s := lines[len(lines)-1]
	if s == AbsentMarker {
		return goarch, "", nil
	}
	sum = firstField(s)
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return "", "", fmt.Errorf("unexpected sha256sum output %q", s)
	}
	return goarch, sum, nil
}

// parseArch reads ArchCommand's output: its last line.
func parseArch(out []byte) (string, error) {
	lines := nonEmptyLines(out)
	if len(lines) == 0 {
		return "", fmt.Errorf("unexpected probe output %q", out)
	}
	goarch, err := agentbin.GOARCH(lines[len(lines)-1])
	if err != nil {
		return "", fmt.Errorf("%v: %w", err, ErrUnsupportedArch)
	}
	return goarch, nil
}

func nonEmptyLines(out []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

type execResult struct {
	stdout, stderr []byte
	status         int
}

// exec runs one command in a new session. A non-zero exit is not an error
// (status says it); a lost connection, a signal or the context ending is.
func (c *conn) exec(ctx context.Context, cmd string, stdin io.Reader) (execResult, error) {
	res := execResult{status: -1}
	s, err := c.client.NewSession()
	if err != nil {
		return res, &sessionOpenError{c.connErr(fmt.Errorf("opening a session: %v", err))}
	}
	defer s.Close()
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr = &stdout, &limitedBuffer{max: 1 << 20, buf: &stderr}
	if stdin != nil {
		s.Stdin = stdin
	}
	if err := s.Start(cmd); err != nil {
		return res, c.connErr(fmt.Errorf("starting remote command: %v", err))
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGKILL)
		s.Close()
		<-done
		res.stdout, res.stderr = stdout.Bytes(), stderr.Bytes()
		return res, ctxErr(ctx, ctx.Err())
	}
	res.stdout, res.stderr = stdout.Bytes(), stderr.Bytes()
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		res.status = 0
		return res, nil
	case errors.As(err, &ee) && ee.Signal() == "":
		res.status = ee.ExitStatus()
		return res, nil
	case errors.As(err, &ee):
		return res, fmt.Errorf("remote command killed by signal %s: %w", ee.Signal(), ErrAgentExit)
	case errors.As(err, &missing):
		return res, c.connErr(fmt.Errorf("the remote command ended without an exit status"))
	default:
		return res, c.connErr(err)
	}
}

// connErr explains a session failure: the connection dropped, or the
// keepalives gave up on it.
func (c *conn) connErr(err error) error {
	if lost := c.lostErr(); lost != nil {
		return fmt.Errorf("%v: %w", err, lost)
	}
	return fmt.Errorf("%v: %w", err, ErrConnectionLost)
}

// ctxErr prefers the run_timeout cause over a bare "deadline exceeded".
func ctxErr(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrTimeout) {
		return cause
	}
	return err
}

// sessionOpenError marks a failure to open a session: the command never
// started, so retrying on a new connection is safe.
type sessionOpenError struct{ err error }

func (e *sessionOpenError) Error() string { return e.err.Error() }
func (e *sessionOpenError) Unwrap() error { return e.err }

// limitedBuffer keeps at most max bytes (stderr of a runaway command).
type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

// noGzip recognises a node without gzip in the compressed upload's stderr.
func noGzip(stderr []byte) bool {
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.Contains(l, "gzip") && containsAny(l, "not found", "No such file") {
			return true
		}
	}
	return false
}

type gzBuild struct {
	once sync.Once
	data []byte
	err  error
}

// gzipped is the build compressed, once per pool (a provider process) and
// build. Level 5: within 1 % of the best ratio for the agent, at a quarter
// of the time.
func (p *Pool) gzipped(data []byte, sum string) ([]byte, error) {
	v, _ := p.gz.LoadOrStore(sum, &gzBuild{})
	b := v.(*gzBuild)
	b.once.Do(func() {
		var buf bytes.Buffer
		w, err := gzip.NewWriterLevel(&buf, 5)
		if err == nil {
			_, err = w.Write(data)
		}
		if err == nil {
			err = w.Close()
		}
		b.data, b.err = buf.Bytes(), err
	})
	return b.data, b.err
}
