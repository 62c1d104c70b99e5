package benchmark

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// localClients runs every client's command on this machine with the real
// tools, recording what ran; fail makes one client's k-th command fail.
type localClients struct {
	calls    [][][]string
	remounts int
	fail     map[int]int // client -> the call (counting from 1) that fails
	seen     map[int]int
}

func (l *localClients) Run(ctx context.Context, argv [][]string) []Output {
	l.calls = append(l.calls, argv)
	out := make([]Output, len(argv))
	for i, a := range argv {
		if a == nil {
			continue
		}
		l.seen[i]++
		if l.fail[i] == l.seen[i] {
			out[i] = Output{Out: "fio: out of space\n", Err: errors.New("exit status 1")}
			continue
		}
		b, err := exec.CommandContext(ctx, a[0], a[1:]...).CombinedOutput()
		out[i] = Output{Out: string(b), Err: err}
	}
	return out
}

func (l *localClients) Remount(context.Context) error { l.remounts++; return nil }

// TestSweepWithRealFio runs a two-client fio sweep (two thread counts,
// two repeats, a remount before each) with the real fio and checks the
// rounds, the repeats and what comes back; then a client that fails stops
// the sweep with a ClientError naming it.
func TestSweepWithRealFio(t *testing.T) {
	testenv.NeedTool(t, "fio", "fio")
	dir := t.TempDir()
	p := Params{Tool: Fio, Phases: []string{Write, Read}, Threads: []int{1, 2}, BlockSize: 64 << 10, FileSize: 1 << 20,
		IODepth: 1, Repeat: 2, Remount: true}
	if err := p.Validate(0); err != nil {
		t.Fatal(err)
	}
	c := &localClients{seen: map[int]int{}}
	s, err := Run(context.Background(), p, dir, []string{"c1", "c2"}, []string{"localhost", "localhost"}, c)
	if err != nil {
		t.Fatal(err)
	}
	// fio: one step per phase, one round per step (one invocation per
	// client): 2 thread counts × 2 phases × 2 repeats.
	if len(c.calls) != 8 || c.remounts != 8 {
		t.Fatalf("%d rounds and %d remounts, want 8 and 8", len(c.calls), c.remounts)
	}
	// One thread runs on the first client; two threads one on each, at
	// once.
	for k, round := range c.calls {
		if both := round[0] != nil && round[1] != nil; len(round) != 2 || round[0] == nil || both != (k >= 4) {
			t.Fatalf("round %d: %v", k, round)
		}
	}
	if len(s.Points) != 4 || s.Points[0].Threads != 1 || s.Points[0].Phase != Write || s.Points[3].Threads != 2 ||
		s.Points[3].Phase != Read {
		t.Fatalf("points %+v", s.Points)
	}
	for _, pt := range s.Points {
		if pt.BandwidthBps <= 0 || pt.IOPS <= 0 {
			t.Errorf("implausible point %+v", pt)
		}
	}
	// The commands list names each client's invocation once per step.
	if len(s.Commands) != 6 || !strings.HasPrefix(s.Commands[0], "c1: fio ") || !strings.HasPrefix(s.Commands[3], "c2: fio ") {
		t.Fatalf("commands %q", s.Commands)
	}

	c = &localClients{seen: map[int]int{}, fail: map[int]int{1: 1}}
	_, err = Run(context.Background(), p, t.TempDir(), []string{"c1", "c2"}, []string{"localhost", "localhost"}, c)
	var ce *ClientError
	if !errors.As(err, &ce) || ce.Client != 1 || ce.Stage != StageRun || ce.Threads != 2 || ce.Phases[0] != Write ||
		!strings.Contains(ce.Output, "out of space") {
		t.Fatalf("a failing client: %v", err)
	}
	if len(c.calls) != 5 {
		t.Fatalf("the sweep went on after a failed round: %d rounds", len(c.calls))
	}
}

// TestMeanOfRepeats: repeats are averaged per phase.
func TestMeanOfRepeats(t *testing.T) {
	runs := [][]Measurement{{{Phase: Read, BandwidthBps: 100, IOPS: 10}}, {{Phase: Read, BandwidthBps: 300, IOPS: 30}}}
	if m := MeanOf(runs, 0); m.Phase != Read || m.BandwidthBps != 200 || m.IOPS != 20 {
		t.Fatalf("%+v", m)
	}
	if q := ShellQuote([]string{"fio", "--name=a b", "it's"}); q != `fio '--name=a b' 'it'\''s'` {
		t.Fatalf("%s", q)
	}
}
