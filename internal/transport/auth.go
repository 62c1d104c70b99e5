package transport

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// authMethods builds the auth methods for o. The returned closer releases
// the ssh-agent socket once the handshake is over.
func authMethods(ctx context.Context, o *Options) (methods []ssh.AuthMethod, closer func(), err error) {
	closer = func() {}
	var signers []ssh.Signer
	keyText, source := o.PrivateKey, "private_key"
	if o.PrivateKeyFile != "" {
		source = "private_key_file " + o.PrivateKeyFile
		b, err := os.ReadFile(o.PrivateKeyFile)
		if err != nil {
			return nil, closer, fmt.Errorf("host %q: reading %s: %w", o.Host, source, errors.Join(ErrConfig, err))
		}
		keyText = string(b)
	}
	if strings.TrimSpace(keyText) != "" {
		s, err := parseKey([]byte(keyText), o.Passphrase)
		if err != nil {
			return nil, closer, fmt.Errorf("host %q: %s: %w", o.Host, source, err)
		}
		signers = append(signers, s)
	}
	useAgent := o.UseAgent || (len(signers) == 0 && o.Password == "" && o.AgentSocket != "")
	if useAgent {
		if o.AgentSocket == "" {
			return nil, closer, fmt.Errorf("host %q: use of ssh-agent requested but SSH_AUTH_SOCK is not set: %w", o.Host, ErrConfig)
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", o.AgentSocket)
		if err != nil {
			return nil, closer, fmt.Errorf("host %q: ssh-agent at SSH_AUTH_SOCK=%s: %w", o.Host, o.AgentSocket, errors.Join(ErrConfig, err))
		}
		closer = func() { c.Close() }
		ag := agent.NewClient(c)
		// Keys first, then agent keys: one publickey method tries them all.
		keys := signers
		signers = nil
		methods = append(methods, ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
			as, err := ag.Signers()
			if err != nil {
				return keys, fmt.Errorf("ssh-agent: %w", err)
			}
			return append(append([]ssh.Signer{}, keys...), as...), nil
		}))
	}
	if len(signers) > 0 {
		methods = append(methods, ssh.PublicKeys(signers...))
	}
	if o.Password != "" {
		pw := o.Password
		methods = append(methods, ssh.Password(pw),
			ssh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
				ans := make([]string, len(qs))
				for i := range qs {
					ans[i] = pw
				}
				return ans, nil
			}))
	}
	if len(methods) == 0 {
		closer()
		return nil, func() {}, fmt.Errorf("host %q: no credentials: set private_key, private_key_file or password, or run ssh-agent (SSH_AUTH_SOCK): %w", o.Host, ErrConfig)
	}
	return methods, closer, nil
}

// parseKey parses a private key, telling a missing passphrase apart from a
// wrong one.
func parseKey(pem []byte, passphrase string) (ssh.Signer, error) {
	if passphrase == "" {
		s, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("set private_key_passphrase: %w", ErrPassphraseMissing)
		}
		if err != nil {
			return nil, fmt.Errorf("not a private key (%v): %w", err, ErrConfig)
		}
		return s, nil
	}
	s, err := ssh.ParsePrivateKeyWithPassphrase(pem, []byte(passphrase))
	if err == nil {
		return s, nil
	}
	if errors.Is(err, x509.IncorrectPasswordError) {
		return nil, ErrBadPassphrase
	}
	// A passphrase given for a clear key is harmless.
	if s, err2 := ssh.ParsePrivateKey(pem); err2 == nil {
		return s, nil
	}
	return nil, fmt.Errorf("not a private key (%v): %w", err, ErrConfig)
}
