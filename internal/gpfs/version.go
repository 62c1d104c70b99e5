package gpfs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Storage Scale versions the provider renders for. 5.0.4 is the R5
// paper's (out of service); 5.2 and 6.0 are current. A version names its
// stream at its newest known level: 5.1 is 5.1.9 (with 5.1.6's
// --auto-inode-limit), 6.0 is 6.0.1 (whose mmcrfs lists neither
// --metadata-block-size nor --write-cache-threshold).
const (
	V504 = "5.0.4"
	V51  = "5.1"
	V52  = "5.2"
	V60  = "6.0"
)

// Versions are the version names, oldest first.
var Versions = []string{V504, V51, V52, V60}

// DefaultVersion is the version the R5 design was validated with.
const DefaultVersion = V504

// Level is a release level as GPFS prints it (minReleaseLevel, the
// parenthesised part of mmlsfs -V): four numbers.
type Level [4]int

var reLevel = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?$`)

// ParseLevel reads "5.1.9.0", "5.2" or "6.0.1".
func ParseLevel(s string) (Level, error) {
	m := reLevel.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Level{}, fmt.Errorf("%q is not a release level", s)
	}
	var l Level
	for i := range l {
		if m[i+1] != "" {
			l[i], _ = strconv.Atoi(m[i+1])
		}
	}
	return l, nil
}

// Less orders levels.
func (l Level) Less(o Level) bool {
	for i := range l {
		if l[i] != o[i] {
			return l[i] < o[i]
		}
	}
	return false
}

func (l Level) String() string { return fmt.Sprintf("%d.%d.%d.%d", l[0], l[1], l[2], l[3]) }

// levelOf is the version's level: the stream it names, at its first
// release (a 5.2 cluster is one at 5.2.0.0 or later).
func levelOf(v string) Level {
	l, _ := ParseLevel(v)
	return l
}

// ValidVersion says whether v is one of Versions.
func ValidVersion(v string) bool { return slices.Contains(Versions, v) }

// versionOr is v, or the default when unset.
func versionOr(v string) string {
	if v == "" {
		return DefaultVersion
	}
	return v
}

// VersionLess orders two version names.
func VersionLess(a, b string) bool { return levelOf(versionOr(a)).Less(levelOf(versionOr(b))) }

// Option facts per version (IBM's mmcrfs synopsis of each release).
func hasMetadataBlockSize(v string) bool { return versionOr(v) != V60 }
func hasAutoInodeLimit(v string) bool    { return versionOr(v) != V504 }

// ReleaseBelow says whether a seen level (minReleaseLevel, or a file
// system's format level) is below version v: the upgrade is not finished.
func ReleaseBelow(seen, v string) bool {
	l, err := ParseLevel(seen)
	return err == nil && l.Less(levelOf(versionOr(v)))
}

// reFSVersion is mmlsfs -V's value: the format number and its level.
var reFSVersion = regexp.MustCompile(`\(([0-9.]+)\)`)

// FSLevel is the release level in mmlsfs -Y's filesystemVersion
// ("27.00 (5.1.9.0)"); "" when absent.
func FSLevel(v string) string {
	if m := reFSVersion.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return ""
}

// ReleaseLatestStep finishes a cluster upgrade: the cluster admits only
// the new code level and enables its features (mmchconfig release=LATEST).
func ReleaseLatestStep() Step {
	return once(Step{Name: "mmchconfig release=LATEST", Argv: []string{"mmchconfig", "release=LATEST"}})
}

// FormatUpgradeStep raises a file system's format to the cluster's level
// (mmchfs -V full), after ReleaseLatestStep.
func FormatUpgradeStep(device string) Step {
	return once(Step{Name: "mmchfs -V full", Argv: []string{"mmchfs", device, "-V", "full"}})
}
