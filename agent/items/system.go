package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
)

type moduleItem struct {
	id string
	m  *protocol.KernelModule
}

func (i *moduleItem) ID() string { return i.id }

// ModprobeConf and ModulesLoadConf are a module's managed files.
func ModprobeConf(name string) string    { return "/etc/modprobe.d/hpcstorage-" + name + ".conf" }
func ModulesLoadConf(name string) string { return "/etc/modules-load.d/hpcstorage-" + name + ".conf" }

// moduleLoaded reads proc/modules (module names use "_" there).
func moduleLoaded(env *Env, name string) (bool, error) {
	data, err := env.fs().ReadFile("/proc/modules")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	want := strings.ReplaceAll(name, "-", "_")
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == want {
			return true, nil
		}
	}
	return false, nil
}

func (i *moduleItem) Plan(_ context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.m.Notify}
	name := i.m.Name
	load := i.m.Load == nil || *i.m.Load
	boot := load
	if i.m.Boot != nil {
		boot = *i.m.Boot
	}
	loaded, err := moduleLoaded(env, name)
	if err != nil {
		return plan, err
	}
	// Options first, so a module loaded by this run gets them.
	if i.m.Options != "" {
		content := fmt.Sprintf("# Managed by hpcstorage-agent for owner %s.\noptions %s %s\n", env.Owner, name, strings.TrimSpace(i.m.Options))
		key, steps, err := fileSteps(env, ModprobeConf(name), fileWant{Content: []byte(content), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
		if err != nil {
			return plan, err
		}
		plan.Claims = append(plan.Claims, key)
		plan.Steps = append(plan.Steps, steps...)
		if len(steps) > 0 && loaded {
			// Reloading a storage driver under mounted file systems is not
			// something to do behind an operator's back.
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s is loaded: new options take effect when it is next loaded (reboot, or modprobe -r %s && modprobe %s)", name, name, name))
		}
	}
	if boot {
		content := fmt.Sprintf("# Managed by hpcstorage-agent for owner %s.\n%s\n", env.Owner, name)
		key, steps, err := fileSteps(env, ModulesLoadConf(name), fileWant{Content: []byte(content), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
		if err != nil {
			return plan, err
		}
		plan.Claims = append(plan.Claims, key)
		plan.Steps = append(plan.Steps, steps...)
	}
	if load {
		key := "module:" + name
		plan.Claims = append(plan.Claims, key)
		if !loaded {
			plan.Steps = append(plan.Steps, Step{
				Origs: []state.Original{{Key: key, Kind: state.KindModule, Path: name, Value: "absent"}},
				Diff:  fmt.Sprintf("-module %s: not loaded\n+module %s: loaded (modprobe %s)\n", name, name, name),
				Do: func(ctx context.Context) error {
					if err := env.Run.Run(ctx, "modprobe", name); err != nil {
						return err
					}
					if ok, err := moduleLoaded(env, name); err != nil || !ok {
						return fmt.Errorf("modprobe %s succeeded but %s is not in /proc/modules: %w", name, name, ErrReadBack)
					}
					return nil
				},
			})
		}
	}
	return plan, nil
}

type serviceItem struct {
	id string
	s  *protocol.Service
}

func (i *serviceItem) ID() string { return i.id }

// unitState is a systemd unit's enabled/active/masked state.
type unitState struct {
	exists, enabled, active, masked bool
	raw                             string // UnitFileState: what is-enabled prints
}

func (u unitState) String() string {
	return fmt.Sprintf("enabled=%t active=%t masked=%t", u.enabled, u.active, u.masked)
}

func parseUnitState(s string) unitState {
	var u unitState
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		b := v == "true"
		switch k {
		case "enabled":
			u.enabled = b
		case "active":
			u.active = b
		case "masked":
			u.masked = b
		}
	}
	return u
}

// unitDirs are where systemd looks for system unit files, first wins.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system", "/lib/systemd/system"}

// unitFileNames are the files that can define a unit: its own, and for an
// instance (getty@tty1.service) its template (getty@.service).
func unitFileNames(unit string) []string {
	at := strings.IndexByte(unit, '@')
	dot := strings.LastIndexByte(unit, '.')
	if at > 0 && dot > at+1 {
		return []string{unit, unit[:at+1] + unit[dot:]}
	}
	return []string{unit}
}

// freshUnit plans a unit that exists only because an earlier item of this
// check run writes its file. The host does not know it yet (systemctl
// would say "not found"); after the write, systemd loads it (on the
// daemon-reload or the first start) disabled, or static without [Install]
// rules, and inactive. A unit the host has a file for is asked about as
// usual, even when an earlier item rewrites that file.
func freshUnit(env *Env, unit string) (unitState, bool, error) {
	if env.pending == nil {
		return unitState{}, false, nil
	}
	v := env.fs()
	var content []byte
	found := false
	for _, d := range unitDirs {
		for _, n := range unitFileNames(unit) {
			p := d + "/" + n
			onHost, err := v.onHost(p)
			if err != nil || onHost {
				return unitState{}, false, err
			}
			if e, ok := v.entry(p); ok && !found && !e.removed && !e.dir {
				content, found = e.content, true
			}
		}
	}
	if !found {
		return unitState{}, false, nil
	}
	u := unitState{exists: true, raw: installState(content)}
	u.enabled = u.raw != "disabled"
	return u, true, nil
}

// installState is what `systemctl is-enabled` says of a unit file nothing
// has enabled: "disabled" when its [Install] section has rules to enable
// it by, "indirect" when it only names Also= units, else "static".
func installState(unitFile []byte) string {
	section, rules, also := "", false, false
	for _, l := range strings.Split(string(unitFile), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			section = l[1 : len(l)-1]
			continue
		}
		k, val, ok := strings.Cut(l, "=")
		if !ok || section != "Install" || strings.TrimSpace(val) == "" {
			continue
		}
		switch strings.TrimSpace(k) {
		case "WantedBy", "RequiredBy", "UpheldBy", "Alias":
			rules = true
		case "Also":
			also = true
		}
	}
	switch {
	case rules:
		return "disabled"
	case also:
		return "indirect"
	}
	return "static"
}

// unitProps are the properties queryUnit reads: Id (differs from the name
// asked for when that name is an alias), LoadState, ActiveState and
// UnitFileState (what `systemctl is-enabled` prints).
const unitProps = "Id,LoadState,ActiveState,UnitFileState"

// queryUnit asks systemd about a unit with one `systemctl show`, which
// answers what is-enabled and is-active did in two processes. show exits
// 0 for any name; a unit without a unit file has no UnitFileState (and
// LoadState=not-found), which is-enabled reported as an error.
func queryUnit(ctx context.Context, env *Env, unit string) (unitState, error) {
	if u, ok, err := freshUnit(env, unit); err != nil || ok {
		return u, err
	}
	argv := []string{"systemctl", "show", "--property=" + unitProps, unit}
	out, code, err := env.Run.Query(ctx, argv...)
	if err != nil {
		return unitState{}, err
	}
	if code != 0 {
		return unitState{}, fmt.Errorf("unit %s: %w: %s: exit status %d", unit, runner.ErrCommand, runner.Quote(argv), code)
	}
	return parseShow(unit, out), nil
}

// parseShow reads systemctl show's Key=Value lines for unit. Empty values
// may be left out (show prints them only with --all), so a missing key
// reads as empty.
func parseShow(unit, out string) unitState {
	props := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			props[k] = strings.TrimSpace(v)
		}
	}
	u := unitState{raw: props["UnitFileState"]}
	if u.raw == "" {
		return unitState{} // no unit file: no such unit
	}
	// Asked by an alias name, show describes the unit it points to;
	// is-enabled called the alias itself "alias".
	if id := props["Id"]; id != "" && id != unit && props["LoadState"] != "not-found" {
		u.raw = "alias"
	}
	switch u.raw {
	case "masked", "masked-runtime":
		u.masked = true
	case "enabled", "enabled-runtime", "static", "alias", "indirect", "generated", "linked", "linked-runtime":
		u.enabled = true
	}
	u.exists = true
	// is-active succeeds for these states only.
	switch props["ActiveState"] {
	case "active", "reloading", "refreshing":
		u.active = true
	}
	return u
}

// DropInPath is a service drop-in's file.
func DropInPath(unit, name string) string {
	return "/etc/systemd/system/" + unit + ".d/" + strings.TrimSuffix(name, ".conf") + ".conf"
}

func (i *serviceItem) Plan(ctx context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.s.Notify}
	unit := protocol.UnitName(i.s.Name)
	dropinChanged := false
	for _, d := range i.s.DropIns {
		content := d.Content
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		key, steps, err := fileSteps(env, DropInPath(unit, d.Name), fileWant{Content: []byte(content), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
		if err != nil {
			return plan, err
		}
		plan.Claims = append(plan.Claims, key)
		if len(steps) > 0 {
			dropinChanged = true
			plan.Steps = append(plan.Steps, steps...)
		}
	}
	if dropinChanged {
		plan.Steps = append(plan.Steps, Step{Diff: "run: systemctl daemon-reload\n", Do: func(ctx context.Context) error {
			return env.Run.Run(ctx, "systemctl", "daemon-reload")
		}})
	}
	u, err := queryUnit(ctx, env, unit)
	if err != nil {
		return plan, err
	}
	if !u.exists {
		return plan, fmt.Errorf("unit %s: %w (is its package installed?)", unit, ErrNotFound)
	}
	key := "unit:" + unit
	plan.Claims = append(plan.Claims, key)
	orig := []state.Original{{Key: key, Kind: state.KindUnit, Path: unit, Value: u.String()}}
	verb := func(v, diff string) {
		plan.Steps = append(plan.Steps, Step{Origs: orig, Diff: diff, Do: func(ctx context.Context) error {
			return env.Run.Run(ctx, "systemctl", v, unit)
		}})
	}
	masked := u.masked
	if i.s.Masked != nil && *i.s.Masked != u.masked {
		if *i.s.Masked {
			if u.active {
				verb("stop", fmt.Sprintf("-%s: active\n+%s: stopped\n", unit, unit))
				u.active = false
			}
			verb("mask", fmt.Sprintf("-%s: not masked\n+%s: masked\n", unit, unit))
		} else {
			verb("unmask", fmt.Sprintf("-%s: masked\n+%s: not masked\n", unit, unit))
		}
		masked = *i.s.Masked
	}
	if i.s.Enabled != nil && *i.s.Enabled != u.enabled && !masked {
		if *i.s.Enabled {
			verb("enable", fmt.Sprintf("-%s: disabled\n+%s: enabled\n", unit, unit))
		} else if u.raw == "enabled" || u.raw == "enabled-runtime" {
			verb("disable", fmt.Sprintf("-%s: enabled\n+%s: disabled\n", unit, unit))
		} else {
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s is %s and cannot be disabled", unit, u.raw))
		}
	}
	switch i.s.State {
	case "started":
		if !u.active {
			verb("start", fmt.Sprintf("-%s: inactive\n+%s: active\n", unit, unit))
			plan.Starts = append(plan.Starts, unit)
		} else if dropinChanged {
			plan.Notify = append(plan.Notify, unit)
		}
	case "stopped":
		if u.active {
			verb("stop", fmt.Sprintf("-%s: active\n+%s: inactive\n", unit, unit))
		}
	case "restarted":
		verb("restart", fmt.Sprintf("~%s: restart\n", unit))
	default:
		if dropinChanged && u.active {
			plan.Notify = append(plan.Notify, unit)
		}
	}
	return plan, nil
}

// RestoreUnit brings a unit back to an original state.
func restoreUnit(ctx context.Context, env *Env, o *state.Original) (string, error) {
	want := parseUnitState(o.Value)
	cur, err := queryUnit(ctx, env, o.Path)
	if err != nil {
		return "", err
	}
	if !cur.exists {
		return "", nil
	}
	var diff strings.Builder
	var verbs []string
	if cur.masked && !want.masked {
		verbs = append(verbs, "unmask")
	}
	if cur.active && !want.active {
		verbs = append(verbs, "stop")
	}
	if want.masked && !cur.masked {
		verbs = append(verbs, "mask")
	}
	if !want.masked {
		if cur.enabled && !want.enabled && (cur.raw == "enabled" || cur.raw == "enabled-runtime") {
			verbs = append(verbs, "disable")
		}
		if !cur.enabled && want.enabled {
			verbs = append(verbs, "enable")
		}
		if !cur.active && want.active {
			verbs = append(verbs, "start")
		}
	}
	for _, v := range verbs {
		fmt.Fprintf(&diff, "run: systemctl %s %s\n", v, o.Path)
		if !env.Check {
			if err := env.Run.Run(ctx, "systemctl", v, o.Path); err != nil {
				return diff.String(), err
			}
		}
	}
	return diff.String(), nil
}
