package gpfs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Attribute is one mmchconfig attribute this provider knows.
type Attribute struct {
	Kind string // "size", "int", "yesno" or "string"
	// Immediate attributes take -i (effective now and persisted); others
	// take effect when the daemon restarts.
	Immediate bool
	// NeedsDown attributes can only change while GPFS is down on every
	// node (mmchconfig refuses otherwise): maxblocksize.
	NeedsDown bool
}

// Attributes are the mmchconfig keys accepted, spelt as GPFS spells them
// (keys are case-sensitive: a wrongly cased key would be a new, ignored
// one). The list covers the tuning keys HPC deployments set.
var Attributes = map[string]Attribute{
	"pagepool":                   {Kind: "size", Immediate: true},
	"maxblocksize":               {Kind: "size", NeedsDown: true},
	"maxMBpS":                    {Kind: "int", Immediate: true},
	"workerThreads":              {Kind: "int"},
	"maxFilesToCache":            {Kind: "int"},
	"maxStatCache":               {Kind: "int"},
	"nsdMaxWorkerThreads":        {Kind: "int"},
	"nsdMinWorkerThreads":        {Kind: "int"},
	"nsdThreadsPerQueue":         {Kind: "int"},
	"nsdSmallThreadRatio":        {Kind: "int"},
	"nsdbufspace":                {Kind: "int"},
	"nsdInlineWriteMax":          {Kind: "size"},
	"maxReceiverThreads":         {Kind: "int"},
	"prefetchPct":                {Kind: "int"},
	"numaMemoryInterleave":       {Kind: "yesno"},
	"verbsRdma":                  {Kind: "string"},
	"verbsPorts":                 {Kind: "string"},
	"verbsRdmaSend":              {Kind: "yesno"},
	"autoload":                   {Kind: "yesno"},
	"ignorePrefetchLUNCount":     {Kind: "yesno", Immediate: true},
	"readReplicaPolicy":          {Kind: "string", Immediate: true},
	"scatterBufferSize":          {Kind: "size"},
	"maxInodeDeallocPrefetch":    {Kind: "int", Immediate: true},
	"worker1Threads":             {Kind: "int", Immediate: true},
	"prefetchThreads":            {Kind: "int"},
	"scatterBuffers":             {Kind: "yesno"},
	"verbsRdmaCm":                {Kind: "string"},
	"verbsRdmasPerConnection":    {Kind: "int"},
	"verbsRdmasPerNode":          {Kind: "int"},
	"nsdServerWaitTimeForMount":  {Kind: "int", Immediate: true},
	"seqDiscardThreshold":        {Kind: "size", Immediate: true},
	"maxMissedPingTimeout":       {Kind: "int"},
	"restripeOnDiskFailure":      {Kind: "yesno", Immediate: true},
	"ignoreReplicationOnStatfs":  {Kind: "yesno", Immediate: true},
	"ignoreReplicationForQuota":  {Kind: "yesno", Immediate: true},
	"pagepoolMaxPhysMemPct":      {Kind: "int"},
	"cesSharedRoot":              {Kind: "string", NeedsDown: true},
	"tiebreakerDisks":            {Kind: "string"},
	"cipherList":                 {Kind: "string"},
	"adminMode":                  {Kind: "string"},
	"unmountOnDiskFail":          {Kind: "yesno", Immediate: true},
	"maxTcpConnsPerNodeConn":     {Kind: "int"},
	"socketMaxListenConnections": {Kind: "int"},
	"idleSocketTimeout":          {Kind: "int", Immediate: true},
	"failureDetectionTime":       {Kind: "int"},
	"minMissedPingTimeout":       {Kind: "int"},
	"leaseRecoveryWait":          {Kind: "int"},
	"dmapiFileHandleSize":        {Kind: "int"},
	"maxBufferDescs":             {Kind: "int"},
	"nsdMultiQueue":              {Kind: "int"},
	"syncIntervalStrict":         {Kind: "yesno", Immediate: true},
	"enforceFilesetQuotaOnRoot":  {Kind: "yesno", Immediate: true},
}

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
		if _, err := ParseSize(value); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	case "int":
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return fmt.Errorf("%w: %s=%q: want a whole number", ErrInvalid, key, value)
		}
	case "yesno":
		if value != "yes" && value != "no" {
			return fmt.Errorf("%w: %s=%q: want yes or no", ErrInvalid, key, value)
		}
	}
	return nil
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
