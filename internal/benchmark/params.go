package benchmark

import (
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Params are one run's settings. Field errors are located
// (internal/located) at the resource attribute of the same name.
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
		return invalid(located.At("tool"), "%q is not one of %s", p.Tool, toolList())
	}
	if len(p.Phases) == 0 {
		return invalid(located.At("phases"), "none selected (%s runs %s)", p.Tool, strings.Join(PhasesOf(p.Tool), ", "))
	}
	seen := map[string]bool{}
	for i, ph := range p.Phases {
		if !slices.Contains(toolPhases[p.Tool], ph) {
			return invalid(located.At("phases").Index(i), "%s has no phase %q (it runs %s)", p.Tool, ph,
				strings.Join(PhasesOf(p.Tool), ", "))
		}
		if seen[ph] {
			return invalid(located.At("phases").Index(i), "%q is listed twice", ph)
		}
		seen[ph] = true
	}
	if len(p.Threads) == 0 {
		return invalid(located.At("threads"), "the sweep is empty")
	}
	for i, t := range p.Threads {
		if t < 1 {
			return invalid(located.At("threads").Index(i), "%d is not a thread count (at least 1)", t)
		}
		if maxThreads > 0 && t > maxThreads {
			return invalid(located.At("threads").Index(i), "%d threads is more than the clients' CPUs × 4 (%d): the run would "+
				"measure the clients' scheduler, not the storage", t, maxThreads)
		}
	}
	if p.Tool == Mdtest {
		if p.Files < 1 {
			return invalid(located.At("files"), "mdtest needs at least one file")
		}
		if p.FilesPerDir < 1 {
			return invalid(located.At("files_per_directory"), "must be at least 1")
		}
		if p.FileBytes < 0 {
			return invalid(located.At("file_bytes"), "must not be negative")
		}
		for i, t := range p.Threads {
			if p.Files/t < 1 {
				return invalid(located.At("threads").Index(i), "%d processes share %d files: fewer than one each", t, p.Files)
			}
		}
	} else {
		if p.BlockSize <= 0 {
			return invalid(located.At("block_size_bytes"), "must be above 0 (the bytes of one I/O, e.g. 1048576 or 4096)")
		}
		for i, t := range p.Threads {
			if s := p.SizeFor(t); s < p.BlockSize {
				return invalid(located.At("file_size_bytes"), "%s per thread at threads[%d] = %d is smaller than one block (%s)",
					FormatSize(s), i, t, FormatSize(p.BlockSize))
			}
		}
	}
	if p.IODepth < 1 {
		return invalid(located.At("iodepth"), "must be at least 1")
	}
	if p.RuntimeSeconds < 0 {
		return invalid(located.At("runtime"), "must not be negative")
	}
	if p.Repeat < 1 {
		return invalid(located.At("repeat"), "must be at least 1")
	}
	if p.Remount && len(p.Devices) > 0 {
		return invalid(located.At("remount"), "raw devices have no file system to remount")
	}
	if len(p.Devices) > 0 && p.Tool != Fio {
		return invalid(located.At("devices"), "raw devices are benchmarked with fio only, not %s", p.Tool)
	}
	for i, d := range p.Devices {
		if !strings.HasPrefix(d, "/dev/") || strings.ContainsAny(d, " \t\n\x00") {
			return invalid(located.At("devices").Index(i), "%q is not a block device path (/dev/...)", d)
		}
		if slices.Contains(p.Devices[:i], d) {
			return invalid(located.At("devices").Index(i), "%s is listed twice", d)
		}
	}
	for i, a := range p.ExtraArgs {
		if a == "" || strings.ContainsRune(a, 0) {
			return invalid(located.At("extra_args").Index(i), "empty or holds a NUL byte")
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

// invalid is a parameter error located at the attribute of the same name
// (hpcstorage_benchmark's attributes are named after the parameters).
func invalid(at located.Path, format string, args ...any) error {
	return located.Errorf(at, "%w: "+format, append([]any{ErrInvalid}, args...)...)
}
