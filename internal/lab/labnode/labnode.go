// Package labnode is an in-process SSH server that plays storage nodes for
// tests, benchmarks and the lab: each node listens on 127.0.0.1 with its own
// ed25519 host key, accepts the given client keys, and runs the real
// hpcstorage-agent as a subprocess with --root at the node's own folder
// (seeded as a storage server). It understands exactly the commands
// internal/transport sends (the agent session `serve --expect-sha256`, the
// single-exec agent run, probe, upload, run, each also under sudo -n) and
// maps every absolute path into the node folder, the --root of each
// request over an agent session included, so nothing outside it is
// touched.
package labnode

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// Config describes a lab.
type Config struct {
	Nodes int    // how many nodes
	Dir   string // node folders are Dir/<name> (created)
	// Name names node i (default "node01", "node02", ...).
	Name func(i int) string
	// ClientKeys may log in (any user name).
	ClientKeys []ssh.PublicKey
	// Password, when set, is also accepted (for password auth tests).
	Password string
	// Seed lays out node i's folder. Default: a fakenode storage server
	// with Simulator installed.
	Seed func(root string, i int) error
	// Simulator is the lab's simulator program the default Seed installs
	// (internal/lab/sim); empty installs none.
	Simulator string
	// Arch is what `uname -m` answers (default: this machine's). A node
	// refuses ELF binaries of another architecture than its own with
	// "Exec format error" (126), as the kernel would; binaries of its own
	// architecture that this machine cannot run fail with 126 too.
	Arch string
	// HostCA, when set, signs each node's host key into a host certificate
	// (principals 127.0.0.1 and localhost) that the node also presents.
	HostCA ssh.Signer
	// AllowForwarding lets clients open direct-tcpip channels to
	// 127.0.0.1, so a node can serve as a bastion.
	AllowForwarding bool
}

// Faults make a node misbehave, for tests.
type Faults struct {
	// SudoPassword makes `sudo -n` fail as when sudo wants a password.
	SudoPassword bool
	// RunDelay holds every agent run this long before it starts.
	RunDelay time.Duration
	// DropAfter, when set, kills the agent and drops the whole SSH
	// connection this long after an agent run starts.
	DropAfter time.Duration
	// Freeze stops the node reading from its connections (a hung host):
	// requests, keepalives included, go unanswered.
	Freeze bool
	// NoGzip plays a node without gzip (`gzip -dc` is not found).
	NoGzip bool
	// NoSFTP refuses the sftp subsystem, as an sshd without a Subsystem
	// line does.
	NoSFTP bool
	// NoKernelArch plays an older kernel without /proc/sys/kernel/arch
	// (the file sftp reads the architecture from).
	NoKernelArch bool

	// Dropped connections (drop.go). DropAfterBytes cuts each connection
	// once it has carried that many bytes. DropAtRequest cuts the
	// connection of the node's request number DropAtRequest (1 is the
	// next one), once: the node served DropAtRequest-1 requests. DropRate
	// cuts each request's connection with that probability. DropAt is
	// where in the request (default: DropBefore for DropAtRequest, a
	// random point for DropRate); DropSeed repeats DropRate's choices;
	// DropWhileMax bounds DropWhile's random delay (DefaultDropWhileMax).
	DropAfterBytes int64
	DropAtRequest  int
	DropRate       float64
	DropAt         DropPoint
	DropSeed       uint64
	DropWhileMax   time.Duration
	// DropOnly, when set, limits DropAtRequest and DropRate to the
	// requests it accepts (given the command line, SFTPCommand, or an
	// agent session request's arguments joined by spaces).
	DropOnly func(request string) bool
}

// Lab is a set of running nodes.
type Lab struct {
	Nodes []*Node

	errs     chan error
	wg       sync.WaitGroup
	ctx      context.Context
	cancel   context.CancelFunc
	active   atomic.Int64
	maxAct   atomic.Int64
	closeOne sync.Once
}

// Node is one lab node.
type Node struct {
	Name    string
	Root    string // the node's "/" on this machine
	Addr    string // 127.0.0.1:port
	HostKey ssh.PublicKey
	// HostCert is set when the lab has a HostCA.
	HostCert *ssh.Certificate

	lab      *Lab
	root     *os.Root
	ln       net.Listener
	cfg      *ssh.ServerConfig
	allowFwd bool

	execs       atomic.Int64
	agentStarts atomic.Int64 // agent processes started
	procs       atomic.Int64 // other programs run (sh, sudo, coreutils)
	agentCPU    atomic.Int64 // nanoseconds of CPU of the agent processes that ended
	agentEnds   atomic.Int64 // agent processes that ended
	sftps       atomic.Int64
	sftpWrites  atomic.Int64
	active      atomic.Int64
	maxAct      atomic.Int64

	mu       sync.Mutex
	arch     string
	faults   Faults
	thaw     chan struct{} // closed while not frozen
	cmds     []string
	requests []string // agent session requests
	conns    map[*ssh.ServerConn]struct{}
	accepted int64

	drops dropState
}

// Start seeds and starts cfg.Nodes nodes. Close stops them.
func Start(cfg Config) (*Lab, error) {
	if cfg.Nodes < 1 {
		return nil, fmt.Errorf("labnode: Nodes must be at least 1, got %d", cfg.Nodes)
	}
	if cfg.Dir == "" {
		return nil, errors.New("labnode: Dir is required")
	}
	if len(cfg.ClientKeys) == 0 && cfg.Password == "" {
		return nil, errors.New("labnode: no ClientKeys and no Password: nobody could log in")
	}
	if cfg.Name == nil {
		cfg.Name = func(i int) string { return fmt.Sprintf("node%02d", i+1) }
	}
	if cfg.Arch == "" {
		cfg.Arch = UnameM(runtime.GOARCH)
	}
	if cfg.Seed == nil {
		cfg.Seed = func(root string, i int) error {
			return fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Hostname: cfg.Name(i), Simulator: cfg.Simulator})
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Lab{errs: make(chan error, 256), ctx: ctx, cancel: cancel}
	allowed := map[string]bool{}
	for _, k := range cfg.ClientKeys {
		allowed[string(k.Marshal())] = true
	}
	for i := 0; i < cfg.Nodes; i++ {
		n, err := l.startNode(cfg, i, allowed)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.Nodes = append(l.Nodes, n)
	}
	return l, nil
}

func (l *Lab) startNode(cfg Config, i int, allowed map[string]bool) (*Node, error) {
	name := cfg.Name(i)
	root := filepath.Join(cfg.Dir, name)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("labnode %s: %w", name, err)
	}
	if err := cfg.Seed(root, i); err != nil {
		return nil, fmt.Errorf("labnode %s: seeding %s: %w", name, root, err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("labnode %s: %w", name, err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		r.Close()
		return nil, err
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		r.Close()
		return nil, err
	}
	n := &Node{
		Name: name, Root: root, HostKey: signer.PublicKey(),
		lab: l, root: r, arch: cfg.Arch, allowFwd: cfg.AllowForwarding,
		thaw: make(chan struct{}), conns: map[*ssh.ServerConn]struct{}{},
	}
	close(n.thaw)
	n.resetDrops(Faults{})
	pw := cfg.Password
	n.cfg = &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if allowed[string(k.Marshal())] {
				return nil, nil
			}
			return nil, errors.New("key not authorized")
		},
	}
	if pw != "" {
		n.cfg.PasswordCallback = func(_ ssh.ConnMetadata, p []byte) (*ssh.Permissions, error) {
			if string(p) == pw {
				return nil, nil
			}
			return nil, errors.New("wrong password")
		}
	}
	n.cfg.AddHostKey(signer)
	if cfg.HostCA != nil {
		cert := &ssh.Certificate{
			Key: signer.PublicKey(), CertType: ssh.HostCert, KeyId: name,
			ValidPrincipals: []string{"127.0.0.1", "localhost"},
			ValidAfter:      uint64(time.Now().Add(-time.Hour).Unix()),
			ValidBefore:     ssh.CertTimeInfinity,
		}
		if err := cert.SignCert(rand.Reader, cfg.HostCA); err != nil {
			r.Close()
			return nil, fmt.Errorf("labnode %s: signing host cert: %w", name, err)
		}
		cs, err := ssh.NewCertSigner(cert, signer)
		if err != nil {
			r.Close()
			return nil, err
		}
		n.cfg.AddHostKey(cs)
		n.HostCert = cert
	}
	ln, err := (&net.ListenConfig{}).Listen(l.ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("labnode %s: %w", name, err)
	}
	n.ln, n.Addr = ln, ln.Addr().String()
	l.wg.Add(1)
	go n.serve()
	return n, nil
}

// UnameM is what `uname -m` prints on linux/goarch.
func UnameM(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return goarch
}

// Errors reports server-side failures (including commands the lab does not
// understand). Tests drain it; the lab never calls t.Fatal.
func (l *Lab) Errors() <-chan error { return l.errs }

func (l *Lab) report(err error) {
	select {
	case l.errs <- err:
	default: // full: the first 256 errors tell the story
	}
}

// MaxActive is the most commands that ran at once over the whole lab.
func (l *Lab) MaxActive() int64 { return l.maxAct.Load() }

// ResetMaxActive clears MaxActive on the lab and every node.
func (l *Lab) ResetMaxActive() {
	l.maxAct.Store(0)
	for _, n := range l.Nodes {
		n.maxAct.Store(0)
	}
}

// KnownHosts returns known_hosts lines for every node.
func (l *Lab) KnownHosts() string {
	var b strings.Builder
	for _, n := range l.Nodes {
		b.WriteString(n.KnownHostsLine())
		b.WriteByte('\n')
	}
	return b.String()
}

// WriteKnownHosts writes KnownHosts to path (mode 0600).
func (l *Lab) WriteKnownHosts(path string) error {
	return os.WriteFile(path, []byte(l.KnownHosts()), 0o600)
}

// Close stops every node, kills running agents and waits for the
// goroutines. The errors channel is closed afterwards.
func (l *Lab) Close() error {
	l.closeOne.Do(func() {
		l.cancel()
		for _, n := range l.Nodes {
			n.ln.Close()
			n.mu.Lock()
			for c := range n.conns {
				c.Close()
			}
			n.mu.Unlock()
			n.SetFaults(Faults{}) // thaw frozen readers so they can exit
		}
		l.wg.Wait()
		for _, n := range l.Nodes {
			n.root.Close()
		}
		close(l.errs)
	})
	return nil
}

// Host is the node's IP address; Port its port.
func (n *Node) Host() string { h, _, _ := net.SplitHostPort(n.Addr); return h }

// Port is the node's TCP port.
func (n *Node) Port() int {
	_, p, _ := net.SplitHostPort(n.Addr)
	v, _ := strconv.Atoi(p)
	return v
}

// Fingerprint is the SHA256 fingerprint of the node's host key.
func (n *Node) Fingerprint() string { return ssh.FingerprintSHA256(n.HostKey) }

// AuthorizedKey is the host key in authorized_keys form ("ssh-ed25519 AAAA...").
func (n *Node) AuthorizedKey() string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(n.HostKey)))
}

// KnownHostsLine is the node's known_hosts line.
func (n *Node) KnownHostsLine() string {
	return knownhosts.Line([]string{knownhosts.Normalize(n.Addr)}, n.HostKey)
}

// Execs counts exec requests served by the node.
func (n *Node) Execs() int64 { return n.execs.Load() }

// SFTPCommand stands for an sftp session in Commands.
const SFTPCommand = "subsystem sftp"

// SFTPSessions counts sftp subsystem sessions; SFTPWrites the files they
// opened for writing.
func (n *Node) SFTPSessions() int64 { return n.sftps.Load() }
func (n *Node) SFTPWrites() int64   { return n.sftpWrites.Load() }

// MaxActive is the most commands that ran at once on the node.
func (n *Node) MaxActive() int64 { return n.maxAct.Load() }

// Connections counts SSH connections accepted (handshake done).
func (n *Node) Connections() int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.accepted
}

// Commands returns the command lines the node has run, in order.
func (n *Node) Commands() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.cmds...)
}

// Arch is the node's `uname -m`.
func (n *Node) Arch() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.arch
}

// SetArch changes the node's `uname -m`.
func (n *Node) SetArch(m string) {
	n.mu.Lock()
	n.arch = m
	n.mu.Unlock()
}

// Faults returns the node's current faults.
func (n *Node) Faults() Faults {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.faults
}

// SetFaults replaces the node's faults.
func (n *Node) SetFaults(f Faults) {
	n.mu.Lock()
	defer n.mu.Unlock()
	wasFrozen := n.faults.Freeze
	n.faults = f
	n.resetDrops(f)
	switch {
	case f.Freeze && !wasFrozen:
		n.thaw = make(chan struct{})
	case !f.Freeze && wasFrozen:
		close(n.thaw)
	}
}

// DropConnections closes every SSH connection to the node.
func (n *Node) DropConnections() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		c.Close()
	}
}

// HostFile is where node path p (absolute) lives on this machine.
func (n *Node) HostFile(p string) (string, error) { return n.hostPath(p) }

func (n *Node) serve() {
	defer n.lab.wg.Done()
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return
		}
		n.lab.wg.Add(1)
		go n.handleConn(&counted{Conn: &freezable{Conn: c, n: n}, n: n})
	}
}

// freezable blocks reads while the node is frozen.
type freezable struct {
	net.Conn
	n *Node
}

func (f *freezable) Read(p []byte) (int, error) {
	f.n.mu.Lock()
	thaw := f.n.thaw
	f.n.mu.Unlock()
	select {
	case <-thaw:
	case <-f.n.lab.ctx.Done():
		return 0, net.ErrClosed
	}
	return f.Conn.Read(p)
}

func (n *Node) handleConn(c net.Conn) {
	defer n.lab.wg.Done()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	sc, chans, reqs, err := ssh.NewServerConn(c, n.cfg)
	if err != nil {
		c.Close() // a failed login is the client's business, not a lab error
		return
	}
	_ = c.SetDeadline(time.Time{})
	n.mu.Lock()
	n.conns[sc] = struct{}{}
	n.accepted++
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.conns, sc)
		n.mu.Unlock()
		sc.Close()
	}()
	n.lab.wg.Add(1)
	go func() {
		defer n.lab.wg.Done()
		for r := range reqs {
			// OpenSSH answers keepalive@openssh.com with a failure: any
			// answer will do for the client.
			if r.WantReply {
				_ = r.Reply(false, nil)
			}
		}
	}()
	var wg sync.WaitGroup
	for nc := range chans {
		switch nc.ChannelType() {
		case "session":
			ch, creqs, err := nc.Accept()
			if err != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.handleSession(sc, ch, creqs)
			}()
		case "direct-tcpip":
			if !n.allowFwd {
				_ = nc.Reject(ssh.Prohibited, "port forwarding is disabled on this lab node")
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.forward(nc)
			}()
		default:
			_ = nc.Reject(ssh.UnknownChannelType, "unsupported channel type")
		}
	}
	wg.Wait()
}

// forward serves a direct-tcpip channel to 127.0.0.1 only.
func (n *Node) forward(nc ssh.NewChannel) {
	var p struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := ssh.Unmarshal(nc.ExtraData(), &p); err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, "bad direct-tcpip request")
		return
	}
	if p.Host != "127.0.0.1" && p.Host != "localhost" {
		_ = nc.Reject(ssh.Prohibited, "lab nodes forward to 127.0.0.1 only")
		return
	}
	var d net.Dialer
	ctx, cancel := context.WithTimeout(n.lab.ctx, 10*time.Second)
	tc, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(p.Port))))
	cancel()
	if err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		tc.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(tc, ch); tc.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(ch, tc); _ = ch.CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
	ch.Close()
	tc.Close()
}

func (n *Node) handleSession(sc *ssh.ServerConn, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer func() {
		ch.Close()
		// Late requests (a signal after the exit) must not stall the
		// connection's read loop.
		go ssh.DiscardRequests(reqs)
	}()
	ctx, cancel := context.WithCancel(n.lab.ctx)
	defer cancel()
	var killMu sync.Mutex
	var kill func()
	started := false
	exitc := make(chan int, 1)
	for {
		var req *ssh.Request
		var ok bool
		select {
		case req, ok = <-reqs:
		case st := <-exitc:
			n.sendExit(ch, st)
			return
		}
		if !ok {
			if started {
				cancel()
				<-exitc
			}
			return
		}
		switch req.Type {
		case "exec":
			var p struct{ Command string }
			if started || ssh.Unmarshal(req.Payload, &p) != nil {
				_ = req.Reply(false, nil)
				continue
			}
			_ = req.Reply(true, nil)
			n.execs.Add(1)
			n.record(p.Command)
			run, end := n.armDrop(n.planDrop(p.Command), p.Command, func() { sc.Close() })
			if !run {
				return
			}
			started = true
			go func() {
				s := &session{
					node: n, ctx: ctx, stdin: ch, stdout: ch, stderr: ch.Stderr(),
					onAgent: func(k func()) {
						killMu.Lock()
						kill = k
						killMu.Unlock()
					},
					drop: func() { sc.Close() },
				}
				// An agent session counts by its requests in flight, not
				// as one long command (see serveProxy).
				var once sync.Once
				done := n.enter()
				s.release = func() { once.Do(done) }
				st, err := s.run(p.Command)
				s.release()
				if end() {
					err = nil // cut by a drop fault: what it says is moot
				}
				if err != nil {
					n.lab.report(fmt.Errorf("lab node %s: command %q: %w", n.Name, p.Command, err))
				}
				exitc <- st
			}()
		case "subsystem":
			var p struct{ Name string }
			if started || ssh.Unmarshal(req.Payload, &p) != nil || p.Name != "sftp" || n.Faults().NoSFTP {
				_ = req.Reply(false, nil)
				continue
			}
			_ = req.Reply(true, nil)
			n.sftps.Add(1)
			n.record(SFTPCommand)
			run, end := n.armDrop(n.planDrop(SFTPCommand), SFTPCommand, func() { sc.Close() })
			if !run {
				return
			}
			started = true
			go func() {
				done := n.enter()
				st := n.serveSFTP(ch)
				done()
				end()
				exitc <- st
			}()
		case "signal":
			killMu.Lock()
			k := kill
			killMu.Unlock()
			if k != nil {
				k()
			}
			if req.WantReply {
				_ = req.Reply(true, nil)
			}
		case "env":
			_ = req.Reply(true, nil)
		default:
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
}

// record keeps a session's command (or SFTPCommand) for Commands.
func (n *Node) record(cmd string) {
	n.mu.Lock()
	n.cmds = append(n.cmds, cmd)
	n.mu.Unlock()
}

// enter counts a running command for the concurrency gauges.
func (n *Node) enter() func() {
	bump := func(cur, max *atomic.Int64) {
		v := cur.Add(1)
		for {
			m := max.Load()
			if v <= m || max.CompareAndSwap(m, v) {
				return
			}
		}
	}
	bump(&n.active, &n.maxAct)
	bump(&n.lab.active, &n.lab.maxAct)
	return func() {
		n.active.Add(-1)
		n.lab.active.Add(-1)
	}
}

func (n *Node) sendExit(ch ssh.Channel, st int) {
	if st < 0 {
		sig := strings.TrimPrefix(syscall.Signal(-st).String(), "SIG")
		name := map[string]string{"killed": "KILL", "terminated": "TERM", "hangup": "HUP", "interrupt": "INT"}[sig]
		if name == "" {
			name = "KILL"
		}
		payload := ssh.Marshal(struct {
			Signal     string
			CoreDumped bool
			Error      string
			Lang       string
		}{Signal: name})
		_, _ = ch.SendRequest("exit-signal", false, payload)
		return
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(st))
	_, _ = ch.SendRequest("exit-status", false, b[:])
}
