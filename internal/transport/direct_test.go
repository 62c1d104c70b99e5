package transport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// Single-exec runs on new connections: a node whose agent is already the
// provider's build costs one SSH exec per call, even for a new process.

// warmNodes delivers the agent to every node of lab with a throwaway pool.
func warmNodes(t *testing.T, lab *labnode.Lab, kh string) {
	t.Helper()
	p := newPool(t, transport.PoolOptions{})
	defer p.Close()
	for _, n := range lab.Nodes {
		if _, err := p.Apply(t.Context(), nodeOptions(t, n, kh), transport.Request{Spec: spec("warm"), Check: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// With agent sessions (the default) the exec is the session's and the
// same connection takes further calls without any; with ExecPerCall every
// call is one exec.
func TestWarmNodeOneExecPerRun(t *testing.T) {
	needAgent(t)
	for _, mode := range []struct {
		name      string
		execOnly  bool
		reuseCost int64 // execs of a second call on the same connection
	}{{"session", false, 0}, {"exec per call", true, 1}} {
		t.Run(mode.name, func(t *testing.T) { warmNodeOneExec(t, mode.execOnly, mode.reuseCost) })
	}
}

func warmNodeOneExec(t *testing.T, execOnly bool, reuseCost int64) {
	lab := startLab(t, 3)
	kh := knownHosts(t, lab)
	warmNodes(t, lab, kh)
	before := make([]int64, len(lab.Nodes))
	for i, n := range lab.Nodes {
		before[i] = n.Execs()
	}
	word := " "
	// A new pool (a new provider process): check, apply, no-op apply,
	// facts and remove, each on a new connection.
	for round := range 5 {
		p := newPool(t, transport.PoolOptions{ExecPerCall: execOnly})
		for i, n := range lab.Nodes {
			o := nodeOptions(t, n, kh)
			var err error
			var r *transport.Response
			switch round {
			case 0:
				r, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("direct"), Check: true, Diff: true})
			case 1, 2:
				r, err = p.Apply(t.Context(), o, transport.Request{Spec: spec("direct")})
			case 3:
				_, err = p.Facts(t.Context(), o, "")
			case 4:
				r, err = p.Remove(t.Context(), o, "direct", false, "")
			}
			if err != nil {
				t.Fatalf("round %d %s: %v", round, n.Name, err)
			}
			if r != nil && r.Delivered {
				t.Errorf("round %d %s: delivered again", round, n.Name)
			}
			if round == 2 && r.Result.Changed {
				t.Errorf("%s: no-op apply changed %+v", n.Name, r.Result.Items)
			}
			if got := n.Execs() - before[i]; got != 1 {
				t.Errorf("round %d %s: %d execs, want exactly 1: %q", round, n.Name, got, n.Commands()[before[i]:])
			}
			cmds := n.Commands()
			last := cmds[len(cmds)-1]
			if execOnly && (!strings.HasPrefix(last, transport.DefaultAgentPath+word) || !strings.HasSuffix(last, " --expect-sha256 "+agentSum)) ||
				!execOnly && last != serveCommand(transport.DefaultAgentPath) {
				t.Errorf("round %d %s: command %q, want the agent run with --expect-sha256 of the build", round, n.Name, last)
			}
			before[i] = n.Execs()
		}
		// The same connection again: still one exec, no probe.
		n := lab.Nodes[0]
		if _, err := p.Facts(t.Context(), nodeOptions(t, n, kh), ""); err != nil {
			t.Fatal(err)
		}
		if got := n.Execs() - before[0]; got != reuseCost || p.Dials() != int64(len(lab.Nodes)) {
			t.Errorf("round %d: reused connection cost %d execs, %d dials", round, got, p.Dials())
		}
		before[0] = n.Execs()
		p.Close()
	}
	if got := readNodeFile(t, lab.Nodes[0], "/proc/sys/vm/dirty_ratio"); got != "40" {
		t.Errorf("after remove vm.dirty_ratio = %q, want 40", got)
	}
	for _, n := range lab.Nodes {
		if uploads(n) != 1 || n.SFTPSessions() != 1 || archProbes(n.Commands()) != 0 {
			t.Errorf("%s: %d uploads, %d sftp sessions and %d probe commands; want only the first delivery's session",
				n.Name, uploads(n), n.SFTPSessions(), archProbes(n.Commands()))
		}
	}
}

// An older build on the node: the single-exec run exits 3 (another build)
// and the node gets the provider's build. An agent too old to know
// --expect-sha256 is replaced as well.
func TestOldAgentRedelivered(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 1)
	n := lab.Nodes[0]
	kh := knownHosts(t, lab)
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	if err := os.MkdirAll(filepath.Dir(hp), 0o755); err != nil {
		t.Fatal(err)
	}
	olds := map[string][]byte{
		// A real agent of another build: runs, checks its sha, exits 3.
		"other build": append(append([]byte{}, agentData...), []byte("\x00older build")...),
		// What an agent without --expect-sha256 answers.
		"no flag": []byte("#!/bin/sh\necho 'flag provided but not defined: -expect-sha256' >&2\necho 'hpcstorage-agent apply: usage: flag provided but not defined: -expect-sha256' >&2\nexit 1\n"),
		// What an agent from before sessions answers to serve.
		"no serve": []byte("#!/bin/sh\necho 'hpcstorage-agent serve: usage: unknown command \"serve\"' >&2\nexit 1\n"),
	}
	for name, old := range olds {
		t.Run(name, func(t *testing.T) {
			// Replaced as an upload does (rename): the previous subtest's
			// agent session may still be running the file.
			if err := os.WriteFile(hp+".new", old, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(hp+".new", hp); err != nil {
				t.Fatal(err)
			}
			c0 := len(n.Commands())
			p := newPool(t, transport.PoolOptions{})
			r, err := p.Apply(t.Context(), nodeOptions(t, n, kh), transport.Request{Spec: spec("old"), Check: true})
			if err != nil || !r.Delivered || r.Result == nil {
				t.Fatalf("err=%v response=%+v", err, r)
			}
			if b, _ := os.ReadFile(hp); !bytes.Equal(b, agentData) {
				t.Fatal("node copy is not the provider's build")
			}
			cmds := n.Commands()[c0:]
			if len(cmds) != 3 || !strings.Contains(cmds[0], "--expect-sha256 "+agentSum) || cmds[1] != labnode.SFTPCommand ||
				!strings.HasPrefix(cmds[2], transport.DefaultAgentPath+" serve") || !strings.HasSuffix(cmds[2], "--expect-sha256 "+agentSum) {
				t.Errorf("commands %q, want the session start, sftp (architecture and upload), the session verifying the build", cmds)
			}
		})
	}
}

// No agent at all: the session's own exec asks for it and waits while it
// arrives over sftp; the new agent installs itself and serves: one exec,
// one program (sh, which becomes the agent), one connection. With
// ExecPerCall (no session): 127, then the architecture and the upload in
// one sftp session, and the run.
func TestMissingAgentDelivered(t *testing.T) {
	needAgent(t)
	for _, execOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("exec per call=%v", execOnly), func(t *testing.T) {
			lab := startLab(t, 1)
			n := lab.Nodes[0]
			p := newPool(t, transport.PoolOptions{ExecPerCall: execOnly})
			r, err := p.Apply(t.Context(), nodeOptions(t, n, knownHosts(t, lab)), transport.Request{Spec: spec("missing")})
			if err != nil || !r.Delivered || !r.Result.Changed {
				t.Fatalf("err=%v response=%+v", err, r)
			}
			hp, _ := n.HostFile(transport.DefaultAgentPath)
			if b, _ := os.ReadFile(hp); !bytes.Equal(b, agentData) {
				t.Fatal("node copy is not the provider's build")
			}
			if _, err := os.Stat(hp + transport.UploadTempSuffix); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the upload's temp file is still there: %v", err)
			}
			cmds := n.Commands()
			switch {
			case execOnly:
				if len(cmds) != 3 || cmds[1] != labnode.SFTPCommand || uploads(n) != 1 || archProbes(cmds) != 0 || p.Dials() != 1 {
					t.Errorf("commands %q, dials %d; want single-exec run, sftp, run on one connection", cmds, p.Dials())
				}
			case len(cmds) != 2 || cmds[0] != serveCommand(transport.DefaultAgentPath) || cmds[1] != labnode.SFTPCommand || uploads(n) != 1 ||
				n.Execs() != 1 || n.Processes() != 1 || n.AgentStarts() != 1 || p.Dials() != 1:
				t.Errorf("commands %q, %d uploads, %d execs, %d programs, %d agent processes, dials %d; want the session's exec and sftp, one upload, 1 exec, 1 program, 1 agent, 1 dial",
					cmds, uploads(n), n.Execs(), n.Processes(), n.AgentStarts(), p.Dials())
			}
		})
	}
}

// arm64Build is the test agent relabelled as an aarch64 ELF: the lab's
// "aarch64" node accepts it as its architecture (it cannot run it here).
func arm64Build() ([]byte, string) {
	b := append([]byte{}, agentData...)
	binary.LittleEndian.PutUint16(b[18:20], 183) // e_machine = EM_AARCH64
	s := sha256.Sum256(b)
	return b, hex.EncodeToString(s[:])
}

// An aarch64 node: the single-exec run of the amd64 build fails (missing,
// or the amd64 copy: exec format error), the probe sees aarch64, and the
// arm64 build is shipped and verified. The pool then expects arm64 on a
// new connection to that host.
func TestArm64NodeGetsArm64Build(t *testing.T) {
	needAgent(t)
	arm, armSum := arm64Build()
	source := func(goarch string) ([]byte, string, error) {
		switch goarch {
		case "amd64":
			return agentData, agentSum, nil
		case "arm64":
			return arm, armSum, nil
		}
		return nil, "", fmt.Errorf("no build for %s", goarch)
	}
	for _, seeded := range []bool{false, true} {
		t.Run(fmt.Sprintf("amd64 copy on node=%v", seeded), func(t *testing.T) {
			lab := startLab(t, 1, func(c *labnode.Config) { c.Arch = "aarch64" })
			n := lab.Nodes[0]
			hp, _ := n.HostFile(transport.DefaultAgentPath)
			if seeded {
				if err := os.MkdirAll(filepath.Dir(hp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(hp, agentData, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			o := nodeOptions(t, n, knownHosts(t, lab))
			p := newPool(t, transport.PoolOptions{Agent: source})
			_, err := p.Apply(t.Context(), o, transport.Request{Spec: spec("arm"), Check: true})
			// Delivered and verified; running it is beyond this machine.
			if b, _ := os.ReadFile(hp); !bytes.Equal(b, arm) {
				t.Fatalf("node does not have the arm64 build (apply err: %v)", err)
			}
			var se *transport.StepError
			if !errors.As(err, &se) || se.Step != transport.StepRun || se.ExitStatus != 126 || !strings.Contains(se.Stderr, "aarch64") {
				t.Fatalf("err = %v, want the lab's 126 at step run", err)
			}
			// The session's exec guesses amd64: on a node without the
			// agent it gets that build, which cannot run there (nor is it
			// installed), and the probe that follows gets the arm64 one.
			cmds := n.Commands()
			wantUploads := 2
			if seeded {
				wantUploads = 1
			}
			if cmds[0] != serveCommand(transport.DefaultAgentPath) || uploads(n) != wantUploads {
				t.Errorf("commands %q, %d uploads: want the amd64 session start first and %d uploads", cmds, uploads(n), wantUploads)
			}
			if _, err := os.Stat(hp + transport.UploadTempSuffix); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the amd64 upload's temp file is left: %v", err)
			}
			// The upload answered with the arm64 checksum (verification).
			// A new connection in the same pool expects arm64 now.
			n.DropConnections()
			c0 := len(n.Commands())
			_, _ = p.Apply(t.Context(), o, transport.Request{Spec: spec("arm"), Check: true})
			cmds = n.Commands()[c0:]
			if len(cmds) == 0 || !strings.Contains(cmds[0], " --expect-sha256 "+armSum) || uploads(n) != wantUploads {
				t.Errorf("after reconnect: commands %q, want the arm64 build's checksum first and no upload", cmds)
			}
		})
	}
}

// Off the session's own delivery (here: exec per call; also sudo users),
// without sftp the agent travels gzip-compressed in an exec upload; a node
// without gzip gets it plain.
func TestUploadCompressedOrPlain(t *testing.T) {
	needAgent(t)
	lab := startLab(t, 2)
	kh := knownHosts(t, lab)
	lab.Nodes[0].SetFaults(labnode.Faults{NoSFTP: true})
	lab.Nodes[1].SetFaults(labnode.Faults{NoSFTP: true, NoGzip: true})
	p := newPool(t, transport.PoolOptions{ExecPerCall: true})
	for i, n := range lab.Nodes {
		r, err := p.Apply(t.Context(), nodeOptions(t, n, kh), transport.Request{Spec: spec("gz"), Check: true})
		if err != nil || !r.Delivered {
			t.Fatalf("%s: err=%v", n.Name, err)
		}
		hp, _ := n.HostFile(transport.DefaultAgentPath)
		if b, _ := os.ReadFile(hp); !bytes.Equal(b, agentData) {
			t.Fatalf("%s: delivered agent differs from the build", n.Name)
		}
		cmds := n.Commands()
		gz, plain := 0, 0
		for _, c := range cmds {
			if strings.HasPrefix(c, "sh -c 'mkdir -p") {
				if strings.Contains(c, "gzip -dc > ") {
					gz++
				} else {
					plain++
				}
			}
		}
		if want := [2][2]int{{1, 0}, {1, 1}}[i]; gz != want[0] || plain != want[1] {
			t.Errorf("%s: %d gzip and %d plain uploads, want %v: %q", n.Name, gz, plain, want, cmds)
		}
	}
	// The pool remembers: the next delivery to the gzip-less host is plain
	// straight away.
	n := lab.Nodes[1]
	hp, _ := n.HostFile(transport.DefaultAgentPath)
	if err := os.Remove(hp); err != nil {
		t.Fatal(err)
	}
	c0 := len(n.Commands())
	if _, err := p.Apply(t.Context(), nodeOptions(t, n, kh), transport.Request{Spec: spec("gz"), Check: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range n.Commands()[c0:] {
		if strings.Contains(c, "gzip") {
			t.Errorf("gzip tried again on a node without it: %q", c)
		}
	}
}
