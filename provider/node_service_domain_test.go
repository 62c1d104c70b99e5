package provider

import (
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// What of a node check takes a member out: notified restarts and files its
// clustered daemon reads at start; not settings applied live, module
// options (they wait for a boot) or the provider's import record.
func TestDisruption(t *testing.T) {
	startup := startupSet{"file:/etc/idmapd.conf", "file:/etc/beegfs/"}
	item := func(id string, changed bool) protocol.ItemResult {
		return protocol.ItemResult{ID: id, Changed: changed}
	}
	cases := []struct {
		name string
		res  *protocol.Result
		want string
	}{
		{"nothing", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/idmapd.conf", false)}}, ""},
		{"live setting", &protocol.Result{Items: []protocol.ItemResult{item("command:nfsd-threads-live", true), item("file:/etc/nfs.conf", true)}}, ""},
		{"record only", &protocol.Result{Items: []protocol.ItemResult{item("file:"+recordPath("nfs-server"), true)}}, ""},
		{"startup file", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/idmapd.conf", true)}},
			"change file:/etc/idmapd.conf (read when the service starts)"},
		// Options of a loaded module wait for the next boot: nothing is
		// restarted now.
		{"kernel module", &protocol.Result{Items: []protocol.ItemResult{item("kernel_module:beegfs", true)}}, ""},
		{"notified restart", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/default/beegfs-storage", true)},
			Handlers: []protocol.HandlerResult{{ID: "beegfs-storage", Action: "would restart"}}}, "restart beegfs-storage"},
		{"both", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/beegfs/b01-storA.d/beegfs-storage.conf", true)},
			Handlers: []protocol.HandlerResult{{ID: "beegfs-helperd", Action: "would restart"}}},
			"change file:/etc/beegfs/b01-storA.d/beegfs-storage.conf; restart beegfs-helperd"},
		{"under a prefix", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/beegfs/storA.d/beegfs-storage.conf", true)}},
			"change file:/etc/beegfs/storA.d/beegfs-storage.conf (read when the service starts)"},
		{"beside a prefix", &protocol.Result{Items: []protocol.ItemResult{item("file:/etc/beegfs-other", true)}}, ""},
		{"no check", nil, ""},
	}
	for _, c := range cases {
		if got := disruption(c.res, startup); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
