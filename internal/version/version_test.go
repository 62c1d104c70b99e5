package version

import "testing"

func TestFromDescribe(t *testing.T) {
	for desc, want := range map[string]string{
		"v0.1.0-0-g0123456789ab":             "0.1.0",
		"v0.1.0-0-g0123456789ab-dirty":       "0.1.1-dev.0+0123456789ab.dirty",
		"v0.1.0-3-g0123456789ab":             "0.1.1-dev.3+0123456789ab",
		"v1.2.9-12-g0123456789ab\n":          "1.2.10-dev.12+0123456789ab",
		"v0.2.0-rc.1-0-g0123456789ab":        "0.2.0-rc.1",
		"v0.2.0-rc.1-2-g0123456789ab":        "0.2.0-rc.1.dev.2+0123456789ab",
		"v0.2.0-rc.1-2-g0123456789ab-dirty":  "0.2.0-rc.1.dev.2+0123456789ab.dirty",
		"v10.20.30-1-gabcdefabcdef":          "10.20.31-dev.1+abcdefabcdef",
		"v0.1.0-beta-x.2-1-g0123456789ab":    "0.1.0-beta-x.2.dev.1+0123456789ab",
		"v0.1.0-alpha-0-gdeadbeefdead-dirty": "0.1.0-alpha.dev.0+deadbeefdead.dirty",
	} {
		got, err := FromDescribe(desc)
		if err != nil || got != want {
			t.Errorf("FromDescribe(%q) = %q, %v; want %q", desc, got, err, want)
		}
	}
	for _, bad := range []string{"", "0123456789ab", "v1.2-0-g0123456789ab", "release-1-0-gabc", "v1.2.3"} {
		if got, err := FromDescribe(bad); err == nil {
			t.Errorf("FromDescribe(%q) = %q, want an error", bad, got)
		}
	}
}

func TestUntaggedAndRelease(t *testing.T) {
	if got := Untagged("0123456789abcdef0123", false); got != "0.0.0-dev+0123456789ab" {
		t.Errorf("Untagged = %q", got)
	}
	if got := Untagged("0123456789ab", true); got != "0.0.0-dev+0123456789ab.dirty" {
		t.Errorf("Untagged dirty = %q", got)
	}
	for v, want := range map[string]bool{"0.1.0": true, "1.0.0+meta": true, "0.0.0-dev+abc": false, "0.2.0-rc.1": false} {
		if Release(v) != want {
			t.Errorf("Release(%q) = %v", v, !want)
		}
	}
	if Version == "" {
		t.Error("Version is empty in an unstamped test binary")
	}
}
