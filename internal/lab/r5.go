package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// R5 (Spectrum Scale / PixStor): mgmt, the NSD server pair nsd1/nsd2
// cabled to every ME4084 (+ ME484) and the ME4024, and the gateways
// gw1/gw2. No GPFS package exists here, so the nodes run the lab's mm*
// simulators (internal/lab/sim/gpfs*.go) on one cluster configuration in
// the lab's shared folder. What the product needs on top of the common
// seed: every node's root registered for the simulators (GPFS reaches the
// other nodes over ssh; the simulators through these links), the Storage
// Scale packages in each node's rpm database (gateways also the CES
// protocol packages), and /usr/lpp/mmfs/bin, where the commands live on a
// real node, linked to the simulator.

// GPFSRelease is the Storage Scale release the R5 nodes have installed
// unless Config.GPFSRelease names another.
const GPFSRelease = "5.1.9-0"

// gpfsPackages are the Storage Scale rpms of a node (gateways: CES too).
func gpfsPackages(node string) []string {
	p := []string{"gpfs.base", "gpfs.gpl", "gpfs.gskit", "gpfs.msg.en_US", "gpfs.docs", "gpfs.license.std", "gpfs.compression"}
	if strings.HasPrefix(node, "gw") {
		p = append(p, "gpfs.nfs-ganesha", "gpfs.nfs-ganesha-gpfs", "gpfs.smb", "gpfs.pm-ganesha")
	}
	return p
}

// seedR5 adds R5's GPFS pieces to the node roots (other designs: nothing).
func seedR5(design, labDir string, roots map[string]string, release string) error {
	if design != "r5" {
		return nil
	}
	if release == "" {
		release = GPFSRelease
	}
	for node, root := range roots {
		db := filepath.Join(root, filepath.FromSlash(fakenode.RPMDBPath))
		if _, err := os.Stat(db); err != nil {
			continue // a client (Ubuntu, dpkg): R5's clients mount over NFS, no GPFS
		}
		f, err := os.OpenFile(db, os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("r5 node %s: %w", node, err)
		}
		for _, p := range gpfsPackages(node) {
			fmt.Fprintf(f, "%s\t0:%s\tx86_64\n", p, release)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("r5 node %s: %w", node, err)
		}
		bin := filepath.Join(root, "usr/lpp/mmfs/bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		// Relative links: they stay inside the root.
		target := "../../../../" + strings.TrimPrefix(sim.BinDir, "/") + "/" + sim.Program
		for _, c := range sim.GPFSCommands() {
			p := filepath.Join(bin, c)
			_ = os.Remove(p)
			if err := os.Symlink(target, p); err != nil {
				return fmt.Errorf("r5 node %s: %w", node, err)
			}
		}
	}
	return nil
}
