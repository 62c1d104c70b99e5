// Package runner is the one door through which the agent runs external
// commands (systemctl, udevadm, modprobe, mount, mkfs, command items).
//
// On a real node (root "/") Exec runs them. Under any other root Sim never
// executes anything: it appends the argv as a JSON line to a log in the
// agent's state folder and simulates the effect of the few commands whose
// result the agent reads back (proc/modules, proc/mounts, a small systemd
// unit-state file), so a fake root converges and a second apply is a no-op.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// ErrCommand wraps every failed command.
var ErrCommand = errors.New("command failed")

// Runner runs commands. Run is for commands that change the system; Query
// for read-only ones (systemctl is-active, unless guards) and returns the
// exit status instead of failing on a non-zero one.
type Runner interface {
	Run(ctx context.Context, argv ...string) error
	Query(ctx context.Context, argv ...string) (stdout string, exit int, err error)
}

// Quote renders argv the way a shell would accept it, for messages and logs.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@+%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Exec runs commands on the host.
type Exec struct{}

// Run runs argv and fails with its stderr when it exits non-zero.
func (Exec) Run(ctx context.Context, argv ...string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: empty argv", ErrCommand)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s: %v: %s", ErrCommand, Quote(argv), err, tail(out.String()))
	}
	return nil
}

// Query runs a read-only command and returns stdout and the exit status.
func (Exec) Query(ctx context.Context, argv ...string) (string, int, error) {
	if len(argv) == 0 {
		return "", 0, fmt.Errorf("%w: empty argv", ErrCommand)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return "", -1, fmt.Errorf("%w: %s: %v", ErrCommand, Quote(argv), err)
	}
	return out.String(), 0, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// LogPath is the simulated-command log, relative to the root's state folder.
const LogPath = "/" + protocol.StateDir + "/commands.log"

// SystemdPath is the simulated systemd state (volatile, like /run).
const SystemdPath = "/run/hpcstorage-sim/systemd.json"

// Unit directories searched for unit files, as systemd does.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

// Sim records and simulates commands for a fake root.
type Sim struct {
	Root *fsroot.Root
}

// LogEntry is one line of the simulated-command log.
type LogEntry struct {
	Argv []string `json:"argv"`
}

// Run logs argv and applies its simulated effect.
func (s Sim) Run(_ context.Context, argv ...string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: empty argv", ErrCommand)
	}
	if err := s.log(argv); err != nil {
		return err
	}
	var err error
	cmd := argv
	if w := wrapped(argv); w != nil {
		cmd = w
	}
	switch path.Base(cmd[0]) {
	case "beegfs-ctl":
		err = s.beegfsCtl(cmd[1:])
	case "wipefs":
		err = s.wipefs(argv[1:])
	case "modprobe":
		err = s.modprobe(argv[1:])
	case "mount":
		err = s.mount(argv[1:])
	case "umount":
		err = s.umount(argv[1:])
	case "systemctl":
		err = s.systemctl(argv[1:])
	default:
		if strings.HasPrefix(path.Base(cmd[0]), "mkfs.") {
			err = s.mkfs(strings.TrimPrefix(path.Base(cmd[0]), "mkfs."), cmd[1:])
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %s (simulated): %w", ErrCommand, Quote(argv), err)
	}
	return nil
}

func (s Sim) log(argv []string) error {
	if _, err := s.Root.MkdirAll("/"+protocol.StateDir, 0o700); err != nil {
		return err
	}
	line, err := json.Marshal(LogEntry{Argv: argv})
	if err != nil {
		return err
	}
	f, err := s.Root.OpenFile(LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// One write per line: a killed run leaves whole lines.
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("command log: %w", err)
	}
	return f.Close()
}

// ReadLog returns the simulated commands recorded under root, oldest first.
func ReadLog(root *fsroot.Root) ([][]string, error) {
	data, err := root.ReadFile(LogPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var e LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			continue // a line cut by a kill
		}
		out = append(out, e.Argv)
	}
	return out, nil
}

// BlkidDir holds the simulated signatures of a fake root's disks, one file
// per kernel device name holding the blkid TYPE (what mkfs.<type> wrote,
// what blkid reads; fakenode writes it for disks cabled with a file system).
const BlkidDir = "/run/hpcstorage-sim/blkid"

// blkidFile is the signature file of a device path (links resolved).
func (s Sim) blkidFile(dev string) (string, error) {
	real, err := s.Root.Resolve(dev)
	if err != nil {
		return "", err
	}
	return BlkidDir + "/" + path.Base(real), nil
}

// signature is the simulated file-system type of dev, "" when blank.
func (s Sim) signature(dev string) (string, error) {
	f, err := s.blkidFile(dev)
	if err != nil {
		return "", nil
	}
	data, err := s.Root.ReadFile(f)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// lastArg is a command's device argument: its last non-option word.
func lastArg(args []string) string {
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return ""
}

func (s Sim) mkfs(fstype string, args []string) error {
	dev := lastArg(args)
	if dev == "" {
		return errors.New("no device")
	}
	real, err := s.Root.Resolve(dev)
	if err != nil {
		return err
	}
	if ok, err := s.Root.Exists(real); err != nil || !ok {
		return fmt.Errorf("%s: no such device", dev)
	}
	if _, err := s.Root.MkdirAll(BlkidDir, 0o755); err != nil {
		return err
	}
	return s.write(BlkidDir+"/"+path.Base(real), []byte(fstype+"\n"))
}

// wipefs -a DEV erases the simulated signature.
func (s Sim) wipefs(args []string) error {
	f, err := s.blkidFile(lastArg(args))
	if err != nil {
		return err
	}
	if err := s.Root.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// blkid answers like blkid: `-o value -s TYPE` prints the type, `-o
// export` DEVNAME= and TYPE= lines, anything else `DEV: TYPE="t"`; exit 2
// when the device has no signature.
func (s Sim) blkid(args []string) (string, int, error) {
	dev := lastArg(args)
	t, err := s.signature(dev)
	if err != nil {
		return "", -1, err
	}
	if t == "" {
		return "", 2, nil
	}
	joined := " " + strings.Join(args, " ") + " "
	switch {
	case strings.Contains(joined, " -o value ") && strings.Contains(joined, " -s TYPE "):
		return t + "\n", 0, nil
	case strings.Contains(joined, " -o export "):
		return fmt.Sprintf("DEVNAME=%s\nTYPE=%s\n", dev, t), 0, nil
	}
	return fmt.Sprintf("%s: TYPE=%q\n", dev, t), 0, nil
}

// Query answers read-only commands from the simulation; anything it does
// not model reports exit status 1 ("guard not met") without running.
func (s Sim) Query(_ context.Context, argv ...string) (string, int, error) {
	if len(argv) >= 2 && path.Base(argv[0]) == "blkid" {
		return s.blkid(argv[1:])
	}
	if len(argv) >= 2 && path.Base(argv[0]) == "beegfs-ctl" {
		return s.beegfsCtlQuery(argv[1:])
	}
	if len(argv) >= 3 && path.Base(argv[0]) == "systemctl" {
		st, err := s.loadUnits()
		if err != nil {
			return "", -1, err
		}
		u := st.Units[argv[2]]
		switch argv[1] {
		case "is-enabled":
			switch {
			case u.Masked:
				return "masked\n", 1, nil
			case u.Enabled:
				return "enabled\n", 0, nil
			case !s.unitExists(argv[2]):
				return "", 1, nil
			}
			return "disabled\n", 1, nil
		case "is-active":
			if u.Active {
				return "active\n", 0, nil
			}
			return "inactive\n", 3, nil
		}
	}
	return "", 1, nil
}

func (s Sim) modprobe(args []string) error {
	remove := false
	var name string
	for _, a := range args {
		switch {
		case a == "-r" || a == "--remove":
			remove = true
		case strings.HasPrefix(a, "-"):
		case name == "":
			name = a
		}
	}
	if name == "" {
		return errors.New("no module name")
	}
	data, err := s.Root.ReadFile("/proc/modules")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	name = strings.ReplaceAll(name, "-", "_")
	lines := splitLines(string(data))
	idx := -1
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			idx = i
		}
	}
	switch {
	case remove && idx >= 0:
		lines = append(lines[:idx], lines[idx+1:]...)
	case !remove && idx < 0:
		lines = append(lines, name+" 16384 0 - Live 0x0000000000000000")
	default:
		return nil
	}
	return s.write("/proc/modules", joinLines(lines))
}

func (s Sim) mount(args []string) error {
	var fstype, opts string
	var pos []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-t":
			if i+1 < len(args) {
				fstype = args[i+1]
				i++
			}
		case "-o":
			if i+1 < len(args) {
				opts = args[i+1]
				i++
			}
		default:
			pos = append(pos, args[i])
		}
	}
	data, err := s.Root.ReadFile("/proc/mounts")
	if err != nil {
		return err
	}
	lines := splitLines(string(data))
	if strings.HasPrefix(opts, "remount") && len(pos) == 1 {
		for i, l := range lines {
			f := strings.Fields(l)
			if len(f) >= 4 && f[1] == pos[0] {
				f[3] = strings.TrimPrefix(strings.TrimPrefix(opts, "remount"), ",")
				if f[3] == "" {
					f[3] = "rw"
				}
				lines[i] = strings.Join(f, " ")
			}
		}
		return s.write("/proc/mounts", joinLines(lines))
	}
	if len(pos) != 2 {
		return fmt.Errorf("want DEVICE PATH, got %q", pos)
	}
	dev, err := s.Root.Resolve(pos[0])
	if err != nil {
		return err
	}
	if ok, err := s.Root.Exists(dev); err != nil || !ok {
		return fmt.Errorf("special device %s does not exist", pos[0])
	}
	if st, err := s.Root.Stat(pos[1]); err != nil || !st.IsDir() {
		return fmt.Errorf("mount point %s does not exist", pos[1])
	}
	if opts == "" {
		opts = "rw"
	}
	lines = append(lines, strings.Join([]string{dev, pos[1], fstype, opts, "0", "0"}, " "))
	return s.write("/proc/mounts", joinLines(lines))
}

func (s Sim) umount(args []string) error {
	if len(args) == 0 {
		return errors.New("no mount point")
	}
	target := args[len(args)-1]
	data, err := s.Root.ReadFile("/proc/mounts")
	if err != nil {
		return err
	}
	lines := splitLines(string(data))
	for i := len(lines) - 1; i >= 0; i-- {
		if f := strings.Fields(lines[i]); len(f) >= 2 && (f[1] == target || f[0] == target) {
			lines = append(lines[:i], lines[i+1:]...)
			return s.write("/proc/mounts", joinLines(lines))
		}
	}
	return fmt.Errorf("%s: not mounted", target)
}

// simUnits is the simulated systemd state. Units absent from the map are
// disabled, inactive and not masked; entries back at that default are
// dropped, so undoing every change restores the file byte for byte.
type simUnits struct {
	Units map[string]simUnit `json:"units"`
}

type simUnit struct {
	Enabled bool `json:"enabled,omitempty"`
	Active  bool `json:"active,omitempty"`
	Masked  bool `json:"masked,omitempty"`
}

func (s Sim) loadUnits() (simUnits, error) {
	st := simUnits{Units: map[string]simUnit{}}
	data, err := s.Root.ReadFile(SystemdPath)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %w", SystemdPath, err)
	}
	if st.Units == nil {
		st.Units = map[string]simUnit{}
	}
	return st, nil
}

func (s Sim) unitExists(name string) bool {
	base := name
	if i := strings.Index(name, "@"); i > 0 {
		// Instances use their template: beegfs-meta@a.service -> beegfs-meta@.service.
		base = name[:i+1] + name[strings.LastIndex(name, "."):]
	}
	for _, d := range unitDirs {
		for _, n := range []string{name, base} {
			if ok, _ := s.Root.Exists(d + "/" + n); ok {
				return true
			}
		}
	}
	return false
}

func (s Sim) systemctl(args []string) error {
	var verb string
	var units []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case verb == "":
			verb = a
		default:
			units = append(units, a)
		}
	}
	switch verb {
	case "daemon-reload", "reset-failed":
		return nil
	case "enable", "disable", "start", "stop", "restart", "mask", "unmask", "reload", "try-restart":
	default:
		return fmt.Errorf("unsupported systemctl verb %q", verb)
	}
	st, err := s.loadUnits()
	if err != nil {
		return err
	}
	for _, name := range units {
		u := st.Units[name]
		switch verb {
		case "enable", "start", "restart", "reload":
			if u.Masked {
				return fmt.Errorf("unit %s is masked", name)
			}
			if !s.unitExists(name) {
				return fmt.Errorf("unit %s not found", name)
			}
		}
		switch verb {
		case "enable":
			u.Enabled = true
		case "disable":
			u.Enabled = false
		case "start", "restart":
			u.Active = true
		case "stop":
			u.Active = false
		case "mask":
			u.Masked, u.Enabled = true, false
		case "unmask":
			u.Masked = false
		}
		if u == (simUnit{}) {
			delete(st.Units, name)
		} else {
			st.Units[name] = u
		}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if _, err := s.Root.MkdirAll(path.Dir(SystemdPath), 0o755); err != nil {
		return err
	}
	return s.write(SystemdPath, append(data, '\n'))
}

func (s Sim) write(p string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := s.Root.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	return s.Root.WriteAtomic(p, data, fsroot.WriteOpts{Mode: mode, UID: -1, GID: -1})
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinLines(l []string) []byte {
	if len(l) == 0 {
		return nil
	}
	return []byte(strings.Join(l, "\n") + "\n")
}
