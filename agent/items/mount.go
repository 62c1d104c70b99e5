package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/udiff"
)

type mountItem struct {
	id string
	m  *protocol.Mount
}

func (i *mountItem) ID() string { return i.id }

// fstab-only options that never show in /proc/mounts.
var fstabOnly = []string{"defaults", "auto", "noauto", "nofail", "_netdev", "user", "nouser", "users", "owner", "rw"}

// devicePath maps LABEL=/UUID= forms to their udev links.
func devicePath(dev string) string {
	for prefix, dir := range map[string]string{"LABEL=": "by-label", "UUID=": "by-uuid", "PARTLABEL=": "by-partlabel", "PARTUUID=": "by-partuuid"} {
		if strings.HasPrefix(dev, prefix) {
			return "/dev/disk/" + dir + "/" + strings.TrimPrefix(dev, prefix)
		}
	}
	return dev
}

type mountEntry struct{ dev, path, fstype, opts string }

func readMounts(root Reader) ([]mountEntry, error) {
	data, err := root.ReadFile("/proc/mounts")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []mountEntry
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 4 {
			out = append(out, mountEntry{f[0], strings.ReplaceAll(f[1], `\040`, " "), f[2], f[3]})
		}
	}
	return out, nil
}

func mountedAt(root Reader, p string) (*mountEntry, error) {
	ms, err := readMounts(root)
	if err != nil {
		return nil, err
	}
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].path == p {
			return &ms[k], nil
		}
	}
	return nil, nil
}

func (i *mountItem) Plan(_ context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.m.Notify}
	m := i.m
	devLink := devicePath(m.Device)
	dev, err := env.fs().Resolve(devLink)
	if err != nil {
		return plan, err
	}
	if ok, err := env.fs().Exists(dev); err != nil {
		return plan, err
	} else if !ok {
		return plan, fmt.Errorf("device %s not found under the root (is the volume mapped to this host?): %w", m.Device, ErrNotFound)
	}
	opts := "defaults"
	if len(m.Options) > 0 {
		opts = strings.Join(m.Options, ",")
	}
	if m.Persist == "" || m.Persist == "fstab" {
		line := fmt.Sprintf("%s %s %s %s 0 0", m.Device, m.Path, m.FSType, opts)
		step, err := fstabStep(env, m.Path, line, false)
		if err != nil {
			return plan, err
		}
		plan.Claims = append(plan.Claims, "fstab:"+m.Path)
		if step != nil {
			plan.Steps = append(plan.Steps, *step)
		}
	}
	key := "mount:" + m.Path
	plan.Claims = append(plan.Claims, key)
	cur, err := mountedAt(env.fs(), m.Path)
	if err != nil {
		return plan, err
	}
	if cur != nil {
		curDev, err := env.fs().Resolve(cur.dev)
		if err != nil || curDev != dev {
			return plan, fmt.Errorf("%s is mounted from %s, not %s (%s): refusing to mount over it", m.Path, cur.dev, m.Device, dev)
		}
		have := strings.Split(cur.opts, ",")
		for _, o := range m.Options {
			if !slices.Contains(fstabOnly, o) && !strings.HasPrefix(o, "x-") && !slices.Contains(have, o) {
				plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s is mounted without option %s: it applies at the next mount", m.Path, o))
			}
		}
		return plan, nil
	}
	dirs, err := missingDirs(env.fs(), m.Path+"/x")
	if err != nil {
		return plan, err
	}
	var origs []state.Original
	for _, d := range dirs {
		origs = append(origs, state.Original{Key: "dir:" + d, Kind: state.KindDir, Path: d, Absent: true})
	}
	origs = append(origs, state.Original{Key: key, Kind: state.KindMount, Path: m.Path, Value: "absent"})
	argv := []string{"mount", "-t", m.FSType, "-o", opts, devLink, m.Path}
	plan.Steps = append(plan.Steps, Step{
		Origs: origs,
		Diff:  fmt.Sprintf("-%s: not mounted\n+%s: %s (%s) mounted, %s\n", m.Path, m.Path, m.Device, m.FSType, opts),
		Do: func(ctx context.Context) error {
			if _, err := env.Root.MkdirAll(m.Path, 0o755); err != nil {
				return err
			}
			return env.Run.Run(ctx, argv...)
		},
		// The mount point is what later items can see; the mount
		// itself is claimed by this item alone.
		Would: func() { env.wouldMkdirAll(m.Path) },
	})
	return plan, nil
}

// editFstab sets (or with remove, deletes) the line for mount point p and
// returns the new content and the line that was there ("" if none).
func editFstab(content []byte, p, line string, remove bool) ([]byte, string) {
	lines := strings.SplitAfter(string(content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	old := ""
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 2 && !strings.HasPrefix(f[0], "#") && f[1] == p {
			if old == "" {
				old = strings.TrimRight(l, "\n")
				if !remove {
					out = append(out, line+"\n")
				}
			}
			continue
		}
		out = append(out, l)
	}
	if old == "" && !remove {
		if n := len(out); n > 0 && !strings.HasSuffix(out[n-1], "\n") {
			out[n-1] += "\n"
		}
		out = append(out, line+"\n")
	}
	return []byte(strings.Join(out, "")), old
}

// fstabStep plans one mount point's fstab line; remove deletes it and
// line == "" with remove=false is invalid.
func fstabStep(env *Env, p, line string, remove bool) (*Step, error) {
	fi, err := env.fs().fileInfo("/etc/fstab")
	if err != nil {
		return nil, err
	}
	next, old := editFstab(fi.content, p, line, remove)
	if string(next) == string(fi.content) {
		return nil, nil
	}
	mode := fi.mode
	if !fi.exists {
		mode = 0o644
	}
	return &Step{
		Origs: []state.Original{{Key: "fstab:" + p, Kind: state.KindFstab, Path: p, Value: old, Absent: old == ""}},
		Diff:  udiff.Diff("/etc/fstab", fi.content, next),
		Do: func(context.Context) error {
			return env.Root.WriteAtomic("/etc/fstab", next, fsroot.WriteOpts{Mode: mode, UID: -1, GID: -1})
		},
		Would: func() { env.wouldWrite("/etc/fstab", next, mode, fi.uid, fi.gid) },
	}, nil
}

type commandItem struct {
	id string
	c  *protocol.Command
}

func (i *commandItem) ID() string { return i.id }

func (i *commandItem) Plan(ctx context.Context, env *Env) (Plan, error) {
	plan := Plan{Notify: i.c.Notify}
	c := i.c
	if c.ReadOnly {
		// A query: it runs while planning (in --check too) and is never
		// a change.
		out, code, err := env.Run.Query(ctx, c.Argv...)
		if len(out) > protocol.MaxOutput {
			out = out[:protocol.MaxOutput]
		}
		plan.Output = out
		if err != nil {
			return plan, err
		}
		if code != 0 {
			return plan, fmt.Errorf("%w: %s: exit status %d: %s", runner.ErrCommand, runner.Quote(c.Argv), code, lastLines(out, 5))
		}
		return plan, nil
	}
	if c.Creates != "" {
		ok, err := env.fs().Exists(c.Creates)
		if err != nil {
			return plan, err
		}
		if ok {
			return plan, nil
		}
	}
	if len(c.Unless) > 0 {
		out, code, err := env.Run.Query(ctx, c.Unless...)
		if err != nil {
			return plan, fmt.Errorf("unless: %w", err)
		}
		if code == 0 && matchesAll(c.UnlessMatch, out) {
			return plan, nil
		}
	}
	verb := "run"
	if env.Check {
		verb = "would run"
	}
	plan.Steps = append(plan.Steps, Step{
		Diff: fmt.Sprintf("%s: %s\n", verb, runner.Quote(c.Argv)),
		Do: func(ctx context.Context) error {
			if err := env.Run.Run(ctx, c.Argv...); err != nil {
				return err
			}
			if c.Creates == "" || env.Root.IsHost() {
				return nil
			}
			// Under a fake root with no simulator for the tool, the command
			// only was recorded: mark its guard so the root converges like
			// a real one. A guard the command wrote itself is kept as is.
			if ok, err := env.fs().Exists(c.Creates); err != nil || ok {
				return err
			}
			if _, err := env.Root.MkdirAll(c.Creates[:strings.LastIndex(c.Creates, "/")+1], 0o755); err != nil {
				return err
			}
			return env.Root.WriteAtomic(c.Creates, nil, fsroot.WriteOpts{Mode: 0o644, UID: -1, GID: -1})
		},
		// A later guard on the same path holds; unless guards ask the
		// host and cannot see what a command would do.
		Would: func() {
			if c.Creates != "" {
				env.wouldCreate(c.Creates)
			}
		},
	})
	return plan, nil
}

// matchesAll reports whether every regular expression (validated with the
// spec) matches out.
func matchesAll(res []string, out string) bool {
	for _, re := range res {
		r, err := regexp.Compile(re)
		if err != nil || !r.MatchString(out) {
			return false
		}
	}
	return true
}

// lastLines is the end of a command's output, for error messages.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
