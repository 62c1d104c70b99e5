package sim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// BinEnv names the simulator program for the lab commands that seed roots
// (hpcstorage-lab up, seed-node) when it is not beside them.
const BinEnv = "HPCSTORAGE_SIM_BIN"

// Install puts the simulator program bin into the node root dir: the
// program as BinDir/Program (a hard link when it can, else a
// copy) and one link per tool to it, which is how the agent finds them.
func Install(dir, bin string) error {
	binDir := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(BinDir, "/")))
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return fmt.Errorf("install simulators: %w", err)
	}
	prog := filepath.Join(binDir, Program)
	if err := linkOrCopy(bin, prog); err != nil {
		return fmt.Errorf("install simulators: %w", err)
	}
	for _, t := range Tools() {
		p := filepath.Join(binDir, t)
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("install simulators: %w", err)
		}
		if err := os.Symlink(Program, p); err != nil {
			return fmt.Errorf("install simulators: %w", err)
		}
	}
	return nil
}

func linkOrCopy(src, dst string) error {
	tmp := dst + ".new"
	_ = os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dst)
}

// Locate finds the simulator program for a lab command: BinEnv, else
// Program beside the running executable.
func Locate() (string, error) {
	if p := os.Getenv(BinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", BinEnv, err)
		}
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(self), Program)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no simulator program: %s not found (make build puts it there) and %s is not set", p, BinEnv)
	}
	return p, nil
}
