//go:build pprof

package main

// A provider built with -tags pprof writes a CPU profile of each run to
// $HPCSTORAGE_CPUPROFILE.<pid>, for profiling a real terraform plan (one
// provider process per walk). Release builds do not contain this file.

import (
	"fmt"
	"os"
	"runtime/pprof"
)

func init() {
	base := os.Getenv("HPCSTORAGE_CPUPROFILE")
	if base == "" {
		return
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", base, os.Getpid()))
	if err != nil {
		return
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return
	}
	atExit = func() { pprof.StopCPUProfile(); f.Close() }
}
