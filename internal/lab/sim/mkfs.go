package sim

import (
	"bufio"
	"fmt"
	"path"
	"strings"
)

// mkfs follows mkfs.xfs(8), mke2fs(8) (mkfs.ext2/3/4) and mkfs.btrfs(8):
// each refuses a device that does not exist or holds a mounted file
// system, and one that already carries a signature unless forced (-f for
// xfs and btrfs; -F for the ext family, which otherwise asks "Proceed
// anyway? (y,N)" on stdin and gives up without a "y"). Success records
// the new signature in SigDir.

var mkfsTypes = []string{"xfs", "ext2", "ext3", "ext4", "btrfs"}

func mkfs(e *Env, args []string) int {
	fstype := strings.TrimPrefix(e.tool, "mkfs.")
	ext := strings.HasPrefix(fstype, "ext")
	force := false
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && !strings.ContainsAny(a, "=") {
			force = force || (ext && strings.Contains(a, "F")) || (!ext && a == "-f")
		}
		if a == "--force" {
			force = true
		}
	}
	dev := lastArg(args)
	if dev == "" {
		return e.fail(1, "no device name given in argument list")
	}
	real, ok := e.device(dev)
	if !ok {
		if ext {
			fmt.Fprintf(e.Stderr, "The file %s does not exist and no size was specified.\n", dev)
			return 1
		}
		return e.fail(1, "cannot open %s: No such file or directory", dev)
	}
	if at := e.mountedAt(real); at != "" {
		if ext {
			fmt.Fprintf(e.Stderr, "%s contains a %s file system\n\t/dev/%s is mounted on %s; will not make a filesystem here!\n", dev, e.signature(dev), path.Base(real), at)
			return 1
		}
		return e.fail(1, "%s contains a mounted filesystem", dev)
	}
	if old := e.signature(dev); old != "" && !force {
		if !ext {
			fmt.Fprintf(e.Stderr, "%s: %s appears to contain an existing filesystem (%s).\n%s: Use the -f option to force overwrite.\n", e.tool, dev, old, e.tool)
			return 1
		}
		fmt.Fprintf(e.Stdout, "%s contains a %s file system\nProceed anyway? (y,N) ", dev, old)
		answer, _ := bufio.NewReader(e.Stdin).ReadString('\n')
		if !strings.HasPrefix(strings.TrimSpace(answer), "y") {
			fmt.Fprintln(e.Stdout)
			return 1
		}
	}
	if fstype == "xfs" {
		if code := e.checkXFSStripe(args); code != 0 {
			return code
		}
	}
	f, _ := e.sigFile(dev)
	if err := e.write(f, []byte(fstype+"\n")); err != nil {
		return e.fail(1, "%v", err)
	}
	e.recordSharedSignature(real, fstype)
	return 0
}
