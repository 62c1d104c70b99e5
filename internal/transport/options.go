// Package transport reaches storage nodes over SSH: it verifies host keys,
// ships the hpcstorage-agent binary when the node's copy is missing or
// differs, runs it with a spec on stdin and returns its JSON result. One
// Pool per provider process keeps one connection per host, shared by every
// caller, and bounds fan-out.
package transport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultAgentPath is where the agent is installed on nodes.
const DefaultAgentPath = "/var/lib/hpcstorage-agent/bin/hpcstorage-agent"

// Defaults, chosen to match what OpenSSH users expect of a slow but alive
// network: a dead host fails in seconds, a long apply is not cut short.
const (
	DefaultPort              = 22
	DefaultUser              = "root"
	DefaultDialTimeout       = 10 * time.Second
	DefaultHandshakeTimeout  = 20 * time.Second
	DefaultRunTimeout        = 10 * time.Minute
	DefaultKeepaliveInterval = 15 * time.Second
	DefaultKeepaliveCountMax = 3
	DefaultMaxParallel       = 64
	// DefaultMaxPerHost stays below OpenSSH's MaxSessions (10).
	DefaultMaxPerHost = 4
)

// Options describe how to reach one host. The provider fills one per node
// from its provider-level defaults and per-node overrides.
type Options struct {
	Host string // name or IP address (required)
	Port int    // default 22
	User string // default root

	// Authentication, tried in this order: the private key, ssh-agent, the
	// password. With no key and no password, ssh-agent is used when
	// SSH_AUTH_SOCK is set, as ssh(1) does.
	PrivateKey     string // PEM text (OpenSSH, PKCS#1/#8, EC); ed25519, ECDSA or RSA
	PrivateKeyFile string
	Passphrase     string // for an encrypted key
	UseAgent       bool   // ask ssh-agent even when a key or password is set
	AgentSocket    string // default $SSH_AUTH_SOCK
	Password       string // used only when set

	// Host key verification (always on). HostKeys pins keys
	// ("ssh-ed25519 AAAA...", as in known_hosts or a .pub file) or
	// fingerprints ("SHA256:..."); otherwise KnownHostsFiles are read
	// (default ~/.ssh/known_hosts), @cert-authority lines included.
	KnownHostsFiles []string
	HostKeys        []string
	// InsecureIgnoreHostKey accepts any host key. For throwaway labs only;
	// every connection that uses it is reported through PoolOptions.Warn.
	InsecureIgnoreHostKey bool

	// Bastion is a jump host, with its own auth and host key.
	Bastion *Options

	// Sudo runs remote commands through `sudo -n` (for a non-root User):
	// the agent, and the probe and upload through `sh -c`. With
	// AgentPreinstalled only the agent runs under sudo, so a sudoers rule
	// for the agent path alone is enough.
	Sudo bool

	DialTimeout       time.Duration // TCP connect (or bastion channel open)
	HandshakeTimeout  time.Duration // SSH handshake and authentication
	RunTimeout        time.Duration // one whole Apply/Facts call: probe, upload, run
	KeepaliveInterval time.Duration // negative disables keepalives
	KeepaliveCountMax int           // missed keepalives before the connection is dropped

	// AgentPath is where the agent lives on the node. With
	// AgentPreinstalled the transport never uploads: the agent there is used
	// as is (air-gapped sites).
	AgentPath         string
	AgentPreinstalled bool
}

// Addr is host:port.
func (o *Options) Addr() string { return net.JoinHostPort(o.Host, fmt.Sprint(o.Port)) }

// name is how errors name the host: user@host:port, plus the jump host.
func (o *Options) name() string {
	n := o.User + "@" + o.Addr()
	if o.Bastion != nil {
		n += " via " + o.Bastion.name()
	}
	return n
}

// withDefaults returns a copy with zero fields filled in.
func (o Options) withDefaults() Options {
	if o.Port == 0 {
		o.Port = DefaultPort
	}
	if o.User == "" {
		o.User = DefaultUser
	}
	if o.DialTimeout == 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.RunTimeout == 0 {
		o.RunTimeout = DefaultRunTimeout
	}
	if o.KeepaliveInterval == 0 {
		o.KeepaliveInterval = DefaultKeepaliveInterval
	}
	if o.KeepaliveCountMax == 0 {
		o.KeepaliveCountMax = DefaultKeepaliveCountMax
	}
	if o.AgentPath == "" {
		o.AgentPath = DefaultAgentPath
	}
	if o.AgentSocket == "" {
		o.AgentSocket = os.Getenv("SSH_AUTH_SOCK")
	}
	if len(o.KnownHostsFiles) == 0 && len(o.HostKeys) == 0 && !o.InsecureIgnoreHostKey {
		if home, err := os.UserHomeDir(); err == nil {
			o.KnownHostsFiles = []string{filepath.Join(home, ".ssh", "known_hosts")}
		}
	}
	if o.Bastion != nil {
		b := o.Bastion.withDefaults()
		o.Bastion = &b
	}
	return o
}

// validate reports bad input, naming the option and the host.
func (o *Options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("host %q: %s: %w", o.Host, fmt.Sprintf(format, a...), ErrConfig)
	}
	if strings.TrimSpace(o.Host) == "" {
		return fmt.Errorf("host: must not be empty: %w", ErrConfig)
	}
	if strings.ContainsAny(o.Host, " \t\n/@[]") || (strings.Contains(o.Host, ":") && net.ParseIP(o.Host) == nil) {
		return bad("host must be a name or an IP address (give the port in port, not host:port)")
	}
	if o.Port < 1 || o.Port > 65535 {
		return bad("port %d out of range 1-65535", o.Port)
	}
	if strings.ContainsAny(o.User, " \t\n:@") {
		return bad("user %q is not a valid login name", o.User)
	}
	if o.PrivateKey != "" && o.PrivateKeyFile != "" {
		return bad("set private_key or private_key_file, not both")
	}
	if o.InsecureIgnoreHostKey && (len(o.HostKeys) > 0) {
		return bad("insecure_ignore_host_key conflicts with host_key")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"dial_timeout", o.DialTimeout}, {"handshake_timeout", o.HandshakeTimeout}, {"run_timeout", o.RunTimeout}} {
		if d.v < 0 {
			return bad("%s must be positive, got %s", d.name, d.v)
		}
	}
	if o.KeepaliveCountMax < 0 {
		return bad("keepalive_count_max must be positive")
	}
	if !path.IsAbs(o.AgentPath) || path.Clean(o.AgentPath) != o.AgentPath || strings.ContainsAny(o.AgentPath, "\n\x00") {
		return bad("agent_path %q must be a clean absolute path", o.AgentPath)
	}
	if o.AgentPath == "/" || strings.HasSuffix(o.AgentPath, "/") {
		return bad("agent_path %q must name a file", o.AgentPath)
	}
	if o.Bastion != nil {
		if err := o.Bastion.validate(); err != nil {
			return fmt.Errorf("bastion of host %q: %w", o.Host, err)
		}
		if o.Bastion.Bastion != nil {
			return bad("a bastion may not have its own bastion")
		}
	}
	return nil
}

// poolKey identifies a host (user@host:port, and the jump host) for what
// the pool learns about it and for the per-host limit.
func (o *Options) poolKey() string { return o.name() }

// connKey identifies a connection: two Options share one only when they
// reach the same host with the same credentials and the same host-key
// checks, so a resource that pins a host key never rides on a connection
// another resource opened with looser checks or another identity.
func (o *Options) connKey() string {
	h := sha256.New()
	var walk func(o *Options)
	walk = func(o *Options) {
		fmt.Fprintf(h, "%q %q %q %q %t %q %q %q %q %t|", o.name(), o.PrivateKey, o.PrivateKeyFile, o.Passphrase, o.UseAgent,
			o.AgentSocket, o.Password, strings.Join(o.KnownHostsFiles, "\x00"), strings.Join(o.HostKeys, "\x00"), o.InsecureIgnoreHostKey)
		if o.Bastion != nil {
			walk(o.Bastion)
		}
	}
	walk(o)
	return o.name() + "#" + hex.EncodeToString(h.Sum(nil))
}

// AgentSource returns the agent build for linux/goarch and its sha256 hex.
type AgentSource func(goarch string) (data []byte, sha256hex string, err error)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// MaxParallel bounds Apply/Facts calls in flight over all hosts;
	// MaxPerHost bounds them per host (sessions on one connection).
	MaxParallel int
	MaxPerHost  int
	// Warn receives warnings (insecure_ignore_host_key use). Default: stderr.
	Warn func(msg string)
	// Agent supplies agent builds. Default: the builds embedded in the
	// provider (internal/agentbin).
	Agent AgentSource
	// ExecPerCall runs the agent once per call (one SSH exec and one
	// process each) instead of one `hpcstorage-agent serve` session per
	// node and connection. The pool falls back to it by itself for
	// agents without serve.
	ExecPerCall bool
	// Keeper, when set, shares each node's agent session with the other
	// processes of this user that reach it with the same settings, through
	// a local session keeper (keeper.go): one agent process per node per
	// Terraform command instead of one per provider process.
	Keeper *KeeperConfig
	// CompressedDelivery ships the agent gzip-compressed through one exec
	// (the node's gzip writes it: less than half the bytes on the wire)
	// even where the sftp subsystem could write it uncompressed without
	// starting a process. A node without gzip still gets it plain.
	CompressedDelivery bool
}

// String describes the options with every secret redacted, so logging an
// Options value never leaks a key, passphrase or password.
func (o Options) String() string {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "(redacted)"
	}
	b := "<nil>"
	if o.Bastion != nil {
		b = o.Bastion.String()
	}
	return fmt.Sprintf("{Host:%s Port:%d User:%s PrivateKey:%s PrivateKeyFile:%s Passphrase:%s UseAgent:%t Password:%s KnownHostsFiles:%v HostKeys:%v InsecureIgnoreHostKey:%t Bastion:%s Sudo:%t DialTimeout:%s HandshakeTimeout:%s RunTimeout:%s KeepaliveInterval:%s KeepaliveCountMax:%d AgentPath:%s AgentPreinstalled:%t}",
		o.Host, o.Port, o.User, red(o.PrivateKey), o.PrivateKeyFile, red(o.Passphrase), o.UseAgent, red(o.Password),
		o.KnownHostsFiles, o.HostKeys, o.InsecureIgnoreHostKey, b, o.Sudo, o.DialTimeout, o.HandshakeTimeout, o.RunTimeout,
		o.KeepaliveInterval, o.KeepaliveCountMax, o.AgentPath, o.AgentPreinstalled)
}

// GoString is String, for %#v.
func (o Options) GoString() string { return "transport.Options" + o.String() }
