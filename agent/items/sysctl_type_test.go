package items

import (
	"errors"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
)

// TestSysctlKernelType: a value the parameter's kernel type rules out is
// an item error at plan, in check mode too, and nothing is written.
func TestSysctlKernelType(t *testing.T) {
	n := newNode(t, fakenode.Storage)
	before := n.read("proc/sys/vm/swappiness")
	for _, item := range []string{
		"  - sysctl: {key: vm.swappiness, value: low}\n",
		"  - sysctl: {key: net.ipv4.tcp_rmem, value: \"4096 87380\"}\n",
	} {
		for _, check := range []bool{true, false} {
			if _, err := n.plan(spec(t, item), 0, check); !errors.Is(err, nodeconfig.ErrSysctlValue) {
				t.Errorf("%s(check %v): %v, want the kernel type's refusal", item, check, err)
			}
		}
	}
	if got := n.read("proc/sys/vm/swappiness"); got != before {
		t.Errorf("swappiness %q after the refusal, was %q", got, before)
	}
}
