package day2

import (
	"strings"
	"testing"
)

// Each kind's plan words name its own commands, and the member; the work
// is among them; the pacemaker words are the standby sequence.
func TestStepsPerKind(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]string{
		KindPacemaker: "put n1 in standby",
		KindGPFS:      "mmshutdown -N n1",
		KindCeph:      "ceph osd set-group noout n1",
		KindBeeGFS:    "buddy group of the targets of n1",
	} {
		s := Steps(Member{Kind: kind, Node: "n1", Domain: "d"}, "reboot n1")
		all := strings.Join(Numbered(s), "\n")
		if !strings.Contains(all, want) || !strings.Contains(all, "reboot n1") || !strings.HasPrefix(all, "1. take the domain's lock") ||
			!strings.HasSuffix(all, ". release the lock") {
			t.Errorf("%s:\n%s", kind, all)
		}
	}
}
