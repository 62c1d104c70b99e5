package nodeconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/profiles"
)

func TestCheckSysctl(t *testing.T) {
	for _, c := range []struct {
		key, value string
		ok         bool
	}{
		{"vm.swappiness", "10", true},
		{"vm.swappiness", "low", false},
		{"vm.swappiness", "201", false},
		{"vm.swappiness", "-1", false},
		{"vm.swappiness", "10%", false},
		{"vm.swappiness", "1_0", false},
		{"vm/swappiness", "low", false}, // the /proc/sys spelling
		{"vm.dirty_ratio", "20", true},
		{"vm.dirty_ratio", "120", false},
		{"vm.dirty_ratio", "0.2", false},
		{"vm.min_free_kbytes", "262144", true},
		{"vm.min_free_kbytes", "256M", false},
		{"vm.zone_reclaim_mode", "0", true},
		{"vm.zone_reclaim_mode", "off", false},
		{"vm.dirty_bytes", "0x40000000", true},
		{"vm.watermark_scale_factor", "0", false},
		{"net.ipv4.tcp_rmem", "4096 87380 16777216", true},
		{"net.ipv4.tcp_rmem", "4096\t87380  16777216", true},
		{"net.ipv4.tcp_rmem", "16777216", false},
		{"net.ipv4.tcp_rmem", "4096,87380,16777216", false},
		{"net.ipv4.tcp_rmem", "0 87380 16777216", false},
		{"net.ipv4.tcp_mem", "1 2 3 4", false},
		{"net.ipv4.ip_local_port_range", "32768 60999", true},
		{"net.ipv4.ip_local_port_range", "60999 32768", false},
		{"net.ipv4.ip_local_port_range", "1024 70000", false},
		{"net.ipv4.tcp_sack", "1", true},
		{"net.ipv4.tcp_sack", "2", false},
		{"net.ipv4.tcp_sack", "true", false},
		{"net.ipv4.ip_forward", "yes", false},
		{"net.ipv4.conf.all.arp_filter", "1", true},
		{"net.ipv4.conf.ib0.arp_ignore", "2", true},
		{"net.ipv4.conf.ib0.arp_ignore", "9", false},
		{"net.ipv4.conf.default.rp_filter", "strict", false},
		{"net.ipv6.conf.eth0.disable_ipv6", "1", true},
		{"net.ipv4.tcp_congestion_control", "bbr", true},
		{"net.ipv4.tcp_congestion_control", "bbr cubic", false},
		{"kernel.sem", "250 32000 100 128", true},
		{"kernel.sem", "250 32000 100", false},
		{"kernel.pid_max", "4194304", true},
		{"kernel.pid_max", "4194305", false},
		{"sunrpc.tcp_slot_table_entries", "128", true},
		{"sunrpc.tcp_slot_table_entries", "1", false},
		// Unknown parameters are the kernel's to judge.
		{"vm.something_new", "anything", true},
		{"net.ipv4.conf.all.unknown_knob", "x", true},
	} {
		err := nodeconfig.CheckSysctl(c.key, c.value)
		if (err == nil) != c.ok {
			t.Errorf("%s = %q: %v, want ok=%v", c.key, c.value, err, c.ok)
		}
		if err != nil && (!errors.Is(err, nodeconfig.ErrSysctlValue) || !strings.Contains(err.Error(), "the kernel takes") &&
			!strings.Contains(err.Error(), "want one name") && !strings.Contains(err.Error(), "not be above")) {
			t.Errorf("%s = %q: %v does not say what the kernel takes", c.key, c.value, err)
		}
	}
}

// Every sysctl the tuning presets set passes: values written from the
// vendors' guides, not for this table.
func TestPresetSysctls(t *testing.T) {
	n := 0
	for _, p := range profiles.All() {
		for _, s := range p.Settings {
			if s.Kind() != profiles.KindSysctl {
				continue
			}
			if _, known := nodeconfig.SysctlTypeOf(s.Name()); !known {
				t.Errorf("preset %s sets %s, whose type the table does not know", p.Name, s.Name())
			}
			if err := nodeconfig.CheckSysctl(s.Name(), s.Value); err != nil {
				t.Errorf("preset %s: %v", p.Name, err)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no preset sets a sysctl")
	}
}

// The values this machine's kernel holds right now (read only) pass: the
// table's shapes (vectors, words, ranges) are the kernel's.
func TestKernelSysctls(t *testing.T) {
	n := 0
	for key := range nodeconfig.Sysctls {
		key = strings.Replace(key, "*", "all", 1)
		b, err := os.ReadFile(filepath.Join("/proc/sys", strings.ReplaceAll(key, ".", "/")))
		if err != nil {
			continue // not on this kernel, or not readable here
		}
		if err := nodeconfig.CheckSysctl(key, strings.TrimSpace(string(b))); err != nil {
			t.Errorf("the kernel holds %v", err)
		}
		n++
	}
	t.Logf("%d of %d parameters read from /proc/sys", n, len(nodeconfig.Sysctls))
}
