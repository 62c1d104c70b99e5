package ceph

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Ceph releases a cluster can run. Pacific is the R4 paper's release (end
// of life); Squid and Tentacle are current.
const (
	Pacific  = "pacific"
	Quincy   = "quincy"
	Reef     = "reef"
	Squid    = "squid"
	Tentacle = "tentacle"
)

// Releases are the release names, oldest first; DefaultRelease is the
// paper's.
var Releases = []string{Pacific, Quincy, Reef, Squid, Tentacle}

// DefaultRelease is the release the R4 design was validated with.
const DefaultRelease = Pacific

// releaseMajor is each release's major version (the image tag's first
// number).
var releaseMajor = map[string]int{Pacific: 16, Quincy: 17, Reef: 18, Squid: 19, Tentacle: 20}

// defaultVersion is the point release a cluster of a release is
// bootstrapped with when none is named: the newest known one (Tentacle:
// the first without CVE-2025-30156).
var defaultVersion = map[string]string{Quincy: "17.2.8", Reef: "18.2.7", Squid: "19.2.3", Tentacle: "20.2.4"}

// floor is the oldest point release accepted per release, with the reason.
var floor = map[string]struct{ version, why string }{
	Tentacle: {"20.2.4", "Tentacle releases before 20.2.4 have a CephX authentication bypass (CVE-2025-30156), " +
		"and upgrades from Squid 19.2.6 to them may fail"},
}

// ImageRepo is where cephadm pulls the container images from.
const ImageRepo = "quay.io/ceph/ceph"

// releaseIndex is the release's place in Releases (-1: unknown).
func releaseIndex(r string) int { return slices.Index(Releases, r) }

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

func lessVersion(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// ValidateRelease checks the release and its point version ("" for the
// release's default): the version must belong to the release and be at
// or above its floor.
func ValidateRelease(release, version string) error {
	major, ok := releaseMajor[release]
	if !ok {
		return invalid(located.At("release"), "%q: want one of %s", release, strings.Join(Releases, ", "))
	}
	if version == "" {
		return nil
	}
	v, ok := parseVersion(version)
	if !ok {
		return invalid(located.At("ceph_version"), "%q is not a Ceph version (MAJOR.MINOR.PATCH, e.g. 20.2.4)", version)
	}
	if v[0] != major {
		return invalid(located.At("ceph_version"), "%s is not a %s release (%s is %d.x)", version, release, release, major)
	}
	if f, ok := floor[release]; ok {
		min, _ := parseVersion(f.version)
		if lessVersion(v, min) {
			return invalid(located.At("ceph_version"), "%s is older than %s: %s", version, f.version, f.why)
		}
	}
	return nil
}

// ReleaseImage is the container image a cluster of the release runs, "" for
// Pacific without a version (cephadm's own default image, as the paper
// deployed it).
func ReleaseImage(release, version string) string {
	if version == "" {
		version = defaultVersion[release]
	}
	if version == "" {
		return ""
	}
	return ImageRepo + ":v" + version
}
