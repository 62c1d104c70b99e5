// Package realnode boots real Debian 12 nodes for the lab: one
// systemd-nspawn container per node, with real systemd, sshd, pacemaker and
// corosync, on a bridge the lab creates (issue 27). What this kernel lacks
// (device-mapper, NFS, loadable modules) stays simulated in internal/lab.
// Facts and traps: ../shared/research/real-nodes/README.md.
package realnode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Suite is the Debian release of the node image.
const Suite = "bookworm"

// DefaultMirror is the Debian mirror debootstrap uses unless
// HPCSTORAGE_LAB_MIRROR names another.
const DefaultMirror = "http://deb.debian.org/debian"

// BuildTimeout bounds one image build (about 5 minutes measured under load;
// tripled for a busy machine).
const BuildTimeout = 20 * time.Minute

// Packages are the node image's packages. python3-cffi-backend: debootstrap
// does not resolve the virtual package python3-cryptography needs (then
// fence-agents stays unconfigured); pacemaker-cli-utils is only recommended
// by pacemaker; kmod: ocf:heartbeat:Filesystem wants modprobe; udev:
// udevadm, which the agent's udev rules run (udevd itself does not run in
// a container); psmisc: fuser, without which ocf:heartbeat:Filesystem
// reports "not installed".
func Packages() []string {
	return []string{"systemd", "systemd-sysv", "dbus", "openssh-server", "iproute2", "procps",
		"pacemaker", "pacemaker-cli-utils", "corosync", "resource-agents", "fence-agents", "python3-cffi-backend",
		"xfsprogs", "lvm2", "kmod", "udev", "psmisc"}
}

// imageRecipe versions what image.go does to the rootfs after debootstrap:
// change it with that code so cached images are rebuilt.
const imageRecipe = "2"

// Image is a built node rootfs, shared read-only (overlay lower dir) by
// every node booted from it.
type Image struct {
	Dir    string // cache entry
	Rootfs string
	Built  bool          // built by this call (false: reused)
	Took   time.Duration // build time when Built
}

// ImageConfig says where the image is cached and what goes in it.
type ImageConfig struct {
	CacheDir string // default DefaultCacheDir()
	Mirror   string // default $HPCSTORAGE_LAB_MIRROR or DefaultMirror
	Packages []string
	Log      io.Writer // debootstrap's output (default: discarded)
}

// DefaultCacheDir is $HPCSTORAGE_LAB_CACHE, else $XDG_CACHE_HOME/hpcstorage-lab,
// else /var/cache/hpcstorage-lab: outside any checkout, kept between runs.
func DefaultCacheDir() string {
	if d := os.Getenv("HPCSTORAGE_LAB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "hpcstorage-lab")
	}
	return "/var/cache/hpcstorage-lab"
}

// ImageKey names an image by everything that goes into it, so a changed
// package list (or mirror, or recipe) builds a new one.
func ImageKey(mirror string, pkgs []string) string {
	h := sha256.Sum256([]byte(strings.Join([]string{Suite, mirror, imageRecipe, strings.Join(pkgs, ",")}, "\n")))
	return "debian12-" + hex.EncodeToString(h[:])[:16]
}

// EnsureImage returns the cached image for cfg, building it first when
// there is none. Builds are serialised by a lock in the cache folder.
func EnsureImage(ctx context.Context, cfg ImageConfig) (Image, error) {
	if cfg.CacheDir == "" {
		cfg.CacheDir = DefaultCacheDir()
	}
	if cfg.Mirror == "" {
		cfg.Mirror = os.Getenv("HPCSTORAGE_LAB_MIRROR")
	}
	if cfg.Mirror == "" {
		cfg.Mirror = DefaultMirror
	}
	if len(cfg.Packages) == 0 {
		cfg.Packages = Packages()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	key := ImageKey(cfg.Mirror, cfg.Packages)
	img := Image{Dir: filepath.Join(cfg.CacheDir, key)}
	img.Rootfs = filepath.Join(img.Dir, "rootfs")
	if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
		return img, fmt.Errorf("image cache: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(cfg.CacheDir, ".lock"))
	if err != nil {
		return img, err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(img.Dir, "complete")); err == nil {
		return img, nil
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return img, errors.New("debootstrap not found: install it (scripts/deps.sh install real)")
	}
	start := time.Now()
	tmp := img.Dir + ".building"
	if err := removeTree(tmp); err != nil {
		return img, err
	}
	bctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	if err := buildRootfs(bctx, tmp, cfg); err != nil {
		_ = removeTree(tmp)
		return img, fmt.Errorf("image %s: %w", key, err)
	}
	if err := removeTree(img.Dir); err != nil {
		return img, err
	}
	if err := os.Rename(tmp, img.Dir); err != nil {
		return img, err
	}
	img.Built, img.Took = true, time.Since(start)
	return img, os.WriteFile(filepath.Join(img.Dir, "complete"), []byte(fmt.Sprintf("built %s in %s\npackages %s\n",
		time.Now().UTC().Format(time.RFC3339), img.Took.Round(time.Second), strings.Join(cfg.Packages, ","))), 0o644)
}

func buildRootfs(ctx context.Context, dir string, cfg ImageConfig) error {
	rootfs := filepath.Join(dir, "rootfs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "debootstrap", "--variant=minbase", "--include="+strings.Join(cfg.Packages, ","),
		Suite, rootfs, cfg.Mirror)
	cmd.Stdout, cmd.Stderr = cfg.Log, cfg.Log
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debootstrap: %w (see its log)", err)
	}
	// Each container makes its own machine-id; each node gets its own host
	// key at boot (node.go), so none is baked in.
	if err := os.WriteFile(filepath.Join(rootfs, "etc/machine-id"), nil, 0o444); err != nil {
		return err
	}
	keys, _ := filepath.Glob(filepath.Join(rootfs, "etc/ssh/ssh_host_*"))
	for _, k := range keys {
		if err := os.Remove(k); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(rootfs, "etc/ssh/sshd_config.d/hpcstorage-lab.conf"),
		[]byte("HostKey /etc/ssh/ssh_host_ed25519_key\n"), 0o644); err != nil {
		return err
	}
	// No kernel NFS here: these mounts fail and leave systemd degraded.
	for _, u := range []string{"proc-fs-nfsd.mount", "run-rpc_pipefs.mount", "var-lib-nfs-rpc_pipefs.mount"} {
		if err := os.Symlink("/dev/null", filepath.Join(rootfs, "etc/systemd/system", u)); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	// The cluster is formed by the provider (or a test), not at boot.
	for _, args := range [][]string{{"enable", "systemd-networkd"}, {"disable", "corosync", "pacemaker"}} {
		out, err := exec.CommandContext(ctx, "systemctl", append([]string{"--root=" + rootfs}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("systemctl --root %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return removeTree(filepath.Join(rootfs, "var/cache/apt/archives"))
}

// lockFile takes an exclusive flock, waiting until ctx ends.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s: %w", path, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
