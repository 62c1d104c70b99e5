package realnode

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// Explicit, generous waits: the measured times (boot to sshd 6 s, clean
// shutdown 3-8 s) tripled and more for a loaded 2-core machine.
const (
	BootTimeout     = 3 * time.Minute
	ShutdownTimeout = 60 * time.Second
	KillTimeout     = 20 * time.Second
)

// Node is one container.
type Node struct {
	Name    string
	Machine string // nspawn machine name, unique per lab (veth vb-<machine>)
	IP      string
	HostKey ssh.PublicKey
	// BootTook is how long the last boot took until sshd answered and
	// systemd finished starting up.
	BootTook time.Duration
	// SystemState is `systemctl is-system-running` after the last boot.
	SystemState string

	lab     *Lab
	dir     string // nodes/<name>: upper, work, merged, console.log
	cgroups []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd exited
}

// Addr is host:port of the node's sshd.
func (n *Node) Addr() string { return net.JoinHostPort(n.IP, "22") }

// Merged is the node's root as the host sees it (the overlay).
func (n *Node) Merged() string { return filepath.Join(n.dir, "merged") }

// Running says whether the container is up.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.runningLocked()
}

func (n *Node) runningLocked() bool {
	if n.done == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// prepare mounts the node's overlay on the image and writes what makes
// it this node: host name, hosts, address, host key, the lab's client key.
func (n *Node) prepare(lowerdir string, hosts string, clientKey ssh.PublicKey) error {
	for _, d := range []string{"upper", "work", "merged"} {
		if err := os.MkdirAll(filepath.Join(n.dir, d), 0o755); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", lowerdir, filepath.Join(n.dir, "upper"), filepath.Join(n.dir, "work"))
	if err := syscall.Mount("overlay", n.Merged(), "overlay", 0, opts); err != nil {
		return fmt.Errorf("node %s: overlay: %w", n.Name, err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	if n.HostKey, err = ssh.NewPublicKey(pub); err != nil {
		return err
	}
	block, err := ssh.MarshalPrivateKey(priv, "root@"+n.Name)
	if err != nil {
		return err
	}
	network := fmt.Sprintf("[Match]\nName=host0\n\n[Network]\nAddress=%s/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n", n.IP)
	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{"etc/hostname", []byte(n.Name + "\n"), 0o644},
		{"etc/hosts", []byte("127.0.0.1 localhost\n" + hosts), 0o644},
		{"etc/systemd/network/10-host0.network", []byte(network), 0o644},
		{"etc/ssh/ssh_host_ed25519_key", pem.EncodeToMemory(block), 0o600},
		{"etc/ssh/ssh_host_ed25519_key.pub", ssh.MarshalAuthorizedKey(n.HostKey), 0o644},
		{"root/.ssh/authorized_keys", ssh.MarshalAuthorizedKey(clientKey), 0o600},
	}
	for _, f := range files {
		p := filepath.Join(n.Merged(), f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	return nil
}

// cgroupRoots are the host's hierarchies a node gets its own cgroup in:
// with --keep-unit, nspawn leaves the container in its caller's cgroup, so
// without this two nodes' systemd would share (and may kill) unit cgroups.
func cgroupRoots() []string {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return []string{"/sys/fs/cgroup"} // pure cgroup v2
	}
	var out []string
	for _, h := range []string{"/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"} {
		if _, err := os.Stat(filepath.Join(h, "cgroup.procs")); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// Start boots the container and waits until sshd answers with the node's
// host key and systemd has finished booting.
func (n *Node) Start(ctx context.Context) error {
	if n.lab.isClosed() {
		return fmt.Errorf("node %s: the lab is closed", n.Name)
	}
	n.mu.Lock()
	if n.runningLocked() {
		n.mu.Unlock()
		return nil
	}
	start := time.Now()
	if err := n.spawnLocked(); err != nil {
		n.mu.Unlock()
		return err
	}
	done := n.done
	n.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, BootTimeout)
	defer cancel()
	state, err := n.waitBooted(wctx, done)
	if err != nil {
		return fmt.Errorf("node %s: boot: %w (console: %s)", n.Name, err, filepath.Join(n.dir, "console.log"))
	}
	n.mu.Lock()
	n.BootTook, n.SystemState = time.Since(start), state
	n.mu.Unlock()
	return nil
}

func (n *Node) spawnLocked() error {
	console, err := os.OpenFile(filepath.Join(n.dir, "console.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer console.Close()
	// The shell joins the node's cgroups, then becomes nspawn. --keep-unit
	// --register=no: the host has no systemd or machined to talk to.
	script := `while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 97; shift; done; shift; exec "$@"`
	args := []string{"-c", script, "sh"}
	args = append(args, n.cgroups...)
	args = append(args, "--", "systemd-nspawn", "--keep-unit", "--register=no", "--boot", "--quiet",
		"--directory="+n.Merged(), "--machine="+n.Machine, "--hostname="+n.Name,
		"--network-bridge="+n.lab.Bridge, "--console=passive", "--resolv-conf=off", "--timezone=off")
	for _, lo := range n.lab.Loops {
		// Bound at boot: a device node made inside is lost on reboot.
		args = append(args, "--bind="+lo)
	}
	cmd := exec.Command("/bin/sh", args...)
	cmd.Stdout, cmd.Stderr = console, console
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("node %s: systemd-nspawn: %w", n.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	n.cmd, n.done = cmd, done
	return nil
}

// waitBooted dials sshd (host key pinned) until it answers, then waits
// for systemd to finish booting.
func (n *Node) waitBooted(ctx context.Context, done <-chan struct{}) (string, error) {
	for {
		c, err := n.lab.Dial(ctx, n)
		if err == nil {
			defer c.Close()
			out, _ := Run(ctx, c, "systemctl is-system-running --wait")
			return strings.TrimSpace(out), nil
		}
		select {
		case <-done:
			return "", errors.New("systemd-nspawn exited")
		case <-ctx.Done():
			return "", fmt.Errorf("sshd on %s not answering: %w (last: %v)", n.Addr(), ctx.Err(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// InitPID is the host PID of the container's PID 1 (0 when not running).
func (n *Node) InitPID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningLocked() {
		return 0
	}
	return containerInit(n.cmd.Process.Pid)
}

// containerInit finds nspawn's child in another PID namespace.
func containerInit(nspawn int) int {
	own, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", nspawn))
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, cut at the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(nspawn) {
			continue
		}
		if ns, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); ns != "" && ns != own {
			return pid
		}
	}
	return 0
}

// Shutdown powers the node off: gracefully (nspawn asks the container's
// systemd to power off; killed if that takes longer than ShutdownTimeout)
// or not (SIGKILL to the container's PID 1, all its processes die: a
// pulled plug).
func (n *Node) Shutdown(graceful bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningLocked() {
		return nil
	}
	pid := n.cmd.Process.Pid
	if graceful {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-n.done:
			return nil
		case <-time.After(ShutdownTimeout):
		}
	}
	if init := containerInit(pid); init > 0 {
		_ = syscall.Kill(init, syscall.SIGKILL)
	}
	select {
	case <-n.done:
		return nil
	case <-time.After(KillTimeout):
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-n.done:
		return nil
	case <-time.After(KillTimeout):
		return fmt.Errorf("node %s: systemd-nspawn (pid %d) did not exit", n.Name, pid)
	}
}

// MemoryPSS sums the proportional set size of every process in the
// node's PID namespace (bytes).
func (n *Node) MemoryPSS() (int64, int, error) {
	init := n.InitPID()
	if init == 0 {
		return 0, 0, fmt.Errorf("node %s is not running", n.Name)
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", init))
	if err != nil {
		return 0, 0, err
	}
	ents, _ := os.ReadDir("/proc")
	var total int64
	procs := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if p, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid"); p != ns {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/smaps_rollup")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				total += kb * 1024
				procs++
			}
		}
	}
	return total, procs, nil
}
