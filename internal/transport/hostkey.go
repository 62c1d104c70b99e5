package transport

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Fingerprint is the OpenSSH SHA256 fingerprint of a key ("SHA256:...").
func Fingerprint(k ssh.PublicKey) string { return ssh.FingerprintSHA256(k) }

// KnownHostsLine is the known_hosts line for a key at addr (host:port).
func KnownHostsLine(addr string, k ssh.PublicKey) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, k)
}

// hostKeyConfig returns the verifying callback for o and the host key
// algorithms to ask for (nil: the library default). With
// insecure_ignore_host_key the callback accepts anything and records the
// key with record, so every call on the connection can warn.
func hostKeyConfig(o *Options, record func(ssh.PublicKey)) (ssh.HostKeyCallback, []string, error) {
	switch {
	case o.InsecureIgnoreHostKey:
		return func(addr string, _ net.Addr, key ssh.PublicKey) error {
			record(key)
			return nil
		}, nil, nil
	case len(o.HostKeys) > 0:
		return pinnedHostKeys(o)
	default:
		return knownHostsCallback(o)
	}
}

// insecureWarning is what every use of an unverified connection says.
func insecureWarning(name string, key ssh.PublicKey) string {
	return fmt.Sprintf("WARNING: insecure_ignore_host_key is set for %s: its host key (%s %s) is NOT verified, so anyone on the path can impersonate it; pin it with host_key = %q",
		name, keyType(key), Fingerprint(hostKeyOf(key)), Fingerprint(hostKeyOf(key)))
}

// hostKeyOf is the plain key behind a host certificate.
func hostKeyOf(k ssh.PublicKey) ssh.PublicKey {
	if c, ok := k.(*ssh.Certificate); ok {
		return c.Key
	}
	return k
}

func keyType(k ssh.PublicKey) string {
	return strings.TrimPrefix(hostKeyOf(k).Type(), "ssh-")
}

// pinHint tells the user how to trust key after checking it out of band.
func pinHint(addr string, key ssh.PublicKey) string {
	host, port, _ := net.SplitHostPort(addr)
	plain := hostKeyOf(key)
	return fmt.Sprintf("check it out of band (on the node: ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub; or ssh-keyscan -p %s %s | ssh-keygen -lf -), then pin it with host_key = %q or add this line to known_hosts:\n%s",
		keyType(key), port, host, Fingerprint(plain), KnownHostsLine(addr, plain))
}

type pin struct {
	key         ssh.PublicKey // nil for a fingerprint pin
	fingerprint string
}

func parsePin(s string) (pin, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "SHA256:") {
		if len(s) != len("SHA256:")+43 || strings.ContainsAny(s, " \t=") {
			return pin{}, fmt.Errorf("%q is not a SHA256 fingerprint (want SHA256: and 43 base64 characters, as ssh-keygen -l prints)", s)
		}
		return pin{fingerprint: s}, nil
	}
	if strings.HasPrefix(s, "MD5:") {
		return pin{}, fmt.Errorf("MD5 fingerprints are not accepted; use the SHA256 one (ssh-keygen -l -E sha256)")
	}
	if k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s)); err == nil {
		return pin{key: k, fingerprint: Fingerprint(k)}, nil
	}
	// A known_hosts line ("host ssh-ed25519 AAAA...").
	if _, _, k, _, _, err := ssh.ParseKnownHosts([]byte(s)); err == nil {
		return pin{key: k, fingerprint: Fingerprint(k)}, nil
	}
	return pin{}, fmt.Errorf("%.40q is neither a public key (ssh-ed25519 AAAA...) nor a SHA256 fingerprint", s)
}

func pinnedHostKeys(o *Options) (ssh.HostKeyCallback, []string, error) {
	var pins []pin
	var algos []string
	allKeys := true
	for i, s := range o.HostKeys {
		p, err := parsePin(s)
		if err != nil {
			return nil, nil, fmt.Errorf("host %q: host_key[%d]: %v: %w", o.Host, i, err, ErrConfig)
		}
		pins = append(pins, p)
		if p.key == nil {
			allKeys = false
		} else {
			algos = appendAlgos(algos, p.key.Type())
		}
	}
	if !allKeys {
		// A fingerprint does not say the key type: let the server pick.
		algos = nil
	}
	cb := func(addr string, _ net.Addr, key ssh.PublicKey) error {
		got := Fingerprint(hostKeyOf(key))
		var want []string
		for _, p := range pins {
			if p.fingerprint == got {
				return nil
			}
			want = append(want, p.fingerprint)
		}
		return fmt.Errorf("REMOTE HOST KEY DOES NOT MATCH for %s: it presents %s %s but host_key pins %s; refusing to connect (if the node was reinstalled, check the new key out of band and update host_key; otherwise someone may be intercepting the connection): %w",
			addr, keyType(key), got, strings.Join(want, ", "), ErrHostKeyMismatch)
	}
	return cb, algos, nil
}

// appendAlgos adds the host key algorithms that can verify a key type.
func appendAlgos(algos []string, keyType string) []string {
	add := []string{keyType}
	if keyType == ssh.KeyAlgoRSA {
		add = []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	for _, a := range add {
		dup := false
		for _, b := range algos {
			dup = dup || a == b
		}
		if !dup {
			algos = append(algos, a)
		}
	}
	return algos
}

var (
	probeKeyOnce sync.Once
	probeKey     ssh.PublicKey
)

// knownAlgos asks the known_hosts database which key types it holds for
// addr, so the handshake negotiates one of them rather than failing on a
// type the file does not list (the trick OpenSSH itself uses).
func knownAlgos(cb ssh.HostKeyCallback, addr string, ca caLines) []string {
	probeKeyOnce.Do(func() {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err == nil {
			probeKey, _ = ssh.NewPublicKey(pub)
		}
	})
	if probeKey == nil {
		return nil
	}
	var ke *knownhosts.KeyError
	err := cb(addr, &net.TCPAddr{IP: net.IPv4zero}, probeKey)
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		return nil
	}
	var algos []string
	for _, w := range ca.plain(ke.Want) {
		algos = appendAlgos(algos, w.Key.Type())
	}
	return algos
}

// caLines marks the @cert-authority lines of known_hosts files
// ("file:line"). knownhosts reports CA keys among the wanted plain keys of a
// host; they must not count as "this host's key".
type caLines map[string]bool

func readCALines(files []string) caLines {
	ca := caLines{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "@cert-authority") {
				ca[fmt.Sprintf("%s:%d", f, i+1)] = true
			}
		}
	}
	return ca
}

func (ca caLines) plain(want []knownhosts.KnownKey) []knownhosts.KnownKey {
	var out []knownhosts.KnownKey
	for _, w := range want {
		if !ca[fmt.Sprintf("%s:%d", w.Filename, w.Line)] {
			out = append(out, w)
		}
	}
	return out
}

func knownHostsCallback(o *Options) (ssh.HostKeyCallback, []string, error) {
	var files []string
	home, _ := os.UserHomeDir()
	defaultFile := filepath.Join(home, ".ssh", "known_hosts")
	for _, f := range o.KnownHostsFiles {
		if _, err := os.Stat(f); err != nil {
			if f == defaultFile && errors.Is(err, os.ErrNotExist) {
				continue // like ssh(1): no file yet means no host is known
			}
			return nil, nil, fmt.Errorf("host %q: known_hosts file: %w", o.Host, errors.Join(ErrConfig, err))
		}
		files = append(files, f)
	}
	db, err := knownhosts.New(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("host %q: known_hosts: %w", o.Host, errors.Join(ErrConfig, err))
	}
	where := strings.Join(o.KnownHostsFiles, ", ")
	if where == "" {
		where = "no known_hosts file"
	}
	addr := o.Addr()
	ca := readCALines(files)
	cb := func(addr string, remote net.Addr, key ssh.PublicKey) error {
		err := db(addr, remote, key)
		if err == nil {
			return nil
		}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		if errors.As(err, &ke) {
			ke = &knownhosts.KeyError{Want: ca.plain(ke.Want)}
		}
		switch {
		case errors.As(err, &re):
			return fmt.Errorf("host key of %s (%s) is marked @revoked in %s:%d; refusing to connect: %w",
				addr, Fingerprint(hostKeyOf(key)), re.Revoked.Filename, re.Revoked.Line, ErrHostKeyRevoked)
		case errors.As(err, &ke) && len(ke.Want) > 0:
			var want []string
			for _, w := range ke.Want {
				want = append(want, fmt.Sprintf("%s %s (%s:%d)", strings.TrimPrefix(w.Key.Type(), "ssh-"), Fingerprint(w.Key), w.Filename, w.Line))
			}
			return fmt.Errorf("REMOTE HOST KEY HAS CHANGED for %s: it presents %s %s but known_hosts has %s; refusing to connect (if the node was reinstalled, remove the old line with ssh-keygen -R %q and check the new key out of band; otherwise someone may be intercepting the connection): %w",
				addr, keyType(key), Fingerprint(hostKeyOf(key)), strings.Join(want, "; "), knownhosts.Normalize(addr), ErrHostKeyMismatch)
		case errors.As(err, &ke):
			return fmt.Errorf("host %s is not in known_hosts (%s); its %s host key is %s; %s: %w",
				addr, where, keyType(key), Fingerprint(hostKeyOf(key)), pinHint(addr, key), ErrUnknownHost)
		case isCert(key):
			// A host certificate from a CA that no @cert-authority line trusts.
			c := key.(*ssh.Certificate)
			return fmt.Errorf("host %s presents a certificate signed by CA %s that does not verify against known_hosts (%s): %v; to trust that CA add a line \"@cert-authority %s %s\" or %s: %w",
				addr, Fingerprint(c.SignatureKey), where, err, hostPattern(addr), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(c.SignatureKey))), pinHint(addr, key), ErrUnknownHost)
		default:
			return fmt.Errorf("host key of %s: %v: %w", addr, err, ErrHostKeyMismatch)
		}
	}
	return cb, knownAlgos(db, addr, ca), nil
}

func isCert(k ssh.PublicKey) bool { _, ok := k.(*ssh.Certificate); return ok }

// hostPattern is the known_hosts host pattern for addr.
func hostPattern(addr string) string { return knownhosts.Normalize(addr) }
