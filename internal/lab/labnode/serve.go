package labnode

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// serveProxy stands between the SSH channel and a running
// `hpcstorage-agent serve`: it rewrites each request's --root into the
// node folder (the agent runs on this machine, not in the node), and plays
// the node's faults per request instead of per process: RunDelay holds
// each request, DropAfter cuts the connection when a request has not been
// answered in time.
type serveProxy struct {
	s      *session
	stdout io.Writer

	inR, inW   *os.File // agent stdin
	outR, outW *os.File // agent stdout
	err        error

	wmu     sync.Mutex // frames to the channel
	mu      sync.Mutex
	timers  map[uint64]*time.Timer
	active  map[uint64]func()        // requests in flight, for MaxActive
	holding map[uint64]chan struct{} // requests held by RunDelay; closed to cancel
	drops   map[uint64]func() bool   // requests with a drop fault armed (drop.go)
	outDone chan struct{}
}

func newServeProxy(s *session, cmd *exec.Cmd, stdout io.Writer) *serveProxy {
	px := &serveProxy{s: s, stdout: stdout, timers: map[uint64]*time.Timer{}, active: map[uint64]func(){}, holding: map[uint64]chan struct{}{}, drops: map[uint64]func() bool{}, outDone: make(chan struct{})}
	px.inR, px.inW, px.err = os.Pipe()
	if px.err == nil {
		px.outR, px.outW, px.err = os.Pipe()
	}
	if px.err == nil {
		cmd.Stdin, cmd.Stdout = px.inR, px.outW
	}
	return px
}

// abort releases the pipes of an agent that did not start.
func (px *serveProxy) abort() {
	for _, f := range []*os.File{px.inR, px.inW, px.outR, px.outW} {
		if f != nil {
			f.Close()
		}
	}
}

// start runs the two copy loops once the agent runs; kill stops it.
func (px *serveProxy) start(kill func()) {
	px.inR.Close()
	px.outW.Close()
	if px.s.release != nil {
		px.s.release()
	}
	go px.requests(kill)
	go px.responses()
}

// wait returns once the agent's last answer is on the channel.
func (px *serveProxy) wait() {
	<-px.outDone
	px.outR.Close()
}

func (px *serveProxy) writeOut(body []byte) error {
	px.wmu.Lock()
	defer px.wmu.Unlock()
	var hdr [4]byte
	n := len(body)
	hdr[0], hdr[1], hdr[2], hdr[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	_, err := px.stdout.Write(append(hdr[:], body...))
	return err
}

func (px *serveProxy) requests(kill func()) {
	var inMu sync.Mutex // whole frames to the agent
	var held sync.WaitGroup
	defer func() {
		held.Wait()
		px.inW.Close()
	}()
	forward := func(req protocol.ServeRequest) error {
		inMu.Lock()
		defer inMu.Unlock()
		return protocol.WriteFrame(px.inW, req)
	}
	n := px.s.node
	for {
		var req protocol.ServeRequest
		if err := protocol.ReadFrame(px.s.stdin, &req); err != nil {
			return
		}
		if !req.Cancel {
			what := strings.Join(req.Args, " ")
			n.recordRequest(req.Args)
			args, err := n.mapRootArgs(req.Args)
			if err != nil {
				b, _ := json.Marshal(protocol.ServeResponse{ID: req.ID, Exit: protocol.ExitUsage, Stderr: []byte(fmt.Sprintf("lab node: %v\n", err))})
				_ = px.writeOut(b)
				continue
			}
			req.Args = args
			if px.s.drop != nil {
				// The connection goes first, as in a network cut: the
				// agent's end cannot reach the client.
				run, end := n.armDrop(n.planDrop(what), what, func() { px.s.drop(); kill() })
				if !run {
					return
				}
				px.mu.Lock()
				px.drops[req.ID] = end
				px.mu.Unlock()
			}
			f := n.Faults()
			px.mu.Lock()
			px.active[req.ID] = n.enter()
			px.mu.Unlock()
			if d := f.DropAfter; d > 0 && px.s.drop != nil {
				px.mu.Lock()
				px.timers[req.ID] = time.AfterFunc(d, func() {
					px.mu.Lock()
					_, open := px.timers[req.ID]
					px.mu.Unlock()
					if open {
						kill()
						px.s.drop()
					}
				})
				px.mu.Unlock()
			}
		}
		if req.Cancel {
			// A request still held here never reached the agent: it ends
			// as the agent would end it, canceled.
			px.mu.Lock()
			ch, ok := px.holding[req.ID]
			delete(px.holding, req.ID)
			px.mu.Unlock()
			if ok {
				close(ch)
				continue
			}
		}
		if d := n.Faults().RunDelay; d > 0 && !req.Cancel {
			// Held on its own: the other requests go on meanwhile.
			ch := make(chan struct{})
			px.mu.Lock()
			px.holding[req.ID] = ch
			px.mu.Unlock()
			held.Add(1)
			go func() {
				defer held.Done()
				select {
				case <-time.After(d):
					px.mu.Lock()
					_, still := px.holding[req.ID]
					delete(px.holding, req.ID)
					px.mu.Unlock()
					if still {
						_ = forward(req)
					}
				case <-ch:
					b, _ := json.Marshal(protocol.ServeResponse{ID: req.ID, Exit: protocol.ExitUsage,
						Stderr: []byte(fmt.Sprintf("hpcstorage-agent %v: context canceled\n", req.Args))})
					px.answered(req.ID)
					_ = px.writeOut(b)
				case <-px.s.ctx.Done():
				}
			}()
			continue
		}
		if err := forward(req); err != nil {
			return
		}
	}
}

func (px *serveProxy) responses() {
	defer close(px.outDone)
	defer func() {
		px.mu.Lock()
		for id, done := range px.active {
			done()
			delete(px.active, id)
		}
		px.mu.Unlock()
	}()
	for {
		body, err := protocol.ReadFrameBytes(px.outR)
		if err != nil {
			return
		}
		var r struct {
			ID uint64 `json:"id"`
		}
		if json.Unmarshal(body, &r) == nil && r.ID != 0 && px.answered(r.ID) {
			continue // a drop fault cut the connection instead of this answer
		}
		if err := px.writeOut(body); err != nil {
			return
		}
	}
}

// answered stops the faults and gauges of a request that has its answer.
// It reports a drop fault that cut the connection instead of the answer.
func (px *serveProxy) answered(id uint64) bool {
	px.mu.Lock()
	if t, ok := px.timers[id]; ok {
		t.Stop()
		delete(px.timers, id)
	}
	if done, ok := px.active[id]; ok {
		done()
		delete(px.active, id)
	}
	end := px.drops[id]
	delete(px.drops, id)
	px.mu.Unlock()
	return end != nil && end()
}

// recordRequest keeps a served request's command line for ServeRequests.
func (n *Node) recordRequest(args []string) {
	n.mu.Lock()
	n.requests = append(n.requests, strings.Join(args, " "))
	n.mu.Unlock()
}

// ServeRequests returns the command lines the node's agent sessions
// answered, in order (an exec runs one command; a session many).
func (n *Node) ServeRequests() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.requests...)
}

// AgentStarts counts agent processes started on the node: one per
// exec-per-call run, one per session.
func (n *Node) AgentStarts() int64 { return n.agentStarts.Load() }

// Processes counts the programs the node ran: agent processes, and sh,
// sudo and the coreutils of the probe and upload commands (shell builtins
// such as echo and exit are not processes; the login shell that sshd
// wraps around an exec replaces itself with the command and is not counted
// either, nor is an agent that an sh's exec builtin starts: it is that sh).
func (n *Node) Processes() int64 { return n.procs.Load() + n.agentStarts.Load() }

// AgentCPU is the CPU time (user and system) of the node's agent processes
// that have ended.
func (n *Node) AgentCPU() time.Duration { return time.Duration(n.agentCPU.Load()) }

// AgentsRunning is how many agent processes run on the node now.
func (n *Node) AgentsRunning() int64 { return n.agentStarts.Load() - n.agentEnds.Load() }
