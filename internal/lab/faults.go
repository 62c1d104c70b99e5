package lab

// Node faults from outside the lab process: a running lab listens on
// ControlSocket in its folder, and `hpcstorage-lab fault` (SetNodeFaults)
// gives one of its SSH nodes the dropped-connection faults of labnode.
// The socket is in the lab folder, so who may write there may set faults,
// as who may read lab.env may log in to the mocks.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
)

// ControlSocket is the running lab's control socket, in its folder.
const ControlSocket = "control.sock"

// NodeFaults are a lab node's dropped-connection faults, as they travel
// (labnode.Faults says what each does). The zero value clears them.
type NodeFaults struct {
	DropAfterBytes int64   `json:"drop_after_bytes,omitempty"`
	DropAtRequest  int     `json:"drop_at_request,omitempty"`
	DropRate       float64 `json:"drop_rate,omitempty"`
	// DropAt is before, while or after ("" the default).
	DropAt       string        `json:"drop_at,omitempty"`
	DropSeed     uint64        `json:"drop_seed,omitempty"`
	DropWhileMax time.Duration `json:"drop_while_max,omitempty"`
}

// faults checks f and turns it into the node's faults.
func (f NodeFaults) faults() (labnode.Faults, error) {
	out := labnode.Faults{DropAfterBytes: f.DropAfterBytes, DropAtRequest: f.DropAtRequest, DropRate: f.DropRate,
		DropSeed: f.DropSeed, DropWhileMax: f.DropWhileMax}
	switch {
	case f.DropAfterBytes < 0:
		return out, fmt.Errorf("drop_after_bytes %d is negative", f.DropAfterBytes)
	case f.DropAtRequest < 0:
		return out, fmt.Errorf("drop_at_request %d is negative", f.DropAtRequest)
	case f.DropRate < 0 || f.DropRate > 1:
		return out, fmt.Errorf("drop_rate %g is not a probability (0 to 1)", f.DropRate)
	case f.DropWhileMax < 0:
		return out, fmt.Errorf("drop_while_max %s is negative", f.DropWhileMax)
	}
	if f.DropAt != "" {
		p, err := labnode.ParseDropPoint(f.DropAt)
		if err != nil {
			return out, fmt.Errorf("drop_at: %w", err)
		}
		out.DropAt = p
	}
	return out, nil
}

// controlRequest sets one node's faults.
type controlRequest struct {
	Node   string     `json:"node"`
	Faults NodeFaults `json:"faults"`
}

// NodeFaultReport is what a node did since it started.
type NodeFaultReport struct {
	Node string `json:"node"`
	// Requests counts the requests since these faults were set (0 then).
	Requests int `json:"requests"`
	// Drops counts every connection the node cut.
	Drops int    `json:"drops"`
	Error string `json:"error,omitempty"`
}

// serveControl answers ControlSocket until the lab closes. A folder whose
// path is too long for a Unix socket has no control (SetNodeFaults says
// so).
func (l *Lab) serveControl(dir string) {
	ln, err := net.Listen("unix", filepath.Join(dir, ControlSocket))
	if err != nil {
		return
	}
	l.control = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.answerControl(c)
		}
	}()
}

func (l *Lab) answerControl(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	var req controlRequest
	var rep NodeFaultReport
	err := json.NewDecoder(c).Decode(&req)
	if err == nil {
		rep.Node = req.Node
		err = l.setNodeFaults(req.Node, req.Faults, &rep)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	_ = json.NewEncoder(c).Encode(rep)
}

func (l *Lab) setNodeFaults(name string, nf NodeFaults, rep *NodeFaultReport) error {
	f, err := nf.faults()
	if err != nil {
		return err
	}
	var names []string
	for _, n := range l.nodes.Nodes {
		if n.Name == name {
			n.SetFaults(f)
			rep.Requests, rep.Drops = n.Requests(), len(n.Drops())
			return nil
		}
		names = append(names, n.Name)
	}
	sort.Strings(names)
	return fmt.Errorf("no lab node %q (nodes: %s)", name, strings.Join(names, ", "))
}

// SetNodeFaults gives node of the lab running in dir the faults f (the
// zero value clears them) and reports what the node did so far.
func SetNodeFaults(dir, node string, f NodeFaults) (NodeFaultReport, error) {
	var rep NodeFaultReport
	if _, err := f.faults(); err != nil {
		return rep, err
	}
	if _, err := ReadState(dir); err != nil {
		return rep, err
	}
	c, err := net.DialTimeout("unix", filepath.Join(dir, ControlSocket), 5*time.Second)
	if err != nil {
		return rep, fmt.Errorf("the lab in %s does not answer on its control socket: %w", dir, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewEncoder(c).Encode(controlRequest{Node: node, Faults: f}); err != nil {
		return rep, err
	}
	if err := json.NewDecoder(c).Decode(&rep); err != nil {
		return rep, fmt.Errorf("lab control: %w", err)
	}
	if rep.Error != "" {
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}
