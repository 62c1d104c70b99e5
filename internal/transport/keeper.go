//go:build linux

package transport

// Session keeper: one agent session per node per Terraform command, across
// its provider processes, held by one keeper for every node reached with
// the same settings. `terraform apply` starts the provider once for
// the plan walk and once for the apply walk (and `plan` more than once),
// and each process used to open its own SSH connection and start its own
// `hpcstorage-agent serve` on every node. With a keeper, the first process
// that needs a node starts a small local process (this program again, in
// keeper mode: RunKeeper) that holds the nodes' connections and agent
// sessions; every process of the same user with the same connection
// settings sends its agent calls to it over a Unix socket, and it exits
// after an idle time without clients, like OpenSSH's ControlPersist.
//
// One keeper serves every node whose settings differ only in where the
// node is (host, port) and its pinned host keys: a keeper per node was a
// process of the provider's size per node (36 MB each, 3.8 GB for R1 with
// 100 clients), which a site of a thousand nodes cannot afford. A request
// names its node; the credentials, bastion and timeouts are the keeper's
// own, from its start, so a request can choose where to go, never how to
// log in. Its pool bounds the fan-out over all of them (MaxParallel).
//
// What stays as it was: the keeper dials with the very same Options
// (host-key checks, credentials, bastion), so it verifies what the
// provider would have; the node's lock is still taken per request by the
// agent; a call the keeper cannot take (no keeper, a socket that fails
// before the request is written) runs in this process as before.
//
// What keeps it private: the socket lives in a 0700 directory owned by the
// user (refused otherwise), the keeper accepts only peers of its own uid
// (SO_PEERCRED), the settings (secrets included) reach it on a pipe, never
// in argv or the environment, and the socket's name is an HMAC of the
// settings under a per-user random key, so it tells nothing about them.
//
// How long it lives: while any command that ran one of its clients (the
// Terraform or OpenTofu process of the provider processes) is still
// running, up to the idle time without clients; once every such command
// has ended and no client is left, it exits at once, so nothing of a
// Terraform command outlives it.

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// DefaultKeeperIdle is how long a keeper outlives its last client: long
// enough for the apply walk that follows a plan walk (and for a user
// reading the plan before typing yes), short enough that no connection
// lingers much after Terraform ends.
const DefaultKeeperIdle = 60 * time.Second

// KeeperConfig turns session keepers on for a pool.
type KeeperConfig struct {
	// Dir holds the sockets; it must be a directory of this user with
	// mode 0700 (created so when missing). Default: DefaultKeeperDir().
	Dir string
	// Command returns the command that runs RunKeeper (this program in
	// keeper mode); its stdin and stdout are the pool's to set.
	Command func() *exec.Cmd
	// Build identifies this program's build: a keeper of another build
	// is never used.
	Build string
	// Idle: see DefaultKeeperIdle.
	Idle time.Duration
}

// DefaultKeeperDir is $XDG_RUNTIME_DIR/hpcstorage (a per-user tmpfs on
// systemd machines), else hpcstorage-<uid> in the temporary directory.
func DefaultKeeperDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hpcstorage")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("hpcstorage-%d", os.Getuid()))
}

// keeperStart is what a new keeper reads on its stdin.
type keeperStart struct {
	Options Options
	Socket  string
	Idle    time.Duration
	// The starting pool's fan-out limits.
	MaxParallel, MaxPerHost int
}

// keeperRequest is one agent call (or the cancel of one) over the socket.
type keeperRequest struct {
	ID uint64
	// The node: what a shared keeper's settings leave open (keeperShared).
	Node     *keeperNode `json:",omitempty"`
	Args     []string    `json:",omitempty"`
	Stdin    []byte      `json:",omitempty"`
	ReadOnly bool        `json:",omitempty"`
	// Deadline of the caller's context (Unix nanoseconds, 0 none).
	Deadline int64 `json:",omitempty"`
	Cancel   bool  `json:",omitempty"`
}

// keeperNode is where one node is: the fields of Options a keeper shared
// by several nodes takes from each request.
type keeperNode struct {
	Host     string
	Port     int
	HostKeys []string `json:",omitempty"`
}

// keeperShared splits o into the settings its keeper is started with (and
// named by) and the node's own fields.
func keeperShared(o *Options) (shared Options, node *keeperNode) {
	shared = *o
	node = &keeperNode{Host: o.Host, Port: o.Port, HostKeys: o.HostKeys}
	shared.Host, shared.Port, shared.HostKeys = "", 0, nil
	return shared, node
}

// keeperResponse is agentRun's answer.
type keeperResponse struct {
	ID   uint64
	Resp *Response  `json:",omitempty"`
	Err  *wireError `json:",omitempty"`
}

// wireError carries an agentRun error across the socket: its StepError
// fields, its text and which of the package's sentinel errors it wraps,
// so errors.Is answers on this side as it would have on the keeper's.
type wireError struct {
	Step       bool // a *StepError (its fields below), else a plain error
	Host       string
	StepName   string
	ExitStatus int
	Stderr     string
	Msg        string
	Sentinels  []int
}

var wireSentinels = []error{ErrConfig, ErrUnknownHost, ErrHostKeyMismatch, ErrHostKeyRevoked, ErrPassphraseMissing,
	ErrBadPassphrase, ErrAuth, ErrUnreachable, ErrTimeout, ErrConnectionLost, ErrSudoPassword, ErrSudoDenied,
	ErrAgentMissing, ErrAgentChecksum, ErrUnsupportedArch, ErrSpecInvalid, ErrItemFailed, ErrAgentExit, ErrBadResult,
	ErrPoolClosed, context.Canceled, context.DeadlineExceeded, ErrInterrupted}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Msg: err.Error()}
	var se *StepError
	if errors.As(err, &se) {
		w.Step, w.Host, w.StepName, w.ExitStatus, w.Stderr = true, se.Host, se.Step, se.ExitStatus, se.Stderr
		if se.Err != nil {
			w.Msg = se.Err.Error()
		}
	}
	for i, s := range wireSentinels {
		if errors.Is(err, s) {
			w.Sentinels = append(w.Sentinels, i)
		}
	}
	return w
}

// remoteError is an error the keeper met.
type remoteError struct {
	msg       string
	sentinels []int
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	for _, i := range e.sentinels {
		if i >= 0 && i < len(wireSentinels) && wireSentinels[i] == target {
			return true
		}
	}
	return false
}

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	inner := &remoteError{msg: w.Msg, sentinels: w.Sentinels}
	if !w.Step {
		return inner
	}
	return &StepError{Host: w.Host, Step: w.StepName, ExitStatus: w.ExitStatus, Stderr: w.Stderr, Err: inner}
}

// keeperClient is this process's connection to one keeper.
type keeperClient struct {
	c   net.Conn
	wmu sync.Mutex

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan keeperResponse
	done    chan struct{}
	err     error
}

// keeperSlot is what a pool knows about the keeper for one connection key.
type keeperSlot struct {
	mu  sync.Mutex // held while connecting or starting the keeper
	cl  *keeperClient
	off bool // no keeper for this key in this process
}

func (k *keeperClient) alive() bool {
	select {
	case <-k.done:
		return false
	default:
		return true
	}
}

func (k *keeperClient) readLoop() {
	r := bufio.NewReader(k.c)
	var err error
	for {
		var resp keeperResponse
		if err = protocol.ReadFrame(r, &resp); err != nil {
			break
		}
		k.mu.Lock()
		ch, ok := k.pending[resp.ID]
		delete(k.pending, resp.ID)
		k.mu.Unlock()
		if ok {
			ch <- resp
		}
	}
	k.c.Close()
	k.mu.Lock()
	k.err = fmt.Errorf("session keeper connection ended: %v: %w", err, ErrConnectionLost)
	close(k.done)
	k.mu.Unlock()
}

// call sends one request; sent is false when it never left this process.
func (k *keeperClient) call(ctx context.Context, req keeperRequest) (resp keeperResponse, sent bool, err error) {
	ch := make(chan keeperResponse, 1)
	k.mu.Lock()
	select {
	case <-k.done:
		err := k.err
		k.mu.Unlock()
		return resp, false, err
	default:
	}
	k.next++
	req.ID = k.next
	k.pending[req.ID] = ch
	k.mu.Unlock()
	if d, ok := ctx.Deadline(); ok {
		req.Deadline = d.UnixNano()
	}
	k.wmu.Lock()
	werr := protocol.WriteFrame(k.c, req)
	k.wmu.Unlock()
	if werr != nil {
		// A frame the keeper did not get whole is one it drops.
		k.c.Close()
		<-k.done
		return resp, false, k.err
	}
	select {
	case r := <-ch:
		return r, true, nil
	case <-k.done:
		select {
		case r := <-ch:
			return r, true, nil
		default:
		}
		return resp, true, k.err
	case <-ctx.Done():
		k.mu.Lock()
		delete(k.pending, req.ID)
		k.mu.Unlock()
		go func() {
			k.wmu.Lock()
			_ = protocol.WriteFrame(k.c, keeperRequest{ID: req.ID, Cancel: true})
			k.wmu.Unlock()
		}()
		return resp, true, ctxErr(ctx, ctx.Err())
	}
}

// keeperCall runs the call through o's keeper. ok is false when there is
// none to use and nothing was sent: the caller runs it in this process.
func (p *Pool) keeperCall(ctx context.Context, o *Options, args []string, stdin []byte, readOnly bool) (resp *Response, err error, ok bool) {
	kc := p.opts.Keeper
	// insecure_ignore_host_key warns in the process that dials: it stays
	// here, where the warning reaches the user.
	if kc == nil || p.opts.ExecPerCall || o.InsecureIgnoreHostKey || (o.Bastion != nil && o.Bastion.InsecureIgnoreHostKey) {
		return nil, nil, false
	}
	for range 2 {
		cl := p.keeper(ctx, o)
		if cl == nil {
			return nil, nil, false
		}
		_, node := keeperShared(o)
		r, sent, cerr := cl.call(ctx, keeperRequest{Node: node, Args: args, Stdin: stdin, ReadOnly: readOnly})
		switch {
		case cerr == nil:
			if r.Resp != nil {
				r.Resp.Result = nil
			}
			return r.Resp, r.Err.err(), true
		case !sent:
			continue // the keeper went away: a new one, or this process
		case ctx.Err() != nil:
			return nil, &StepError{Host: o.name(), Step: StepRun, ExitStatus: -1, Err: cerr}, true
		case readOnly:
			// It may have run; read-only calls run again, here.
			return nil, nil, false
		default:
			return nil, &StepError{Host: o.name(), Step: StepRun, ExitStatus: -1,
				Err: fmt.Errorf("the request was in flight (it may have run): %w", cerr)}, true
		}
	}
	return nil, nil, false
}

// keeper returns a live client of o's keeper, starting the keeper when
// there is none; nil when keepers cannot be used for o here.
func (p *Pool) keeper(ctx context.Context, o *Options) *keeperClient {
	// Every setting but the node's own: the keeper runs its calls with the
	// Options it was started with, the request's node filled in.
	shared, _ := keeperShared(o)
	o = &shared
	ob, err := json.Marshal(o)
	if err != nil {
		return nil
	}
	key := string(ob)
	p.mu.Lock()
	if p.keepers == nil {
		p.keepers = map[string]*keeperSlot{}
	}
	slot, found := p.keepers[key]
	if !found {
		slot = &keeperSlot{}
		p.keepers[key] = slot
	}
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.cl != nil && slot.cl.alive() {
		return slot.cl
	}
	slot.cl = nil
	if slot.off {
		return nil
	}
	c, err := p.dialKeeper(ctx, o)
	if err != nil {
		// Keepers are a saving, never a failure: this process goes on alone.
		slot.off = true
		return nil
	}
	cl := &keeperClient{c: c, pending: map[uint64]chan keeperResponse{}, done: make(chan struct{})}
	go cl.readLoop()
	slot.cl = cl
	return cl
}

// keeperDir makes sure dir is this user's and private.
func keeperDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not a directory of uid %d with mode 0700", dir, os.Getuid())
	}
	return nil
}

// keeperSocket is the socket path for o: an HMAC of everything that makes
// a connection (connKey hashes the credentials and host-key settings) and
// of this build, under the directory's random key.
func (p *Pool) keeperSocket(dir string, o *Options) (string, error) {
	keyFile := filepath.Join(dir, "key")
	key, err := os.ReadFile(keyFile)
	if err != nil || len(key) != 32 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return "", err
		}
		tmp := keyFile + ".tmp-" + hex.EncodeToString(key[:4])
		if err := os.WriteFile(tmp, key, 0o600); err != nil {
			return "", err
		}
		// Whoever links first wins; everyone then reads the same key.
		_ = os.Link(tmp, keyFile)
		os.Remove(tmp)
		if key, err = os.ReadFile(keyFile); err != nil || len(key) != 32 {
			return "", fmt.Errorf("reading %s: %v", keyFile, err)
		}
	}
	m := hmac.New(sha256.New, key)
	ob, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(m, "%s\x00%s\x00", p.opts.Keeper.Build, ob)
	// And what the known_hosts files say now: a key removed or revoked
	// there sends the next command to a new keeper, which verifies again.
	for q := o; q != nil; q = q.Bastion {
		for _, f := range q.KnownHostsFiles {
			b, err := os.ReadFile(f)
			fmt.Fprintf(m, "%s\x00%x\x00%v\x00", f, sha256.Sum256(b), err != nil)
		}
	}
	sock := filepath.Join(dir, hex.EncodeToString(m.Sum(nil))[:32]+".sock")
	if len(sock) >= 104 { // sun_path, with room for every platform
		return "", fmt.Errorf("socket path %s too long", sock)
	}
	return sock, nil
}

// dialKeeper connects to o's keeper, starting it first when none answers.
func (p *Pool) dialKeeper(ctx context.Context, o *Options) (net.Conn, error) {
	kc := p.opts.Keeper
	dir := kc.Dir
	if dir == "" {
		dir = DefaultKeeperDir()
	}
	if err := keeperDir(dir); err != nil {
		return nil, err
	}
	sock, err := p.keeperSocket(dir, o)
	if err != nil {
		return nil, err
	}
	dial := func() (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}
	if c, err := dial(); err == nil {
		return c, nil
	}
	// One process starts the keeper; the others wait on the lock and then
	// find it.
	lock, err := os.OpenFile(strings.TrimSuffix(sock, ".sock")+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if c, err := dial(); err == nil {
		return c, nil
	}
	if err := p.startKeeper(ctx, o, sock); err != nil {
		return nil, err
	}
	return dial()
}

// startKeeper runs a keeper for o on sock and waits for it to listen.
func (p *Pool) startKeeper(ctx context.Context, o *Options, sock string) error {
	kc := p.opts.Keeper
	idle := kc.Idle
	if idle <= 0 {
		idle = DefaultKeeperIdle
	}
	cmd := kc.Command()
	// Its own session: Terraform's Ctrl-C and the end of this process do
	// not end it; its idle timeout does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Reaped here if it fails to start; a keeper that runs outlives us.
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "ready" {
			err = fmt.Errorf("session keeper: %s", strings.TrimSpace(line))
		}
		ready <- err
	}()
	err = json.NewEncoder(in).Encode(keeperStart{Options: *o, Socket: sock, Idle: idle,
		MaxParallel: p.opts.MaxParallel, MaxPerHost: p.opts.MaxPerHost})
	in.Close()
	if err == nil {
		t := time.NewTimer(o.HandshakeTimeout)
		defer t.Stop()
		select {
		case err = <-ready:
		case <-t.C:
			err = errors.New("session keeper did not start in time")
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// RunKeeper is the keeper process: it reads its settings on stdin, listens
// on their socket, writes "ready" on stdout, and answers agent calls from
// processes of its own uid through a pool built from popts (with no
// keeper of its own) until it has had no client for the idle time.
func RunKeeper(stdin io.Reader, stdout io.Writer, popts PoolOptions) int {
	var st keeperStart
	fail := func(err error) int {
		fmt.Fprintf(stdout, "%v\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 1
	}
	if err := json.NewDecoder(stdin).Decode(&st); err != nil {
		return fail(fmt.Errorf("reading the settings: %v", err))
	}
	if err := keeperDir(filepath.Dir(st.Socket)); err != nil {
		return fail(err)
	}
	// A socket left by a keeper that died: the caller holds the lock, so
	// no live keeper owns it.
	if fi, err := os.Lstat(st.Socket); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(st.Socket)
	}
	ln, err := net.Listen("unix", st.Socket)
	if err != nil {
		return fail(err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	popts.Keeper = nil
	popts.MaxParallel, popts.MaxPerHost = st.MaxParallel, st.MaxPerHost
	pool := NewPool(popts)
	defer pool.Close()
	if _, err := fmt.Fprintln(stdout, "ready"); err != nil {
		ln.Close()
		return 1
	}
	if c, ok := stdout.(io.Closer); ok {
		c.Close()
	}
	o := st.Options
	k := &keeper{pool: pool, o: &o, idle: st.Idle, wake: make(chan struct{}, 1)}
	go k.idleWatch(ln)
	for {
		c, err := ul.AcceptUnix()
		if err != nil {
			break
		}
		pid, ok := samePeer(c)
		if !ok {
			c.Close()
			continue
		}
		k.clientStarts()
		k.watchOwner(pid)
		go k.serve(c)
	}
	k.wg.Wait()
	return 0
}

// samePeer: only processes of this uid may use the keeper; the peer's pid.
func samePeer(c *net.UnixConn) (int, bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	ok, pid := false, 0
	_ = raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		ok = err == nil && int(cred.Uid) == os.Getuid()
		if ok {
			pid = int(cred.Pid)
		}
	})
	return pid, ok
}

// parentPID reads pid's parent from /proc/PID/stat; 0 when unknown.
func parentPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	var ppid int
	if _, err := fmt.Sscan(f[1], &ppid); err != nil {
		return 0
	}
	return ppid
}

// watchOwner follows the command that ran the client pid (its parent:
// Terraform for a provider process) through a pidfd, which a reused pid
// cannot fool. Without pidfds (Linux < 5.3) the idle time alone ends the
// keeper, as before.
func (k *keeper) watchOwner(pid int) {
	ppid := parentPID(pid)
	if ppid <= 1 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.owners == nil {
		k.owners = map[int]bool{}
	}
	if _, seen := k.owners[ppid]; seen {
		return
	}
	fd, err := unix.PidfdOpen(ppid, 0)
	if err != nil {
		return
	}
	k.owners[ppid] = true
	k.liveOwners++
	go func() {
		// A pidfd polls readable once its process has exited.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				break
			}
		}
		unix.Close(fd)
		k.mu.Lock()
		k.owners[ppid] = false
		k.liveOwners--
		k.mu.Unlock()
		k.poke()
	}()
}

type keeper struct {
	pool *Pool
	o    *Options
	idle time.Duration
	wg   sync.WaitGroup

	mu      sync.Mutex
	clients int // connected clients and requests in flight
	// owners: the commands that ran clients (pid -> still running).
	owners     map[int]bool
	liveOwners int
	wake       chan struct{}
}

func (k *keeper) clientStarts() {
	k.mu.Lock()
	k.clients++
	k.mu.Unlock()
}

func (k *keeper) clientEnds() {
	k.mu.Lock()
	k.clients--
	k.mu.Unlock()
	k.poke()
}

func (k *keeper) poke() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// idleWatch closes the listener once nobody has used the keeper for the
// idle time, or as soon as it has no client and every command that ran
// one has ended.
func (k *keeper) idleWatch(ln net.Listener) {
	t := time.NewTimer(k.idle)
	for {
		select {
		case <-k.wake:
			k.mu.Lock()
			done := k.clients == 0 && len(k.owners) > 0 && k.liveOwners == 0
			k.mu.Unlock()
			if done {
				ln.Close()
				return
			}
			t.Reset(k.idle)
		case <-t.C:
			k.mu.Lock()
			busy := k.clients > 0
			k.mu.Unlock()
			if !busy {
				ln.Close()
				return
			}
			t.Reset(k.idle)
		}
	}
}

// serve answers one client's requests until it goes; a request in flight
// when it goes still finishes on the node (as an agent session does).
func (k *keeper) serve(c *net.UnixConn) {
	defer k.clientEnds()
	defer c.Close()
	var wmu sync.Mutex
	var mu sync.Mutex
	running := map[uint64]context.CancelFunc{}
	r := bufio.NewReader(c)
	for {
		var req keeperRequest
		if err := protocol.ReadFrame(r, &req); err != nil {
			return
		}
		if req.Cancel {
			mu.Lock()
			if cancel, ok := running[req.ID]; ok {
				cancel()
			}
			mu.Unlock()
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		if req.Deadline != 0 {
			ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, req.Deadline))
		}
		mu.Lock()
		running[req.ID] = cancel
		mu.Unlock()
		k.clientStarts()
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			defer k.clientEnds()
			o := *k.o
			if req.Node != nil {
				o.Host, o.Port, o.HostKeys = req.Node.Host, req.Node.Port, req.Node.HostKeys
			}
			var resp *Response
			var err error
			if o.Host == "" {
				err = fmt.Errorf("session keeper: a request without a node: %w", ErrConfig)
			} else {
				resp, err = k.pool.agentRun(ctx, &o, req.Args, req.Stdin, req.ReadOnly)
			}
			mu.Lock()
			delete(running, req.ID)
			mu.Unlock()
			cancel()
			wmu.Lock()
			_ = protocol.WriteFrame(c, keeperResponse{ID: req.ID, Resp: resp, Err: toWire(err)})
			wmu.Unlock()
		}()
	}
}

// closeKeepers ends this process's keeper connections (the keepers stay
// for their idle time).
func (p *Pool) closeKeepers(slots map[string]*keeperSlot) {
	for _, s := range slots {
		s.mu.Lock()
		if s.cl != nil {
			s.cl.c.Close()
		}
		s.mu.Unlock()
	}
}
