package redfishmock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	mib4            = 4 << 20 // volumes are allocated in 4 MiB units, as on PowerVault ME
	defaultStripKiB = 512
	arrayStorageID  = "controller_a"
)

var (
	validID      = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)
	stripChoices = []int64{64 << 10, 128 << 10, 256 << 10, 512 << 10}
	raidLevels   = []string{"RAID0", "RAID1", "RAID5", "RAID6", "RAID10"}
)

type drive struct {
	id, path          string
	encl, slot        int
	drawer            int // -1: the enclosure has no drawers
	media, model      string
	bytes             int64
	spare             string // None, Global
	pool              *pool
	locate            bool
	enclModel, serial string
	rendered          string // state last written to the drive's document
}

type pool struct {
	id, name, path string
	raid           string
	drives         []*drive
	usable         int64
	volumes        []*volume
	created        time.Time
}

type volume struct {
	id, name, path string
	pool           *pool
	bytes          int64
	strip          int64
	wwn            string
}

type mapping struct {
	group  string // StorageGroup or Connection path
	volume *volume
	host   string
	lun    int
	access string
}

type array struct {
	storage, drivesPath, poolsPath, volsPath string
	groupsPath, connsPath, epgPath           string
	drives                                   []*drive
	pools                                    []*pool
	volumes                                  []*volume
	maps                                     []*mapping
	seq                                      int
}

// MappingEvent reports that a volume became visible to a server (or stopped
// being visible, or grew). The lab uses it to make the block device appear
// on the node cabled to the array.
type MappingEvent struct {
	Array      string    `json:"array"`
	Kind       string    `json:"kind"` // mapped, unmapped, resized
	Volume     string    `json:"volume"`
	VolumeName string    `json:"volume_name"`
	WWN        string    `json:"wwn"`
	SizeBytes  int64     `json:"size_bytes"`
	Host       string    `json:"host"`
	LUN        int       `json:"lun"`
	Time       time.Time `json:"time"`
}

// naa builds a stable NAA identifier: type 5 (16 hex digits) for drives,
// type 6 (32 hex digits) for volumes, from an OUI and a name.
func naa(oui string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "/")))
	x := strings.ToUpper(hex.EncodeToString(h[:]))
	if len(parts) > 0 && strings.HasPrefix(parts[len(parts)-1], "vol:") {
		return "6" + oui + x[:32-1-len(oui)]
	}
	return "5" + oui + x[:16-1-len(oui)]
}

func raidUsable(raid string, n int, min int64) int64 {
	switch raid {
	case "RAID0":
		return int64(n) * min
	case "RAID1":
		return min
	case "RAID5":
		return int64(n-1) * min
	case "RAID6":
		return int64(n-2) * min
	case "RAID10":
		return int64(n/2) * min
	}
	return 0
}

// raidCountRule checks the drive count of a linear disk group (PowerVault
// ME4 limits: RAID1 2, RAID5 3-16, RAID6 4-16, RAID10 even 4-16, RAID0 2-16).
func raidCountRule(raid string, n int) string {
	switch raid {
	case "RAID0":
		if n < 2 || n > 16 {
			return "RAID0 needs 2 to 16 drives"
		}
	case "RAID1":
		if n != 2 {
			return "RAID1 needs exactly 2 drives"
		}
	case "RAID5":
		if n < 3 || n > 16 {
			return "RAID5 needs 3 to 16 drives"
		}
	case "RAID6":
		if n < 4 || n > 16 {
			return "RAID6 needs 4 to 16 drives"
		}
	case "RAID10":
		if n < 4 || n > 16 || n%2 != 0 {
			return "RAID10 needs an even number of drives, 4 to 16"
		}
	}
	return ""
}

func (s *Service) seedArray() {
	sp := s.spec.Array
	a := &array{storage: "/redfish/v1/Storage/" + arrayStorageID}
	a.drivesPath = a.storage + "/Drives"
	a.poolsPath = a.storage + "/StoragePools"
	a.volsPath = a.storage + "/Volumes"
	a.groupsPath = a.storage + "/StorageGroups"
	a.connsPath = a.storage + "/Connections"
	a.epgPath = a.storage + "/EndpointGroups"
	s.arr = a
	ok := obj{"State": "Enabled", "Health": "OK"}

	s.installServiceRoot(obj{
		"Storage":  ref("/redfish/v1/Storage"),
		"Chassis":  ref("/redfish/v1/Chassis"),
		"Managers": ref("/redfish/v1/Managers"),
		"Fabrics":  ref("/redfish/v1/Fabrics"),
	})
	// Enclosures (the controller shelf and any expansion) and drives.
	var chassis []string
	for e, enc := range sp.Enclosures {
		cid := fmt.Sprintf("enclosure_%d", e)
		cp := "/redfish/v1/Chassis/" + cid
		chassis = append(chassis, cp)
		var dl []string
		for slot := 0; slot < enc.Slots; slot++ {
			d := &drive{id: fmt.Sprintf("%d.%d", e, slot), encl: e, slot: slot, drawer: -1, media: enc.MediaType,
				bytes: enc.DriveBytes, model: enc.DriveModel, spare: "None", enclModel: enc.Model}
			if enc.Drawers > 0 {
				d.drawer = slot / (enc.Slots / enc.Drawers)
			}
			for _, o := range enc.Overrides {
				if o.Slot == slot {
					d.media, d.bytes, d.model = o.MediaType, o.DriveBytes, o.DriveModel
				}
			}
			d.path = a.drivesPath + "/" + d.id
			d.serial = fmt.Sprintf("ZA%s%03d", s.serial()[:5], e*100+slot)
			a.drives = append(a.drives, d)
			dl = append(dl, d.path)
		}
		ctype := "StorageEnclosure"
		body := obj{"@odata.id": cp, "@odata.type": "#Chassis.v1_28_0.Chassis", "Id": cid, "Name": fmt.Sprintf("Enclosure %d (%s)", e, enc.Model),
			"ChassisType": ctype, "Manufacturer": "Dell EMC", "Model": "PowerVault " + enc.Model, "SerialNumber": fmt.Sprintf("%s-E%d", s.serial(), e),
			"Drives": ref(cp + "/Drives"), "Status": ok, "Links": obj{"Storage": refs(a.storage), "ManagedBy": refs("/redfish/v1/Managers/controller_a", "/redfish/v1/Managers/controller_b")}}
		if enc.Drawers > 0 {
			body["Oem"] = obj{"HPCStorageMock": obj{"Drawers": enc.Drawers, "SlotsPerDrawer": enc.Slots / enc.Drawers}}
		}
		s.put(cp, body)
		s.collection(cp+"/Drives", "#DriveCollection.DriveCollection", "Enclosure drives")
		s.setMembers(cp+"/Drives", dl)
	}
	s.collection("/redfish/v1/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection")
	s.setMembers("/redfish/v1/Chassis", chassis)

	// Two controllers, each also a manager.
	s.collection("/redfish/v1/Managers", "#ManagerCollection.ManagerCollection", "Manager Collection")
	var ctrls, mgrs []string
	for _, c := range []string{"A", "B"} {
		mp := "/redfish/v1/Managers/controller_" + strings.ToLower(c)
		mgrs = append(mgrs, mp)
		s.put(mp, obj{"@odata.id": mp, "@odata.type": "#Manager.v1_24_0.Manager", "Id": "controller_" + strings.ToLower(c),
			"Name": "Controller " + c, "ManagerType": "EnclosureManager", "Model": s.spec.Model, "FirmwareVersion": "GT280R010-04",
			"Status": ok, "Links": obj{"ManagerForChassis": refs(chassis...)}})
		cp := a.storage + "/Controllers/" + c
		ctrls = append(ctrls, cp)
		s.put(cp, obj{"@odata.id": cp, "@odata.type": "#StorageController.v1_11_0.StorageController", "Id": c, "Name": "Controller " + c,
			"Manufacturer": "Dell EMC", "Model": s.spec.Model, "SupportedControllerProtocols": []string{"PCIe"},
			"SupportedDeviceProtocols": []string{"SAS"}, "SupportedRAIDTypes": raidLevels, "Status": ok})
	}
	s.setMembers("/redfish/v1/Managers", mgrs)
	s.collection(a.storage+"/Controllers", "#StorageControllerCollection.StorageControllerCollection", "Storage controllers")
	s.setMembers(a.storage+"/Controllers", ctrls)

	// Hosts cabled to the array: one SAS initiator endpoint and one client
	// endpoint group per server.
	fab := "/redfish/v1/Fabrics/SAS"
	s.collection("/redfish/v1/Fabrics", "#FabricCollection.FabricCollection", "Fabric Collection")
	s.setMembers("/redfish/v1/Fabrics", []string{fab})
	s.put(fab, obj{"@odata.id": fab, "@odata.type": "#Fabric.v1_4_0.Fabric", "Id": "SAS", "Name": "SAS host ports",
		"FabricType": "SAS", "Endpoints": ref(fab + "/Endpoints"), "Status": ok})
	var eps, groups []string
	for _, h := range s.spec.CabledTo {
		ep := fab + "/Endpoints/" + h
		eps = append(eps, ep)
		s.put(ep, obj{"@odata.id": ep, "@odata.type": "#Endpoint.v1_8_2.Endpoint", "Id": h, "Name": "Initiator " + h,
			"EndpointProtocol": "SAS", "ConnectedEntities": []any{obj{"EntityRole": "Initiator", "EntityType": "StorageInitiator"}},
			"Identifiers": []any{obj{"DurableNameFormat": "NAA", "DurableName": naa("00C0FF", s.spec.Name, "host", h)}}, "Status": ok})
		gp := a.epgPath + "/" + h
		groups = append(groups, gp)
		s.put(gp, obj{"@odata.id": gp, "@odata.type": "#EndpointGroup.v1_3_4.EndpointGroup", "Id": h, "Name": h,
			"GroupType": "Client", "Links": obj{"Endpoints": refs(ep)}})
	}
	s.collection(fab+"/Endpoints", "#EndpointCollection.EndpointCollection", "Endpoints")
	s.setMembers(fab+"/Endpoints", eps)
	s.collection(a.epgPath, "#EndpointGroupCollection.EndpointGroupCollection", "Host groups")
	s.setMembers(a.epgPath, groups)

	s.collection(a.drivesPath, "#DriveCollection.DriveCollection", "Drive Collection")
	s.collection(a.poolsPath, "#StoragePoolCollection.StoragePoolCollection", "Disk groups")
	s.collection(a.volsPath, "#VolumeCollection.VolumeCollection", "Volumes")
	s.collection(a.groupsPath, "#StorageGroupCollection.StorageGroupCollection", "Host mappings")
	s.collection(a.connsPath, "#ConnectionCollection.ConnectionCollection", "Connections")
	s.collection("/redfish/v1/Storage", "#StorageCollection.StorageCollection", "Storage Collection")
	s.setMembers("/redfish/v1/Storage", []string{a.storage})
	var dl []string
	for _, d := range a.drives {
		dl = append(dl, d.path)
	}
	s.setMembers(a.drivesPath, dl)
	s.renderArray()

	s.handle(http.MethodPatch, a.drivesPath+"/{}", patchDrive)
	s.handle(http.MethodPost, a.poolsPath, postPool)
	s.handle(http.MethodDelete, a.poolsPath+"/{}", deletePool)
	s.handle(http.MethodPost, a.volsPath, postVolume)
	s.handle(http.MethodPatch, a.volsPath+"/{}", patchVolume)
	s.handle(http.MethodDelete, a.volsPath+"/{}", deleteVolume)
	s.handle(http.MethodPost, a.groupsPath, postStorageGroup)
	s.handle(http.MethodDelete, a.groupsPath+"/{}", deleteMappingGroup)
	s.handle(http.MethodPost, a.connsPath, postConnection)
	s.handle(http.MethodDelete, a.connsPath+"/{}", deleteMappingGroup)
}

// renderArray rewrites every array document from the state.
func (s *Service) renderArray() {
	a := s.arr
	ok := obj{"State": "Enabled", "Health": "OK"}
	var dl []string
	for _, d := range a.drives {
		dl = append(dl, d.path)
		label := fmt.Sprintf("Enclosure %d Slot %d", d.encl, d.slot)
		loc := obj{"Enclosure": d.encl, "Slot": d.slot}
		if d.drawer >= 0 {
			label = fmt.Sprintf("Enclosure %d Drawer %d Slot %d", d.encl, d.drawer, d.slot)
			loc["Drawer"] = d.drawer
		}
		links := obj{}
		var vols []string
		if d.pool != nil {
			links["StoragePools"] = refs(d.pool.path)
			for _, v := range d.pool.volumes {
				vols = append(vols, v.path)
			}
			links["Volumes"] = refs(vols...)
		}
		// Most mutations touch few drives: skip re-encoding the others.
		key := fmt.Sprint(d.spare, d.locate, vols, d.pool != nil && d.pool.path != "")
		if d.pool != nil {
			key += d.pool.path
		}
		if key == d.rendered && s.docs[d.path] != nil {
			continue
		}
		d.rendered = key
		body := obj{"@odata.id": d.path, "@odata.type": "#Drive.v1_22_0.Drive", "Id": d.id, "Name": "Disk " + d.id,
			"MediaType": d.media, "Protocol": "SAS", "CapacityBytes": d.bytes, "Manufacturer": "Seagate", "Model": d.model,
			"SerialNumber": d.serial, "BlockSizeBytes": 512, "HotspareType": d.spare, "LocationIndicatorActive": d.locate,
			"Identifiers":      []any{obj{"DurableNameFormat": "NAA", "DurableName": naa("000C50", s.spec.Name, "drive", d.id)}},
			"PhysicalLocation": obj{"PartLocation": obj{"LocationType": "Slot", "LocationOrdinalValue": d.slot, "ServiceLabel": label}},
			"Links":            links, "Status": ok, "Oem": obj{"HPCStorageMock": loc}}
		if d.media == "HDD" {
			body["RotationSpeedRPM"] = 7200
		}
		s.put(d.path, body)
	}
	// Pools.
	var pl []string
	for _, p := range a.pools {
		pl = append(pl, p.path)
		var consumed int64
		var vols, drives []string
		for _, v := range p.volumes {
			consumed += v.bytes
			vols = append(vols, v.path)
		}
		for _, d := range p.drives {
			drives = append(drives, d.path)
		}
		remaining := 0
		if p.usable > 0 {
			remaining = int((p.usable - consumed) * 100 / p.usable)
		}
		csPath := p.path + "/CapacitySources/0"
		s.put(csPath+"/ProvidingDrives", obj{"@odata.id": csPath + "/ProvidingDrives", "@odata.type": "#DriveCollection.DriveCollection",
			"Name": "Drives of " + p.name, "Members": refs(drives...), "Members@odata.count": len(drives)})
		s.put(p.path+"/AllocatedVolumes", obj{"@odata.id": p.path + "/AllocatedVolumes", "@odata.type": "#VolumeCollection.VolumeCollection",
			"Name": "Volumes of " + p.name, "Members": refs(vols...), "Members@odata.count": len(vols)})
		s.put(p.path, obj{"@odata.id": p.path, "@odata.type": "#StoragePool.v1_9_1.StoragePool", "Id": p.id, "Name": p.name,
			"Description": "DiskGroup", "PoolType": []string{"Block"}, "SupportedRAIDTypes": []string{p.raid}, "BlockSizeBytes": 512,
			"Capacity": obj{"Data": obj{"AllocatedBytes": p.usable, "ConsumedBytes": consumed}},
			"CapacitySources": []any{obj{"@odata.id": csPath, "@odata.type": "#Capacity.v1_2_1.CapacitySource", "Id": "0",
				"Name": "Drives of " + p.name, "ProvidedCapacity": obj{"Data": obj{"AllocatedBytes": p.usable}},
				"ProvidingDrives": ref(csPath + "/ProvidingDrives")}},
			"CapacitySources@odata.count": 1,
			"RemainingCapacityPercent":    remaining,
			"AllocatedVolumes":            ref(p.path + "/AllocatedVolumes"),
			"Links":                       obj{"OwningStorageResource": ref(a.storage)},
			"Status":                      ok})
	}
	s.setMembers(a.poolsPath, pl)
	// Volumes.
	var vl []string
	for _, v := range a.volumes {
		vl = append(vl, v.path)
		var drives, groups []string
		for _, d := range v.pool.drives {
			drives = append(drives, d.path)
		}
		for _, m := range a.maps {
			if m.volume == v && !contains(groups, m.group) {
				groups = append(groups, m.group)
			}
		}
		body := obj{"@odata.id": v.path, "@odata.type": "#Volume.v1_10_2.Volume", "Id": v.id, "Name": v.name,
			"CapacityBytes": v.bytes, "RAIDType": v.pool.raid, "StripSizeBytes": v.strip, "BlockSizeBytes": 512,
			"OptimumIOSizeBytes": v.strip * int64(dataDrives(v.pool)),
			"Identifiers":        []any{obj{"DurableNameFormat": "NAA", "DurableName": v.wwn}},
			"Links":              obj{"ProvidingStoragePool": ref(v.pool.path), "Drives": refs(drives...), "Drives@odata.count": len(drives)},
			"Status":             ok}
		s.put(v.path, body)
	}
	s.setMembers(a.volsPath, vl)
	// Mapping groups.
	var gl, cl []string
	byGroup := map[string][]*mapping{}
	for _, m := range a.maps {
		if _, seen := byGroup[m.group]; !seen {
			if strings.HasPrefix(m.group, a.groupsPath+"/") {
				gl = append(gl, m.group)
			} else {
				cl = append(cl, m.group)
			}
		}
		byGroup[m.group] = append(byGroup[m.group], m)
	}
	for g, ms := range byGroup {
		id := lastSeg(g)
		var hosts, eps, vols []string
		var mapped, volInfo []any
		for _, m := range ms {
			if !contains(hosts, m.host) {
				hosts = append(hosts, m.host)
				eps = append(eps, "/redfish/v1/Fabrics/SAS/Endpoints/"+m.host)
			}
			if !contains(vols, m.volume.path) {
				vols = append(vols, m.volume.path)
				mapped = append(mapped, obj{"Volume": ref(m.volume.path), "LogicalUnitNumber": strconv.Itoa(m.lun), "AccessCapability": m.access})
				caps := []string{"Read", "Write"}
				if m.access == "Read" {
					caps = []string{"Read"}
				}
				volInfo = append(volInfo, obj{"Volume": ref(m.volume.path), "LUN": m.lun, "AccessCapabilities": caps})
			}
		}
		groups := make([]string, len(hosts))
		for i, h := range hosts {
			groups[i] = a.epgPath + "/" + h
		}
		if strings.HasPrefix(g, a.groupsPath+"/") {
			s.put(g, obj{"@odata.id": g, "@odata.type": "#StorageGroup.v1_6_0.StorageGroup", "Id": id, "Name": id,
				"MappedVolumes": mapped, "AccessState": "Optimized", "VolumesAreExposed": true,
				"ClientEndpointGroups": refs(groups...), "ClientEndpointGroups@odata.count": len(groups), "Status": ok})
		} else {
			s.put(g, obj{"@odata.id": g, "@odata.type": "#Connection.v1_4_0.Connection", "Id": id, "Name": id,
				"ConnectionType": "Storage", "VolumeInfo": volInfo, "Links": obj{"InitiatorEndpoints": refs(eps...)}, "Status": ok})
		}
	}
	sort.Strings(gl)
	sort.Strings(cl)
	s.setMembers(a.groupsPath, gl)
	s.setMembers(a.connsPath, cl)

	s.put(a.storage, obj{"@odata.id": a.storage, "@odata.type": "#Storage.v1_21_0.Storage", "Id": arrayStorageID,
		"Name": "PowerVault " + s.spec.Model, "Description": "Storage array", "Drives": refs(dl...), "Drives@odata.count": len(dl),
		"StoragePools": ref(a.poolsPath), "Volumes": ref(a.volsPath), "StorageGroups": ref(a.groupsPath),
		"Connections": ref(a.connsPath), "EndpointGroups": ref(a.epgPath), "Controllers": ref(a.storage + "/Controllers"),
		"Status": ok, "Oem": obj{"HPCStorageMock": obj{"CabledTo": s.spec.CabledTo}},
	})
}

func dataDrives(p *pool) int {
	n := len(p.drives)
	switch p.raid {
	case "RAID1":
		return 1
	case "RAID5":
		return n - 1
	case "RAID6":
		return n - 2
	case "RAID10":
		return n / 2
	}
	return n
}

func (a *array) driveByRef(v any) *drive {
	id, okRef := idOf(v)
	if !okRef {
		return nil
	}
	for _, d := range a.drives {
		if norm(id) == d.path || id == d.id {
			return d
		}
	}
	return nil
}

func (a *array) poolByRef(v any) *pool {
	id, okRef := idOf(v)
	if !okRef {
		return nil
	}
	for _, p := range a.pools {
		if norm(id) == p.path || id == p.id || id == p.name {
			return p
		}
	}
	return nil
}

func patchDrive(s *Service, r *request) (*reply, error) {
	a := s.arr
	d := a.driveByRef(r.path)
	if d == nil {
		return nil, notFound(r.path)
	}
	cur := s.get(d.path)
	var errs errorList
	spare, locate := d.spare, d.locate
	for _, k := range sortedKeys(r.body) {
		v := r.body[k]
		switch k {
		case "HotspareType":
			sv, isStr := v.(string)
			switch {
			case !isStr:
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), k)
			case sv != "None" && sv != "Global":
				errs.add(http.StatusBadRequest, "PropertyValueNotInList", sv, k)
			case sv == "Global" && d.pool != nil:
				errs.add(http.StatusConflict, "PropertyValueResourceConflict", k, sv, d.pool.path)
			default:
				spare = sv
			}
		case "LocationIndicatorActive":
			bv, isBool := v.(bool)
			if !isBool {
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), k)
			}
			locate = bv
		default:
			if _, known := cur[k]; known {
				errs.add(http.StatusBadRequest, "PropertyNotWritable", k)
			} else {
				errs.add(http.StatusBadRequest, "PropertyUnknown", k)
			}
		}
	}
	if err := errs.err(); err != nil {
		if e, isAPI := err.(*apiError); isAPI && e.status == http.StatusConflict {
			e.summary = fmt.Sprintf("drive %s is a member of disk group %s and cannot become a spare", d.id, d.pool.name)
		}
		return nil, err
	}
	d.spare, d.locate = spare, locate
	s.renderArray()
	return ok(http.StatusOK, s.get(d.path))
}

// providing extracts the references listed under CapacitySources[].key in
// any of the accepted shapes: the Swordfish array of sources (each with a
// list, or an inline collection with Members), Seagate's single object with
// a plain list, or Seagate's list of bare pool references.
func providing(v any, key string) ([]any, bool) {
	var sources []any
	switch t := v.(type) {
	case []any:
		sources = t
	case map[string]any:
		sources = []any{t}
	default:
		return nil, false
	}
	var out []any
	for _, src := range sources {
		m, isObj := src.(map[string]any)
		if !isObj {
			return nil, false
		}
		if id, bare := m["@odata.id"]; bare && len(m) == 1 {
			out = append(out, id)
			continue
		}
		switch p := m[key].(type) {
		case []any:
			out = append(out, p...)
		case map[string]any:
			ms, hasMembers := p["Members"].([]any)
			if !hasMembers {
				return nil, false
			}
			out = append(out, ms...)
		default:
			return nil, false
		}
	}
	return out, true
}

func postPool(s *Service, r *request) (*reply, error) {
	a := s.arr
	var errs errorList
	for _, k := range sortedKeys(r.body) {
		switch k {
		case "Name", "Description", "CapacitySources", "SupportedRAIDTypes", "AllocatedPools", "RAIDType":
		default:
			errs.add(http.StatusBadRequest, "PropertyUnknown", k)
		}
	}
	name, _ := asString(r.body["Name"])
	raid := ""
	switch rt := r.body["SupportedRAIDTypes"].(type) {
	case []any:
		if len(rt) != 1 {
			errs.add(http.StatusBadRequest, "PropertyValueIncorrect", "SupportedRAIDTypes", fmt.Sprint(rt))
		} else {
			raid, _ = rt[0].(string)
		}
	case nil:
		raid, _ = asString(r.body["RAIDType"])
	default:
		errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(rt), "SupportedRAIDTypes")
	}
	if raid == "" && len(errs.messages) == 0 {
		errs.add(http.StatusBadRequest, "CreateFailedMissingReqProperties", "SupportedRAIDTypes")
	} else if raid != "" && !contains(raidLevels, raid) {
		errs.add(http.StatusBadRequest, "PropertyValueNotInList", raid, "SupportedRAIDTypes")
	}
	var drives []*drive
	if _, present := r.body["CapacitySources"]; !present {
		errs.add(http.StatusBadRequest, "CreateFailedMissingReqProperties", "CapacitySources")
	} else if list, shapeOK := providing(r.body["CapacitySources"], "ProvidingDrives"); !shapeOK || len(list) == 0 {
		errs.add(http.StatusBadRequest, "PropertyValueIncorrect", "CapacitySources", "no ProvidingDrives list")
	} else {
		for _, x := range list {
			d := a.driveByRef(x)
			id, _ := idOf(x)
			switch {
			case d == nil:
				errs.add(http.StatusBadRequest, "ResourceNotFound", "Drive", id)
			case containsDrive(drives, d):
				errs.add(http.StatusBadRequest, "PropertyValueIncorrect", "CapacitySources/ProvidingDrives", d.id+" listed twice")
			default:
				drives = append(drives, d)
			}
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if why := raidCountRule(raid, len(drives)); why != "" {
		return nil, rfErr(http.StatusBadRequest, "PropertyValueIncorrect", "CapacitySources/ProvidingDrives", strconv.Itoa(len(drives))+" drives").
			withSummary("%s, got %d", why, len(drives))
	}
	for _, d := range drives {
		if d.media != drives[0].media {
			return nil, rfErr(http.StatusBadRequest, "PropertyValueConflict", d.id, drives[0].id).
				withSummary("a disk group takes drives of one media type: %s is %s, %s is %s", drives[0].id, drives[0].media, d.id, d.media)
		}
	}
	for _, d := range drives {
		if d.pool != nil {
			return nil, rfErr(http.StatusConflict, "PropertyValueResourceConflict", "CapacitySources/ProvidingDrives", d.id, d.pool.path).
				withSummary("drive %s already belongs to disk group %s", d.id, d.pool.name)
		}
		if d.spare != "None" {
			return nil, rfErr(http.StatusConflict, "PropertyValueResourceConflict", "CapacitySources/ProvidingDrives", d.id, d.path).
				withSummary("drive %s is a %s hot spare", d.id, d.spare)
		}
	}
	a.seq++
	id := fmt.Sprintf("dg%02d", a.seq)
	if name == "" {
		name = id
	} else if validID.MatchString(name) {
		id = name
	}
	for _, p := range a.pools {
		if p.name == name || p.id == id {
			return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "StoragePool", "Name", name)
		}
	}
	minBytes := drives[0].bytes
	for _, d := range drives {
		minBytes = min(minBytes, d.bytes)
	}
	p := &pool{id: id, name: name, path: a.poolsPath + "/" + id, raid: raid, drives: drives,
		usable: raidUsable(raid, len(drives), minBytes), created: s.now()}
	for _, d := range drives {
		d.pool = p
	}
	a.pools = append(a.pools, p)
	s.renderArray()
	return &reply{status: http.StatusCreated, body: s.get(p.path), headers: map[string]string{"Location": p.path}}, nil
}

func containsDrive(list []*drive, d *drive) bool {
	for _, x := range list {
		if x == d {
			return true
		}
	}
	return false
}

func deletePool(s *Service, r *request) (*reply, error) {
	a := s.arr
	for i, p := range a.pools {
		if p.path != r.path {
			continue
		}
		if len(p.volumes) > 0 {
			return nil, rfErr(http.StatusConflict, "ResourceInUse").withSummary("disk group %s still holds %d volume(s)", p.name, len(p.volumes))
		}
		for _, d := range p.drives {
			d.pool = nil
		}
		a.pools = append(a.pools[:i:i], a.pools[i+1:]...)
		s.remove(p.path)
		s.remove(p.path + "/AllocatedVolumes")
		s.remove(p.path + "/CapacitySources/0/ProvidingDrives")
		s.renderArray()
		return &reply{status: http.StatusNoContent}, nil
	}
	return nil, notFound(r.path)
}

func (p *pool) free() int64 {
	used := int64(0)
	for _, v := range p.volumes {
		used += v.bytes
	}
	return p.usable - used
}

func postVolume(s *Service, r *request) (*reply, error) {
	a := s.arr
	var errs errorList
	for _, k := range sortedKeys(r.body) {
		switch k {
		case "Name", "DisplayName", "CapacityBytes", "CapacitySources", "Links", "RAIDType", "StripSizeBytes", "VolumeType", "Description":
		default:
			errs.add(http.StatusBadRequest, "PropertyUnknown", k)
		}
	}
	var p *pool
	if cs, present := r.body["CapacitySources"]; present {
		list, shapeOK := providing(cs, "ProvidingPools")
		if !shapeOK || len(list) != 1 {
			errs.add(http.StatusBadRequest, "PropertyValueIncorrect", "CapacitySources", "exactly one providing pool")
		} else if p = a.poolByRef(list[0]); p == nil {
			id, _ := idOf(list[0])
			errs.add(http.StatusBadRequest, "ResourceNotFound", "StoragePool", id)
		}
	} else if l, isObj := r.body["Links"].(map[string]any); isObj && l["ProvidingStoragePool"] != nil {
		if p = a.poolByRef(l["ProvidingStoragePool"]); p == nil {
			id, _ := idOf(l["ProvidingStoragePool"])
			errs.add(http.StatusBadRequest, "ResourceNotFound", "StoragePool", id)
		}
	} else {
		errs.add(http.StatusBadRequest, "CreateFailedMissingReqProperties", "CapacitySources")
	}
	strip := int64(defaultStripKiB << 10)
	if v, present := r.body["StripSizeBytes"]; present {
		n, isInt := asInt(v)
		if !isInt {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), "StripSizeBytes")
		} else if !containsInt(stripChoices, n) {
			errs.add(http.StatusBadRequest, "PropertyValueNotInList", strconv.FormatInt(n, 10), "StripSizeBytes")
		}
		strip = n
	}
	var want int64 = -1
	if v, present := r.body["CapacityBytes"]; present {
		n, isInt := asInt(v)
		if !isInt || n <= 0 {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), "CapacityBytes")
		}
		want = n
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if rt, present := asString(r.body["RAIDType"]); present && rt != p.raid {
		return nil, rfErr(http.StatusBadRequest, "PropertyValueConflict", "RAIDType", "CapacitySources").
			withSummary("RAIDType %s differs from the %s of disk group %s; a volume takes its pool's RAID level", rt, p.raid, p.name)
	}
	free := p.free() / mib4 * mib4
	size := free
	if want >= 0 {
		size = want / mib4 * mib4
		if size == 0 {
			return nil, rfErr(http.StatusBadRequest, "PropertyValueOutOfRange", strconv.FormatInt(want, 10), "CapacityBytes").
				withSummary("CapacityBytes %d is below the 4 MiB allocation unit", want)
		}
	}
	if size > free || size == 0 {
		return nil, rfErr(http.StatusBadRequest, "ResourceExhaustion", p.name).
			withSummary("volume of %d bytes does not fit in disk group %s: %d bytes free", size, p.name, free)
	}
	a.seq++
	id := fmt.Sprintf("v%02d", a.seq)
	name, _ := asString(r.body["Name"])
	if name == "" {
		name, _ = asString(r.body["DisplayName"])
	}
	if name == "" {
		name = id
	} else if validID.MatchString(name) {
		id = name
	}
	for _, v := range a.volumes {
		if v.name == name || v.id == id {
			return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "Volume", "Name", name)
		}
	}
	v := &volume{id: id, name: name, path: a.volsPath + "/" + id, pool: p, bytes: size, strip: strip,
		wwn: naa("00C0FF", s.spec.Design, s.spec.Name, "vol:"+name)}
	p.volumes = append(p.volumes, v)
	a.volumes = append(a.volumes, v)
	s.renderArray()
	return &reply{status: http.StatusCreated, body: s.get(v.path), headers: map[string]string{"Location": v.path}}, nil
}

func containsInt(list []int64, n int64) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

func (a *array) volumeByRef(v any) *volume {
	id, okRef := idOf(v)
	if !okRef {
		return nil
	}
	for _, x := range a.volumes {
		if norm(id) == x.path || id == x.id {
			return x
		}
	}
	return nil
}

func patchVolume(s *Service, r *request) (*reply, error) {
	a := s.arr
	v := a.volumeByRef(r.path)
	if v == nil {
		return nil, notFound(r.path)
	}
	cur := s.get(v.path)
	var errs errorList
	newName, newSize := v.name, v.bytes
	for _, k := range sortedKeys(r.body) {
		x := r.body[k]
		switch k {
		case "Name", "DisplayName":
			sv, isStr := x.(string)
			if !isStr || sv == "" {
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(x), k)
			}
			newName = sv
		case "CapacityBytes":
			n, isInt := asInt(x)
			if !isInt {
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(x), k)
			}
			newSize = n / mib4 * mib4
			if n < v.bytes {
				errs.add(http.StatusBadRequest, "PropertyValueOutOfRange", strconv.FormatInt(n, 10), k)
			}
		default:
			if _, known := cur[k]; known {
				errs.add(http.StatusBadRequest, "PropertyNotWritable", k)
			} else {
				errs.add(http.StatusBadRequest, "PropertyUnknown", k)
			}
		}
	}
	if err := errs.err(); err != nil {
		if e, isAPI := err.(*apiError); isAPI && newSize < v.bytes {
			e.summary = fmt.Sprintf("volume %s can only grow: %d bytes requested, %d allocated", v.name, newSize, v.bytes)
		}
		return nil, err
	}
	if newName != v.name {
		for _, o := range a.volumes {
			if o != v && o.name == newName {
				return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "Volume", "Name", newName)
			}
		}
	}
	if grow := newSize - v.bytes; grow > 0 && grow > v.pool.free()/mib4*mib4 {
		return nil, rfErr(http.StatusBadRequest, "ResourceExhaustion", v.pool.name).
			withSummary("growing volume %s by %d bytes does not fit in disk group %s: %d bytes free", v.name, grow, v.pool.name, v.pool.free())
	}
	grew := newSize > v.bytes
	v.name, v.bytes = newName, newSize
	if grew {
		for _, m := range a.maps {
			if m.volume == v {
				s.emitMapping("resized", m)
			}
		}
	}
	s.renderArray()
	return ok(http.StatusOK, s.get(v.path))
}

func deleteVolume(s *Service, r *request) (*reply, error) {
	a := s.arr
	v := a.volumeByRef(r.path)
	if v == nil {
		return nil, notFound(r.path)
	}
	for _, m := range a.maps {
		if m.volume == v {
			return nil, rfErr(http.StatusConflict, "ResourceInUse").withSummary("volume %s is mapped to %s (LUN %d); unmap it first", v.name, m.host, m.lun)
		}
	}
	for i, x := range a.volumes {
		if x == v {
			a.volumes = append(a.volumes[:i:i], a.volumes[i+1:]...)
		}
	}
	for i, x := range v.pool.volumes {
		if x == v {
			v.pool.volumes = append(v.pool.volumes[:i:i], v.pool.volumes[i+1:]...)
		}
	}
	s.remove(v.path)
	s.renderArray()
	return &reply{status: http.StatusNoContent}, nil
}

func (s *Service) emitMapping(kind string, m *mapping) {
	s.emit(MappingEvent{Array: s.spec.Name, Kind: kind, Volume: m.volume.id, VolumeName: m.volume.name, WWN: m.volume.wwn,
		SizeBytes: m.volume.bytes, Host: m.host, LUN: m.lun, Time: s.now()})
}

// hostByRef resolves an endpoint group, an endpoint, or a bare host name to
// a server cabled to this array.
func (s *Service) hostByRef(v any) (string, bool) {
	id, okRef := idOf(v)
	if !okRef {
		return "", false
	}
	h := lastSeg(id)
	return h, contains(s.spec.CabledTo, h)
}

type volLUN struct {
	v      *volume
	lun    int
	access string
}

// addMappings validates and records a mapping group atomically.
func (s *Service) addMappings(kind, name string, vols []volLUN, hosts []string) (*reply, error) {
	a := s.arr
	if len(vols) == 0 {
		return nil, rfErr(http.StatusBadRequest, "CreateFailedMissingReqProperties", "MappedVolumes")
	}
	if len(hosts) == 0 {
		return nil, rfErr(http.StatusBadRequest, "CreateFailedMissingReqProperties", "ClientEndpointGroups")
	}
	base := a.groupsPath
	if kind == "conn" {
		base = a.connsPath
	}
	a.seq++
	id := fmt.Sprintf("map%02d", a.seq)
	if name != "" && validID.MatchString(name) {
		id = name
	}
	group := base + "/" + id
	if s.docs[group] != nil {
		return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "StorageGroup", "Name", id)
	}
	var added []*mapping
	for _, h := range hosts {
		for _, vl := range vols {
			for _, m := range append(a.maps, added...) {
				if m.host != h {
					continue
				}
				if m.lun == vl.lun {
					return nil, rfErr(http.StatusConflict, "PropertyValueResourceConflict", "LogicalUnitNumber", strconv.Itoa(vl.lun), m.group).
						withSummary("LUN %d is already used on host %s by volume %s", vl.lun, h, m.volume.name)
				}
				if m.volume == vl.v {
					return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "Volume", "Host", h).
						withSummary("volume %s is already mapped to host %s as LUN %d", vl.v.name, h, m.lun)
				}
			}
			added = append(added, &mapping{group: group, volume: vl.v, host: h, lun: vl.lun, access: vl.access})
		}
	}
	a.maps = append(a.maps, added...)
	for _, m := range added {
		s.emitMapping("mapped", m)
	}
	s.renderArray()
	return &reply{status: http.StatusCreated, body: s.get(group), headers: map[string]string{"Location": group}}, nil
}

func parseLUN(v any) (int, bool) {
	switch t := v.(type) {
	case string:
		n, err := strconv.Atoi(t)
		return n, err == nil && n >= 0 && n < 1024
	default:
		n, isInt := asInt(v)
		return int(n), isInt && n >= 0 && n < 1024
	}
}

func postStorageGroup(s *Service, r *request) (*reply, error) {
	a := s.arr
	var errs errorList
	var vols []volLUN
	mv, _ := r.body["MappedVolumes"].([]any)
	for i, x := range mv {
		m, _ := x.(map[string]any)
		v := a.volumeByRef(m["Volume"])
		if v == nil {
			id, _ := idOf(m["Volume"])
			errs.add(http.StatusBadRequest, "ResourceNotFound", "Volume", id)
			continue
		}
		lun, lunOK := parseLUN(m["LogicalUnitNumber"])
		if !lunOK {
			errs.add(http.StatusBadRequest, "PropertyValueIncorrect", fmt.Sprintf("MappedVolumes/%d/LogicalUnitNumber", i), fmt.Sprint(m["LogicalUnitNumber"]))
			continue
		}
		access, _ := m["AccessCapability"].(string)
		if access == "" {
			access = "ReadWrite"
		}
		if access != "ReadWrite" && access != "Read" {
			errs.add(http.StatusBadRequest, "PropertyValueNotInList", access, fmt.Sprintf("MappedVolumes/%d/AccessCapability", i))
		}
		vols = append(vols, volLUN{v: v, lun: lun, access: access})
	}
	var groupRefs []any
	if l, isObj := r.body["Links"].(map[string]any); isObj {
		groupRefs, _ = l["ClientEndpointGroups"].([]any)
	}
	if g, isList := r.body["ClientEndpointGroups"].([]any); isList {
		groupRefs = append(groupRefs, g...)
	}
	hosts := s.resolveHosts(&errs, groupRefs, "ClientEndpointGroups")
	if err := errs.err(); err != nil {
		return nil, err
	}
	name, _ := asString(r.body["Name"])
	return s.addMappings("sg", name, vols, hosts)
}

func (s *Service) resolveHosts(errs *errorList, list []any, prop string) []string {
	var hosts []string
	for _, g := range list {
		h, cabled := s.hostByRef(g)
		if !cabled {
			id, _ := idOf(g)
			errs.add(http.StatusBadRequest, "PropertyValueNotInList", id, prop)
			continue
		}
		if !contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

func postConnection(s *Service, r *request) (*reply, error) {
	a := s.arr
	var errs errorList
	var vols []volLUN
	vi, _ := r.body["VolumeInfo"].([]any)
	for i, x := range vi {
		m, _ := x.(map[string]any)
		v := a.volumeByRef(m["Volume"])
		if v == nil {
			id, _ := idOf(m["Volume"])
			errs.add(http.StatusBadRequest, "ResourceNotFound", "Volume", id)
			continue
		}
		lun, lunOK := parseLUN(m["LUN"])
		if !lunOK {
			errs.add(http.StatusBadRequest, "PropertyValueIncorrect", fmt.Sprintf("VolumeInfo/%d/LUN", i), fmt.Sprint(m["LUN"]))
			continue
		}
		access := "ReadWrite"
		if caps, _ := m["AccessCapabilities"].([]any); len(caps) == 1 && caps[0] == "Read" {
			access = "Read"
		}
		vols = append(vols, volLUN{v: v, lun: lun, access: access})
	}
	var eps []any
	if l, isObj := r.body["Links"].(map[string]any); isObj {
		eps, _ = l["InitiatorEndpoints"].([]any)
		if g, isList := l["InitiatorEndpointGroups"].([]any); isList {
			eps = append(eps, g...)
		}
	}
	hosts := s.resolveHosts(&errs, eps, "Links/InitiatorEndpoints")
	if err := errs.err(); err != nil {
		return nil, err
	}
	name, _ := asString(r.body["Name"])
	return s.addMappings("conn", name, vols, hosts)
}

func deleteMappingGroup(s *Service, r *request) (*reply, error) {
	a := s.arr
	var keep []*mapping
	found := false
	for _, m := range a.maps {
		if m.group == r.path {
			found = true
			s.emitMapping("unmapped", m)
			continue
		}
		keep = append(keep, m)
	}
	if !found {
		return nil, notFound(r.path)
	}
	a.maps = keep
	s.remove(r.path)
	s.renderArray()
	return &reply{status: http.StatusNoContent}, nil
}
