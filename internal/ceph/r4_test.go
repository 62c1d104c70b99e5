package ceph

import "fmt"

// R4's OSD node (AS-2124US-TNRP): 22 KIOXIA CM6 3.84 TB NVMe and a SATA
// boot SSD. The boot disk is shown available (unpartitioned) so the filter,
// not cephadm's reject, has to leave it out.
const (
	cm6Model = "KCM6XRUL3T84"
	cm6Bytes = 3840755982336 // 7 501 476 528 × 512 B
)

func r4OSDNode() []Device {
	devs := []Device{{Path: "/dev/sda", SizeBytes: 480103981056, Model: "SAMSUNG MZ7L3480", Vendor: "ATA", Available: true}}
	for i := range 22 {
		devs = append(devs, Device{Path: fmt.Sprintf("/dev/nvme%dn1", i), SizeBytes: cm6Bytes, Model: cm6Model, Available: true})
	}
	return devs
}

// hybridNode: 12 HDDs, 2 NVMe for DB, a boot disk.
func hybridNode() []Device {
	devs := []Device{{Path: "/dev/sda", SizeBytes: 480103981056, Model: "SAMSUNG MZ7L3480", Vendor: "ATA", Available: true}}
	for i := range 12 {
		devs = append(devs, Device{Path: fmt.Sprintf("/dev/sd%c", 'b'+i), SizeBytes: 16000900661248, Model: "ST16000NM002G",
			Vendor: "SEAGATE", Rotational: true, Available: true})
	}
	for i := range 2 {
		devs = append(devs, Device{Path: fmt.Sprintf("/dev/nvme%dn1", i), SizeBytes: 1600321314816, Model: "MZXL51T6HBJR",
			Available: true})
	}
	return devs
}

func boolp(b bool) *bool { return &b }

func r4Spec() ServiceSpec {
	return ServiceSpec{ServiceType: TypeOSD, ServiceID: "nvme", Placement: Placement{Label: "osd"},
		DataDevices: &DeviceFilter{Model: cm6Model, Rotational: boolp(false)}, OSDsPerDevice: 2}
}
