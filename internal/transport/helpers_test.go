package transport_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// The real agent, built once per test binary from ./agent (or taken from
// HPCSTORAGE_TEST_AGENT, e.g. bin/hpcstorage-agent).
var (
	agentBin  string
	agentData []byte
	agentSum  string
	agentErr  error
)

// keeperEnv makes this test binary a session keeper.
const keeperEnv = "HPCSTORAGE_TEST_KEEPER"

func TestMain(m *testing.M) {
	// This test binary is also the session keeper the keeper tests start
	// (as the provider binary is in production).
	if os.Getenv(keeperEnv) == "1" {
		buildAgent("")
		os.Exit(transport.RunKeeper(os.Stdin, os.Stdout, transport.PoolOptions{Agent: hostAgent}))
	}
	dir, err := os.MkdirTemp("", "transport-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildAgent(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildAgent(dir string) {
	agentBin = os.Getenv("HPCSTORAGE_TEST_AGENT")
	if agentBin == "" {
		agentBin = filepath.Join(dir, "hpcstorage-agent")
		// As make agent-dist builds it (stripped), so sizes match production.
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", agentBin, "./agent")
		cmd.Dir = moduleRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = fmt.Errorf("go build ./agent: %v\n%s", err, out)
			return
		}
	}
	agentData, agentErr = os.ReadFile(agentBin)
	if agentErr == nil {
		s := sha256.Sum256(agentData)
		agentSum = hex.EncodeToString(s[:])
	}
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// needAgent skips while ./agent does not build yet.
func needAgent(t testing.TB) {
	t.Helper()
	if agentErr != nil {
		testenv.Missing(t, "the agent does not build, so there is nothing to deliver: %v", agentErr)
	}
}

// hostAgent is an AgentSource serving the test-built agent for this
// machine's architecture only.
func hostAgent(goarch string) ([]byte, string, error) {
	if goarch != runtime.GOARCH {
		return nil, "", fmt.Errorf("test agent is built for %s only, node wants %s", runtime.GOARCH, goarch)
	}
	return agentData, agentSum, agentErr
}

// clientKey is an ed25519 key in OpenSSH PEM form.
type clientKey struct {
	signer ssh.Signer
	pem    string
}

var (
	keyOnce sync.Once
	theKey  clientKey
)

func testKey(t testing.TB) clientKey {
	t.Helper()
	keyOnce.Do(func() { theKey = newKey(t, "") })
	return theKey
}

func newKey(t testing.TB, passphrase string) clientKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var blk *pem.Block
	if passphrase == "" {
		blk, err = ssh.MarshalPrivateKey(priv, "test")
	} else {
		blk, err = ssh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return clientKey{signer: s, pem: string(pem.EncodeToMemory(blk))}
}

type labOpt func(*labnode.Config)

// startLab starts n lab nodes that accept testKey, stops them at cleanup,
// and fails the test if a node reported an error.
func startLab(t testing.TB, n int, opts ...labOpt) *labnode.Lab {
	t.Helper()
	cfg := labnode.Config{Nodes: n, Dir: t.TempDir(), ClientKeys: []ssh.PublicKey{testKey(t).signer.PublicKey()}, Simulator: simtest.Binary(t)}
	for _, o := range opts {
		o(&cfg)
	}
	lab, err := labnode.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		lab.Close()
		for err := range lab.Errors() {
			t.Errorf("lab node error: %v", err)
		}
	})
	return lab
}

// knownHosts writes the lab's known_hosts file.
func knownHosts(t testing.TB, lab *labnode.Lab) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	if err := lab.WriteKnownHosts(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// nodeOptions are Options for node n with key auth and known_hosts.
func nodeOptions(t testing.TB, n *labnode.Node, kh string) transport.Options {
	return transport.Options{
		Host: n.Host(), Port: n.Port(), User: "root",
		PrivateKey:      testKey(t).pem,
		KnownHostsFiles: []string{kh},
		DialTimeout:     5 * time.Second, HandshakeTimeout: 10 * time.Second, RunTimeout: 60 * time.Second,
	}
}

func newPool(t testing.TB, o transport.PoolOptions) *transport.Pool {
	t.Helper()
	if o.Agent == nil {
		o.Agent = hostAgent
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { t.Logf("warning: %s", msg) }
	}
	p := transport.NewPool(o)
	t.Cleanup(func() { p.Close() })
	return p
}

// spec is a small R1-like spec: two sysctls, THP and a managed file.
func spec(owner string) []byte {
	return []byte(`{"apiVersion":"hpcstorage/v1","owner":"` + owner + `","items":[
 {"sysctl":{"key":"vm.dirty_ratio","value":"20"}},
 {"sysctl":{"key":"vm.dirty_background_ratio","value":"5"}},
 {"thp":{"enabled":"never","defrag":"never"}},
 {"file":{"path":"/etc/hpcstorage-test.conf","content":"tuned = yes\n","mode":"0644"}}]}`)
}

func readNodeFile(t testing.TB, n *labnode.Node, p string) string {
	t.Helper()
	hp, err := n.HostFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(hp)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// countPrefix counts commands that start with prefix.
func countPrefix(cmds []string, prefix string) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// uploads counts the agent uploads a node took: files written over sftp
// and exec uploads.
func uploads(n *labnode.Node) int {
	return int(n.SFTPWrites()) + countPrefix(n.Commands(), "sh -c 'mkdir -p")
}

// serveCommand is the session command of a pool running as root for the
// test build: its agent's serve, or the wait for its delivery and then
// the serve, in one exec.
func serveCommand(agentPath string) string {
	return transport.ServeOrUploadCommand(agentPath, "serve", "--expect-sha256", agentSum)
}

// archProbes counts the probes run as commands: the full probe and the
// `uname -m` one (an architecture read over sftp is not a command).
func archProbes(cmds []string) int {
	return countPrefix(cmds, "sh -c 'uname -m") + countPrefix(cmds, transport.ArchCommand)
}

// runs counts the agent runs a node was asked for: execs, and requests
// over agent sessions.
func runs(n *labnode.Node) int64 {
	return n.Execs() + int64(len(n.ServeRequests()))
}

// replaceFile puts data at path by rename, as uploads do: an agent session
// of a pool just closed may still be running the old file (writing it in
// place would fail with "text file busy").
func replaceFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path+".replace", data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".replace", path); err != nil {
		t.Fatal(err)
	}
}
