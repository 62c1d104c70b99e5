package nodeconfig

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrSysctlValue is wrapped by every refused sysctl value.
var ErrSysctlValue = errors.New("invalid sysctl value")

// SysctlType is how the kernel parses one parameter (proc_dointvec_minmax,
// proc_doulongvec_minmax and friends): N whitespace-separated integers
// (N = 1 for a scalar), each from Min to Max (any unsigned long when
// ULong), not decreasing when Ascending, or a word (a congestion control
// or qdisc name) when Word is set.
type SysctlType struct {
	N         int
	Min, Max  int64
	ULong     bool
	Ascending bool
	Word      bool
}

const maxInt = 1<<31 - 1

var (
	boolean  = SysctlType{N: 1, Min: 0, Max: 1}
	natural  = SysctlType{N: 1, Min: 0, Max: maxInt}
	ulong    = SysctlType{N: 1, ULong: true}
	tcpTrio  = SysctlType{N: 3, Min: 1, Max: maxInt}
	word     = SysctlType{Word: true}
	upTo     = func(max int64) SysctlType { return SysctlType{N: 1, Min: 0, Max: max} }
	between  = func(min, max int64) SysctlType { return SysctlType{N: 1, Min: min, Max: max} }
	rpcSlots = between(2, 65536) // RPC_MIN_SLOT_TABLE .. RPC_MAX_SLOT_TABLE_LIMIT
)

// Sysctls are the kernel parameters whose type is known, by name; "*" in
// a name stands for one path element (an interface: all, default, ib0).
// The ranges are the kernel's own (it refuses anything else with EINVAL),
// or, for the few it stores unchecked (arp_ignore, rp_filter), the values
// Documentation/networking/ip-sysctl.rst gives a meaning.
var Sysctls = map[string]SysctlType{
	"vm.swappiness":                      between(0, 200),
	"vm.dirty_ratio":                     upTo(100),
	"vm.dirty_background_ratio":          upTo(100),
	"vm.dirty_bytes":                     ulong,
	"vm.dirty_background_bytes":          ulong,
	"vm.dirty_expire_centisecs":          natural,
	"vm.dirty_writeback_centisecs":       natural,
	"vm.min_free_kbytes":                 natural,
	"vm.vfs_cache_pressure":              natural,
	"vm.zone_reclaim_mode":               upTo(7), // a bit mask of three modes
	"vm.overcommit_memory":               upTo(2),
	"vm.overcommit_ratio":                natural,
	"vm.max_map_count":                   natural,
	"vm.nr_hugepages":                    ulong,
	"vm.watermark_scale_factor":          between(1, 3000),
	"vm.panic_on_oom":                    upTo(2),
	"vm.drop_caches":                     between(1, 4),
	"kernel.numa_balancing":              upTo(3),
	"kernel.sched_autogroup_enabled":     boolean,
	"kernel.pid_max":                     between(301, 4194304),
	"kernel.threads-max":                 between(20, 1<<30-1),
	"kernel.shmmax":                      ulong,
	"kernel.shmall":                      ulong,
	"kernel.shmmni":                      between(1, 1<<24),
	"kernel.sem":                         {N: 4, Min: 0, Max: maxInt},
	"kernel.panic":                       {N: 1, Min: -maxInt - 1, Max: maxInt},
	"kernel.panic_on_oops":               boolean,
	"kernel.hung_task_timeout_secs":      ulong,
	"kernel.core_uses_pid":               boolean,
	"fs.file-max":                        ulong,
	"fs.nr_open":                         between(64, 2147483584),
	"fs.aio-max-nr":                      ulong,
	"fs.inotify.max_user_watches":        natural,
	"fs.inotify.max_user_instances":      natural,
	"net.core.rmem_max":                  natural,
	"net.core.wmem_max":                  natural,
	"net.core.rmem_default":              natural,
	"net.core.wmem_default":              natural,
	"net.core.optmem_max":                natural,
	"net.core.netdev_max_backlog":        natural,
	"net.core.netdev_budget":             natural,
	"net.core.somaxconn":                 natural,
	"net.core.default_qdisc":             word,
	"net.ipv4.ip_forward":                boolean,
	"net.ipv4.ip_local_port_range":       {N: 2, Min: 1, Max: 65535, Ascending: true},
	"net.ipv4.tcp_rmem":                  tcpTrio,
	"net.ipv4.tcp_wmem":                  tcpTrio,
	"net.ipv4.tcp_mem":                   {N: 3, ULong: true},
	"net.ipv4.udp_mem":                   {N: 3, ULong: true},
	"net.ipv4.tcp_timestamps":            upTo(2),
	"net.ipv4.tcp_sack":                  boolean,
	"net.ipv4.tcp_window_scaling":        boolean,
	"net.ipv4.tcp_low_latency":           boolean,
	"net.ipv4.tcp_mtu_probing":           upTo(2),
	"net.ipv4.tcp_no_metrics_save":       boolean,
	"net.ipv4.tcp_moderate_rcvbuf":       boolean,
	"net.ipv4.tcp_slow_start_after_idle": boolean,
	"net.ipv4.tcp_adv_win_scale":         between(-31, 31),
	"net.ipv4.tcp_syncookies":            upTo(2),
	"net.ipv4.tcp_tw_reuse":              upTo(2),
	"net.ipv4.tcp_fin_timeout":           natural,
	"net.ipv4.tcp_keepalive_time":        between(1, maxInt),
	"net.ipv4.tcp_keepalive_intvl":       between(1, maxInt),
	"net.ipv4.tcp_keepalive_probes":      between(1, maxInt),
	"net.ipv4.tcp_max_syn_backlog":       natural,
	"net.ipv4.tcp_congestion_control":    word,
	"net.ipv4.conf.*.rp_filter":          upTo(2),
	"net.ipv4.conf.*.arp_filter":         boolean,
	"net.ipv4.conf.*.arp_announce":       upTo(2),
	"net.ipv4.conf.*.arp_ignore":         upTo(8),
	"net.ipv4.conf.*.accept_redirects":   boolean,
	"net.ipv4.conf.*.send_redirects":     boolean,
	"net.ipv4.neigh.*.gc_thresh1":        natural,
	"net.ipv4.neigh.*.gc_thresh2":        natural,
	"net.ipv4.neigh.*.gc_thresh3":        natural,
	"net.ipv6.conf.*.disable_ipv6":       boolean,
	"sunrpc.tcp_slot_table_entries":      rpcSlots,
	"sunrpc.tcp_max_slot_table_entries":  rpcSlots,
	"sunrpc.udp_slot_table_entries":      rpcSlots,
}

// SysctlTypeOf is the type of key, also when it is written with slashes
// (vm/swappiness, as under /proc/sys); ok is false for an unknown key.
func SysctlTypeOf(key string) (SysctlType, bool) {
	key = strings.ReplaceAll(key, "/", ".")
	if t, ok := Sysctls[key]; ok {
		return t, true
	}
	parts := strings.Split(key, ".")
	for pattern, t := range Sysctls {
		p := strings.Split(pattern, ".")
		if len(p) != len(parts) || !strings.Contains(pattern, "*") {
			continue
		}
		match := true
		for i := range p {
			match = match && (p[i] == "*" || p[i] == parts[i])
		}
		if match {
			return t, true
		}
	}
	return SysctlType{}, false
}

var reWord = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// CheckSysctl checks a value against its key's type; a key whose type is
// not known passes (the kernel is the judge).
func CheckSysctl(key, value string) error {
	t, ok := SysctlTypeOf(key)
	if !ok {
		return nil
	}
	fields := strings.Fields(value)
	if t.Word {
		if len(fields) != 1 || !reWord.MatchString(fields[0]) {
			return fmt.Errorf("%w: %s = %q: want one name", ErrSysctlValue, key, value)
		}
		return nil
	}
	want := "an integer"
	if t.N > 1 {
		want = fmt.Sprintf("%d integers separated by spaces", t.N)
	}
	switch {
	case t.ULong:
		want += " from 0 to 18446744073709551615"
	case t.Min == 0 && t.Max == 1:
		want = "0 or 1"
	case t.N == 1:
		want += fmt.Sprintf(" from %d to %d", t.Min, t.Max)
	default:
		want += fmt.Sprintf(", each from %d to %d", t.Min, t.Max)
	}
	if len(fields) != t.N {
		return fmt.Errorf("%w: %s = %q: the kernel takes %s", ErrSysctlValue, key, value, want)
	}
	prev := int64(-1 << 63)
	for _, f := range fields {
		// The kernel reads decimal (and 0x hex); nothing else.
		n, err := strconv.ParseInt(f, 0, 64)
		if t.ULong {
			_, err = strconv.ParseUint(f, 0, 64)
			n = max(n, 0)
		}
		digits := strings.TrimLeft(f, "+-")
		if err != nil || strings.Contains(f, "_") || strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0o") ||
			!t.ULong && (n < t.Min || n > t.Max) {
			return fmt.Errorf("%w: %s = %q: the kernel takes %s", ErrSysctlValue, key, value, want)
		}
		if t.Ascending && n < prev {
			return fmt.Errorf("%w: %s = %q: the first must not be above the second", ErrSysctlValue, key, value)
		}
		prev = n
	}
	return nil
}
