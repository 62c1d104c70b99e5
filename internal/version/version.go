// Package version holds the build's semantic version.
//
// Release and make builds stamp it from git tags with the linker (see
// gitversion); a plain `go build` or `go install` leaves it empty and it is
// derived from Go's VCS build info as 0.0.0-dev+<commit>, so every binary
// says which source it came from.
package version

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
)

// Version is set with -ldflags "-X .../internal/version.Version=...".
var Version string

func init() {
	if Version == "" {
		Version = fromBuildInfo()
	}
}

// fromBuildInfo is the version of an unstamped build: the commit Go recorded
// (vcs.revision, vcs.modified), else the module version `go install
// module@vX` records, else plain 0.0.0-dev.
func fromBuildInfo() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "0.0.0-dev"
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if v := strings.TrimPrefix(bi.Main.Version, "v"); v != "" && v != "(devel)" {
			return v
		}
		return "0.0.0-dev"
	}
	return Untagged(rev, modified)
}

// Untagged is the version of a build from a commit no release tag reaches.
func Untagged(commit string, dirty bool) string {
	if len(commit) > 12 {
		commit = commit[:12]
	}
	v := "0.0.0-dev+" + commit
	if dirty {
		v += ".dirty"
	}
	return v
}

// describeRE matches `git describe --tags --long --abbrev=12 --dirty`:
// vX.Y.Z[-pre]-N-gSHA[-dirty].
var describeRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+?)?-(\d+)-g([0-9a-f]+)(-dirty)?$`)

// FromDescribe turns `git describe --tags --long --abbrev=12 --dirty
// --match 'v[0-9]*'` into a semantic version: the tag itself on a clean
// checkout of it (v0.2.0 -> 0.2.0), otherwise a prerelease of the next
// patch with the distance and commit (0.2.1-dev.3+<commit>), which sorts
// after the tag and before the next release.
func FromDescribe(desc string) (string, error) {
	m := describeRE.FindStringSubmatch(strings.TrimSpace(desc))
	if m == nil {
		return "", fmt.Errorf("git describe %q: not vMAJOR.MINOR.PATCH[-PRERELEASE]-N-gCOMMIT", desc)
	}
	major, minor, patch, pre, dist, commit, dirty := m[1], m[2], m[3], m[4], m[5], m[6], m[7] != ""
	if dist == "0" && !dirty {
		return major + "." + minor + "." + patch + pre, nil
	}
	meta := "+" + commit
	if dirty {
		meta += ".dirty"
	}
	if pre != "" {
		// After a prerelease tag: a later prerelease of the same version.
		return major + "." + minor + "." + patch + pre + ".dev." + dist + meta, nil
	}
	p, err := strconv.Atoi(patch)
	if err != nil {
		return "", errors.New("patch number out of range")
	}
	return fmt.Sprintf("%s.%s.%d-dev.%s%s", major, minor, p+1, dist, meta), nil
}

// Release reports whether v is a release version (no prerelease part):
// only those satisfy version constraints such as ">= 0.1.0".
func Release(v string) bool {
	core, _, _ := strings.Cut(v, "+")
	return !strings.Contains(core, "-")
}
