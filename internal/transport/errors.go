package transport

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error the transport returns wraps one of these (or a
// context error) with %w, so callers test them with errors.Is.
var (
	ErrConfig            = errors.New("invalid SSH configuration")
	ErrUnknownHost       = errors.New("host key unknown")
	ErrHostKeyMismatch   = errors.New("host key mismatch")
	ErrHostKeyRevoked    = errors.New("host key revoked")
	ErrPassphraseMissing = errors.New("private key is encrypted and no passphrase was given")
	ErrBadPassphrase     = errors.New("wrong passphrase for private key")
	ErrAuth              = errors.New("SSH authentication failed")
	ErrUnreachable       = errors.New("host unreachable")
	ErrTimeout           = errors.New("timed out")
	ErrConnectionLost    = errors.New("SSH connection lost")
	ErrSudoPassword      = errors.New("sudo requires a password")
	ErrSudoDenied        = errors.New("sudo refused")
	ErrAgentMissing      = errors.New("agent not found on node")
	ErrAgentChecksum     = errors.New("agent checksum mismatch after upload")
	ErrUnsupportedArch   = errors.New("unsupported node architecture")
	ErrSpecInvalid       = errors.New("agent rejected the spec")
	ErrItemFailed        = errors.New("agent reported failed items")
	ErrAgentExit         = errors.New("agent failed")
	ErrBadResult         = errors.New("agent output is not a valid result")
	ErrPoolClosed        = errors.New("SSH pool closed")
	// ErrInterrupted: a request that changes the node was in flight when
	// its connection or its agent ended; it may have run in part.
	ErrInterrupted = errors.New("interrupted while applying")
)

// Steps name what the transport was doing when an error happened.
const (
	StepConfig    = "config"
	StepDial      = "dial"
	StepHandshake = "handshake"
	StepProbe     = "probe"
	StepUpload    = "upload"
	StepRun       = "run"
)

// StepError carries the host, the step and what the node said. ExitStatus
// is -1 when the remote command did not exit normally (signal, lost
// connection, timeout).
type StepError struct {
	Host       string
	Step       string
	ExitStatus int
	Stderr     string
	Err        error
}

func (e *StepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host %s: %s: %v", e.Host, e.Step, e.Err)
	if e.ExitStatus >= 0 {
		fmt.Fprintf(&b, " (exit status %d)", e.ExitStatus)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "; stderr: %s", tail(s, 4096))
	}
	return b.String()
}

func (e *StepError) Unwrap() error { return e.Err }

// tail keeps the end of long output, where the cause usually is.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
