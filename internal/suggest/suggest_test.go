package suggest

import "testing"

func TestClosest(t *testing.T) {
	opts := []string{"sysctl", "file", "udev_rule", "block_queue", "thp", "kernel_module", "service"}
	for _, tc := range []struct {
		got, want string
		max       int
	}{
		{"sysctl", "sysctl", 2},
		{"systcl", "sysctl", 2},   // transposition: two edits
		{"Service", "service", 2}, // case does not count
		{"udev-rule", "udev_rule", 2},
		{"blockqueue", "block_queue", 2},
		{"mount", "", 2}, // nothing near
		{"xyz", "", 2},
	} {
		got, ok := Closest(tc.got, opts, tc.max)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", tc.got, got, ok, tc.want)
		}
	}
	if got := DidYouMean("thpp", opts, 2); got != ` (did you mean "thp"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzzzzz", opts, 2); got != "" {
		t.Errorf("DidYouMean far = %q", got)
	}
}
