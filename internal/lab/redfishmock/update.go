package redfishmock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"sort"
	"strings"
)

const (
	updateServicePath = "/redfish/v1/UpdateService"
	inventoryPath     = updateServicePath + "/FirmwareInventory"
	simpleUpdatePath  = updateServicePath + "/Actions/UpdateService.SimpleUpdate"
	multipartPushPath = updateServicePath + "/MultipartUpload" // iDRAC 9's
)

// Firmware components the mock models on every server.
const (
	ComponentBIOS = "BIOS"
	ComponentBMC  = "BMC"
)

// transferProtocols are the SimpleUpdate protocols the mock accepts (the
// set iDRAC 9 publishes).
var transferProtocols = []string{"HTTP", "HTTPS", "NFS", "CIFS", "TFTP"}

// Image is a firmware package as the BMC sees it once downloaded: which
// component it is for, the version inside and the system models it fits.
// The mock never fetches anything: images are registered by URI (and, for
// multipart pushes, by the SHA-256 of their bytes).
type Image struct {
	URI       string   `json:"uri"`
	Component string   `json:"component"` // ComponentBIOS or ComponentBMC
	Version   string   `json:"version"`
	Models    []string `json:"models"`
	SHA256    string   `json:"sha256,omitempty"` // hex, of the bytes a multipart push carries
}

func (img Image) validate() error {
	switch {
	case img.URI == "" && img.SHA256 == "":
		return fmt.Errorf("%w: image needs a uri or a sha256", ErrBadFault)
	case img.Component != ComponentBIOS && img.Component != ComponentBMC:
		return fmt.Errorf("%w: image component %q is not %s or %s", ErrBadFault, img.Component, ComponentBIOS, ComponentBMC)
	case img.Version == "":
		return fmt.Errorf("%w: image %s has no version", ErrBadFault, img.URI)
	case len(img.Models) == 0:
		return fmt.Errorf("%w: image %s names no system model", ErrBadFault, img.URI)
	}
	return nil
}

// firmware is the firmware state of a server.
type firmware struct {
	bmc            string
	previousBIOS   string // Dell keeps the version it replaced as Previous-
	previousBMC    string
	pendingBIOS    string // staged, runs after the next host reset
	biosJob        *task  // iDRAC: the update job, Scheduled until that reset
	failNextUpdate bool   // fault: the next update task ends in Exception
}

// RegisterImage adds an image to the catalogue of a server's BMC. The
// catalogue survives Reset: it stands for the file server, not the BMC.
func (s *Service) RegisterImage(img Image) error {
	if err := img.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sys == nil {
		return fmt.Errorf("%w: %s is not a server", ErrBadFault, s.spec.Name)
	}
	if s.images == nil {
		s.images = map[string]Image{}
	}
	img.SHA256 = strings.ToLower(img.SHA256)
	s.images[img.URI+"#"+img.SHA256] = img
	return nil
}

// Images lists the catalogue, by URI.
func (s *Service) Images() []Image {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Image, 0, len(s.images))
	for _, img := range s.images {
		out = append(out, img)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI+out[i].SHA256 < out[j].URI+out[j].SHA256 })
	return out
}

// RegisterImage adds an image to every server of the design.
func (d *Design) RegisterImage(img Image) error {
	for _, s := range d.services {
		if s.spec.Kind == KindServer {
			if err := s.RegisterImage(img); err != nil {
				return err
			}
		}
	}
	return nil
}

// FailNextUpdate makes the next firmware update task end in Exception
// after its transfer (the flash fails), leaving the running version alone.
func (s *Service) FailNextUpdate(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sys == nil {
		return fmt.Errorf("%w: %s is not a server", ErrBadFault, s.spec.Name)
	}
	s.sys.fw.failNextUpdate = on
	return nil
}

// Firmware returns the running BIOS and BMC versions and the BIOS version
// staged for the next reset ("" when none), for tests.
func (s *Service) Firmware() (bios, bmc, pendingBIOS string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if s.sys == nil {
		return "", "", ""
	}
	return s.sys.spec.BIOSVersion, s.sys.fw.bmc, s.sys.fw.pendingBIOS
}

func (s *Service) lookupImage(uri, sum string) (Image, bool) {
	for _, img := range s.images {
		if (uri != "" && img.URI == uri) || (sum != "" && img.SHA256 == sum) {
			return img, true
		}
	}
	return Image{}, false
}

// multipartOffered: iDRAC 9 takes multipart pushes; the generic and HPE
// personalities here offer SimpleUpdate only.
func (s *Service) multipartOffered() bool { return s.spec.Personality == PersonalityDell }

func (s *Service) seedUpdateService(bmcVersion string) {
	s.sys.fw = firmware{bmc: bmcVersion}
	us := obj{
		"@odata.id":         updateServicePath,
		"@odata.type":       "#UpdateService.v1_17_0.UpdateService",
		"Id":                "UpdateService",
		"Name":              "Update Service",
		"ServiceEnabled":    true,
		"Status":            obj{"State": "Enabled", "Health": "OK"},
		"FirmwareInventory": ref(inventoryPath),
		"Actions": obj{"#UpdateService.SimpleUpdate": obj{
			"target": simpleUpdatePath, "TransferProtocol@Redfish.AllowableValues": transferProtocols,
		}},
	}
	if s.multipartOffered() {
		us["MultipartHttpPushUri"] = multipartPushPath
		s.handle(http.MethodPost, multipartPushPath, postMultipartUpdate)
	}
	s.put(updateServicePath, us)
	s.collection(inventoryPath, "#SoftwareInventoryCollection.SoftwareInventoryCollection", "Firmware Inventory Collection")
	s.handle(http.MethodPost, simpleUpdatePath, postSimpleUpdate)
	root := shallowCopy(s.get("/redfish/v1"))
	root["UpdateService"] = ref(updateServicePath)
	s.put("/redfish/v1", root)
	s.renderFirmware()
}

// inventoryEntry is one SoftwareInventory member to publish.
type inventoryEntry struct {
	id, name, version, softwareID string
	related                       string
}

// firmwareEntries lists the inventory as the personality names it: iDRAC
// puts the version in the id (Installed-, Previous- and, for a staged
// package, Available-), others keep one entry per component whose version
// changes only once the new firmware runs.
func (s *Service) firmwareEntries() []inventoryEntry {
	sys := s.sys
	fw := sys.fw
	bios, bmc := sys.spec.BIOSVersion, fw.bmc
	switch s.spec.Personality {
	case PersonalityDell:
		dell := func(state, version, swID, fqdd, name string) inventoryEntry {
			return inventoryEntry{id: fmt.Sprintf("%s-%s-%s__%s", state, swID, version, fqdd), name: name, version: version, softwareID: swID}
		}
		out := []inventoryEntry{dell("Installed", bios, "159", "BIOS.Setup.1-1", "BIOS"),
			dell("Installed", bmc, "25227", "iDRAC.Embedded.1-1", "Integrated Dell Remote Access Controller")}
		if fw.pendingBIOS != "" {
			out = append(out, dell("Available", fw.pendingBIOS, "159", "BIOS.Setup.1-1", "BIOS"))
		}
		if fw.previousBIOS != "" {
			out = append(out, dell("Previous", fw.previousBIOS, "159", "BIOS.Setup.1-1", "BIOS"))
		}
		if fw.previousBMC != "" {
			out = append(out, dell("Previous", fw.previousBMC, "25227", "iDRAC.Embedded.1-1", "Integrated Dell Remote Access Controller"))
		}
		return out
	case PersonalityHPE:
		return []inventoryEntry{{id: "1", name: "iLO 5", version: bmc, softwareID: "iLO5", related: sys.mgrPath},
			{id: "2", name: "System ROM", version: bios, softwareID: "SystemROM", related: sys.sysPath}}
	default:
		return []inventoryEntry{{id: ComponentBIOS, name: "BIOS", version: bios, softwareID: "BIOS-" + s.spec.Model, related: sys.sysPath},
			{id: ComponentBMC, name: "BMC Firmware", version: bmc, softwareID: "BMC-" + s.spec.Model, related: sys.mgrPath}}
	}
}

// renderFirmware publishes the inventory and the versions other documents
// show (the manager's FirmwareVersion, the system's BiosVersion).
func (s *Service) renderFirmware() {
	for _, m := range memberPaths(s.get(inventoryPath)) {
		s.remove(m)
	}
	var members []string
	for _, e := range s.firmwareEntries() {
		p := inventoryPath + "/" + e.id
		doc := obj{
			"@odata.id": p, "@odata.type": "#SoftwareInventory.v1_13_0.SoftwareInventory", "Id": e.id, "Name": e.name,
			"Version": e.version, "SoftwareId": e.softwareID, "Updateable": !strings.HasPrefix(e.id, "Previous-"),
			"Status": obj{"State": "Enabled", "Health": "OK"},
		}
		if e.related != "" {
			doc["RelatedItem"] = refs(e.related)
		}
		s.put(p, doc)
		members = append(members, p)
	}
	s.setMembers(inventoryPath, members)
	if mgr := s.get(s.sys.mgrPath); mgr != nil && mgr["FirmwareVersion"] != s.managerFirmware(s.sys.fw.bmc) {
		m := shallowCopy(mgr)
		m["FirmwareVersion"] = s.managerFirmware(s.sys.fw.bmc)
		s.put(s.sys.mgrPath, m)
	}
}

// componentOf says which component an inventory URI (or the system or
// manager it relates to) stands for.
func (s *Service) componentOf(uri string) string {
	uri = norm(uri)
	switch {
	case uri == norm(s.sys.sysPath) || uri == norm(s.sys.biosPath):
		return ComponentBIOS
	case uri == norm(s.sys.mgrPath):
		return ComponentBMC
	}
	for _, e := range s.firmwareEntries() {
		if uri == inventoryPath+"/"+e.id {
			if e.softwareID == "159" || e.name == "BIOS" || e.name == "System ROM" {
				return ComponentBIOS
			}
			return ComponentBMC
		}
	}
	return ""
}

func postSimpleUpdate(s *Service, r *request) (*reply, error) {
	const action = "UpdateService.SimpleUpdate"
	var errs errorList
	for _, k := range sortedKeys(r.body) {
		switch k {
		case "ImageURI", "TransferProtocol", "Targets", "Username", "Password", "ForceUpdate", "@Redfish.OperationApplyTime":
		default:
			errs.add(http.StatusBadRequest, "ActionParameterUnknown", action, k)
		}
	}
	uri, isStr := r.body["ImageURI"].(string)
	if _, present := r.body["ImageURI"]; !present {
		errs.add(http.StatusBadRequest, "ActionParameterMissing", action, "ImageURI")
	} else if !isStr || uri == "" {
		errs.add(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(r.body["ImageURI"]), "ImageURI", action)
	}
	if v, present := r.body["TransferProtocol"]; present {
		if p, _ := v.(string); !slices.Contains(transferProtocols, p) {
			errs.add(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(v), "TransferProtocol", action)
		}
	} else if scheme, _, found := strings.Cut(uri, "://"); found && !slices.Contains(transferProtocols, strings.ToUpper(scheme)) {
		errs.add(http.StatusBadRequest, "ActionParameterValueNotInList", scheme, "ImageURI", action)
	}
	targets := s.updateTargets(&errs, r.body["Targets"], action)
	if err := errs.err(); err != nil {
		return nil, err
	}
	img, known := s.lookupImage(uri, "")
	return accepted(s, s.startUpdate(uri, img, known, targets)), nil
}

// updateTargets checks Targets: each must name an inventory member, the
// system or the manager.
func (s *Service) updateTargets(errs *errorList, v any, action string) []string {
	if v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		errs.add(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(v), "Targets", action)
		return nil
	}
	var out []string
	for _, t := range list {
		uri, _ := t.(string)
		c := s.componentOf(uri)
		if c == "" {
			errs.add(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(t), "Targets", action)
			continue
		}
		out = append(out, c)
	}
	return out
}

// postMultipartUpdate takes a multipart/form-data push: an UpdateParameters
// part (JSON, with Targets) and an UpdateFile part (the image).
func postMultipartUpdate(s *Service, r *request) (*reply, error) {
	const action = "MultipartHttpPushUri"
	mt, params, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, rfErr(http.StatusUnsupportedMediaType, "GeneralError").withSummary("a multipart/form-data body is required")
	}
	mr := multipart.NewReader(bytes.NewReader(r.raw), params["boundary"])
	var upd map[string]any
	var file []byte
	var name string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, rfErr(http.StatusBadRequest, "GeneralError").withSummary("multipart body: %v", err)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, rfErr(http.StatusBadRequest, "GeneralError").withSummary("multipart body: %v", err)
		}
		switch part.FormName() {
		case "UpdateParameters":
			if err := json.Unmarshal(data, &upd); err != nil {
				return nil, rfErr(http.StatusBadRequest, "MalformedJSON")
			}
		case "UpdateFile":
			file, name = data, part.FileName()
		}
	}
	if file == nil {
		return nil, rfErr(http.StatusBadRequest, "ActionParameterMissing", action, "UpdateFile")
	}
	var errs errorList
	targets := s.updateTargets(&errs, upd["Targets"], action)
	if err := errs.err(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(file)
	img, known := s.lookupImage("", hex.EncodeToString(sum[:]))
	return accepted(s, s.startUpdate(name, img, known, targets)), nil
}

// updateMessage is a DMTF Update registry message.
func updateMessage(id, severity, text string, args ...string) obj {
	for i := len(args); i >= 1; i-- {
		text = strings.ReplaceAll(text, fmt.Sprintf("%%%d", i), args[i-1])
	}
	return obj{"@odata.type": "#Message.v1_3_0.Message", "MessageId": "Update.1.1." + id, "Message": text,
		"MessageArgs": args, "MessageSeverity": severity, "Resolution": "None."}
}

// startUpdate runs an update as a BMC does: the transfer and check take
// PowerDelay, the flash another; a BMC image then runs at once, a BIOS image
// is staged for the host's next reset. iDRAC runs it as a job that stays
// Scheduled until that reset; the others complete the task saying so.
func (s *Service) startUpdate(label string, img Image, known bool, targets []string) *task {
	var t *task
	if s.spec.Personality == PersonalityDell {
		t = s.newDellJob("Firmware Update: "+label, "FirmwareUpdate", TaskRunning)
	} else {
		t = s.newTask("", "Firmware update "+label, TaskRunning)
	}
	fail := func(m obj) { s.setTask(t, TaskException, 100, m) }
	s.after(s.opts.PowerDelay, func() {
		switch {
		case !known:
			fail(updateMessage("TransferFailed", "Critical", "Transfer of image '%1' to '%2' failed.", label, s.spec.Name))
			return
		case !slices.Contains(img.Models, s.spec.Model):
			fail(updateMessage("VerificationFailed", "Critical", "Verification of image '%1' at '%2' failed.", label,
				fmt.Sprintf("%s (%s; the image is for %s)", s.spec.Name, s.spec.Model, strings.Join(img.Models, ", "))))
			return
		case len(targets) > 0 && !slices.Contains(targets, img.Component):
			fail(updateMessage("VerificationFailed", "Critical", "Verification of image '%1' at '%2' failed.", label,
				fmt.Sprintf("%s (a %s image, targets %s)", s.spec.Name, img.Component, strings.Join(targets, ", "))))
			return
		}
		s.setTask(t, TaskRunning, 50, updateMessage("TransferringToComponent", "OK", "Image '%1' is being transferred to '%2'.", label, img.Component))
		s.after(s.opts.PowerDelay, func() {
			fw := &s.sys.fw
			if fw.failNextUpdate {
				fw.failNextUpdate = false
				fail(updateMessage("ApplyFailed", "Critical", "Installation of image '%1' to '%2' failed.", label, img.Component))
				return
			}
			if img.Component == ComponentBMC {
				fw.previousBMC, fw.bmc = fw.bmc, img.Version
				s.renderFirmware()
				s.setTask(t, TaskCompleted, 100, updateMessage("UpdateSuccessful", "OK", "Device '%1' successfully updated with image '%2'.", img.Component, label))
				return
			}
			fw.pendingBIOS = img.Version
			s.renderFirmware()
			awaiting := updateMessage("AwaitToActivate", "OK", "Awaiting for an action to proceed with activating image '%1' on '%2'.", label, img.Component)
			if t.jobPath != "" {
				fw.biosJob = t
				s.setTask(t, TaskPending, 50, awaiting)
				return
			}
			s.setTask(t, TaskCompleted, 100, awaiting)
		})
	})
	return t
}

// activateBIOS runs at boot: a staged BIOS image becomes the running one.
func (s *Service) activateBIOS() {
	fw := &s.sys.fw
	if fw.pendingBIOS == "" {
		return
	}
	fw.previousBIOS, s.sys.spec.BIOSVersion = s.sys.spec.BIOSVersion, fw.pendingBIOS
	fw.pendingBIOS = ""
	if fw.biosJob != nil {
		s.setTask(fw.biosJob, TaskCompleted, 100, updateMessage("UpdateSuccessful", "OK", "Device '%1' successfully updated with image '%2'.", ComponentBIOS, fw.biosJob.name))
		fw.biosJob = nil
	}
	s.renderFirmware()
}
