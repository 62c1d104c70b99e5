package realnode

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Files the real-node lab writes in its folder (the key and known_hosts
// have the simulated lab's names, so the same root modules read them).
const (
	KeyFile        = "id_ed25519"
	KnownHostsFile = "known_hosts"
	// ResourcesFile records what Up made on the host, so a later Up or
	// Cleanup removes it even if this process was killed.
	ResourcesFile = "realnode.json"
	NodesDir      = "real-nodes"
)

// Config says which nodes to boot.
type Config struct {
	Dir   string   // lab folder (created)
	Nodes []string // host names
	Image Image
	// Disks are shared loop devices bound into every node (a shared array
	// volume); DiskSizeBytes each (default 1 GiB, sparse).
	Disks         int
	DiskSizeBytes int64
	Log           io.Writer
}

// Lab is a set of running containers on their own bridge.
type Lab struct {
	Dir     string
	Bridge  string
	Gateway string // the host's address on the bridge
	Loops   []string
	Nodes   []*Node

	signer ssh.Signer
	log    io.Writer
	res    resources
	mu     sync.Mutex
	closed bool
}

// resources is ResourcesFile.
type resources struct {
	PID     int      `json:"pid"`
	Bridge  string   `json:"bridge,omitempty"`
	Loops   []string `json:"loops,omitempty"`
	Mounts  []string `json:"mounts,omitempty"`
	Cgroups []string `json:"cgroups,omitempty"`
	NSpawn  []int    `json:"nspawn,omitempty"`
}

// Up boots cfg.Nodes from cfg.Image. On error everything made so far is
// removed again.
func Up(ctx context.Context, cfg Config) (l *Lab, err error) {
	if len(cfg.Nodes) == 0 || len(cfg.Nodes) > 200 {
		return nil, fmt.Errorf("nodes: want 1 to 200, have %d", len(cfg.Nodes))
	}
	if cfg.Image.Rootfs == "" {
		return nil, errors.New("image: none given (EnsureImage)")
	}
	for _, tool := range []string{"systemd-nspawn", "losetup", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found (scripts/deps.sh install real): %w", tool, err)
		}
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A previous run killed before its cleanup leaves its resources.
	if err := Cleanup(dir); err != nil {
		return nil, fmt.Errorf("previous real-node lab in %s: %w", dir, err)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.DiskSizeBytes == 0 {
		cfg.DiskSizeBytes = 1 << 30
	}
	l = &Lab{Dir: dir, log: cfg.Log, res: resources{PID: os.Getpid()}}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.Close())
			l = nil
		}
	}()
	if err := l.clientKey(); err != nil {
		return l, err
	}
	subnet, err := l.makeBridge()
	if err != nil {
		return l, err
	}
	for i := 0; i < cfg.Disks; i++ {
		img := filepath.Join(dir, NodesDir, fmt.Sprintf("disk%d.img", i+1))
		if err := os.MkdirAll(filepath.Dir(img), 0o755); err != nil {
			return l, err
		}
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			return l, err
		}
		if err := os.Truncate(img, cfg.DiskSizeBytes); err != nil {
			return l, err
		}
		out, err := exec.Command("losetup", "--find", "--show", img).Output()
		if err != nil {
			return l, fmt.Errorf("losetup %s: %w", img, err)
		}
		l.Loops = append(l.Loops, strings.TrimSpace(string(out)))
		l.res.Loops = l.Loops
		if err := l.saveResources(); err != nil {
			return l, err
		}
	}
	var hosts strings.Builder
	for i, name := range cfg.Nodes {
		n := &Node{Name: name, Machine: fmt.Sprintf("%s-%s", l.Bridge, name), IP: fmt.Sprintf("%s.%d", subnet, 11+i),
			lab: l, dir: filepath.Join(dir, NodesDir, name)}
		l.Nodes = append(l.Nodes, n)
		fmt.Fprintf(&hosts, "%s %s\n", n.IP, name)
	}
	for _, n := range l.Nodes {
		l.res.Mounts = append(l.res.Mounts, n.Merged())
		if err := l.saveResources(); err != nil {
			return l, err
		}
		if err := n.prepare(cfg.Image.Rootfs, hosts.String(), l.signer.PublicKey()); err != nil {
			return l, err
		}
		for _, root := range cgroupRoots() {
			cg := filepath.Join(root, n.Machine)
			l.res.Cgroups = append(l.res.Cgroups, cg)
			if err := os.Mkdir(cg, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return l, fmt.Errorf("node %s: cgroup: %w", n.Name, err)
			}
			n.cgroups = append(n.cgroups, cg)
		}
	}
	if err := l.saveResources(); err != nil {
		return l, err
	}
	if err := l.WriteKnownHosts(filepath.Join(dir, KnownHostsFile)); err != nil {
		return l, err
	}
	// Boot in parallel: each node waits on its own sshd.
	errs := make([]error, len(l.Nodes))
	var wg sync.WaitGroup
	for i, n := range l.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = n.Start(ctx) }()
	}
	wg.Wait()
	l.recordNSpawn()
	if err := errors.Join(errs...); err != nil {
		return l, err
	}
	return l, nil
}

func (l *Lab) clientKey() error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	if l.signer, err = ssh.NewSignerFromKey(priv); err != nil {
		return err
	}
	block, err := ssh.MarshalPrivateKey(priv, "hpcstorage-lab")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(l.Dir, KeyFile), pem.EncodeToMemory(block), 0o600)
}

// makeBridge creates the lab's bridge hslN with 10.251.N.1/24, N the
// first free: creating the link is what claims N, so two labs never share.
func (l *Lab) makeBridge() (string, error) {
	addrs, _ := net.InterfaceAddrs()
	used := map[string]bool{}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
			ip := ipn.IP.To4()
			used[fmt.Sprintf("%d.%d.%d", ip[0], ip[1], ip[2])] = true
		}
	}
	for n := 1; n < 255; n++ {
		subnet := fmt.Sprintf("10.251.%d", n)
		name := fmt.Sprintf("hsl%d", n)
		if used[subnet] {
			continue
		}
		if err := exec.Command("ip", "link", "add", name, "type", "bridge").Run(); err != nil {
			continue // taken by another lab
		}
		l.Bridge, l.Gateway = name, subnet+".1"
		l.res.Bridge = name
		if err := l.saveResources(); err != nil {
			return "", err
		}
		for _, args := range [][]string{{"addr", "add", l.Gateway + "/24", "dev", name}, {"link", "set", name, "up"}} {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				return "", fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
			}
		}
		return subnet, nil
	}
	return "", errors.New("no free bridge hsl1..hsl254 / 10.251.N.0/24")
}

func (l *Lab) recordNSpawn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.res.NSpawn = nil
	for _, n := range l.Nodes {
		n.mu.Lock()
		if n.runningLocked() {
			l.res.NSpawn = append(l.res.NSpawn, n.cmd.Process.Pid)
		}
		n.mu.Unlock()
	}
	_ = l.saveResources()
}

func (l *Lab) saveResources() error {
	b, err := json.MarshalIndent(l.res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(l.Dir, ResourcesFile), append(b, '\n'), 0o644)
}

func (l *Lab) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Node returns the named node.
func (l *Lab) Node(name string) *Node {
	for _, n := range l.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Signer is the lab's client key (root on every node).
func (l *Lab) Signer() ssh.Signer { return l.signer }

// KnownHosts is one line per node: its address and host key.
func (l *Lab) KnownHosts() string {
	var b strings.Builder
	for _, n := range l.Nodes {
		b.WriteString(knownhosts.Line([]string{knownhosts.Normalize(n.Addr())}, n.HostKey) + "\n")
	}
	return b.String()
}

// WriteKnownHosts writes KnownHosts to path.
func (l *Lab) WriteKnownHosts(path string) error {
	return os.WriteFile(path, []byte(l.KnownHosts()), 0o600)
}

// Dial opens an SSH connection to n as root, the host key pinned.
func (l *Lab) Dial(ctx context.Context, n *Node) (*ssh.Client, error) {
	cfg := &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(l.signer)},
		HostKeyCallback: ssh.FixedHostKey(n.HostKey), HostKeyAlgorithms: []string{ssh.KeyAlgoED25519}, Timeout: 5 * time.Second}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "tcp", n.Addr())
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	c, chans, reqs, err := ssh.NewClientConn(conn, n.Addr(), cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// Run runs cmd on c, returning combined output; ctx ends it.
func Run(ctx context.Context, c *ssh.Client, cmd string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() { b, err := s.CombinedOutput(cmd); done <- result{b, err} }()
	select {
	case r := <-done:
		return string(r.out), r.err
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGKILL)
		return "", fmt.Errorf("%s: %w", cmd, ctx.Err())
	}
}

// Close powers every node off (gracefully, then by force) and removes
// what Up made: overlays, cgroups, loop devices, the bridge, the nodes'
// folders.
func (l *Lab) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	errs := make([]error, len(l.Nodes))
	var wg sync.WaitGroup
	for i, n := range l.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = n.Shutdown(true) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err // the containers' mounts are in use: leave them for Cleanup
	}
	return Cleanup(l.Dir)
}

// Cleanup removes what the real-node lab in dir made, from its
// ResourcesFile: for a lab whose process is gone (killed) or closed.
func Cleanup(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, ResourcesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var r resources
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %w", ResourcesFile, err)
	}
	var errs []error
	for _, pid := range r.NSpawn {
		if isNSpawn(pid) {
			if init := containerInit(pid); init > 0 {
				errs = append(errs, killWait(init))
			}
		}
	}
	for _, mp := range r.Mounts {
		errs = append(errs, unmountUnder(mp))
	}
	for _, cg := range r.Cgroups {
		errs = append(errs, removeCgroup(cg))
	}
	for _, lo := range r.Loops {
		if out, err := exec.Command("losetup", "--detach", lo).CombinedOutput(); err != nil && !strings.Contains(string(out), "No such") {
			errs = append(errs, fmt.Errorf("losetup -d %s: %w: %s", lo, err, out))
		}
	}
	if r.Bridge != "" {
		if out, err := exec.Command("ip", "link", "del", r.Bridge).CombinedOutput(); err != nil && !strings.Contains(string(out), "Cannot find") {
			errs = append(errs, fmt.Errorf("ip link del %s: %w: %s", r.Bridge, err, out))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := removeTree(filepath.Join(dir, NodesDir)); err != nil {
		return err
	}
	return os.Remove(filepath.Join(dir, ResourcesFile))
}

func isNSpawn(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), "systemd-nspawn")
}

// killWait SIGKILLs pid and waits until it is gone.
func killWait(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	deadline := time.Now().Add(KillTimeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("pid %d still there after SIGKILL", pid)
}

// removeCgroup removes a cgroup and the ones nspawn and the container's
// systemd made under it, deepest first (cgroupfs removes with rmdir).
func removeCgroup(cg string) error {
	if _, err := os.Stat(cg); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var dirs []string
	_ = filepath.WalkDir(cg, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
