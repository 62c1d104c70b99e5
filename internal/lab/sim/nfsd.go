package sim

import (
	"fmt"
	"strconv"
)

// rpcNFSD follows rpc.nfsd(8) for `rpc.nfsd N`: it sets the kernel's
// nfsd thread count (/proc/fs/nfsd/threads; 0 stops nfsd). A count that
// is not a number is refused with the usage message, exit 1; the kernel
// takes at most 8192 threads (NFSD_MAXSERVS) and clamps larger counts.

// NFSDThreads is the kernel's running thread count.
const NFSDThreads = "/proc/fs/nfsd/threads"

func rpcNFSD(e *Env, args []string) int {
	count := ""
	for _, a := range args {
		if len(a) > 0 && a[0] != '-' {
			count = a
		}
	}
	if count == "" {
		count = "8" // rpc.nfsd's default
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		fmt.Fprintln(e.Stderr, "Usage: rpc.nfsd [options] nrservs")
		return 1
	}
	n = min(n, 8192)
	if err := e.write(NFSDThreads, []byte(strconv.Itoa(n)+"\n")); err != nil {
		return e.fail(1, "unable to set number of nfsd threads: %v", err)
	}
	return 0
}
