// Package agentbin carries the hpcstorage-agent builds that the provider
// ships to nodes. `make agent-dist` writes them into dist/ before the
// provider is built; a plain `go build ./...` still compiles (dist/ holds a
// committed README), and For then reports that the builds are missing.
package agentbin

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

//go:embed dist
var dist embed.FS

// ErrNotBuilt means the provider was built without the agent for an
// architecture.
var ErrNotBuilt = errors.New("agent build not embedded in this provider")

// ErrUnknownArch means `uname -m` named an architecture the agent is not
// built for.
var ErrUnknownArch = errors.New("unsupported node architecture")

// Arches lists the GOARCH values the provider carries an agent for.
var Arches = []string{"amd64", "arm64"}

// FileName is the dist/ file name of the agent for goarch.
func FileName(goarch string) string { return "hpcstorage-agent-linux-" + goarch }

type build struct {
	data []byte
	sum  string
	err  error
}

var (
	mu    sync.Mutex
	cache = map[string]*build{}
)

// For returns the embedded agent for linux/goarch and its sha256 in hex.
// Each build is read and hashed once per process.
func For(goarch string) (data []byte, sha256hex string, err error) {
	if !supported(goarch) {
		return nil, "", unsupported(goarch)
	}
	mu.Lock()
	defer mu.Unlock()
	b, ok := cache[goarch]
	if !ok {
		b = &build{}
		b.data, b.sum, b.err = load(dist, goarch)
		cache[goarch] = b
	}
	return b.data, b.sum, b.err
}

// load reads dist/hpcstorage-agent-linux-<goarch> from fsys.
func load(fsys fs.FS, goarch string) ([]byte, string, error) {
	if !supported(goarch) {
		return nil, "", unsupported(goarch)
	}
	data, err := fs.ReadFile(fsys, "dist/"+FileName(goarch))
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0):
		return nil, "", fmt.Errorf("agent for linux/%s: %w: build with make build, or set agent_path to a pre-installed agent", goarch, ErrNotBuilt)
	case err != nil:
		return nil, "", fmt.Errorf("agent for linux/%s: %w", goarch, err)
	}
	s := sha256.Sum256(data)
	return data, hex.EncodeToString(s[:]), nil
}

func supported(goarch string) bool {
	for _, a := range Arches {
		if a == goarch {
			return true
		}
	}
	return false
}

func unsupported(goarch string) error {
	return fmt.Errorf("agent for linux/%s: %w (supported: %s)", goarch, ErrUnknownArch, strings.Join(Arches, ", "))
}

// GOARCH maps the output of `uname -m` on a Linux node to the Go
// architecture of the agent it needs.
func GOARCH(unameM string) (string, error) {
	switch m := strings.TrimSpace(unameM); m {
	case "x86_64", "amd64":
		return "amd64", nil
	case "aarch64", "arm64":
		return "arm64", nil
	case "":
		return "", fmt.Errorf("node architecture: empty `uname -m` output: %w", ErrUnknownArch)
	default:
		return "", fmt.Errorf("node architecture %q: %w (the agent is built for x86_64 and aarch64 only)", m, ErrUnknownArch)
	}
}
