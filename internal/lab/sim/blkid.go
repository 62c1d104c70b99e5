package sim

import (
	"fmt"
	"path"
	"strings"
)

// blkid follows blkid(8) for the forms the agent and the provider's
// scripts use: `-o value -s TYPE DEV` prints the type, `-o export DEV`
// DEVNAME= and TYPE= lines, a bare `blkid DEV` `DEV: TYPE="t"`; exit 2
// when the device carries no signature (or does not exist), as blkid's
// "nothing found" status.
//
// Signatures are on-disk data, so they live under DataDir (a reboot keeps
// them): SigDir/<kernel name> holds the type mkfs wrote (fakenode writes
// it for a disk cabled with a file system).

// SigDir holds one file per device kernel name with its blkid TYPE.
const SigDir = DataDir + "/blkid"

func blkid(e *Env, args []string) int {
	dev := lastArg(args)
	if dev == "" {
		return 2
	}
	t := e.signature(dev)
	if t == "" {
		return 2
	}
	joined := " " + strings.Join(args, " ") + " "
	switch {
	case strings.Contains(joined, " -o value ") && strings.Contains(joined, " -s TYPE "):
		fmt.Fprintln(e.Stdout, t)
	case strings.Contains(joined, " -o export "):
		fmt.Fprintf(e.Stdout, "DEVNAME=%s\nTYPE=%s\n", dev, t)
	default:
		fmt.Fprintf(e.Stdout, "%s: TYPE=%q\n", dev, t)
	}
	return 0
}

// device resolves a device path in the root (links followed) and reports
// whether it exists.
func (e *Env) device(dev string) (string, bool) {
	if !path.IsAbs(dev) {
		return "", false
	}
	real, err := e.Root.Resolve(dev)
	if err != nil {
		return "", false
	}
	return real, e.exists(real)
}

// sigFile is the signature file of a device path.
func (e *Env) sigFile(dev string) (string, bool) {
	real, ok := e.device(dev)
	if !ok {
		return "", false
	}
	return SigDir + "/" + path.Base(real), true
}

// signature is dev's file-system type, "" when blank or missing: LVM's
// shared metadata first (lvm.go: a PV, the file system of an LV), then
// the device's own.
func (e *Env) signature(dev string) string {
	if real, ok := e.device(dev); ok {
		if s := e.sharedSignature(real); s != "" {
			return s
		}
	}
	return e.localSignature(dev)
}

// localSignature is the signature recorded on this node's device.
func (e *Env) localSignature(dev string) string {
	f, ok := e.sigFile(dev)
	if !ok {
		return ""
	}
	data, err := e.read(f)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// mountedAt returns where the device real (a resolved path) is mounted,
// "" when it is not.
func (e *Env) mountedAt(real string) string {
	data, _ := e.read("/proc/mounts")
	for _, l := range splitLines(string(data)) {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == real {
			return f[1]
		}
	}
	return ""
}
