package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// wipefs follows wipefs(8): `wipefs -a DEV` erases every signature; a
// device that does not exist, or is in use (mounted: wipefs opens it
// O_EXCL), fails with "probing initialization failed", exit 1.

func wipefs(e *Env, args []string) int {
	dev := lastArg(args)
	if dev == "" {
		return e.fail(1, "error: no device specified")
	}
	real, ok := e.device(dev)
	if !ok {
		return e.fail(1, "error: %s: probing initialization failed: No such file or directory", dev)
	}
	if e.mountedAt(real) != "" {
		return e.fail(1, "error: %s: probing initialization failed: Device or resource busy", dev)
	}
	all := false
	for _, a := range args {
		all = all || a == "-a" || a == "--all"
	}
	if !all {
		// Without -a wipefs only lists the signatures.
		if t := e.signature(dev); t != "" {
			fmt.Fprintf(e.Stdout, "DEVICE OFFSET TYPE UUID LABEL\n%s 0x0 %s\n", path.Base(real), t)
		}
		return 0
	}
	f, _ := e.sigFile(dev)
	if err := e.Root.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return e.fail(1, "error: %v", err)
	}
	e.wipeShared(real)
	return 0
}
