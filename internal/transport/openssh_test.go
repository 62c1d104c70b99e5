package transport_test

import (
	"bytes"
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
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

const sshdPath = "/usr/sbin/sshd"

type sshd struct {
	addr    string
	hostKey ssh.PublicKey
	logs    *syncBuffer
}

// syncBuffer is sshd's log, written by the process while tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// sftpInternal is the sftp line of the sshd configs: OpenSSH serving sftp
// itself (distributions ship an sftp Subsystem line enabled).
const sftpInternal = "Subsystem sftp internal-sftp"

func (s *sshd) port() int { _, p, _ := net.SplitHostPort(s.addr); v, _ := strconv.Atoi(p); return v }

// startSSHD runs a real OpenSSH server on a random 127.0.0.1 port with a
// generated host key, authorizing testKey for root, with extra config
// lines. Everything (config, keys, pid file) is in a temp dir; the real
// /etc/ssh is not read.
func startSSHD(t testing.TB, env string, extra ...string) *sshd {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		testenv.Missing(t, "real OpenSSH test needs %s (Debian: apt-get install openssh-server): %v", sshdPath, err)
	}
	if os.Geteuid() != 0 {
		t.Skip("real OpenSSH test runs sshd as root (it logs in as root with a key)")
	}
	// Privilege separation directory; sshd refuses to start without it.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("sshd needs /run/sshd: %v", err)
	}
	dir := t.TempDir()
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKey(hostPriv, "test host key")
	if err != nil {
		t.Fatal(err)
	}
	hostKeyFile := filepath.Join(dir, "ssh_host_ed25519_key")
	if err := os.WriteFile(hostKeyFile, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	hostSigner, _ := ssh.NewSignerFromKey(hostPriv)
	authKeys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(testKey(t).signer.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	pidFile := filepath.Join(dir, "sshd.pid")
	cfg := fmt.Sprintf(`Port %s
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding yes
PrintMotd no
LogLevel VERBOSE
# (one SetEnv line: sshd keeps the first of each keyword)
# keep root's slow ~/.bashrc out of every command, as on a storage node
SetEnv SHLVL=1 %s
%s
`, port, hostKeyFile, pidFile, authKeys, env, strings.Join(extra, "\n"))
	cfgFile := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", cfgFile)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Stop our sshd by its pid, nothing else.
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("sshd log:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("sshd exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen on %s: %s", addr, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &sshd{addr: addr, hostKey: hostSigner.PublicKey(), logs: logs}
}

func TestOpenSSH(t *testing.T) {
	needAgent(t)
	srv := startSSHD(t, "", sftpInternal)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
		t.Fatal(err)
	}
	agentPath := filepath.Join(dir, "opt", "hpcstorage-agent", "bin", "hpcstorage-agent")
	good := writeFile(t, "known_hosts", transport.KnownHostsLine(srv.addr, srv.hostKey)+"\n")
	base := transport.Options{
		Host: "127.0.0.1", Port: srv.port(), User: "root",
		PrivateKey: testKey(t).pem, KnownHostsFiles: []string{good},
		AgentPath:   agentPath,
		DialTimeout: 5 * time.Second, HandshakeTimeout: 10 * time.Second, RunTimeout: time.Minute,
		// Many keepalives during every run: real OpenSSH must answer them
		// (2 s of total silence is allowed: the machine is shared).
		KeepaliveInterval: 100 * time.Millisecond, KeepaliveCountMax: 20,
	}
	req := transport.Request{Spec: spec("openssh"), Root: root}
	apply := func(o transport.Options, r transport.Request) (*transport.Response, error) {
		p := newPool(t, transport.PoolOptions{})
		defer p.Close()
		return p.Apply(t.Context(), o, r)
	}

	t.Run("unknown host refused", func(t *testing.T) {
		o := base
		o.KnownHostsFiles = []string{writeFile(t, "empty", "")}
		_, err := apply(o, req)
		if !errors.Is(err, transport.ErrUnknownHost) || !strings.Contains(err.Error(), ssh.FingerprintSHA256(srv.hostKey)) {
			t.Fatalf("err = %v, want ErrUnknownHost with the fingerprint", err)
		}
	})
	t.Run("host key mismatch refused", func(t *testing.T) {
		o := base
		o.KnownHostsFiles = []string{writeFile(t, "wrong", transport.KnownHostsLine(srv.addr, otherKey(t))+"\n")}
		_, err := apply(o, req)
		if !errors.Is(err, transport.ErrHostKeyMismatch) {
			t.Fatalf("err = %v, want ErrHostKeyMismatch", err)
		}
		o.KnownHostsFiles, o.HostKeys = nil, []string{ssh.FingerprintSHA256(otherKey(t))}
		if _, err := apply(o, req); !errors.Is(err, transport.ErrHostKeyMismatch) {
			t.Fatalf("pinned: err = %v, want ErrHostKeyMismatch", err)
		}
	})
	if _, err := os.Stat(agentPath); !os.IsNotExist(err) {
		t.Fatal("the agent was delivered to a host whose key was refused")
	}

	t.Run("deliver and apply", func(t *testing.T) {
		r, err := apply(base, transport.Request{Spec: spec("openssh"), Root: root, Check: true, Diff: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Delivered || !r.Result.Changed {
			t.Fatalf("check: delivered=%v changed=%v", r.Delivered, r.Result.Changed)
		}
		if b, _ := os.ReadFile(agentPath); !bytes.Equal(b, agentData) {
			t.Fatal("delivered agent differs from the build")
		}
		r, err = apply(base, req)
		if err != nil || r.Delivered || !r.Result.Changed {
			t.Fatalf("apply: err=%v delivered=%v", err, r != nil && r.Delivered)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/vm/dirty_ratio")); strings.TrimSpace(string(b)) != "20" {
			t.Errorf("vm.dirty_ratio = %q under the temp root", b)
		}
		r, err = apply(base, req)
		if err != nil || r.Delivered || r.Result.Changed {
			t.Fatalf("no-op apply: err=%v delivered=%v changed=%v", err, r != nil && r.Delivered, r != nil && r.Result.Changed)
		}
	})
	t.Run("re-delivery only when the checksum changes", func(t *testing.T) {
		replaceFile(t, agentPath, []byte("#!/bin/sh\necho stale agent >&2; exit 9\n"))
		r, err := apply(base, req)
		if err != nil || !r.Delivered {
			t.Fatalf("changed checksum: err=%v delivered=%v", err, r != nil && r.Delivered)
		}
		r, err = apply(base, req)
		if err != nil || r.Delivered {
			t.Fatalf("same checksum re-delivered: err=%v", err)
		}
		fi, err := os.Stat(agentPath)
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("agent mode: %v %v", fi, err)
		}
		left, _ := filepath.Glob(agentPath + ".tmp-*")
		if len(left) != 0 {
			t.Errorf("upload temp files left: %v", left)
		}
	})
	t.Run("sudo", func(t *testing.T) {
		// A stale agent, so the upload goes through sudo -n too.
		replaceFile(t, agentPath, []byte("stale"))
		o := base
		o.Sudo = true
		r, err := apply(o, req)
		if err != nil || r.Result.Changed || !r.Delivered {
			t.Fatalf("through sudo -n: err=%v", err)
		}
		if b, _ := os.ReadFile(agentPath); !bytes.Equal(b, agentData) {
			t.Fatal("agent uploaded through sudo differs from the build")
		}
	})
	t.Run("bastion", func(t *testing.T) {
		// The same sshd serves as its own jump host.
		o := base
		b := base
		o.Bastion = &b
		r, err := apply(o, req)
		if err != nil || r.Result.Changed || !strings.Contains(r.Host, " via ") {
			t.Fatalf("through a bastion: err=%v", err)
		}
	})
}

// sudo that wants a password, on real OpenSSH: a sudo on PATH that
// answers as sudo -n does when no NOPASSWD rule applies.
func TestOpenSSHSudoWantsPassword(t *testing.T) {
	needAgent(t)
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "sudo"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := startSSHD(t, "PATH="+bin+":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
	o := transport.Options{
		Host: "127.0.0.1", Port: srv.port(), User: "root", Sudo: true,
		PrivateKey: testKey(t).pem, HostKeys: []string{ssh.FingerprintSHA256(srv.hostKey)},
		AgentPath: filepath.Join(t.TempDir(), "agent"),
	}
	p := newPool(t, transport.PoolOptions{})
	_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("sudo"), Root: t.TempDir()})
	if !errors.Is(err, transport.ErrSudoPassword) || stepOf(t, err).Step != transport.StepProbe {
		t.Fatalf("err = %v, want ErrSudoPassword at the probe", err)
	}
}

// The ways the agent reaches a real OpenSSH node: beside the agent
// session's own exec (the real sh waits while it arrives over sftp, then
// the agent installs itself: one command session in all); without
// sessions, over sftp served
// by sshd itself or by the sftp-server program (no upload command runs:
// one failed agent run, the sftp session, the run), and, on an sshd
// without the subsystem, by the exec upload.
func TestOpenSSHDeliveryWays(t *testing.T) {
	needAgent(t)
	const sftpServer = "/usr/lib/openssh/sftp-server"
	for _, tt := range []struct {
		name     string
		config   string
		execOnly bool // PoolOptions.ExecPerCall
		sftp     bool
		commands int // exec sessions sshd starts for the first apply
	}{
		{"session", sftpInternal, false, true, 1},
		{"internal-sftp", sftpInternal, true, true, 2},
		{"sftp-server", "Subsystem sftp " + sftpServer, true, true, 2},
		// run, uname -m, upload, run
		{"no sftp", "", true, false, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasSuffix(tt.config, sftpServer) {
				if _, err := os.Stat(sftpServer); err != nil {
					testenv.Missing(t, "%s not installed (Debian: openssh-sftp-server)", sftpServer)
				}
			}
			srv := startSSHD(t, "", tt.config)
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			if err := fakenode.SeedWith(root, fakenode.Storage, fakenode.Options{Simulator: simtest.Binary(t)}); err != nil {
				t.Fatal(err)
			}
			agentPath := filepath.Join(dir, "new dir", "bin", "hpcstorage-agent")
			o := transport.Options{
				Host: "127.0.0.1", Port: srv.port(), User: "root",
				PrivateKey: testKey(t).pem, HostKeys: []string{ssh.FingerprintSHA256(srv.hostKey)},
				AgentPath: agentPath, RunTimeout: time.Minute,
			}
			p := newPool(t, transport.PoolOptions{ExecPerCall: tt.execOnly})
			r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ways"), Root: root})
			if err != nil || !r.Delivered || !r.Result.Changed {
				t.Fatalf("apply: err=%v response=%+v", err, r)
			}
			if b, _ := os.ReadFile(agentPath); !bytes.Equal(b, agentData) {
				t.Fatal("delivered agent differs from the build")
			}
			if fi, err := os.Stat(agentPath); err != nil || fi.Mode().Perm() != 0o755 {
				t.Fatalf("agent mode: %v %v", fi, err)
			}
			if left, _ := filepath.Glob(agentPath + ".tmp-*"); len(left) != 0 {
				t.Errorf("upload temp files left: %v", left)
			}
			// Nothing more to deliver on this connection or a new one.
			if r, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("ways"), Root: root}); err != nil || r.Delivered || r.Result.Changed {
				t.Fatalf("second apply: err=%v", err)
			}
			p2 := newPool(t, transport.PoolOptions{ExecPerCall: tt.execOnly})
			if r, err := p2.Apply(t.Context(), o, transport.Request{Spec: spec("ways"), Root: root}); err != nil || r.Delivered {
				t.Fatalf("new pool: err=%v", err)
			}
			p.Close()
			p2.Close()
			// sshd's log reaches us through a pipe: give the last lines a
			// moment. The second call rides on the first pool's agent
			// session (or is one exec more); the new pool starts one more.
			want := tt.commands + 1
			if tt.execOnly {
				want++
			}
			logs := srv.logs.String()
			for deadline := time.Now().Add(5 * time.Second); strings.Count(logs, "Starting session: command") < want && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				logs = srv.logs.String()
			}
			commands := strings.Count(logs, "Starting session: command")
			t.Logf("sshd: %d command sessions, %d sftp sessions", commands, strings.Count(logs, "Starting session: subsystem 'sftp'"))
			if commands != want {
				t.Errorf("sshd started %d command sessions, want %d:\n%s", commands, want, logs)
			}
			if got := strings.Contains(logs, "Starting session: subsystem 'sftp'"); got != tt.sftp {
				t.Errorf("sftp session started: %v, want %v:\n%s", got, tt.sftp, logs)
			}
		})
	}
}
