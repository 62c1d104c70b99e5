package lab

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// ReadState reads Dir/lab.json. It wraps ErrNotRunning when the file is
// missing.
func ReadState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (no %s)", ErrNotRunning, dir, StateFile)
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, StateFile), err)
	}
	return &st, nil
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// zombie: pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// Down stops the lab running in dir: SIGTERM to its process, then waits
// until it has exited (and removed its state file) or timeout passes.
func Down(dir string, timeout time.Duration) error {
	st, err := ReadState(dir)
	if err != nil {
		return err
	}
	if !processAlive(st.PID) {
		_ = os.Remove(filepath.Join(dir, StateFile))
		return fmt.Errorf("%w in %s (pid %d is gone; removed the stale %s)", ErrNotRunning, dir, st.PID, StateFile)
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop lab pid %d: %w", st.PID, err)
	}
	// Until the process is gone, not just its state file (it removes that
	// before it exits): a script that counts processes right after down
	// finds none. A child of the caller stays a zombie until reaped.
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !processAlive(st.PID) || zombie(st.PID) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("lab pid %d still running %s after SIGTERM", st.PID, timeout)
}

// NodeStatus is what one node has configured, read from its root.
type NodeStatus struct {
	Name     string
	Role     string
	Host     string
	Owners   []string // agent owners with state
	Disks    []string // cabled array volumes: "sdb wwn-0x... 80.0TB hdd"
	Mounts   []string // "path fstype device"
	Services []string // active or enabled simulated units
	Formats  []string // recorded mkfs commands, argv joined
}

// ReadStatus reads every node root of the lab in dir.
func ReadStatus(dir string) (*State, []NodeStatus, error) {
	st, err := ReadState(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []NodeStatus
	for _, n := range st.Nodes {
		ns, err := readNode(n)
		if err != nil {
			return st, nil, err
		}
		out = append(out, ns)
	}
	return st, out, nil
}

func readNode(n NodeInfo) (NodeStatus, error) {
	ns := NodeStatus{Name: n.Name, Role: n.Role, Host: n.Host}
	owners, _ := filepath.Glob(filepath.Join(n.Root, "var/lib/hpcstorage-agent/owners/*.json"))
	for _, o := range owners {
		// An owner that was removed keeps an empty state file.
		var st struct {
			Claims []string `json:"claims"`
		}
		if b, err := os.ReadFile(o); err == nil && json.Unmarshal(b, &st) == nil && len(st.Claims) > 0 {
			ns.Owners = append(ns.Owners, strings.TrimSuffix(filepath.Base(o), ".json"))
		}
	}
	byID, _ := os.ReadDir(filepath.Join(n.Root, "dev/disk/by-id"))
	for _, e := range byID {
		if !strings.HasPrefix(e.Name(), "wwn-") {
			continue
		}
		target, err := os.Readlink(filepath.Join(n.Root, "dev/disk/by-id", e.Name()))
		if err != nil {
			continue
		}
		dev := filepath.Base(target)
		// Only array volumes (the lab cables them with the array's model),
		// not the node's own system disk.
		if m, _ := os.ReadFile(filepath.Join(n.Root, "sys/block", dev, "device/model")); !strings.HasPrefix(string(m), "ME") && !strings.HasPrefix(string(m), "EF") {
			continue
		}
		size := readInt(filepath.Join(n.Root, "sys/block", dev, "size")) * 512
		kind := "ssd"
		if readInt(filepath.Join(n.Root, "sys/block", dev, "queue/rotational")) == 1 {
			kind = "hdd"
		}
		ns.Disks = append(ns.Disks, fmt.Sprintf("%s %s %.1fTB %s", dev, e.Name(), float64(size)/1e12, kind))
	}
	sort.Strings(ns.Disks)
	if f, err := os.Open(filepath.Join(n.Root, "proc/mounts")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 3 && (strings.HasPrefix(fields[0], "/dev/sd") && fields[1] != "/" && !strings.HasPrefix(fields[1], "/boot") || fields[2] == "beegfs") {
				ns.Mounts = append(ns.Mounts, fields[1]+" "+fields[2]+" "+fields[0])
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile(filepath.Join(n.Root, "run/hpcstorage-sim/systemd.json")); err == nil {
		var sd struct {
			Units map[string]struct{ Enabled, Active bool } `json:"units"`
		}
		if json.Unmarshal(b, &sd) == nil {
			for u, s := range sd.Units {
				if s.Active || s.Enabled {
					state := "active"
					if !s.Active {
						state = "enabled"
					}
					ns.Services = append(ns.Services, u+" ("+state+")")
				}
			}
			sort.Strings(ns.Services)
		}
	}
	if f, err := os.Open(filepath.Join(n.Root, "var/lib/hpcstorage-agent/commands.log")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			var e struct {
				Argv []string `json:"argv"`
			}
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				if m := MkfsArgv(e.Argv); m != nil {
					ns.Formats = append(ns.Formats, strings.Join(m, " "))
				}
			}
		}
		f.Close()
	}
	return ns, nil
}

// MkfsArgv returns the mkfs part of a recorded command: argv itself when it
// runs mkfs.*, or the mkfs argv a format guard wraps (see
// internal/beegfs.FormatCommand), else nil.
func MkfsArgv(argv []string) []string {
	for i, a := range argv {
		if strings.HasPrefix(filepath.Base(a), "mkfs.") {
			if i == 0 || len(argv) > 2 && filepath.Base(argv[0]) == "sh" {
				return argv[i:]
			}
		}
	}
	return nil
}

func readInt(p string) int64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	var v int64
	fmt.Sscan(strings.TrimSpace(string(b)), &v)
	return v
}

// WriteBrief prints one line per node.
func WriteBrief(dir string, w io.Writer) error {
	st, nodes, err := ReadStatus(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "lab %s: %d nodes, %d endpoints\n", st.Design, len(st.Nodes), len(st.Endpoints))
	for _, n := range nodes {
		var units []string
		for _, s := range n.Services {
			if strings.HasPrefix(s, "beegfs") {
				units = append(units, strings.TrimSuffix(strings.Fields(s)[0], ".service"))
			}
		}
		fmt.Fprintf(w, "  %-9s %-10s volumes %2d  formatted %2d  mounted %2d  owners %d  units: %s\n", n.Name, n.Role, len(n.Disks),
			len(n.Formats), len(n.Mounts), len(n.Owners), summarizeUnits(units))
	}
	return nil
}

// summarizeUnits folds template instances: beegfs-meta@ x6.
func summarizeUnits(units []string) string {
	if len(units) == 0 {
		return "none"
	}
	count := map[string]int{}
	var order []string
	for _, u := range units {
		k := u
		if i := strings.Index(u, "@"); i > 0 {
			k = u[:i+1]
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var out []string
	for _, k := range order {
		if strings.HasSuffix(k, "@") {
			out = append(out, fmt.Sprintf("%s x%d", k, count[k]))
		} else {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// WriteStatus prints, per node, what is configured.
func WriteStatus(dir string, w io.Writer) error {
	st, nodes, err := ReadStatus(dir)
	if err != nil {
		return err
	}
	state := "running"
	if !processAlive(st.PID) {
		state = "not running (stale state)"
	}
	fmt.Fprintf(w, "lab %s in %s: pid %d %s, %d nodes, %d endpoints\n", st.Design, st.Dir, st.PID, state, len(st.Nodes), len(st.Endpoints))
	for _, n := range nodes {
		fmt.Fprintf(w, "\n%s (%s) %s\n", n.Name, n.Role, n.Host)
		fmt.Fprintf(w, "  owners:   %s\n", listOrNone(n.Owners))
		fmt.Fprintf(w, "  volumes:  %d cabled\n", len(n.Disks))
		for _, d := range n.Disks {
			fmt.Fprintf(w, "    %s\n", d)
		}
		fmt.Fprintf(w, "  formats:  %d recorded\n", len(n.Formats))
		fmt.Fprintf(w, "  mounts:   %d\n", len(n.Mounts))
		for _, m := range n.Mounts {
			fmt.Fprintf(w, "    %s\n", m)
		}
		fmt.Fprintf(w, "  services: %s\n", listOrNone(n.Services))
	}
	return nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
