//go:build realnodes

package realnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// TestRealLabUpDown boots two nodes, reaches each over SSH with the host
// key from the lab's known_hosts, checks what makes each its own machine
// (systemd running, host name, address, own cgroup, the shared disk), and
// that Close leaves nothing on the host.
func TestRealLabUpDown(t *testing.T) {
	l := upLab(t, []string{"node1", "node2"}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hostKeys, err := knownhosts.New(filepath.Join(l.Dir, KnownHostsFile))
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(l.Dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range l.Nodes {
		c, err := ssh.Dial("tcp", n.Addr(), &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
			HostKeyCallback: hostKeys, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("%s: ssh with the lab's known_hosts: %v", n.Name, err)
		}
		for cmd, want := range map[string]string{
			"hostname":                               n.Name,
			"systemctl is-system-running":            "running",
			"ip -4 -o addr show host0":               n.IP + "/24",
			"test -b " + l.Loops[0] + " && echo dev": "dev",
			"getent hosts node1 node2":               "node2",
			"ps -o comm= -C sshd":                    "sshd",
		} {
			out, err := Run(ctx, c, cmd)
			if err != nil || !strings.Contains(out, want) {
				t.Errorf("%s: %s = %q (%v), want %q in it", n.Name, cmd, out, err, want)
			}
		}
		c.Close()
		// Its own cgroup on the host, not its neighbour's (inside, the
		// cgroup namespace shows /).
		if cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", n.InitPID())); err != nil || !strings.Contains(string(cg), "/"+n.Machine+"/") {
			t.Errorf("%s: host cgroup of its init = %q (%v), want %s", n.Name, cg, err, n.Machine)
		}
	}
	// A wrong host key is refused: the pin is real.
	other := l.Nodes[1]
	if _, err := ssh.Dial("tcp", l.Nodes[0].Addr(), &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(other.HostKey), Timeout: 10 * time.Second}); err == nil {
		t.Error("node1 accepted with node2's host key")
	}

	bridge, loop, mounts, cgroups := l.Bridge, l.Loops[0], []string{l.Nodes[0].Merged(), l.Nodes[1].Merged()}, l.res.Cgroups
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("measured: both nodes shut down and cleaned up in %s", time.Since(start).Round(100*time.Millisecond))
	if _, err := net.InterfaceByName(bridge); err == nil {
		t.Errorf("bridge %s still there", bridge)
	}
	if out, _ := exec.Command("losetup", "--list", "--noheadings", "-O", "NAME,BACK-FILE").Output(); strings.Contains(string(out), l.Dir) {
		t.Errorf("loop device %s still attached: %s", loop, out)
	}
	for _, m := range mounts {
		if left, _ := mountsUnder(m); len(left) > 0 {
			t.Errorf("still mounted: %v", left)
		}
	}
	for _, cg := range cgroups {
		if _, err := os.Stat(cg); err == nil {
			t.Errorf("cgroup %s still there", cg)
		}
	}
	for _, p := range []string{NodesDir, ResourcesFile} {
		if _, err := os.Stat(filepath.Join(l.Dir, p)); err == nil {
			t.Errorf("%s still there", p)
		}
	}
	if out, _ := exec.Command("pgrep", "-f", "systemd-nspawn.*"+l.Dir).Output(); len(out) > 0 {
		t.Errorf("systemd-nspawn still running: %s", out)
	}
}
