package protocol

import (
	"regexp"
	"strings"
	"testing"
)

// The patterns without counted repetition accept exactly what the counted
// ones they replace accepted, lengths at and around each bound included.
func TestPatternsMatchCountedOnes(t *testing.T) {
	cases := []struct {
		counted string
		match   func(string) bool
		chars   string
	}{
		{`^[a-z0-9][a-z0-9_.-]{0,62}$`, reOwner.MatchString, "a0_.-A"},
		{`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$`, reName.MatchString, "aZ9_.+-/"},
		{`^[A-Za-z0-9_-]{1,64}$`, reModule.MatchString, "a_-."},
		{`^[A-Za-z0-9][A-Za-z0-9@_.:\\-]{0,250}$`, reUnit.MatchString, "a@_.:\\-/"},
		{`^([a-z_][a-z0-9_-]{0,31}\$?|[0-9]{1,10})$`, validUser, "a_9-$Z"},
		{`^[a-z0-9_.]{1,32}$`, reFSType.MatchString, "a0_.-"},
		{`^[a-z0-9+_-]{1,32}$`, reSchedulerName.MatchString, "a+_-."},
		{`^(0x|naa\.|eui\.)?[0-9a-fA-F]{16,32}$`, validWWN, "0aFx.g"},
		{`^[A-Za-z0-9.+~:_-]{1,128}$`, reVersion.MatchString, "a.+~:_- "},
	}
	for _, c := range cases {
		re := regexp.MustCompile(c.counted)
		var tried int
		check := func(s string) {
			tried++
			if got, want := c.match(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q (%d bytes): %v, want %v", c.counted, s, len(s), got, want)
			}
		}
		for _, prefix := range []string{"", "0x", "naa.", "eui.", "9", "_", "$"} {
			for n := 0; n <= 260; n++ {
				for _, ch := range c.chars {
					check(prefix + strings.Repeat(string(ch), n))
					check(prefix + strings.Repeat("a", n) + string(ch))
					check(prefix + strings.Repeat("1", n) + string(ch))
				}
			}
		}
		if tried == 0 {
			t.Fatal("nothing tried")
		}
	}
}
