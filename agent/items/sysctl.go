package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
)

type sysctlItem struct {
	id string
	s  *protocol.Sysctl
}

func (i *sysctlItem) ID() string { return i.id }

// SysctlDropIn is the owner's sysctl drop-in.
func SysctlDropIn(owner string) string { return "/etc/sysctl.d/90-hpcstorage-" + owner + ".conf" }

func sysctlProcPath(key string) string { return "/proc/sys/" + strings.ReplaceAll(key, ".", "/") }

// sysctlDropInContent renders every sysctl item of the spec, in spec order.
func sysctlDropInContent(spec *protocol.Spec) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Managed by hpcstorage-agent for owner %s; local edits are overwritten.\n", spec.Owner)
	for _, it := range spec.Items {
		if it.Sysctl != nil {
			fmt.Fprintf(&b, "%s = %s\n", it.Sysctl.Key, normalize(string(it.Sysctl.Value)))
		}
	}
	return []byte(b.String())
}

func (i *sysctlItem) Plan(_ context.Context, env *Env) (Plan, error) {
	key, want := i.s.Key, normalize(string(i.s.Value))
	p := sysctlProcPath(key)
	var plan Plan
	plan.Notify = i.s.Notify
	// A value the parameter's kernel type rules out is refused before
	// anything is written (the kernel would answer EINVAL, or misread it).
	if err := nodeconfig.CheckSysctl(key, want); err != nil {
		return plan, err
	}
	step, err := kernelStep(env, "sysctl:"+key, p, key, want, false)
	if errors.Is(err, fs.ErrNotExist) {
		return plan, fmt.Errorf("unknown kernel parameter %s (no %s; is its module loaded?): %w", key, p, ErrNotFound)
	}
	if err != nil {
		return plan, err
	}
	if step != nil {
		plan.Steps = append(plan.Steps, *step)
	}
	fileKey, steps, err := sharedFileSteps(env, SysctlDropIn(env.Owner), sysctlDropInContent,
		firstOfKind(env.Spec, "sysctl", i.id))
	if err != nil {
		return plan, err
	}
	plan.Steps = append(plan.Steps, steps...)
	plan.Claims = []string{"sysctl:" + key, fileKey}
	w, err := env.sysctlWarnings(key, want)
	if err != nil {
		return plan, err
	}
	plan.Warnings = w
	return plan, nil
}

// sysctlOverrides is what else sets sysctls at boot: sysctl.d files (by
// basename, the first directory wins, applied in name order) and the active
// tuned profile's [sysctl] section.
type sysctlOverrides struct {
	files  []sysctlSource // sorted by basename
	tuned  map[string]string
	tunedP string
}

type sysctlSource struct {
	name   string
	path   string
	values map[string]string
}

var sysctlDirs = []string{"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d"}

func (env *Env) sysctlWarnings(key, want string) ([]string, error) {
	if env.overrides == nil {
		o, err := scanSysctlOverrides(env.fs())
		if err != nil {
			return nil, err
		}
		env.overrides = o
	}
	ours := path.Base(SysctlDropIn(env.Owner))
	var out []string
	for _, f := range env.overrides.files {
		if f.name <= ours && f.name != "zz-sysctl.conf" {
			continue
		}
		if v, ok := f.values[key]; ok && normalize(v) != want {
			out = append(out, fmt.Sprintf("%s sets %s = %s and is read after %s, so it wins at boot", f.path, key, v, ours))
		}
	}
	if v, ok := env.overrides.tuned[key]; ok && normalize(v) != want {
		out = append(out, fmt.Sprintf("tuned profile %q sets %s = %s and re-applies it whenever tuned starts (change the tuned profile or stop tuned)",
			env.overrides.tunedP, key, v))
	}
	return out, nil
}

func scanSysctlOverrides(root Reader) (*sysctlOverrides, error) {
	o := &sysctlOverrides{tuned: map[string]string{}}
	seen := map[string]bool{}
	resolved := map[string]bool{}
	for _, d := range sysctlDirs {
		ents, err := root.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			n := e.Name()
			if !strings.HasSuffix(n, ".conf") || seen[n] {
				continue
			}
			seen[n] = true
			p := d + "/" + n
			data, err := root.ReadFile(p)
			if err != nil {
				continue // a dangling link, as systemd-sysctl would skip it
			}
			if r, err := root.Resolve(p); err == nil {
				resolved[r] = true
			}
			o.files = append(o.files, sysctlSource{name: n, path: p, values: parseSysctlConf(string(data))})
		}
	}
	// etc/sysctl.conf is read last by `sysctl --system`, unless a sysctl.d
	// link (99-sysctl.conf on RHEL) already covers it.
	if !resolved["/etc/sysctl.conf"] {
		if data, err := root.ReadFile("/etc/sysctl.conf"); err == nil {
			o.files = append(o.files, sysctlSource{name: "zz-sysctl.conf", path: "/etc/sysctl.conf", values: parseSysctlConf(string(data))})
		}
	}
	slices.SortStableFunc(o.files, func(a, b sysctlSource) int { return strings.Compare(a.name, b.name) })
	if data, err := root.ReadFile("/etc/tuned/active_profile"); err == nil {
		o.tunedP = strings.TrimSpace(string(data))
		for _, p := range strings.Fields(o.tunedP) {
			loadTuned(root, p, o.tuned, 0)
		}
	}
	return o, nil
}

func parseSysctlConf(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k = strings.TrimPrefix(strings.TrimSpace(k), "-")
		out[strings.ReplaceAll(k, "/", ".")] = strings.TrimSpace(v)
	}
	return out
}

// loadTuned merges a tuned profile's [sysctl] into out, parents first.
func loadTuned(root Reader, name string, out map[string]string, depth int) {
	if depth > 5 || strings.Contains(name, "/") || strings.Contains(name, "..") {
		return
	}
	var data []byte
	for _, d := range []string{"/etc/tuned/", "/usr/lib/tuned/", "/usr/lib/tuned/profiles/"} {
		if b, err := root.ReadFile(d + name + "/tuned.conf"); err == nil {
			data = b
			break
		}
	}
	if data == nil {
		return
	}
	section := ""
	local := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			section = l[1 : len(l)-1]
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case section == "main" && k == "include":
			for _, parent := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
				loadTuned(root, parent, out, depth+1)
			}
		case section == "sysctl":
			local[k] = v
		}
	}
	for k, v := range local {
		out[k] = v
	}
}
