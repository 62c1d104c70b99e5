package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
