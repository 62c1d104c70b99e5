package items

import (
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// FuzzOverlay checks the property a second apply depends on: laying the
// same keys over a file twice changes nothing the second time, and every
// key ends up with its value.
func FuzzOverlay(f *testing.F) {
	f.Add("# c\nconnMaxInternodeNum = 12\nlogLevel=3\n", "connMaxInternodeNum", "64")
	f.Add("a = 1", "b", "2")
	f.Add("", "k", "")
	f.Add("k=\nk =  x\n#k = y\n", "k", "v w")
	f.Fuzz(func(t *testing.T, content, key, value string) {
		if !protocol.ValidSetKey(key) || strings.ContainsAny(value, "\n\x00") {
			return // rejected by validation
		}
		set := map[string]protocol.Scalar{key: protocol.Scalar(value), "zz_fixed": "1"}
		once := Overlay([]byte(content), set)
		twice := Overlay(once, set)
		if string(once) != string(twice) {
			t.Fatalf("not idempotent:\n%q\n%q", once, twice)
		}
		found := false
		for _, l := range strings.Split(string(once), "\n") {
			trimmed := strings.TrimLeft(l, " \t")
			if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
				continue
			}
			k, v, ok := strings.Cut(l, "=")
			if ok && strings.TrimSpace(k) == key {
				found = true
				if strings.TrimSpace(v) != strings.TrimSpace(value) {
					t.Fatalf("key %q has %q, want %q in\n%s", key, v, value, once)
				}
			}
		}
		if !found {
			t.Fatalf("key %q missing from\n%s", key, once)
		}
	})
}
