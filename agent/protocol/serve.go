package protocol

// The framing of `hpcstorage-agent serve`: one agent process per node and
// SSH connection answers every call of a provider run. Each frame is a
// 4-byte big-endian length and that many bytes of JSON. The agent writes a
// ServeHello first (after its --expect-sha256 check), then one
// ServeResponse per ServeRequest, in any order (requests run concurrently
// and responses carry the request's ID).

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ServeProtocol is the version of the framing in ServeHello.
const ServeProtocol = 1

// MaxFrame bounds one frame: a spec or a result is far smaller, so a
// larger length is a corrupt stream, not a big message.
const MaxFrame = 64 << 20

// ServeCommands are the commands a serve request may run: the one-shot
// commands with the same flags and output.
var ServeCommands = []string{"apply", "remove", "facts", "validate", "version"}

// ServeHello is the first frame of a serve session.
type ServeHello struct {
	Protocol int    `json:"protocol"`
	Version  string `json:"version"`
	GOARCH   string `json:"goarch"`
}

// ServeRequest runs one command: Args as on the command line ("apply",
// "-f", "-", ...) and Stdin as its standard input. A request with Cancel
// set cancels the request ID that is still running.
type ServeRequest struct {
	ID     uint64   `json:"id"`
	Args   []string `json:"args,omitempty"`
	Stdin  []byte   `json:"stdin,omitempty"`
	Cancel bool     `json:"cancel,omitempty"`
}

// ServeResponse is the outcome of one request: what the one-shot command
// would have exited with and printed.
type ServeResponse struct {
	ID     uint64 `json:"id"`
	Exit   int    `json:"exit"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
}

// ErrFrame marks a malformed frame (too long, truncated, not JSON).
var ErrFrame = errors.New("malformed serve frame")

// WriteFrame writes v as one frame in a single Write, so frames from
// concurrent writers holding one lock never interleave.
func WriteFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > MaxFrame {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrFrame, len(body), MaxFrame)
	}
	buf := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	_, err = w.Write(append(buf, body...))
	return err
}

// ReadFrameBytes reads one frame's JSON. io.EOF means the stream ended
// cleanly between frames.
func ReadFrameBytes(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: truncated length", ErrFrame)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxFrame {
		return nil, fmt.Errorf("%w: length %d exceeds %d", ErrFrame, n, MaxFrame)
	}
	body := make([]byte, n)
	if m, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: truncated after %d of %d bytes", ErrFrame, m, n)
		}
		return nil, err
	}
	return body, nil
}

// ReadFrame reads one frame into v.
func ReadFrame(r io.Reader, v any) error {
	body, err := ReadFrameBytes(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %v", ErrFrame, err)
	}
	return nil
}
