package gpfs

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Attribute is one mmchconfig attribute this provider knows, with the
// values mmchconfig takes (IBM Storage Scale 5.1 command reference).
type Attribute struct {
	Kind string // "size", "int", "yesno", "enum" or "string"
	// Immediate attributes take -i (effective now and persisted); others
	// take effect when each node's daemon restarts.
	Immediate bool
	// NeedsDown attributes can only change while GPFS is down on every
	// node (mmchconfig refuses otherwise): maxblocksize.
	NeedsDown bool
	// Min and Max bound an int (a size, in bytes), when HasRange.
	Min, Max int64
	HasRange bool
	// Pow2: a size must be a power of two (maxblocksize).
	Pow2 bool
	// Values are an enum's words, as GPFS spells them.
	Values []string
}

func between(a Attribute, lo, hi int64) Attribute {
	a.Min, a.Max, a.HasRange = lo, hi, true
	return a
}

func enum(immediate bool, values ...string) Attribute {
	return Attribute{Kind: "enum", Immediate: immediate, Values: values}
}

const noMax = 1 << 62

// Attributes are the mmchconfig keys accepted, spelt as GPFS spells them
// (keys are case-sensitive: a wrongly cased key would be a new, ignored
// one). The list covers the tuning keys HPC deployments set; the ranges
// are those of the mmchconfig reference.
var Attributes = map[string]Attribute{
	"pagepool":                   between(Attribute{Kind: "size", Immediate: true}, 4<<20, noMax),
	"maxblocksize":               {Kind: "size", NeedsDown: true, Pow2: true, Min: 64 << 10, Max: 16 << 20, HasRange: true},
	"maxMBpS":                    between(Attribute{Kind: "int", Immediate: true}, 1, noMax),
	"workerThreads":              between(Attribute{Kind: "int"}, 1, 8192),
	"maxFilesToCache":            between(Attribute{Kind: "int"}, 1, noMax),
	"maxStatCache":               between(Attribute{Kind: "int"}, 0, noMax),
	"nsdMaxWorkerThreads":        between(Attribute{Kind: "int"}, 1, 8192),
	"nsdMinWorkerThreads":        between(Attribute{Kind: "int"}, 1, 8192),
	"nsdThreadsPerQueue":         between(Attribute{Kind: "int"}, 1, noMax),
	"nsdSmallThreadRatio":        between(Attribute{Kind: "int"}, 0, noMax),
	"nsdbufspace":                between(Attribute{Kind: "int"}, 10, 70),
	"nsdInlineWriteMax":          {Kind: "size"},
	"maxReceiverThreads":         between(Attribute{Kind: "int"}, 1, noMax),
	"prefetchPct":                between(Attribute{Kind: "int"}, 0, 60),
	"numaMemoryInterleave":       {Kind: "yesno"},
	"verbsRdma":                  enum(false, "enable", "disable"),
	"verbsPorts":                 {Kind: "string"},
	"verbsRdmaSend":              {Kind: "yesno"},
	"autoload":                   {Kind: "yesno"},
	"ignorePrefetchLUNCount":     {Kind: "yesno", Immediate: true},
	"readReplicaPolicy":          enum(true, "DEFAULT", "local", "fastest"),
	"scatterBufferSize":          {Kind: "size"},
	"maxInodeDeallocPrefetch":    between(Attribute{Kind: "int", Immediate: true}, 0, noMax),
	"worker1Threads":             between(Attribute{Kind: "int", Immediate: true}, 1, 8192),
	"prefetchThreads":            between(Attribute{Kind: "int"}, 1, 8192),
	"scatterBuffers":             {Kind: "yesno"},
	"verbsRdmaCm":                enum(false, "enable", "disable"),
	"verbsRdmasPerConnection":    between(Attribute{Kind: "int"}, 1, noMax),
	"verbsRdmasPerNode":          between(Attribute{Kind: "int"}, 0, noMax),
	"nsdServerWaitTimeForMount":  between(Attribute{Kind: "int", Immediate: true}, 0, 1200),
	"seqDiscardThreshold":        {Kind: "size", Immediate: true},
	"maxMissedPingTimeout":       between(Attribute{Kind: "int"}, 1, noMax),
	"restripeOnDiskFailure":      {Kind: "yesno", Immediate: true},
	"ignoreReplicationOnStatfs":  {Kind: "yesno", Immediate: true},
	"ignoreReplicationForQuota":  {Kind: "yesno", Immediate: true},
	"pagepoolMaxPhysMemPct":      between(Attribute{Kind: "int"}, 10, 90),
	"cesSharedRoot":              {Kind: "string", NeedsDown: true},
	"tiebreakerDisks":            {Kind: "string"},
	"cipherList":                 {Kind: "string"},
	"adminMode":                  enum(false, "allToAll", "central"),
	"unmountOnDiskFail":          enum(true, "yes", "no", "meta"),
	"maxTcpConnsPerNodeConn":     between(Attribute{Kind: "int"}, 1, 8),
	"socketMaxListenConnections": between(Attribute{Kind: "int"}, 1, 65536),
	"idleSocketTimeout":          between(Attribute{Kind: "int", Immediate: true}, 0, 65535),
	"failureDetectionTime":       between(Attribute{Kind: "int"}, 10, 300),
	"minMissedPingTimeout":       between(Attribute{Kind: "int"}, 1, noMax),
	"leaseRecoveryWait":          between(Attribute{Kind: "int"}, 10, noMax),
	"dmapiFileHandleSize":        between(Attribute{Kind: "int"}, 32, 64),
	"maxBufferDescs":             between(Attribute{Kind: "int"}, -1, noMax),
	"nsdMultiQueue":              between(Attribute{Kind: "int"}, 1, noMax),
	"syncIntervalStrict":         {Kind: "yesno", Immediate: true},
	"enforceFilesetQuotaOnRoot":  {Kind: "yesno", Immediate: true},
}

// ConfigPairs are values that bound each other within one scope: the
// first may not exceed the second.
var ConfigPairs = [][2]string{{"nsdMinWorkerThreads", "nsdMaxWorkerThreads"}, {"minMissedPingTimeout", "maxMissedPingTimeout"}}

// AttributeNames is the sorted list of known keys.
func AttributeNames() []string {
	out := make([]string, 0, len(Attributes))
	for k := range Attributes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CheckConfig checks one key=value: the key must be known, spelt with
// GPFS's case, and the value of its kind.
func CheckConfig(key, value string) error {
	a, ok := Attributes[key]
	if !ok {
		if best, near := closestKey(key); near {
			if strings.EqualFold(best, key) {
				return fmt.Errorf("%w: %q is not a configuration attribute: GPFS keys are case-sensitive, write %q (a wrongly cased key is stored as a different, ignored one)", ErrInvalid, key, best)
			}
			return fmt.Errorf("%w: %q is not a known configuration attribute (did you mean %q?)", ErrInvalid, key, best)
		}
		return fmt.Errorf("%w: %q is not a known configuration attribute", ErrInvalid, key)
	}
	if strings.ContainsAny(value, ",= \t\n:") || value == "" {
		return fmt.Errorf("%w: %s=%q: a value has no commas, equals signs, colons or spaces", ErrInvalid, key, value)
	}
	switch a.Kind {
	case "size":
		n, err := ParseSize(value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if a.Pow2 && n&(n-1) != 0 {
			return fmt.Errorf("%w: %s=%s: want a power of two (64K, 128K, ... 16M)", ErrInvalid, key, value)
		}
		if a.HasRange && (n < a.Min || n > a.Max) {
			return fmt.Errorf("%w: %s=%s: want %s", ErrInvalid, key, value, sizeRange(a))
		}
	case "int":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %s=%q: want a whole number (no unit)", ErrInvalid, key, value)
		}
		if a.HasRange && (n < a.Min || n > a.Max) {
			if a.Max == noMax {
				return fmt.Errorf("%w: %s=%d: want at least %d", ErrInvalid, key, n, a.Min)
			}
			return fmt.Errorf("%w: %s=%d: want %d to %d", ErrInvalid, key, n, a.Min, a.Max)
		}
	case "yesno":
		if value != "yes" && value != "no" {
			return fmt.Errorf("%w: %s=%q: want yes or no", ErrInvalid, key, value)
		}
	case "enum":
		if !slices.Contains(a.Values, value) {
			return fmt.Errorf("%w: %s=%q: want one of %s%s", ErrInvalid, key, value, strings.Join(a.Values, ", "), didYouMean(value, a.Values))
		}
	}
	return nil
}

func sizeRange(a Attribute) string {
	if a.Max == noMax {
		return "at least " + FormatSize(a.Min)
	}
	return FormatSize(a.Min) + " to " + FormatSize(a.Max)
}

// CheckPairs refuses, within one scope's values, a lower bound above its
// upper bound (nsdMinWorkerThreads above nsdMaxWorkerThreads): the key
// returned is the lower one.
func CheckPairs(kv map[string]string) (string, error) {
	for _, p := range ConfigPairs {
		lo, ok1 := kv[p[0]]
		hi, ok2 := kv[p[1]]
		if !ok1 || !ok2 {
			continue
		}
		l, err1 := strconv.ParseInt(lo, 10, 64)
		h, err2 := strconv.ParseInt(hi, 10, 64)
		if err1 == nil && err2 == nil && l > h {
			return p[0], fmt.Errorf("%w: %s=%d is above %s=%d", ErrInvalid, p[0], l, p[1], h)
		}
	}
	return "", nil
}

func closestKey(key string) (string, bool) {
	names := AttributeNames()
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return n, true
		}
	}
	best, ok := "", false
	if b, near := closest(key, names); near {
		best, ok = b, true
	}
	return best, ok
}

// SameValue compares a configured value with what mmlsconfig prints
// (sizes in any unit: "16G" equals "16384M").
func SameValue(key, want, got string) bool {
	if want == got {
		return true
	}
	if a, ok := Attributes[key]; ok && a.Kind == "size" {
		w, err1 := ParseSize(want)
		g, err2 := ParseSize(got)
		return err1 == nil && err2 == nil && w == g
	}
	return false
}

// MmchconfigArgv sets key=value pairs (sorted by key) for a scope: AllNodes
// (no -N) or a node class or node; -i when every key takes it.
func MmchconfigArgv(scope string, kv map[string]string) []string {
	keys := make([]string, 0, len(kv))
	immediate := true
	for k := range kv {
		keys = append(keys, k)
		immediate = immediate && Attributes[k].Immediate
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + kv[k]
	}
	argv := []string{"mmchconfig", strings.Join(pairs, ",")}
	if scope != AllNodes {
		argv = append(argv, "-N", scope)
	}
	if immediate {
		argv = append(argv, "-i")
	}
	return argv
}
