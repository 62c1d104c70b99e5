package lab

// Pacemaker for the BeeGFS designs (R1's server pairs, R3's building
// blocks run their services under pacemaker): their servers get the
// cluster packages' units (corosync, pacemaker), and the lab writes a
// corosync authkey for hpcstorage_ha_cluster's authkey_file. The cluster
// itself is the simulator's (internal/lab/sim/pacemaker.go).

import (
	"crypto/rand"
	"path/filepath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

// AuthkeyFile is the corosync authkey the lab writes (256 random bytes).
const AuthkeyFile = "corosync.authkey"

// haDesigns run BeeGFS under pacemaker.
var haDesigns = map[string]bool{"r1": true, "r3": true}

// seedHA installs the cluster units on a server of an HA design.
func seedHA(design, role, root string) error {
	if !haDesigns[design] || role == RoleClient {
		return nil
	}
	return fakenode.InstallUnits(root, fakenode.ClusterUnits...)
}

// writeAuthkey writes the lab's corosync key; it returns its path, or ""
// for designs without pacemaker.
func writeAuthkey(design, dir string) (string, error) {
	if !haDesigns[design] {
		return "", nil
	}
	key := make([]byte, 256)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	p := filepath.Join(dir, AuthkeyFile)
	return p, writeFile(p, key, 0o600)
}
