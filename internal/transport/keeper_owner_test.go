//go:build linux

package transport_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// ownerClientEnv makes TestKeeperOwnerClient a provider process: it
// reaches the node in these Options through a keeper and exits.
const ownerClientEnv = "HPCSTORAGE_TEST_KEEPER_CLIENT"

func TestKeeperOwnerClient(t *testing.T) {
	spec := os.Getenv(ownerClientEnv)
	if spec == "" {
		t.Skip("run by TestLabSessionKeeperEndsWithCommand")
	}
	var in struct {
		Options transport.Options
		Dir     string
	}
	if err := json.Unmarshal([]byte(spec), &in); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, transport.PoolOptions{Agent: hostAgent, Keeper: keeperConfig(in.Dir, 10*time.Minute)})
	if _, err := p.Facts(t.Context(), in.Options, ""); err != nil {
		t.Fatal(err)
	}
	if p.Dials() != 0 {
		t.Fatalf("%d dials in the client, want 0 (its keeper dials)", p.Dials())
	}
	p.Close()
}

// A keeper lives as long as the command that ran its clients (sh here,
// Terraform for provider processes), not a 10-minute idle time longer:
// after the client has gone it stays while that command runs, and is gone
// (socket and process) moments after the command ends.
func TestLabSessionKeeperEndsWithCommand(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	o := nodeOptions(t, lab.Nodes[0], knownHosts(t, lab))
	kdir := filepath.Join(t.TempDir(), "keepers")
	spec, err := json.Marshal(map[string]any{"Options": o, "Dir": kdir})
	if err != nil {
		t.Fatal(err)
	}
	others := keeperProcs(t, nil) // keepers of other runs, in their idle time
	// The client is sh's child (not exec'ed in its place: a command follows).
	cmd := exec.Command("sh", "-c", `"$0" -test.run='^TestKeeperOwnerClient$' >&2 && echo served && { read -r _ || :; }`, os.Args[0])
	cmd.Env = append(os.Environ(), ownerClientEnv+"="+string(spec), "HPCSTORAGE_TEST_AGENT="+agentBin)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "served" {
		t.Fatalf("client: %q, %v", line, err)
	}
	socks, _ := filepath.Glob(filepath.Join(kdir, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("keeper sockets while its command runs: %v, want one", socks)
	}
	// The keeper's own parent was the client, which has exited: find it by
	// its environment among this user's processes instead.
	keepers := keeperProcs(t, others)
	if len(keepers) != 1 {
		t.Fatalf("keepers while the command runs: %v, want one", keepers)
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(socks[0]); err != nil {
		t.Fatalf("keeper gone while its command still runs: %v", err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ended := time.Now()
	for {
		_, serr := os.Stat(socks[0])
		if os.IsNotExist(serr) && !procAlive(keepers[0]) {
			break
		}
		if time.Since(ended) > 5*time.Second {
			t.Fatalf("5 s after its command ended: socket %v, keeper %d alive %v", serr, keepers[0], procAlive(keepers[0]))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("keeper gone %v after its command", time.Since(ended).Round(time.Millisecond))
}

// keeperProcs: keeper processes of this test binary anywhere (not only
// this process's children), except old.
func keeperProcs(t *testing.T, old []int) []int {
	t.Helper()
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), keeperEnv+"=1\x00") || !strings.Contains(string(env), ownerClientEnv+"=") {
			continue
		}
		if pid, err := strconv.Atoi(e.Name()); err == nil && !slices.Contains(old, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procAlive: pid exists and is not a zombie.
func procAlive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
