package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
)

// `fault` reaches a running lab over its control socket: the node it
// names drops the SSH connection of its next request, once; the next
// connection works; without a drop flag the faults are cleared. Bad input
// is refused naming the flag or the node.
func TestFaultCommand(t *testing.T) {
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fault := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"fault", "--dir", dir}, args...), &out, &errb)
		return out.String(), errb.String(), code
	}
	if out, errs, code := fault("--node", "stor1", "--drop-at-request", "1"); code != 0 || !strings.Contains(out, "stor1: faults set") {
		t.Fatalf("fault: exit %d\n%s%s", code, out, errs)
	}
	var stor1 *lab.NodeInfo
	for i := range l.State.Nodes {
		if l.State.Nodes[i].Name == "stor1" {
			stor1 = &l.State.Nodes[i]
		}
	}
	key, err := os.ReadFile(filepath.Join(dir, lab.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := knownhosts.New(filepath.Join(dir, lab.KnownHostsFile))
	if err != nil {
		t.Fatal(err)
	}
	exec := func() error {
		c, err := ssh.Dial("tcp", stor1.Host, &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: hk})
		if err != nil {
			return err
		}
		defer c.Close()
		s, err := c.NewSession()
		if err != nil {
			return err
		}
		defer s.Close()
		return s.Run("uname -m")
	}
	if err := exec(); err == nil {
		t.Fatal("the first command after drop-at-request 1 ran to its end")
	}
	if err := exec(); err != nil {
		t.Fatalf("the second command: %v", err)
	}
	out, errs, code := fault("--node", "stor1")
	if code != 0 || !strings.Contains(out, "stor1: faults cleared; 1 connections cut") {
		t.Errorf("clear: exit %d\n%s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--node", "stor9", "--drop-rate", "0.1"}, `no lab node "stor9" (nodes: meta1, meta2, mgmt, stor1, stor2)`},
		{[]string{"--node", "stor1", "--drop-rate", "1.5"}, "drop_rate 1.5 is not a probability"},
		{[]string{"--node", "stor1", "--drop-at", "later"}, `drop_at: "later" is not one of before, while, after`},
		{[]string{"--drop-rate", "0.1"}, "--dir and --node are required"},
	} {
		if _, errs, code := fault(tc.args...); code == 0 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.msg)
		}
	}
}
