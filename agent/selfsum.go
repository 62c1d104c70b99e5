package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// selfSHA256 is the sha256 of the running executable (/proc/self/exe: the
// file this process runs even if its path was replaced since).
//
// Hashing the 4 MB binary costs about 4 ms of every agent start, as much as
// the rest of a no-op run. So the first run of a build leaves the sum in a
// sidecar, <executable>.sha256, with the file's identity: device, inode,
// size, mtime and ctime. Any write, rename or chmod of the binary changes
// its ctime, which cannot be set back, so a sidecar that still matches
// vouches for the same bytes and later runs skip the hash. A sidecar that
// cannot be written (a read-only folder) only means hashing every time.
func selfSHA256() (string, error) {
	f, err := openSelf()
	if err != nil {
		return "", err
	}
	defer f.Close()
	id, exe := selfIdentity(f)
	if exe != "" {
		if b, err := os.ReadFile(exe + ".sha256"); err == nil {
			sum, rest, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
			if ok && rest == id && len(sum) == sha256.Size*2 {
				return sum, nil
			}
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	keepSum(id, exe, sum)
	return sum, nil
}

// openSelf opens the running executable: /proc/self/exe is the file this
// process runs even if its path was replaced since.
func openSelf() (*os.File, error) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		exe, err2 := os.Executable()
		if err2 != nil {
			return nil, err
		}
		return os.Open(exe)
	}
	return f, nil
}

// selfIdentity is the open executable's identity and path ("" when either
// is unknown).
func selfIdentity(f *os.File) (id, exe string) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return "", ""
	}
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(exe, " (deleted)") {
		return "", ""
	}
	return fmt.Sprintf("%d %d %d %d.%09d %d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), exe
}

// keepSum records sum beside the executable exe of identity id: the
// first run of a build on a node (a delivery just put it there, by any
// way), so it also clears the upload temps older deliveries left beside
// it. Writes go through a temporary file and a rename, so a reader never
// sees half a line; failures are ignored (the next run hashes).
func keepSum(id, exe, sum string) {
	if exe == "" {
		return
	}
	removeStaleTemps(exe)
	side := exe + ".sha256"
	tmp, err := os.CreateTemp(filepath.Dir(side), ".hpcstorage-agent-sum-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(sum + " " + id + "\n")
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Chmod(tmp.Name(), 0o644) != nil || os.Rename(tmp.Name(), side) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// installSelf renames the running executable, whose sha256 checkBuild
// has just verified to be sum, to path. The transport's one-exec delivery
// writes the agent to a temp file beside agent_path and runs it with
// --expect-sha256 and --install-as: a file cut short or corrupted on the
// way fails the check (or does not start) and is never installed. The
// rename changes the file's ctime, so the sum is kept anew for path.
func installSelf(path, sum string) error {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return err
	}
	if exe == path {
		return nil
	}
	if err := os.Rename(exe, path); err != nil {
		return err
	}
	_ = os.Remove(exe + ".sha256")
	if f, err := openSelf(); err == nil {
		id, exe := selfIdentity(f)
		keepSum(id, exe, sum)
		f.Close()
	}
	return nil
}

// staleTempAge: an upload temp beside the agent older than this was left
// by a dropped connection (younger ones may be an upload in flight).
const staleTempAge = 10 * time.Minute

// removeStaleTemps deletes the leftover upload temps beside path
// (<name>.tmp-*, from the sftp and the session deliveries), so dropped
// uploads do not pile up 4 MB each. Best effort.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+".tmp-"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTempAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
