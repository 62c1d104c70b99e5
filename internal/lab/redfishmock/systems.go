package redfishmock

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Power states of ComputerSystem.PowerState.
const (
	PowerOn          = "On"
	PowerOff         = "Off"
	PowerPoweringOn  = "PoweringOn"
	PowerPoweringOff = "PoweringOff"
)

var (
	bootTargets = []string{"None", "Pxe", "Cd", "Hdd", "BiosSetup", "UefiHttp"}
	bootEnabled = []string{"Disabled", "Once", "Continuous"}
	bootModes   = []string{"UEFI", "Legacy"}
)

// system is the state of one server behind a BMC.
type system struct {
	reg                                      biosRegistry
	sysPath, biosPath, settingsPath, mgrPath string
	chassisPath, jobsPath, registryPath      string
	resetTypes, applyTimes                   []string
	power                                    string
	current, pending                         map[string]any
	resetBiosPending                         bool
	bootTarget, bootEnabled, bootMode        string
	assetTag                                 string
	bootCount                                int
	biosJob                                  *task // Dell: the scheduled BIOS config job
	immediate                                *task // generic: Immediate apply task
	settingsTime                             time.Time
	jobSeq                                   int
	failNextJob                              bool // fault: the next BIOS job ends in Exception
	ignoreGraceful                           bool // fault: the OS ignores ACPI shutdown requests
	spec                                     ServerSpec
	fw                                       firmware
}

func (s *Service) seedServer() {
	sp := *s.spec.Server
	p := s.spec.Personality
	sys := &system{reg: registryFor(p), power: PowerOn, bootTarget: "None", bootEnabled: "Disabled", bootMode: "UEFI", spec: sp}
	switch p {
	case PersonalityDell:
		sys.sysPath = "/redfish/v1/Systems/System.Embedded.1"
		sys.mgrPath = "/redfish/v1/Managers/iDRAC.Embedded.1"
		sys.chassisPath = "/redfish/v1/Chassis/System.Embedded.1"
		sys.biosPath = sys.sysPath + "/Bios"
		sys.settingsPath = sys.biosPath + "/Settings"
		sys.jobsPath = sys.mgrPath + "/Jobs"
		sys.registryPath = sys.biosPath + "/BiosRegistry"
		sys.resetTypes = []string{"On", "ForceOff", "ForceRestart", "GracefulRestart", "GracefulShutdown", "PushPowerButton", "Nmi", "PowerCycle"}
		sys.applyTimes = []string{"OnReset", "AtMaintenanceWindowStart", "InMaintenanceWindowOnReset"}
	case PersonalityHPE:
		sys.sysPath = "/redfish/v1/Systems/1"
		sys.mgrPath = "/redfish/v1/Managers/1"
		sys.chassisPath = "/redfish/v1/Chassis/1"
		sys.biosPath = "/redfish/v1/systems/1/bios/"
		sys.settingsPath = "/redfish/v1/systems/1/bios/settings/"
		sys.registryPath = "/redfish/v1/Registries/" + sys.reg.id + "/en"
		sys.resetTypes = []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart", "Nmi", "PushPowerButton", "GracefulRestart"}
	default:
		sys.sysPath = "/redfish/v1/Systems/1"
		sys.mgrPath = "/redfish/v1/Managers/BMC"
		sys.chassisPath = "/redfish/v1/Chassis/1"
		sys.biosPath = sys.sysPath + "/Bios"
		sys.settingsPath = sys.biosPath + "/Settings"
		sys.registryPath = "/redfish/v1/Registries/" + sys.reg.id + "/en"
		sys.resetTypes = []string{"On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "Nmi", "ForceOn", "PushPowerButton", "PowerCycle"}
		sys.applyTimes = []string{"Immediate", "OnReset"}
	}
	sys.current = sys.reg.defaults()
	if sp.BIOS != nil {
		for k, v := range sp.BIOS {
			sys.current[k] = v
		}
	}
	if _, ok := sys.current["Proc1NumCores"]; ok {
		sys.current["Proc1NumCores"] = int64(sp.CoresPerSocket)
	}
	if _, ok := sys.current["SerialNumber"]; ok {
		sys.current["SerialNumber"] = s.serial()
	}
	sys.pending = map[string]any{}
	sys.settingsTime = s.now()
	s.sys = sys

	s.installServiceRoot(obj{
		"Systems":  ref("/redfish/v1/Systems"),
		"Chassis":  ref("/redfish/v1/Chassis"),
		"Managers": ref("/redfish/v1/Managers"),
	})
	s.collection("/redfish/v1/Systems", "#ComputerSystemCollection.ComputerSystemCollection", "Computer System Collection")
	s.collection("/redfish/v1/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection")
	s.collection("/redfish/v1/Managers", "#ManagerCollection.ManagerCollection", "Manager Collection")
	s.addMember("/redfish/v1/Systems", sys.sysPath)
	s.addMember("/redfish/v1/Chassis", sys.chassisPath)
	s.addMember("/redfish/v1/Managers", sys.mgrPath)
	s.seedInventory()
	s.seedManager()
	_, bmcVersion := s.managerModel()
	s.seedUpdateService(bmcVersion)
	s.seedRegistries()
	s.renderSystem()

	s.handle(http.MethodPatch, sys.sysPath, patchSystem)
	s.handle(http.MethodPost, sys.sysPath+"/Actions/ComputerSystem.Reset", postReset)
	s.handle(http.MethodPatch, sys.settingsPath, patchBiosSettings)
	s.handle(http.MethodPost, sys.biosPath+"/Actions/Bios.ResetBios", postResetBios)
	if sys.jobsPath != "" {
		s.handle(http.MethodPost, sys.jobsPath, postDellJob)
		s.handle(http.MethodDelete, sys.jobsPath+"/{}", deleteDellJob)
		// Newer iDRAC firmware also publishes the queue under Oem/Dell/Jobs.
		s.aliases = map[string]string{sys.mgrPath + "/Oem/Dell/Jobs": sys.jobsPath}
	}
}

// serial is a stable service tag derived from the endpoint name.
func (s *Service) serial() string {
	h := sha256.Sum256([]byte(s.spec.Design + "/" + s.spec.Name))
	const alphabet = "0123456789BCDFGHJKLMNPQRSTVWXYZ"
	out := make([]byte, 7)
	for i := range out {
		out[i] = alphabet[int(h[i])%len(alphabet)]
	}
	return string(out)
}

func (s *Service) uuid() string {
	h := sha256.Sum256([]byte("uuid/" + s.spec.Design + "/" + s.spec.Name))
	h[6] = h[6]&0x0f | 0x50 // name-based UUID (version 5 layout)
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// mac is a stable MAC address with the given vendor prefix.
func (s *Service) mac(prefix string, i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("mac/%s/%s/%d", s.spec.Design, s.spec.Name, i)))
	return fmt.Sprintf("%s:%02X:%02X:%02X", prefix, h[0], h[1], h[2])
}

func (s *Service) installServiceRoot(extra obj) {
	vendor := map[string]string{PersonalityDell: "Dell", PersonalityHPE: "HPE"}[s.spec.Personality]
	if vendor == "" {
		vendor = s.spec.Vendor
	}
	if vendor == "" {
		vendor = "DMTF"
	}
	modes, levels := s.expandSupport()
	root := obj{
		"@odata.id":      "/redfish/v1",
		"@odata.type":    "#ServiceRoot.v1_20_0.ServiceRoot",
		"Id":             "RootService",
		"Name":           "Root Service",
		"RedfishVersion": "1.20.0",
		"UUID":           s.uuid(),
		"Vendor":         vendor,
		"Product":        s.spec.Model,
		"SessionService": ref("/redfish/v1/SessionService"),
		"Tasks":          ref(taskServicePath),
		"Links":          obj{"Sessions": ref("/redfish/v1/SessionService/Sessions")},
		"ProtocolFeaturesSupported": obj{
			"ExpandQuery": obj{"ExpandAll": strings.Contains(modes, "*"), "Levels": true, "Links": strings.Contains(modes, "~"),
				"NoLinks": strings.Contains(modes, "."), "MaxLevels": levels},
			"ExcerptQuery": false, "OnlyMemberQuery": false, "FilterQuery": false, "SelectQuery": false,
		},
	}
	for k, v := range extra {
		root[k] = v
	}
	s.put("/redfish/v1", root)
	s.put("/redfish/v1/odata", obj{"@odata.context": "/redfish/v1/$metadata", "value": []any{}})
	s.installSessionService("/redfish/v1/SessionService/Sessions")
	s.installTaskService()
}

// numaNodes follows the current BIOS: sub-NUMA clustering splits each socket.
func (sys *system) numaNodes() int {
	n := sys.spec.Sockets
	if v, _ := sys.current[sys.reg.sncAttr].(string); v == "Enabled" || v == "2-Way" {
		n *= 2
	}
	return n
}

func (sys *system) threadsPerCore() int {
	if v, _ := sys.current[sys.reg.htAttr].(string); v == "Disabled" {
		return 1
	}
	return 2
}

func (s *Service) vendorNames() (mfr, cpuMfr string) {
	switch s.spec.Personality {
	case PersonalityDell:
		mfr = "Dell Inc."
	case PersonalityHPE:
		mfr = "HPE"
	default:
		mfr = s.spec.Vendor
		if mfr == "" {
			mfr = "Generic"
		}
	}
	cpuMfr = "Intel(R) Corporation"
	if strings.Contains(s.spec.Server.CPUModel, "EPYC") {
		cpuMfr = "Advanced Micro Devices, Inc."
	}
	return mfr, cpuMfr
}

// renderSystem writes every document whose content follows the system state.
func (s *Service) renderSystem() {
	sys := s.sys
	sp := sys.spec
	mfr, _ := s.vendorNames()
	cores := sp.Sockets * sp.CoresPerSocket
	status := obj{"State": "Enabled", "Health": "OK"}
	if sys.power == PowerOff {
		status = obj{"State": "StandbyOffline", "Health": "OK"}
	}
	links := obj{"Chassis": refs(sys.chassisPath), "ManagedBy": refs(sys.mgrPath)}
	body := obj{
		"@odata.id":    sys.sysPath,
		"@odata.type":  "#ComputerSystem.v1_27_0.ComputerSystem",
		"Id":           lastSeg(sys.sysPath),
		"Name":         "System",
		"SystemType":   "Physical",
		"Manufacturer": mfr,
		"Model":        s.spec.Model,
		"SerialNumber": s.serial(),
		"SKU":          s.serial(),
		"UUID":         s.uuid(),
		"HostName":     s.spec.Node,
		"AssetTag":     sys.assetTag,
		"PowerState":   sys.power,
		"Status":       status,
		"BiosVersion":  sp.BIOSVersion,
		"ProcessorSummary": obj{"Count": sp.Sockets, "CoreCount": cores, "LogicalProcessorCount": cores * sys.threadsPerCore(),
			"Model": sp.CPUModel, "Status": obj{"State": "Enabled", "Health": "OK"}},
		"MemorySummary": obj{"TotalSystemMemoryGiB": sp.DIMMs * sp.DIMMGiB, "Status": obj{"State": "Enabled", "Health": "OK"}},
		"Boot": obj{
			"BootSourceOverrideTarget":                         sys.bootTarget,
			"BootSourceOverrideTarget@Redfish.AllowableValues": bootTargets,
			"BootSourceOverrideEnabled":                        sys.bootEnabled,
			"BootSourceOverrideMode":                           sys.bootMode,
		},
		"Bios":               ref(strings.TrimSuffix(sys.biosPath, "/")),
		"Processors":         ref(sys.sysPath + "/Processors"),
		"Memory":             ref(sys.sysPath + "/Memory"),
		"EthernetInterfaces": ref(sys.sysPath + "/EthernetInterfaces"),
		"SimpleStorage":      ref(sys.sysPath + "/SimpleStorage"),
		"Links":              links,
		"Actions": obj{"#ComputerSystem.Reset": obj{
			"target":                            sys.sysPath + "/Actions/ComputerSystem.Reset",
			"ResetType@Redfish.AllowableValues": sys.resetTypes,
		}},
		"Oem": obj{"HPCStorageMock": obj{"NumaNodes": sys.numaNodes(), "BootCount": sys.bootCount}},
	}
	if sp.NVMeDrives > 0 {
		body["Storage"] = ref(sys.sysPath + "/Storage")
	}
	s.put(sys.sysPath, body)

	// Processors follow the logical-processor switch.
	_, cpuMfr := s.vendorNames()
	var cpus []string
	for i := 1; i <= sp.Sockets; i++ {
		id := fmt.Sprintf("CPU.Socket.%d", i)
		if s.spec.Personality != PersonalityDell {
			id = fmt.Sprintf("%d", i)
		}
		path := sys.sysPath + "/Processors/" + id
		cpus = append(cpus, path)
		s.put(path, obj{
			"@odata.id": path, "@odata.type": "#Processor.v1_22_0.Processor", "Id": id, "Name": fmt.Sprintf("CPU %d", i),
			"Socket": fmt.Sprintf("CPU %d", i), "ProcessorType": "CPU", "ProcessorArchitecture": "x86", "InstructionSet": "x86-64",
			"Manufacturer": cpuMfr, "Model": sp.CPUModel, "MaxSpeedMHz": sp.CPUSpeedMHz, "TotalCores": sp.CoresPerSocket,
			"TotalEnabledCores": sp.CoresPerSocket, "TotalThreads": sp.CoresPerSocket * sys.threadsPerCore(),
			"Status": obj{"State": "Enabled", "Health": "OK"},
		})
	}
	if s.get(sys.sysPath+"/Processors") == nil {
		s.collection(sys.sysPath+"/Processors", "#ProcessorCollection.ProcessorCollection", "Processors Collection")
		s.setMembers(sys.sysPath+"/Processors", cpus)
	}

	s.renderBios()
}

func (s *Service) renderBios() {
	sys := s.sys
	settings := obj{
		"@odata.type":    "#Settings.v1_4_0.Settings",
		"SettingsObject": ref(sys.settingsPath),
		"Time":           sys.settingsTime.Format(time.RFC3339),
		"ETag":           s.etag(sys.settingsPath),
	}
	if sys.applyTimes != nil {
		settings["SupportedApplyTimes"] = sys.applyTimes
	}
	bios := obj{
		"@odata.id":                  sys.biosPath,
		"@odata.type":                "#Bios.v1_2_3.Bios",
		"Id":                         "Bios",
		"Name":                       "BIOS Configuration Current Settings",
		"AttributeRegistry":          sys.reg.id,
		"Attributes":                 attrsCopy(sys.current),
		"ResetBiosToDefaultsPending": sys.resetBiosPending,
		"@Redfish.Settings":          settings,
		"Actions":                    obj{"#Bios.ResetBios": obj{"target": strings.TrimSuffix(sys.biosPath, "/") + "/Actions/Bios.ResetBios"}},
	}
	if s.spec.Personality == PersonalityHPE {
		bios["Id"] = "bios"
	}
	s.put(sys.biosPath, bios)
	// The settings object shows the full attribute set with pending values
	// applied, as the DMTF mockups and iLO do.
	pend := attrsCopy(sys.current)
	for k, v := range sys.pending {
		pend[k] = v
	}
	s.put(sys.settingsPath, obj{
		"@odata.id":         sys.settingsPath,
		"@odata.type":       "#Bios.v1_2_3.Bios",
		"Id":                "Settings",
		"Name":              "BIOS Configuration Pending Settings",
		"AttributeRegistry": sys.reg.id,
		"Attributes":        pend,
	})
}

func attrsCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// SetServerFaults makes the next BIOS job (or Immediate task) fail at boot,
// leaving its values pending, and/or makes the host ignore graceful
// shutdown and restart requests (the OS does not react to ACPI).
func (s *Service) SetServerFaults(failNextBiosJob, ignoreGracefulShutdown bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sys == nil {
		return fmt.Errorf("%w: %s is not a server", ErrBadFault, s.spec.Name)
	}
	s.sys.failNextJob, s.sys.ignoreGraceful = failNextBiosJob, ignoreGracefulShutdown
	return nil
}

// SetBiosByHand changes a current BIOS attribute the way an administrator
// does in the setup screen (no job, nothing pending): drift for tests.
func (s *Service) SetBiosByHand(name string, value any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sys == nil {
		return fmt.Errorf("%w: %s is not a server", ErrBadFault, s.spec.Name)
	}
	if _, ok := s.sys.current[name]; !ok {
		return fmt.Errorf("%w: %s has no BIOS attribute %q", ErrBadFault, s.spec.Name, name)
	}
	s.sys.current[name] = value
	s.renderBios()
	return nil
}

// PowerState returns the current power state of a server (for tests).
func (s *Service) PowerState() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if s.sys == nil {
		return ""
	}
	return s.sys.power
}

// BootCount is how many times a server finished POST (for tests).
func (s *Service) BootCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if s.sys == nil {
		return 0
	}
	return s.sys.bootCount
}

// BootOverride returns a server's boot override target and enabled state
// (for tests).
func (s *Service) BootOverride() (target, enabled string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if s.sys == nil {
		return "", ""
	}
	return s.sys.bootTarget, s.sys.bootEnabled
}

// BiosAttributes returns the current and pending BIOS attributes.
func (s *Service) BiosAttributes() (current, pending map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if s.sys == nil {
		return nil, nil
	}
	return attrsCopy(s.sys.current), attrsCopy(s.sys.pending)
}

func patchSystem(s *Service, r *request) (*reply, error) {
	sys := s.sys
	cur := s.get(sys.sysPath)
	var errs errorList
	newBoot := [3]string{sys.bootTarget, sys.bootEnabled, sys.bootMode}
	newTag := sys.assetTag
	keys := sortedKeys(r.body)
	for _, k := range keys {
		v := r.body[k]
		switch k {
		case "Boot":
			b, isObj := v.(map[string]any)
			if !isObj {
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), "Boot")
				continue
			}
			for _, bk := range sortedKeys(b) {
				bv := b[bk]
				var idx int
				var allowed []string
				switch bk {
				case "BootSourceOverrideTarget":
					idx, allowed = 0, bootTargets
				case "BootSourceOverrideEnabled":
					idx, allowed = 1, bootEnabled
				case "BootSourceOverrideMode":
					idx, allowed = 2, bootModes
				default:
					if _, known := cur["Boot"].(map[string]any)[bk]; known {
						errs.add(http.StatusBadRequest, "PropertyNotWritable", "Boot/"+bk)
					} else {
						errs.add(http.StatusBadRequest, "PropertyUnknown", "Boot/"+bk)
					}
					continue
				}
				sv, isStr := bv.(string)
				if !isStr {
					errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(bv), "Boot/"+bk)
					continue
				}
				if !contains(allowed, sv) {
					errs.add(http.StatusBadRequest, "PropertyValueNotInList", sv, "Boot/"+bk)
					continue
				}
				newBoot[idx] = sv
			}
		case "AssetTag":
			sv, isStr := v.(string)
			if !isStr {
				errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(v), k)
				continue
			}
			newTag = sv
		default:
			if _, known := cur[k]; known || strings.HasPrefix(k, "@odata") {
				errs.add(http.StatusBadRequest, "PropertyNotWritable", k)
			} else {
				errs.add(http.StatusBadRequest, "PropertyUnknown", k)
			}
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	sys.bootTarget, sys.bootEnabled, sys.bootMode = newBoot[0], newBoot[1], newBoot[2]
	sys.assetTag = newTag
	s.renderSystem()
	return ok(http.StatusOK, s.get(sys.sysPath))
}

func postReset(s *Service, r *request) (*reply, error) {
	sys := s.sys
	const action = "ComputerSystem.Reset"
	for _, k := range sortedKeys(r.body) {
		if k != "ResetType" {
			return nil, rfErr(http.StatusBadRequest, "ActionParameterUnknown", action, k)
		}
	}
	rt, present := r.body["ResetType"]
	if !present {
		return nil, rfErr(http.StatusBadRequest, "ActionParameterMissing", action, "ResetType")
	}
	t, isStr := rt.(string)
	if !isStr || !contains(sys.resetTypes, t) {
		return nil, rfErr(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(rt), "ResetType", action)
	}
	if sys.power == PowerPoweringOn || sys.power == PowerPoweringOff {
		return nil, rfErr(http.StatusConflict, "ResourceInUse").withSummary("the system is %s; retry when the transition ends", sys.power)
	}
	s.reset(t)
	return &reply{status: http.StatusNoContent}, nil
}

// reset starts a power transition; the states in between last PowerDelay.
func (s *Service) reset(t string) {
	sys := s.sys
	on := sys.power == PowerOn
	switch t {
	case "On", "ForceOn":
		if !on {
			s.powerOn()
		}
	case "ForceOff", "GracefulShutdown":
		if on && !(t == "GracefulShutdown" && sys.ignoreGraceful) {
			s.powerOff(nil, t == "GracefulShutdown")
		}
	case "PushPowerButton":
		if on {
			s.powerOff(nil, false)
		} else {
			s.powerOn()
		}
	case "ForceRestart", "GracefulRestart", "PowerCycle":
		// A restart goes through Off before booting again; a restart of a
		// host that is off just boots it.
		if on && t == "GracefulRestart" && sys.ignoreGraceful {
			break
		}
		if on {
			s.powerOff(s.powerOn, t == "GracefulRestart")
		} else {
			s.powerOn()
		}
	case "Nmi":
	}
	s.renderSystem()
}

func (s *Service) powerOff(then func(), graceful bool) {
	s.sys.power = PowerPoweringOff
	s.after(s.opts.PowerDelay, func() {
		s.sys.power = PowerOff
		s.emitPower(PowerOff, graceful)
		s.renderSystem()
		if then != nil {
			then()
		}
	})
}

func (s *Service) powerOn() {
	sys := s.sys
	sys.power = PowerPoweringOn
	if sys.biosJob != nil && sys.biosJob.state == TaskPending {
		s.setTask(sys.biosJob, TaskRunning, 10)
	}
	s.renderSystem()
	s.after(s.opts.PowerDelay, s.boot)
}

// boot is the moment the host finishes POST: pending BIOS settings are
// applied here and nowhere else.
func (s *Service) boot() {
	sys := s.sys
	sys.power = PowerOn
	sys.bootCount++
	s.emitPower(PowerOn, false)
	s.activateBIOS()
	applies := len(sys.pending) > 0 || sys.resetBiosPending
	if s.spec.Personality == PersonalityDell && sys.biosJob == nil {
		// iDRAC leaves pending values alone unless a config job was created.
		applies = false
	}
	if sys.failNextJob && (sys.biosJob != nil || sys.immediate != nil) {
		sys.failNextJob = false
		for _, t := range []*task{sys.biosJob, sys.immediate} {
			if t != nil {
				s.setTask(t, TaskException, 100, message("OperationFailed"))
			}
		}
		sys.biosJob, sys.immediate = nil, nil
		applies = false // the values stay pending, as after a failed BIOS job
	}
	if applies {
		if sys.resetBiosPending {
			sys.current = sys.reg.defaults()
			sys.resetBiosPending = false
		}
		for k, v := range sys.pending {
			sys.current[k] = v
		}
		sys.pending = map[string]any{}
		sys.settingsTime = s.now()
	}
	for _, t := range []*task{sys.biosJob, sys.immediate} {
		if t != nil {
			s.setTask(t, TaskCompleted, 100, message("Success"))
		}
	}
	sys.biosJob, sys.immediate = nil, nil
	if sys.bootEnabled == "Once" {
		sys.bootEnabled = "Disabled"
		sys.bootTarget = "None"
	}
	s.renderSystem()
}

func patchBiosSettings(s *Service, r *request) (*reply, error) {
	sys := s.sys
	if s.spec.Personality == PersonalityDell && sys.biosJob != nil {
		// iDRAC refuses new values while a BIOS job is committed (SYS011);
		// delete the job to start over, or reboot to apply it.
		e := rfErr(http.StatusBadRequest, "ResourceInUse").withSummary("pending BIOS values are already committed to job %s", sys.biosJob.id)
		e.messages = append(e.messages, obj{"@odata.type": "#Message.v1_3_0.Message", "MessageId": "IDRAC.2.8.SYS011",
			"Message":     "Pending configuration values are already committed, unable to perform another set operation.",
			"MessageArgs": []string{}, "MessageSeverity": "Warning", "Resolution": "Delete the job or restart the server, then retry."})
		return nil, e
	}
	var errs errorList
	attrs, hasAttrs := r.body["Attributes"].(map[string]any)
	if _, present := r.body["Attributes"]; present && !hasAttrs {
		errs.add(http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprint(r.body["Attributes"]), "Attributes")
	} else if !present {
		errs.add(http.StatusBadRequest, "PropertyMissing", "Attributes")
	}
	applyTime := ""
	for _, k := range sortedKeys(r.body) {
		switch k {
		case "Attributes":
		case "@Redfish.SettingsApplyTime":
			at, _ := r.body[k].(map[string]any)
			v, _ := at["ApplyTime"].(string)
			allowed := sys.applyTimes
			if allowed == nil { // none published: any standard value is taken, applied on reset
				allowed = []string{"Immediate", "OnReset", "AtMaintenanceWindowStart", "InMaintenanceWindowOnReset"}
			}
			if !contains(allowed, v) {
				errs.add(http.StatusBadRequest, "PropertyValueNotInList", v, "@Redfish.SettingsApplyTime/ApplyTime")
			}
			applyTime = v
		default:
			errs.add(http.StatusBadRequest, "PropertyUnknown", k)
		}
	}
	for _, k := range sortedKeys(attrs) {
		sys.reg.check(&errs, k, attrs[k])
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	for k, v := range attrs {
		if n, isNum := v.(float64); isNum {
			v = int64(n)
		}
		sys.pending[k] = v
	}
	s.renderBios()
	switch s.spec.Personality {
	case PersonalityDell:
		if applyTime == "" {
			return ok(http.StatusOK, obj{"@Message.ExtendedInfo": []any{message("Success")}})
		}
		// iDRAC 9 hands out the job as a Task under TaskService (its id is
		// the job id); POST .../Jobs still answers with the manager's Job.
		t := s.dellJob()
		return &reply{status: http.StatusAccepted, headers: map[string]string{"Location": tasksPath + "/" + t.id}}, nil
	case PersonalityHPE:
		return ok(http.StatusOK, obj{"error": obj{"code": "iLO.0.10.ExtendedInfo", "message": "See @Message.ExtendedInfo for more information.",
			"@Message.ExtendedInfo": []any{obj{"MessageId": "iLO.2.15.SystemResetRequired"}}}})
	default:
		if applyTime == "Immediate" {
			if sys.immediate == nil {
				sys.immediate = s.newTask("", "Apply BIOS settings", TaskRunning)
			}
			if sys.power == PowerOn {
				s.reset("ForceRestart")
			} else if sys.power == PowerOff {
				s.reset("On")
			}
			return accepted(s, sys.immediate), nil
		}
		return &reply{status: http.StatusNoContent}, nil
	}
}

// dellJob returns the scheduled BIOS configuration job, creating it.
func (s *Service) dellJob() *task {
	sys := s.sys
	if sys.biosJob != nil {
		return sys.biosJob
	}
	sys.biosJob = s.newDellJob("Configure: BIOS.Setup.1-1", "BIOSConfiguration", TaskPending)
	sys.biosJob.targetURI = sys.settingsPath
	s.renderTask(sys.biosJob)
	return sys.biosJob
}

// newDellJob queues an iDRAC job (JID_ id) and its Task twin.
func (s *Service) newDellJob(name, jobType, state string) *task {
	sys := s.sys
	sys.jobSeq++
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", s.spec.Name, sys.jobSeq)))
	id := fmt.Sprintf("JID_%012d", (uint64(h[0])<<32|uint64(h[1])<<24|uint64(h[2])<<16|uint64(h[3])<<8|uint64(h[4]))%1000000000000)
	t := &task{id: id, name: name, state: state, start: s.now(), jobPath: sys.jobsPath + "/" + id, jobType: jobType}
	s.tasks[id] = t
	s.addMember(tasksPath, tasksPath+"/"+id)
	s.addMember(sys.jobsPath, t.jobPath)
	s.renderTask(t)
	return t
}

func postDellJob(s *Service, r *request) (*reply, error) {
	target, present := asString(r.body["TargetSettingsURI"])
	if !present {
		return nil, rfErr(http.StatusBadRequest, "PropertyMissing", "TargetSettingsURI")
	}
	if norm(target) != norm(s.sys.settingsPath) {
		return nil, rfErr(http.StatusBadRequest, "PropertyValueNotInList", target, "TargetSettingsURI")
	}
	if len(s.sys.pending) == 0 && !s.sys.resetBiosPending {
		return nil, rfErr(http.StatusBadRequest, "PropertyValueResourceConflict", "TargetSettingsURI", target, s.sys.settingsPath).
			withSummary("no pending BIOS attributes to apply")
	}
	t := s.dellJob()
	return &reply{status: http.StatusOK, headers: map[string]string{"Location": t.jobPath}}, nil
}

// deleteDellJob cancels a scheduled BIOS job, which also drops the pending
// values it carried; a running or finished job cannot be deleted.
func deleteDellJob(s *Service, r *request) (*reply, error) {
	sys := s.sys
	id := r.params[0]
	t, found := s.tasks[id]
	if !found || t.jobPath == "" {
		return nil, notFound(r.path)
	}
	if t.state != TaskPending {
		return nil, rfErr(http.StatusBadRequest, "ResourceInUse").withSummary("job %s is %s and cannot be deleted", id, t.state)
	}
	delete(s.tasks, id)
	s.remove(t.jobPath)
	s.removeMember(sys.jobsPath, t.jobPath)
	s.remove(tasksPath + "/" + id)
	s.removeMember(tasksPath, tasksPath+"/"+id)
	if sys.biosJob == t {
		sys.biosJob = nil
		sys.pending = map[string]any{}
		sys.resetBiosPending = false
		s.renderBios()
	}
	if sys.fw.biosJob == t { // a scheduled BIOS update: the staged package goes
		sys.fw.biosJob, sys.fw.pendingBIOS = nil, ""
		s.renderFirmware()
	}
	return ok(http.StatusOK, obj{"@Message.ExtendedInfo": []any{message("Success")}})
}

func postResetBios(s *Service, _ *request) (*reply, error) {
	s.sys.resetBiosPending = true
	s.renderBios()
	return &reply{status: http.StatusNoContent}, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
