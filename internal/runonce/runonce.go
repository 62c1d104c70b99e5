// Package runonce renders the run-once command items of the cluster-level
// resources (Ceph, Spectrum Scale): commands that have no read-only query
// to guard them, sent only when the provider's read-back says the cluster
// differs. The command leaves a marker file once it has succeeded, and the
// marker is the item's creates guard, so an agent replaying the same
// request does not run it twice. Each decision names a fresh marker.
package runonce

import (
	"path"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// script runs "$@" and, when it succeeds, writes the marker ($1).
const script = `m=$1; shift; "$@" && mkdir -p "${m%/*}" && : >"$m"`

// Item runs argv a single time under the item id suffix name; label is the
// shell's $0 (what a process listing or a command log shows), marker an
// absolute path that is fresh for each decision.
func Item(name, label, marker string, argv ...string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: name,
		Argv:    append([]string{"/bin/sh", "-c", script, label, marker}, argv...),
		Creates: marker}}
}

// Marker is the marker of name for one decision (nonce) in dir.
func Marker(dir, name, nonce string) string { return path.Join(dir, name+"."+nonce) }
