// Package suggest names the valid word nearest to a misspelt one, for error
// messages ("did you mean ...?"). One helper for the agent's spec parser,
// the tuning profiles and the BIOS registry, on agext/levenshtein.
package suggest

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
)

// Closest returns the option nearest to got (case-insensitive), if it is at
// most maxDist edits away; ties go to the earlier option.
func Closest(got string, options []string, maxDist int) (string, bool) {
	best, bestD := "", maxDist+1
	g := strings.ToLower(got)
	for _, o := range options {
		if d := levenshtein.Distance(g, strings.ToLower(o), nil); d < bestD {
			best, bestD = o, d
		}
	}
	return best, best != ""
}

// DidYouMean is ` (did you mean "x"?)` for a near miss, else "".
func DidYouMean(got string, options []string, maxDist int) string {
	if best, ok := Closest(got, options, maxDist); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
