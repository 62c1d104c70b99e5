package beegfs

// BeeGFS releases the resources render for. The designs were validated on
// 7.2 (R1) and 7.4 (R3); 8 replaced the management service (Rust
// beegfs-mgmtd, TOML config, SQLite store, gRPC with TLS, a license) and
// beegfs-ctl (the `beegfs` command). 7.x clients cannot talk to 8.x
// servers, and a 7.x site reaches 8 only from 7.4.6, with downtime.

import (
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Versions of BeeGFS, as the version attributes take them.
const (
	Version72 = "7.2"
	Version74 = "7.4"
	Version8  = "8"
)

// Releases lists them oldest first, for validators and docs.
var Releases = []string{Version72, Version74, Version8}

// PaperVersion is what an unset version means: R1's release, so
// configurations written before the attribute render as they did.
const PaperVersion = Version72

// VersionOr is v, or PaperVersion when v is empty.
func VersionOr(v string) string {
	if v == "" {
		return PaperVersion
	}
	return v
}

// IsV8 reports whether v is a BeeGFS 8 release.
func IsV8(v string) bool { return VersionOr(v) == Version8 }

// Major is 7 or 8.
func Major(v string) int {
	if IsV8(v) {
		return 8
	}
	return 7
}

// CheckVersion refuses a release not in Releases.
func CheckVersion(v string) error {
	for _, r := range Releases {
		if VersionOr(v) == r {
			return nil
		}
	}
	return located.Errorf(located.At("version"), "%w: %q: want one of %s", ErrInvalid, v, strings.Join(Releases, ", "))
}

// CheckUpgrade refuses a change of release BeeGFS does not support in
// place: 8 is reached from 7.4 only (7.4.6 or later, every client
// unmounted and every service stopped: the guide's sequence), and no
// release goes back.
func CheckUpgrade(from, to string) error {
	from, to = VersionOr(from), VersionOr(to)
	if from == to {
		return nil
	}
	at := located.At("version")
	switch {
	case to == Version8 && from == Version72:
		return located.Errorf(at, "%w: %s to %s: BeeGFS 8 imports a 7.4 management store only; upgrade to 7.4 (7.4.6 or later) "+
			"first, apply, then to 8 with every client unmounted (the BeeGFS 8 upgrade guide)", ErrInvalid, from, to)
	case rank(to) < rank(from):
		return located.Errorf(at, "%w: %s to %s: BeeGFS does not go back to an older release in place (an 8 store cannot "+
			"be exported to 7.x); restore the 7.x store from a backup instead", ErrInvalid, from, to)
	}
	return nil
}

func rank(v string) int {
	for i, r := range Releases {
		if r == v {
			return i
		}
	}
	return -1
}

// CheckMix refuses a client and servers of one file system on different
// major releases: 7.x clients cannot talk to 8.x servers, nor 8 clients
// to 7.x servers.
func CheckMix(this, other, otherWhat string) error {
	if Major(this) == Major(other) {
		return nil
	}
	return located.Errorf(located.At("version"), "%w: BeeGFS %s here but %s runs BeeGFS %s: %s clients cannot talk to %s "+
		"servers; every service and client of one file system runs the same major release (upgrade them together, with "+
		"downtime)", ErrInvalid, VersionOr(this), otherWhat, majorLabel(other), majorLabel(this), majorLabel(other))
}

// majorLabel is "7.x" or "8".
func majorLabel(v string) string {
	if IsV8(v) {
		return Version8
	}
	return "7.x"
}
