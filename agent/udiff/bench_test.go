package udiff

import (
	"fmt"
	"strings"
	"testing"
	"time"

	lib "github.com/aymanbagabas/go-udiff"
)

// configFile is an agent-sized config file: n "key = value" lines under
// comment blocks, like a BeeGFS or NFS config (n=120: about 4 KB).
func configFile(n int, changed map[int]bool) string {
	var b strings.Builder
	for i := range n {
		if i%10 == 0 {
			fmt.Fprintf(&b, "#\n# Section %d: settings of this service group, as the package ships them\n#\n", i/10)
		}
		v := fmt.Sprintf("value-%d", i)
		if changed[i] {
			v = "changed-" + v
		}
		fmt.Fprintf(&b, "setting%03dName = %s\n", i, v)
	}
	return b.String()
}

type diffCase struct {
	name string
	a, b string
}

func diffCases() []diffCase {
	base := configFile(120, nil)
	return []diffCase{
		{"one-line", base, configFile(120, map[int]bool{57: true})},
		{"ten-lines", base, configFile(120, map[int]bool{3: true, 15: true, 27: true, 40: true, 52: true, 66: true, 78: true, 90: true, 101: true, 117: true})},
		{"new-file", "", base},
		{"16KB-one-line", configFile(480, nil), configFile(480, map[int]bool{240: true})},
	}
}

// TestLibraryAgrees: the library writes the same diffs for these cases,
// so the benchmark compares equal work.
func TestLibraryAgrees(t *testing.T) {
	for _, c := range diffCases() {
		if ours, theirs := Diff("f", []byte(c.a), []byte(c.b)), lib.Unified("f", "f", c.a, c.b); ours != theirs {
			t.Errorf("%s: outputs differ\nours:\n%s\nlibrary:\n%s", c.name, ours, theirs)
		}
	}
}

// BenchmarkDiff times this package and github.com/aymanbagabas/go-udiff
// on the same inputs and reports library/ours as lib-time-ratio.
func BenchmarkDiff(b *testing.B) {
	for _, c := range diffCases() {
		var ours, theirs time.Duration
		b.Run(c.name+"/ours", func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				Diff("f", []byte(c.a), []byte(c.b))
			}
			ours = time.Since(start) / time.Duration(b.N)
		})
		b.Run(c.name+"/library", func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				lib.Unified("f", "f", c.a, c.b)
			}
			theirs = time.Since(start) / time.Duration(b.N)
			if ours > 0 {
				b.ReportMetric(float64(theirs)/float64(ours), "lib-time-ratio")
			}
		})
	}
}
