package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// systemctl follows systemctl(1) for the verbs the agent uses: enable,
// disable, start, stop, restart, try-restart, reload, mask, unmask,
// daemon-reload, reset-failed, is-enabled, is-active, show (unit
// properties Id, LoadState, ActiveState, SubState, UnitFileState; exit 0
// even for a unit nobody has, as for systemd). As systemd does, it
// refuses to enable, start or stop a unit that has no unit file ("Unit
// ... not found", exit 5 for jobs), to start a masked unit, and warns
// on stderr when a loaded unit's file or drop-ins changed on disk since
// the last daemon-reload (systemctl's warn_unit_file_changed). Messages
// and exit statuses are those of systemd 239-252 (the LSB codes of
// systemctl is-active: 3 = not running).
//
// State: SystemdPath (enabled, active, masked per unit; a reboot keeps
// enabled and masked, which a real node holds as links under /etc) and
// ReloadStamp, whose mtime is the manager's last load of the unit files.

// SystemdPath is the simulated unit state. Units absent from it are
// disabled, inactive and not masked; entries back at that default are
// dropped, so undoing every change restores the file byte for byte.
const SystemdPath = RunDir + "/systemd.json"

// ReloadStamp is touched by daemon-reload (and at boot).
const ReloadStamp = RunDir + "/daemon-reload"

// Systemd is the content of SystemdPath.
type Systemd struct {
	Units map[string]Unit `json:"units"`
}

// Unit is one unit's simulated state.
type Unit struct {
	Enabled bool `json:"enabled,omitempty"`
	Active  bool `json:"active,omitempty"`
	Masked  bool `json:"masked,omitempty"`
}

// unitHooks let a simulated service act when it starts or stops (start
// true) and refuse to start as the real daemon would.
// The hook may change other units in st (stopping corosync stops
// pacemaker, which requires it).
var unitHooks = map[string]func(e *Env, st *Systemd, start bool) error{}

// runHook runs a unit's hook for a change from was to now (a restart is a
// stop, then a start).
func runHook(e *Env, st *Systemd, h func(*Env, *Systemd, bool) error, was, now bool) error {
	if was {
		if err := h(e, st, false); err != nil {
			return err
		}
	}
	if now {
		return h(e, st, true)
	}
	return nil
}

// unitDirs are searched for unit files in systemd's order.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

func (e *Env) loadUnits() (Systemd, error) {
	st := Systemd{Units: map[string]Unit{}}
	data, err := e.read(SystemdPath)
	if err != nil || data == nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %w", SystemdPath, err)
	}
	if st.Units == nil {
		st.Units = map[string]Unit{}
	}
	return st, nil
}

func (e *Env) saveUnits(st Systemd) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return e.write(SystemdPath, append(data, '\n'))
}

// unitName completes a bare name with ".service", as systemctl does.
func unitName(n string) string {
	if i := strings.LastIndex(n, "."); i > 0 {
		switch n[i+1:] {
		case "service", "socket", "target", "mount", "automount", "timer", "path", "slice", "scope", "swap", "device":
			return n
		}
	}
	return n + ".service"
}

// unitFiles are the paths of a unit's file (or its template's, for an
// instance) and of its drop-ins, existing ones only.
func (e *Env) unitFiles(name string) []string {
	names := []string{name}
	if i := strings.Index(name, "@"); i > 0 {
		// beegfs-meta@a.service uses beegfs-meta@.service.
		names = append(names, name[:i+1]+name[strings.LastIndex(name, "."):])
	}
	var out []string
	for _, d := range unitDirs {
		for _, n := range names {
			if e.exists(d + "/" + n) {
				out = append(out, d+"/"+n)
			}
			ents, err := e.Root.ReadDir(d + "/" + n + ".d")
			if err != nil {
				continue
			}
			for _, ent := range ents {
				if strings.HasSuffix(ent.Name(), ".conf") {
					out = append(out, d+"/"+n+".d/"+ent.Name())
				}
			}
		}
	}
	return out
}

// hasUnitFile reports whether a unit (or its template) has a unit file.
func (e *Env) hasUnitFile(name string) bool {
	for _, f := range e.unitFiles(name) {
		if !strings.Contains(f, ".d/") {
			return true
		}
	}
	return false
}

// changedOnDisk reports whether a unit's files are newer than the last
// daemon-reload.
func (e *Env) changedOnDisk(name string) bool {
	st, err := e.Root.Stat(ReloadStamp)
	if err != nil {
		return false // never loaded: systemd reads the files on demand
	}
	loaded := st.ModTime()
	for _, f := range e.unitFiles(name) {
		if fi, err := e.Root.Stat(f); err == nil && fi.ModTime().After(loaded) {
			return true
		}
	}
	return false
}

// touchReload renews ReloadStamp: only its mtime counts, so its content
// stays empty and a node's files read the same before and after a run.
func (e *Env) touchReload() error {
	return e.write(ReloadStamp, nil)
}

func systemctl(e *Env, args []string) int {
	var verb string
	var units []string
	var show showFlags
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-p" || a == "--property":
			if i+1 == len(args) {
				fmt.Fprintf(e.Stderr, "systemctl: option requires an argument -- '%s'\n", strings.TrimLeft(a, "-"))
				return 1
			}
			i++
			show.props = append(show.props, strings.Split(args[i], ",")...)
		case strings.HasPrefix(a, "--property="):
			show.props = append(show.props, strings.Split(strings.TrimPrefix(a, "--property="), ",")...)
		case strings.HasPrefix(a, "-p"):
			show.props = append(show.props, strings.Split(a[2:], ",")...)
		case a == "-a" || a == "--all":
			show.all = true
		case a == "--value":
			show.value = true
		case strings.HasPrefix(a, "-"):
		case verb == "":
			verb = a
		default:
			units = append(units, unitName(a))
		}
	}
	switch verb {
	case "daemon-reload", "daemon-reexec":
		if err := e.touchReload(); err != nil {
			return e.fail(1, "%v", err)
		}
		return 0
	case "reset-failed":
		return 0
	case "is-enabled", "is-active":
		return e.unitQuery(verb, units)
	case "show":
		return e.unitShow(units, show)
	case "enable", "disable", "start", "stop", "restart", "try-restart", "reload", "mask", "unmask":
	case "":
		return e.fail(1, "too few arguments")
	default:
		fmt.Fprintf(e.Stderr, "Unknown command verb %s.\n", verb)
		return 1
	}
	if len(units) == 0 {
		fmt.Fprintf(e.Stderr, "Too few arguments.\n")
		return 1
	}
	st, err := e.loadUnits()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	code := 0
	for _, name := range units {
		u := st.Units[name]
		known := e.hasUnitFile(name)
		switch verb {
		case "enable", "disable":
			if u.Masked && verb == "enable" {
				fmt.Fprintf(e.Stderr, "Failed to enable unit: Unit file /etc/systemd/system/%s is masked.\n", name)
				return 1
			}
			if !known {
				fmt.Fprintf(e.Stderr, "Failed to %s unit: Unit file %s does not exist.\n", verb, name)
				return 1
			}
			u.Enabled = verb == "enable"
		case "start", "restart", "reload", "try-restart", "stop":
			if u.Masked && verb != "stop" {
				fmt.Fprintf(e.Stderr, "Failed to %s %s: Unit %s is masked.\n", verb, name, name)
				code = 1
				continue
			}
			if !known {
				if verb == "stop" {
					fmt.Fprintf(e.Stderr, "Failed to stop %s: Unit %s not loaded.\n", name, name)
				} else {
					fmt.Fprintf(e.Stderr, "Failed to %s %s: Unit %s not found.\n", verb, name, name)
				}
				code = 5
				continue
			}
			if (u.Active || u.Enabled) && e.changedOnDisk(name) {
				fmt.Fprintf(e.Stderr, "Warning: The unit file, source configuration file or drop-ins of %s changed on disk. Run 'systemctl daemon-reload' to reload units.\n", name)
			}
			was := u.Active
			switch verb {
			case "start", "restart":
				u.Active = true
			case "stop":
				u.Active = false
			}
			if h := unitHooks[name]; h != nil && verb != "reload" && (was != u.Active || verb == "restart") {
				if err := runHook(e, &st, h, was, u.Active); err != nil {
					fmt.Fprintf(e.Stderr, "Job for %s failed because the control process exited with error code.\n%s: %v\n", name, name, err)
					u.Active = false
					st.Units[name] = u
					code = 1
					continue
				}
			}
			if name == "beegfs-client.service" && verb != "reload" {
				if err := e.beegfsClientMounts(u.Active); err != nil {
					return e.fail(1, "%s: %v", name, err)
				}
			}
			switch verb {
			case "reload":
				if !u.Active {
					fmt.Fprintf(e.Stderr, "Failed to reload %s: Job type reload is not applicable for unit %s.\n", name, name)
					code = 1
					continue
				}
			}
		case "mask":
			u.Masked, u.Enabled = true, false
			fmt.Fprintf(e.Stderr, "Created symlink /etc/systemd/system/%s → /dev/null.\n", name)
		case "unmask":
			if u.Masked {
				fmt.Fprintf(e.Stderr, "Removed /etc/systemd/system/%s.\n", name)
			}
			u.Masked = false
		}
		if u == (Unit{}) {
			delete(st.Units, name)
		} else {
			st.Units[name] = u
		}
	}
	if err := e.saveUnits(st); err != nil {
		return e.fail(1, "%v", err)
	}
	return code
}

// unitQuery answers is-enabled (state on stdout; exit 0 only when
// enabled; a unit without a unit file prints nothing on stdout) and
// is-active (exit 3 when not running).
func (e *Env) unitQuery(verb string, units []string) int {
	if len(units) == 0 {
		fmt.Fprintf(e.Stderr, "Too few arguments.\n")
		return 1
	}
	st, err := e.loadUnits()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	code := 0
	for _, name := range units {
		u := st.Units[name]
		if verb == "is-active" {
			if u.Active {
				fmt.Fprintln(e.Stdout, "active")
			} else {
				fmt.Fprintln(e.Stdout, "inactive")
				code = 3
			}
			continue
		}
		switch {
		case u.Masked:
			fmt.Fprintln(e.Stdout, "masked")
			code = 1
		case !e.hasUnitFile(name):
			fmt.Fprintf(e.Stderr, "Failed to get unit file state for %s: No such file or directory\n", name)
			code = 1
		case u.Enabled:
			fmt.Fprintln(e.Stdout, "enabled")
		default:
			fmt.Fprintln(e.Stdout, "disabled")
			code = 1
		}
	}
	return code
}

// showFlags are systemctl show's options: --property (-p, repeatable,
// comma-separated), --all (-a) and --value.
type showFlags struct {
	props      []string
	all, value bool
}

// showProps are the unit properties the simulator knows, in the order
// systemd's D-Bus Unit interface lists them (show's output order).
var showProps = []string{"Id", "LoadState", "ActiveState", "SubState", "UnitFileState"}

// unitShow prints each unit's properties as Key=Value lines, a blank line
// between units. As systemctl does, it leaves out empty values unless
// --all, ignores property names it does not know, and exits 0 for a
// unit that has no unit file (LoadState=not-found). A manager's own
// properties (show without a unit) are not simulated.
func (e *Env) unitShow(units []string, f showFlags) int {
	if len(units) == 0 {
		return e.fail(1, "show without a unit (the manager's properties) is not simulated")
	}
	st, err := e.loadUnits()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	for i, name := range units {
		u := st.Units[name]
		known := e.hasUnitFile(name)
		vals := map[string]string{"Id": name, "LoadState": "not-found", "ActiveState": "inactive", "SubState": "dead"}
		switch {
		case u.Masked:
			vals["LoadState"], vals["UnitFileState"] = "masked", "masked"
		case known && u.Enabled:
			vals["LoadState"], vals["UnitFileState"] = "loaded", "enabled"
		case known:
			vals["LoadState"], vals["UnitFileState"] = "loaded", "disabled"
		}
		if u.Active {
			vals["ActiveState"], vals["SubState"] = "active", "running"
		}
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		for _, p := range showProps {
			if len(f.props) > 0 && !slices.Contains(f.props, p) {
				continue
			}
			v := vals[p]
			if v == "" && !f.all {
				continue
			}
			if f.value {
				fmt.Fprintln(e.Stdout, v)
			} else {
				fmt.Fprintf(e.Stdout, "%s=%s\n", p, v)
			}
		}
	}
	return 0
}
