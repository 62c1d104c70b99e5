package items

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

type fileItem struct {
	id string
	f  *protocol.File
}

func (i *fileItem) ID() string { return i.id }

func (i *fileItem) Plan(_ context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.f.Notify}
	w := fileWant{UID: -1, GID: -1}
	if i.f.Mode != "" {
		m, err := strconv.ParseUint(i.f.Mode, 8, 32)
		if err != nil {
			return plan, fmt.Errorf("mode %q: %w", i.f.Mode, err)
		}
		w.Mode, w.HasMode = fs.FileMode(m)&fs.ModePerm, true
		if m&0o4000 != 0 {
			w.Mode |= fs.ModeSetuid
		}
		if m&0o2000 != 0 {
			w.Mode |= fs.ModeSetgid
		}
		if m&0o1000 != 0 {
			w.Mode |= fs.ModeSticky
		}
	}
	var err error
	if w.UID, err = lookupID(env.fs(), i.f.Owner, "passwd"); err != nil {
		return plan, fmt.Errorf("owner: %w", err)
	}
	if w.GID, err = lookupID(env.fs(), i.f.Group, "group"); err != nil {
		return plan, fmt.Errorf("group: %w", err)
	}
	switch {
	case i.f.Content != nil:
		w.Content = []byte(*i.f.Content)
	case i.f.ContentBase64 != nil:
		// Validated by ParseSpec.
		if w.Content, err = base64.StdEncoding.DecodeString(*i.f.ContentBase64); err != nil {
			return plan, fmt.Errorf("content_base64: %w", err)
		}
	case i.f.Set != nil:
		target, err := env.fs().Resolve(i.f.Path)
		if err != nil {
			return plan, err
		}
		fi, err := env.fs().fileInfo(target)
		if err != nil {
			return plan, err
		}
		w.Content = Overlay(fi.content, i.f.Set)
	}
	key, steps, err := fileSteps(env, i.f.Path, w)
	if err != nil {
		return plan, err
	}
	if i.f.Sensitive {
		for k := range steps {
			if strings.HasPrefix(steps[k].Diff, "--- ") {
				steps[k].Diff = redactDiff(i.f.Path, steps[k].Diff)
			}
			for o := range steps[k].Origs {
				steps[k].Origs[o].Sensitive = true
			}
		}
	}
	plan.Claims = []string{key}
	plan.Steps = steps
	return plan, nil
}

// redactDiff keeps a sensitive file's mode and owner lines and replaces its
// content diff by one line.
func redactDiff(p, diff string) string {
	if diff == "" {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if strings.HasPrefix(l, "mode ") || strings.HasPrefix(l, "owner ") {
			keep = append(keep, l+"\n")
		}
	}
	return fmt.Sprintf("~%s: content changed (sensitive, not shown)\n", p) + strings.Join(keep, "")
}

// Overlay sets keys in a key=value file and keeps everything else (comments,
// order, the file's own spacing around "="). Keys not in the file are
// appended in sorted order as "key = value". Values are compared and written
// without surrounding blanks, which such files ignore.
func Overlay(content []byte, set map[string]protocol.Scalar) []byte {
	lines := strings.SplitAfter(string(content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	found := map[string]bool{}
	for n, l := range lines {
		body := strings.TrimRight(l, "\n")
		trimmed := strings.TrimLeft(body, " \t")
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		eq := strings.IndexByte(body, '=')
		if eq < 0 {
			continue
		}
		k := strings.TrimSpace(body[:eq])
		v, ok := set[k]
		if !ok {
			continue
		}
		found[k] = true
		rest := body[eq+1:]
		if strings.TrimSpace(rest) == strings.TrimSpace(string(v)) {
			continue // already set: leave the line exactly as it is
		}
		// Keep "key<spaces>=<spaces>" as written; replace the value.
		pad := rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
		if pad == "" && strings.HasSuffix(body[:eq], " ") {
			pad = " "
		}
		nl := ""
		if strings.HasSuffix(l, "\n") {
			nl = "\n"
		}
		lines[n] = body[:eq+1] + pad + strings.TrimSpace(string(v)) + nl
	}
	var missing []string
	for k := range set {
		if !found[k] {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	out := strings.Join(lines, "")
	if len(missing) > 0 && out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	for _, k := range missing {
		out += k + " = " + strings.TrimSpace(string(set[k])) + "\n"
	}
	return []byte(out)
}

type udevItem struct {
	id string
	u  *protocol.UdevRule
}

func (i *udevItem) ID() string { return i.id }

// UdevRulePath is where a udev_rule item lives.
func UdevRulePath(name string) string {
	if !strings.HasSuffix(name, ".rules") {
		name += ".rules"
	}
	return "/etc/udev/rules.d/" + name
}

func (i *udevItem) Plan(_ context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.u.Notify}
	content := i.u.Content
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	key, steps, err := fileSteps(env, UdevRulePath(i.u.Name), fileWant{Content: []byte(content), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
	if err != nil {
		return plan, err
	}
	plan.Claims = []string{key}
	if len(steps) > 0 {
		trigger := []string{"udevadm", "trigger", "--action=change"}
		if strings.Contains(content, `SUBSYSTEM=="block"`) {
			trigger = append(trigger, "--subsystem-match=block")
		}
		steps = append(steps, udevReload(env, trigger))
	}
	plan.Steps = steps
	return plan, nil
}

// udevReload is the step that makes udev read changed rules (and, with a
// trigger argv, replay events so they apply to present devices).
func udevReload(env *Env, trigger []string) Step {
	diff := "run: udevadm control --reload\n"
	if trigger != nil {
		diff += "run: " + strings.Join(trigger, " ") + "\n"
	}
	return Step{Diff: diff, Do: func(ctx context.Context) error {
		if err := env.Run.Run(ctx, "udevadm", "control", "--reload"); err != nil {
			return err
		}
		if trigger != nil {
			return env.Run.Run(ctx, trigger...)
		}
		return nil
	}}
}
