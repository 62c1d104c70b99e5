package redfishmock

import (
	"fmt"
)

// seedInventory writes the static hardware of a server: memory, NICs with
// MAC addresses, the InfiniBand adapter, boot disks, local NVMe drives, and
// the chassis and its network adapters.
func (s *Service) seedInventory() {
	sys := s.sys
	sp := sys.spec
	dell := s.spec.Personality == PersonalityDell
	ok := obj{"State": "Enabled", "Health": "OK"}

	// Memory: DIMMs spread over the sockets' channels.
	var dimms []string
	perSocket := max(sp.DIMMs/max(sp.Sockets, 1), 1)
	for i := 0; i < sp.DIMMs; i++ {
		socket := i/perSocket + 1
		slot := i%perSocket + 1
		id := fmt.Sprintf("DIMM%d_%d", socket, slot)
		if dell {
			id = fmt.Sprintf("DIMM.Socket.%c%d", 'A'+rune(socket-1), slot)
		}
		path := sys.sysPath + "/Memory/" + id
		dimms = append(dimms, path)
		s.put(path, obj{
			"@odata.id": path, "@odata.type": "#Memory.v1_23_0.Memory", "Id": id, "Name": "DIMM " + id,
			"MemoryDeviceType": "DDR4", "MemoryType": "DRAM", "CapacityMiB": sp.DIMMGiB * 1024, "OperatingSpeedMhz": sp.DIMMSpeedMHz,
			"MemoryLocation": obj{"Socket": socket, "MemoryController": 1, "Channel": (slot-1)%6 + 1, "Slot": slot},
			"Status":         ok,
		})
	}
	s.collection(sys.sysPath+"/Memory", "#MemoryCollection.MemoryCollection", "Memory Collection")
	s.setMembers(sys.sysPath+"/Memory", dimms)

	// Ethernet interfaces with stable MACs.
	var nics []string
	for i := 1; i <= sp.EthPorts; i++ {
		id := fmt.Sprintf("NIC.Integrated.1-%d-1", i)
		if !dell {
			id = fmt.Sprintf("%d", i)
		}
		path := sys.sysPath + "/EthernetInterfaces/" + id
		nics = append(nics, path)
		mac := s.mac("B0:26:28", i)
		s.put(path, obj{
			"@odata.id": path, "@odata.type": "#EthernetInterface.v1_12_4.EthernetInterface", "Id": id, "Name": fmt.Sprintf("Ethernet port %d", i),
			"MACAddress": mac, "PermanentMACAddress": mac, "SpeedMbps": sp.EthSpeedGbps * 1000, "FullDuplex": true,
			"LinkStatus": "LinkUp", "InterfaceEnabled": true, "Status": ok,
		})
	}
	s.collection(sys.sysPath+"/EthernetInterfaces", "#EthernetInterfaceCollection.EthernetInterfaceCollection", "Ethernet Interface Collection")
	s.setMembers(sys.sysPath+"/EthernetInterfaces", nics)

	// Boot disks as SimpleStorage.
	var devices []any
	for i := 1; i <= sp.BootDrives; i++ {
		devices = append(devices, obj{"Name": fmt.Sprintf("Boot SSD %d", i), "Manufacturer": "Micron", "Model": "5300 PRO",
			"CapacityBytes": int64(sp.BootDriveGB) * 1000 * 1000 * 1000, "Status": ok})
	}
	if devices == nil {
		devices = []any{}
	}
	ssPath := sys.sysPath + "/SimpleStorage/1"
	s.put(ssPath, obj{"@odata.id": ssPath, "@odata.type": "#SimpleStorage.v1_3_2.SimpleStorage", "Id": "1", "Name": "Boot storage",
		"Description": "Boot Optimized Storage", "UefiDevicePath": "PciRoot(0x0)/Pci(0x11,0x5)", "Devices": devices, "Status": ok})
	s.collection(sys.sysPath+"/SimpleStorage", "#SimpleStorageCollection.SimpleStorageCollection", "Simple Storage Collection")
	s.setMembers(sys.sysPath+"/SimpleStorage", []string{ssPath})

	// Local NVMe drives (Ceph OSD nodes) as a Storage subsystem.
	if sp.NVMeDrives > 0 {
		stPath := sys.sysPath + "/Storage/NVMe"
		var drives []string
		for i := 0; i < sp.NVMeDrives; i++ {
			dp := fmt.Sprintf("%s/Drives/NVMe.%d", stPath, i)
			drives = append(drives, dp)
			s.put(dp, obj{"@odata.id": dp, "@odata.type": "#Drive.v1_22_0.Drive", "Id": fmt.Sprintf("NVMe.%d", i), "Name": fmt.Sprintf("NVMe drive %d", i),
				"MediaType": "SSD", "Protocol": "NVMe", "CapacityBytes": sp.NVMeBytes, "Manufacturer": "KIOXIA", "Model": sp.NVMeModel,
				"SerialNumber": fmt.Sprintf("%s%04d", s.serial(), i), "BlockSizeBytes": 512, "Status": ok,
				"Identifiers":      []any{obj{"DurableNameFormat": "NAA", "DurableName": naa("8CE38E", s.spec.Name, fmt.Sprintf("nvme%d", i))}},
				"PhysicalLocation": obj{"PartLocation": obj{"LocationType": "Bay", "LocationOrdinalValue": i, "ServiceLabel": fmt.Sprintf("Bay %d", i)}},
			})
		}
		s.collection(stPath+"/Drives", "#DriveCollection.DriveCollection", "Drive Collection")
		s.setMembers(stPath+"/Drives", drives)
		s.put(stPath, obj{"@odata.id": stPath, "@odata.type": "#Storage.v1_21_0.Storage", "Id": "NVMe", "Name": "NVMe drives",
			"Drives": refs(drives...), "Drives@odata.count": len(drives), "Status": ok})
		s.collection(sys.sysPath+"/Storage", "#StorageCollection.StorageCollection", "Storage Collection")
		s.setMembers(sys.sysPath+"/Storage", []string{stPath})
	}

	// Chassis with its network adapters; the InfiniBand HCA carries port GUIDs.
	mfr, _ := s.vendorNames()
	chassis := sys.chassisPath
	var adapters []string
	if sp.IBPorts > 0 {
		ap := chassis + "/NetworkAdapters/InfiniBand.Slot.1"
		adapters = append(adapters, ap)
		var ports []string
		for i := 1; i <= sp.IBPorts; i++ {
			pp := fmt.Sprintf("%s/Ports/%d", ap, i)
			ports = append(ports, pp)
			guid := s.mac("98:03:9B", 100+i)
			s.put(pp, obj{"@odata.id": pp, "@odata.type": "#Port.v1_18_0.Port", "Id": fmt.Sprint(i), "Name": fmt.Sprintf("InfiniBand port %d", i),
				"PortId": fmt.Sprint(i), "PortProtocol": "InfiniBand", "PortType": "BidirectionalPort", "LinkNetworkTechnology": "InfiniBand",
				"CurrentSpeedGbps": sp.IBSpeedGbps, "MaxSpeedGbps": sp.IBSpeedGbps, "LinkStatus": "LinkUp", "LinkState": "Enabled", "Width": 4,
				"InfiniBand": obj{"AssociatedPortGUIDs": []string{guidFromMAC(guid)}}, "Status": ok})
		}
		s.collection(ap+"/Ports", "#PortCollection.PortCollection", "Port Collection")
		s.setMembers(ap+"/Ports", ports)
		s.put(ap, obj{"@odata.id": ap, "@odata.type": "#NetworkAdapter.v1_14_0.NetworkAdapter", "Id": "InfiniBand.Slot.1", "Name": "InfiniBand HCA",
			"Manufacturer": "Mellanox Technologies", "Model": sp.IBModel, "Ports": ref(ap + "/Ports"), "Status": ok})
	}
	if sp.EthPorts > 0 {
		ap := chassis + "/NetworkAdapters/NIC.Integrated.1"
		adapters = append(adapters, ap)
		var ports []string
		for i := 1; i <= sp.EthPorts; i++ {
			pp := fmt.Sprintf("%s/Ports/%d", ap, i)
			ports = append(ports, pp)
			s.put(pp, obj{"@odata.id": pp, "@odata.type": "#Port.v1_18_0.Port", "Id": fmt.Sprint(i), "Name": fmt.Sprintf("Ethernet port %d", i),
				"PortId": fmt.Sprint(i), "PortProtocol": "Ethernet", "LinkNetworkTechnology": "Ethernet", "CurrentSpeedGbps": sp.EthSpeedGbps,
				"LinkStatus": "LinkUp", "Ethernet": obj{"AssociatedMACAddresses": []string{s.mac("B0:26:28", i)}}, "Status": ok})
		}
		s.collection(ap+"/Ports", "#PortCollection.PortCollection", "Port Collection")
		s.setMembers(ap+"/Ports", ports)
		s.put(ap, obj{"@odata.id": ap, "@odata.type": "#NetworkAdapter.v1_14_0.NetworkAdapter", "Id": "NIC.Integrated.1", "Name": "Integrated NIC",
			"Manufacturer": "Broadcom Inc.", "Model": "BCM57416 10GBASE-T", "Ports": ref(ap + "/Ports"), "Status": ok})
	}
	s.collection(chassis+"/NetworkAdapters", "#NetworkAdapterCollection.NetworkAdapterCollection", "Network Adapter Collection")
	s.setMembers(chassis+"/NetworkAdapters", adapters)
	s.put(chassis, obj{
		"@odata.id": chassis, "@odata.type": "#Chassis.v1_28_0.Chassis", "Id": lastSeg(chassis), "Name": "Chassis",
		"ChassisType": "RackMount", "Manufacturer": mfr, "Model": s.spec.Model, "SerialNumber": s.serial(), "SKU": s.serial(),
		"NetworkAdapters": ref(chassis + "/NetworkAdapters"), "Status": ok,
		"Links": obj{"ComputerSystems": refs(sys.sysPath), "ManagedBy": refs(sys.mgrPath)},
	})
}

func guidFromMAC(mac string) string {
	// An EUI-64 style GUID built from the MAC, as HCAs derive theirs.
	b := []byte{}
	var x [6]int
	fmt.Sscanf(mac, "%x:%x:%x:%x:%x:%x", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5])
	for i, v := range x {
		b = append(b, byte(v))
		if i == 2 {
			b = append(b, 0x03, 0x00)
		}
	}
	return fmt.Sprintf("%02x%02x:%02x%02x:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7])
}

func (s *Service) seedManager() {
	sys := s.sys
	ok := obj{"State": "Enabled", "Health": "OK"}
	model, fw := s.managerModel()
	links := obj{"ManagerForServers": refs(sys.sysPath), "ManagerForChassis": refs(sys.chassisPath)}
	if sys.jobsPath != "" {
		s.collection(sys.jobsPath, "#JobCollection.JobCollection", "Job Queue")
	}
	mgr := obj{
		"@odata.id": sys.mgrPath, "@odata.type": "#Manager.v1_24_0.Manager", "Id": lastSeg(sys.mgrPath), "Name": "Manager",
		"ManagerType": "BMC", "Model": model, "FirmwareVersion": s.managerFirmware(fw), "UUID": s.uuid(), "PowerState": "On", "Status": ok,
		"Links": links,
	}
	if s.spec.Personality == PersonalityDell {
		actions, linksOem, oem := s.dellManagerExtras()
		mgr["Actions"], mgr["Oem"] = actions, oem
		links["Oem"] = linksOem
	}
	s.put(sys.mgrPath, mgr)
}

// managerModel is the BMC's model and the firmware version it runs when
// seeded.
func (s *Service) managerModel() (model, firmware string) {
	switch s.spec.Personality {
	case PersonalityDell:
		return dellManagerModel()
	case PersonalityHPE:
		return "iLO 5", "2.72"
	}
	return "BMC", "1.0.0"
}

// managerFirmware is how the Manager resource shows a BMC version (iLO
// prefixes its generation).
func (s *Service) managerFirmware(version string) string {
	if s.spec.Personality == PersonalityHPE {
		return "iLO 5 v" + version
	}
	return version
}

// seedRegistries publishes the BIOS attribute registry the Bios resource names.
func (s *Service) seedRegistries() {
	sys := s.sys
	s.put(sys.registryPath, sys.reg.document(sys.registryPath))
	filePath := "/redfish/v1/Registries/" + sys.reg.id
	s.put(filePath, obj{
		"@odata.id": filePath, "@odata.type": "#MessageRegistryFile.v1_1_5.MessageRegistryFile", "Id": sys.reg.id,
		"Name": "BIOS Attribute Registry File", "Registry": sys.reg.id, "Languages": []string{"en"},
		"Location": []any{obj{"Language": "en", "Uri": sys.registryPath}},
	})
	s.collection("/redfish/v1/Registries", "#MessageRegistryFileCollection.MessageRegistryFileCollection", "Registry File Collection")
	s.setMembers("/redfish/v1/Registries", []string{filePath})
	root := shallowCopy(s.get("/redfish/v1"))
	root["Registries"] = ref("/redfish/v1/Registries")
	s.put("/redfish/v1", root)
}
