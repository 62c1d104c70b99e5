package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/state"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/udiff"
)

// Restore puts one original back (in check mode it only computes the diff).
// It returns the diff of what it changed, "" when the key already holds its
// original.
func Restore(ctx context.Context, env *Env, o *state.Original) (string, error) {
	switch o.Kind {
	case state.KindFile:
		return restoreFile(env, o)
	case state.KindDir:
		ents, err := env.fs().ReadDir(o.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if len(ents) > 0 {
			return "", nil // someone else put files there: keep it
		}
		if env.Check {
			env.wouldRemove(o.Path)
		} else if err := env.Root.Remove(o.Path); err != nil && !errors.Is(err, syscall.ENOTEMPTY) {
			return "", err
		}
		return fmt.Sprintf("-folder %s\n", o.Path), nil
	case state.KindKernel:
		return restoreKernel(env, o)
	case state.KindUnit:
		return restoreUnit(ctx, env, o)
	case state.KindModule:
		loaded, err := moduleLoaded(env, o.Path)
		if err != nil || !loaded || o.Value != "absent" {
			return "", err
		}
		diff := fmt.Sprintf("-module %s: loaded\n+module %s: not loaded (modprobe -r %s)\n", o.Path, o.Path, o.Path)
		if !env.Check {
			return diff, env.Run.Run(ctx, "modprobe", "-r", o.Path)
		}
		return diff, nil
	case state.KindMount:
		cur, err := mountedAt(env.fs(), o.Path)
		if err != nil || cur == nil || o.Value != "absent" {
			return "", err
		}
		diff := fmt.Sprintf("-%s: mounted\n+%s: not mounted (umount)\n", o.Path, o.Path)
		if !env.Check {
			return diff, env.Run.Run(ctx, "umount", o.Path)
		}
		return diff, nil
	case state.KindFstab:
		step, err := fstabStep(env, o.Path, o.Value, o.Absent)
		if err != nil || step == nil {
			return "", err
		}
		if !env.Check {
			return step.Diff, step.Do(ctx)
		}
		step.Would()
		return step.Diff, nil
	}
	return "", fmt.Errorf("unknown original kind %q for %s", o.Kind, o.Key)
}

func restoreFile(env *Env, o *state.Original) (string, error) {
	fi, err := env.fs().fileInfo(o.Path)
	if err != nil {
		return "", err
	}
	if o.Absent {
		if !fi.exists {
			return "", nil
		}
		diff := udiff.Diff(o.Path, fi.content, nil)
		if o.Sensitive {
			diff = fmt.Sprintf("-file %s (sensitive, not shown)\n", o.Path)
		}
		if diff == "" {
			diff = fmt.Sprintf("-file %s (empty)\n", o.Path)
		}
		if env.Check {
			env.wouldRemove(o.Path)
		} else if err := env.Root.Remove(o.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return diff, err
		}
		return diff, nil
	}
	mode := fs.FileMode(o.Mode)
	if fi.exists && string(fi.content) == string(o.Content) && fi.mode == mode && fi.uid == o.UID && fi.gid == o.GID {
		return "", nil
	}
	diff := udiff.Diff(o.Path, fi.content, o.Content)
	if o.Sensitive {
		diff = redactDiff(o.Path, diff)
	}
	if fi.mode != mode {
		diff += fmt.Sprintf("mode %s: %04o -> %04o\n", o.Path, fi.mode, mode)
	}
	if diff == "" {
		diff = fmt.Sprintf("owner %s: %d:%d -> %d:%d\n", o.Path, fi.uid, fi.gid, o.UID, o.GID)
	}
	if env.Check {
		env.wouldWrite(o.Path, o.Content, mode, o.UID, o.GID)
		return diff, nil
	}
	if _, err := env.Root.MkdirAll(o.Path[:strings.LastIndex(o.Path, "/")+1], 0o755); err != nil {
		return diff, err
	}
	return diff, env.Root.WriteAtomic(o.Path, o.Content, fsroot.WriteOpts{Mode: mode, UID: o.UID, GID: o.GID})
}

func restoreKernel(env *Env, o *state.Original) (string, error) {
	b, err := env.fs().ReadFile(o.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // the device is gone; nothing to put back
	}
	if err != nil {
		return "", err
	}
	raw := strings.TrimRight(string(b), "\n")
	bracketed := strings.Contains(raw, "[")
	cur := raw
	if bracketed {
		cur = selected(raw)
	}
	if env.Root.IsHost() {
		if normalize(cur) == normalize(o.Value) {
			return "", nil
		}
		diff := udiff.Line(o.Path, cur, o.Value)
		if env.Check {
			return diff, nil
		}
		return diff, writeKernel(env.Root, o.Path, o.Value, bracketed)
	}
	// Fake root: put the exact bytes back.
	if string(b) == string(o.Content) {
		return "", nil
	}
	diff := udiff.Line(o.Path, cur, o.Value)
	if env.Check {
		return diff, nil
	}
	st, err := env.Root.Stat(o.Path)
	if err != nil {
		return diff, err
	}
	return diff, env.Root.WriteAtomic(o.Path, o.Content, fsroot.WriteOpts{Mode: st.Mode().Perm(), UID: -1, GID: -1})
}
