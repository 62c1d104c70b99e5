package benchmark

import (
	"fmt"
	"slices"
	"strings"
)

// Params are one run's settings. Field errors start with the resource
// attribute's name, so the provider can point at it.
type Params struct {
	Tool    Tool
	Phases  []string
	Threads []int
	// BlockSize is the bytes of one I/O: fio --bs, IOR -t, IOzone -r,
	// elbencho -b.
	BlockSize int64
	// FileSize is the bytes each thread writes or reads (fio --size,
	// IOzone -s, IOR -b, elbencho -s). When Aggregate is set and the
	// thread count reaches AggregateFrom, each thread gets
	// Aggregate/threads instead, the way the papers keep the total above
	// the servers' caches.
	FileSize      int64
	Aggregate     int64
	AggregateFrom int
	// IODepth is fio's and elbencho's --iodepth (1: synchronous I/O).
	IODepth int
	// Direct bypasses the client page cache (O_DIRECT).
	Direct bool
	// FilePerProcess is N-N (each thread its own file) for IOR, whose
	// default is N-1 (one shared file); the other tools always run N-N.
	FilePerProcess bool
	// Files is mdtest's total number of files over all processes,
	// FilesPerDir its -I; FileBytes the bytes written and read per file
	// (mdtest -w/-e; 0 for empty files).
	Files       int
	FilesPerDir int
	FileBytes   int64
	// RuntimeSeconds caps a fio or elbencho phase (0: until the size is
	// done).
	RuntimeSeconds int
	// Repeat runs each point this many times and keeps the mean (R4's
	// raw-drive baseline averages 3 runs).
	Repeat int
	// DropCaches syncs and drops the clients' page cache before every
	// phase (the R1 paper's `sync; echo 3 > /proc/sys/vm/drop_caches`).
	DropCaches bool
	// Remount unmounts and mounts the clients' file system before every
	// phase (the R1 paper's remount between runs), so no client state
	// (page cache, BeeGFS client caches, open handles) carries over.
	Remount bool
	// ExtraArgs are appended to every invocation of the tool.
	ExtraArgs []string
	// Devices, instead of a directory, are raw block devices every client
	// benchmarks one after the other (fio only; R4's baseline before Ceph):
	// threads are then fio's numjobs on each device, and a point is the
	// mean over the devices (a per-drive figure). Writes destroy what the
	// devices hold.
	Devices []string
}

// SizeFor is the per-thread size at a thread count.
func (p Params) SizeFor(threads int) int64 {
	if p.Aggregate > 0 && threads > 0 && threads >= p.AggregateFrom {
		return p.Aggregate / int64(threads)
	}
	return p.FileSize
}

// Validate checks the parameters; maxThreads is the most threads the
// clients can take (their CPUs × 4; 0 when unknown).
func (p Params) Validate(maxThreads int) error {
	if !slices.Contains(Tools, p.Tool) {
		return fmt.Errorf("%w: tool %q is not one of %s", ErrInvalid, p.Tool, toolList())
	}
	if len(p.Phases) == 0 {
		return fmt.Errorf("%w: phases: none selected (%s runs %s)", ErrInvalid, p.Tool, strings.Join(PhasesOf(p.Tool), ", "))
	}
	seen := map[string]bool{}
	for i, ph := range p.Phases {
		if !slices.Contains(toolPhases[p.Tool], ph) {
			return fmt.Errorf("%w: phases[%d]: %s has no phase %q (it runs %s)", ErrInvalid, i, p.Tool, ph,
				strings.Join(PhasesOf(p.Tool), ", "))
		}
		if seen[ph] {
			return fmt.Errorf("%w: phases[%d]: %q is listed twice", ErrInvalid, i, ph)
		}
		seen[ph] = true
	}
	if len(p.Threads) == 0 {
		return fmt.Errorf("%w: threads: the sweep is empty", ErrInvalid)
	}
	for i, t := range p.Threads {
		if t < 1 {
			return fmt.Errorf("%w: threads[%d]: %d is not a thread count (at least 1)", ErrInvalid, i, t)
		}
		if maxThreads > 0 && t > maxThreads {
			return fmt.Errorf("%w: threads[%d]: %d threads is more than the clients' CPUs × 4 (%d): the run would "+
				"measure the clients' scheduler, not the storage", ErrInvalid, i, t, maxThreads)
		}
	}
	if p.Tool == Mdtest {
		if p.Files < 1 {
			return fmt.Errorf("%w: files: mdtest needs at least one file", ErrInvalid)
		}
		if p.FilesPerDir < 1 {
			return fmt.Errorf("%w: files_per_directory: must be at least 1", ErrInvalid)
		}
		if p.FileBytes < 0 {
			return fmt.Errorf("%w: file_bytes: must not be negative", ErrInvalid)
		}
		for i, t := range p.Threads {
			if p.Files/t < 1 {
				return fmt.Errorf("%w: threads[%d]: %d processes share %d files: fewer than one each", ErrInvalid, i, t, p.Files)
			}
		}
	} else {
		if p.BlockSize <= 0 {
			return fmt.Errorf("%w: block_size_bytes: must be above 0 (the bytes of one I/O, e.g. 1048576 or 4096)", ErrInvalid)
		}
		for i, t := range p.Threads {
			if s := p.SizeFor(t); s < p.BlockSize {
				return fmt.Errorf("%w: file_size_bytes: %s per thread at threads[%d] = %d is smaller than one block (%s)",
					ErrInvalid, FormatSize(s), i, t, FormatSize(p.BlockSize))
			}
		}
	}
	if p.IODepth < 1 {
		return fmt.Errorf("%w: iodepth: must be at least 1", ErrInvalid)
	}
	if p.RuntimeSeconds < 0 {
		return fmt.Errorf("%w: runtime: must not be negative", ErrInvalid)
	}
	if p.Repeat < 1 {
		return fmt.Errorf("%w: repeat: must be at least 1", ErrInvalid)
	}
	if p.Remount && len(p.Devices) > 0 {
		return fmt.Errorf("%w: remount: raw devices have no file system to remount", ErrInvalid)
	}
	if len(p.Devices) > 0 && p.Tool != Fio {
		return fmt.Errorf("%w: devices: raw devices are benchmarked with fio only, not %s", ErrInvalid, p.Tool)
	}
	for i, d := range p.Devices {
		if !strings.HasPrefix(d, "/dev/") || strings.ContainsAny(d, " \t\n\x00") {
			return fmt.Errorf("%w: devices[%d]: %q is not a block device path (/dev/...)", ErrInvalid, i, d)
		}
		if slices.Contains(p.Devices[:i], d) {
			return fmt.Errorf("%w: devices[%d]: %s is listed twice", ErrInvalid, i, d)
		}
	}
	for i, a := range p.ExtraArgs {
		if a == "" || strings.ContainsRune(a, 0) {
			return fmt.Errorf("%w: extra_args[%d]: empty or holds a NUL byte", ErrInvalid, i)
		}
	}
	return nil
}

func toolList() string {
	s := make([]string, len(Tools))
	for i, t := range Tools {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// ToolNames lists the tools as strings (validators, docs).
func ToolNames() []string {
	s := make([]string, len(Tools))
	for i, t := range Tools {
		s[i] = string(t)
	}
	return s
}
