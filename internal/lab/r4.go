package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// R4 (Ceph): the OSD nodes' local NVMe drives, which the BMC mock lists
// under Storage/NVMe (ServerSpec.NVMeDrives, NVMeBytes, NVMeModel), are
// also in the node's root, named as the kernel names them (nvme0n1..; the
// boot disk keeps sda), so the agent's facts and the lab's cephadm
// inventory (ceph orch device ls) see the same 22 KIOXIA CM6 drives.

// kioxiaOUI is KIOXIA's IEEE OUI, the first bytes of its drives' EUI-64.
const kioxiaOUI = "8ce38e"

// localDisks returns the drives a server carries inside (not cabled from
// an array): its NVMe drives, none for other servers.
func localDisks(sp redfishmock.EndpointSpec) []fakenode.Disk {
	if sp.Server == nil || sp.Server.NVMeDrives == 0 {
		return nil
	}
	return NVMeDrives(sp.Node, sp.Server.NVMeDrives, sp.Server.NVMeBytes, sp.Server.NVMeModel)
}

// NVMeDrives returns n local NVMe drives nvme0n1..nvme<n-1>n1 of one model
// and size, non-rotational, with an EUI-64 and a serial number derived
// from the host name (stable across labs, different per node).
func NVMeDrives(host string, n int, size int64, model string) []fakenode.Disk {
	out := make([]fakenode.Disk, 0, n)
	for i := range n {
		sum := sha256.Sum256([]byte(host + "/nvme/" + fmt.Sprint(i)))
		x := hex.EncodeToString(sum[:])
		out = append(out, fakenode.Disk{
			Name:      fmt.Sprintf("nvme%dn1", i),
			SizeBytes: size,
			WWN:       "eui." + kioxiaOUI + x[:10],
			Model:     model,
			// An NVMe namespace has no device/vendor attribute: the
			// kernel and ceph-volume show none.
			Serial: strings.ToUpper("X0" + x[10:20]),
		})
	}
	return out
}

// seedDesign adds what a design's nodes have installed beyond their
// profile: in r4, cephadm and podman on the servers (cephadm's
// prerequisites), ceph-common on the clients (rbd, the rbdmap unit and its
// default /etc/ceph/rbdmap).
func seedDesign(design, role, root string) error {
	if design != "r4" {
		return nil
	}
	if role == RoleClient {
		if err := appendFile(filepath.Join(root, "var/lib/dpkg/status"),
			"\nPackage: ceph-common\nStatus: install ok installed\nPriority: optional\nArchitecture: amd64\nVersion: 16.2.15-0ubuntu0.22.04.1\nDescription: ceph-common\n"); err != nil {
			return err
		}
		files := map[string]string{
			"lib/systemd/system/rbdmap.service": "[Unit]\nDescription=Map RBD devices\nAfter=network-online.target local-fs.target\n" +
				"Wants=network-online.target local-fs.target\n\n[Service]\nEnvironmentFile=-/etc/default/ceph\n" +
				"Environment=RBDMAPFILE=/etc/ceph/rbdmap\nType=oneshot\nRemainAfterExit=yes\nExecStart=/usr/bin/rbdmap map\n" +
				"ExecReload=/usr/bin/rbdmap map\nExecStop=/usr/bin/rbdmap unmap-all\n\n[Install]\nWantedBy=multi-user.target\n",
			"etc/ceph/rbdmap": "# RbdDevice\t\tParameters\n#poolname/imagename\tid=client,keyring=/etc/ceph/ceph.client.keyring\n",
		}
		for p, content := range files {
			full := filepath.Join(root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	return appendFile(filepath.Join(root, filepath.FromSlash(fakenode.RPMDBPath)),
		"cephadm\t2:16.2.15-1.el8\tnoarch\npodman\t3:4.0.2-6.module+el8.6.0+14877+f643d2d6\tx86_64\n")
}

func appendFile(p, s string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("seed %s: %w", p, err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		return fmt.Errorf("seed %s: %w", p, err)
	}
	return nil
}
