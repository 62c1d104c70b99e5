package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/firmware"
)

const updateServicePath = "/redfish/v1/UpdateService"

// UpdateService is what the client uses of a BMC's UpdateService.
type UpdateService struct {
	InventoryURI    string
	SimpleUpdateURI string   // "" when the action is not offered
	Protocols       []string // TransferProtocol values the BMC lists (none: it did not say)
	MultipartURI    string   // MultipartHttpPushUri, "" when not offered
}

// GetUpdateService reads the UpdateService the service root links (one
// GET each); a BMC without one fails with ErrNotSupported.
func (e *Endpoint) GetUpdateService(ctx context.Context) (*UpdateService, error) {
	var root struct {
		UpdateService schemasLink `json:"UpdateService"`
	}
	if _, err := e.Get(ctx, "/redfish/v1", &root); err != nil {
		return nil, err
	}
	if root.UpdateService.ID == "" {
		return nil, fmt.Errorf("%w: %s publishes no UpdateService", ErrNotSupported, e.cfg.Name)
	}
	var doc struct {
		FirmwareInventory    schemasLink `json:"FirmwareInventory"`
		MultipartHTTPPushURI string      `json:"MultipartHttpPushUri"`
		Actions              struct {
			SimpleUpdate struct {
				Target    string   `json:"target"`
				Protocols []string `json:"TransferProtocol@Redfish.AllowableValues"`
			} `json:"#UpdateService.SimpleUpdate"`
		} `json:"Actions"`
	}
	if _, err := e.Get(ctx, root.UpdateService.ID, &doc); err != nil {
		return nil, err
	}
	us := &UpdateService{InventoryURI: doc.FirmwareInventory.ID, SimpleUpdateURI: doc.Actions.SimpleUpdate.Target,
		Protocols: doc.Actions.SimpleUpdate.Protocols, MultipartURI: doc.MultipartHTTPPushURI}
	if us.InventoryURI == "" {
		return nil, fmt.Errorf("%w: the UpdateService of %s has no FirmwareInventory", ErrNotSupported, e.cfg.Name)
	}
	return us, nil
}

// inventoryDoc is the part of a SoftwareInventory the client reads.
type inventoryDoc struct {
	ODataID     string        `json:"@odata.id"`
	ID          string        `json:"Id"`
	Name        string        `json:"Name"`
	Version     string        `json:"Version"`
	SoftwareID  string        `json:"SoftwareId"`
	Updateable  bool          `json:"Updateable"`
	RelatedItem []schemasLink `json:"RelatedItem"`
}

// FirmwareInventory lists the firmware that runs on the BMC's server: one
// component per device. iDRAC's Previous- entries (the version replaced)
// and Current- twins of Installed- ones are left out; its Available-
// entries (a package staged for the next reset) become the Pending version
// of their component. With systemURI set, entries that relate only to
// other systems of a multi-node BMC are left out too. It costs the
// UpdateService reads and one $expand of the inventory (or one GET per
// member where $expand is not offered).
func (e *Endpoint) FirmwareInventory(ctx context.Context, systemURI string) ([]firmware.Component, error) {
	us, err := e.GetUpdateService(ctx)
	if err != nil {
		return nil, err
	}
	return e.inventory(ctx, us, systemURI)
}

func (e *Endpoint) inventory(ctx context.Context, us *UpdateService, systemURI string) ([]firmware.Component, error) {
	items, err := e.expandMembers(ctx, us.InventoryURI, "Members")
	if err != nil {
		return nil, fmt.Errorf("reading the firmware inventory of %s: %w", e.cfg.Name, err)
	}
	var docs []inventoryDoc
	installed := map[string]bool{}
	for _, raw := range items {
		var d inventoryDoc
		if _, err := decodeLenient(raw, &d); err != nil {
			return nil, fmt.Errorf("%w: firmware inventory of %s: %v", ErrServer, e.cfg.Name, err)
		}
		d.ID = cmpOr(d.ID, lastSegment(d.ODataID))
		if otherSystem(d.RelatedItem, systemURI) {
			continue
		}
		docs = append(docs, d)
		if strings.HasPrefix(d.ID, "Installed-") {
			installed[firmware.FQDD(d.ID)] = true
		}
	}
	pending := map[string]string{}
	var out []firmware.Component
	for _, d := range docs {
		fqdd := firmware.FQDD(d.ID)
		switch {
		case strings.HasPrefix(d.ID, "Previous-"), strings.HasPrefix(d.ID, "Current-") && installed[fqdd]:
			continue
		case strings.HasPrefix(d.ID, "Available-"):
			pending[fqdd] = d.Version
			continue
		}
		related := make([]string, len(d.RelatedItem))
		for i, r := range d.RelatedItem {
			related[i] = r.ID
		}
		out = append(out, firmware.Component{ID: d.ID, URI: d.ODataID, Name: d.Name, Version: d.Version, SoftwareID: d.SoftwareID,
			Updateable: d.Updateable, Kind: kindOf(d.ID, d.Name, related)})
	}
	for i, c := range out {
		if f := firmware.FQDD(c.ID); f != "" {
			out[i].Pending = pending[f]
		}
	}
	return out, nil
}

// otherSystem: the entry relates to systems only, none of them systemURI.
func otherSystem(related []schemasLink, systemURI string) bool {
	if systemURI == "" || len(related) == 0 {
		return false
	}
	for _, r := range related {
		if !strings.Contains(r.ID, "/Systems/") || strings.HasPrefix(r.ID, strings.TrimSuffix(systemURI, "/")) {
			return false
		}
	}
	return true
}

// kindOf names the BIOS and the BMC on every vendor: by Dell FQDD, by the
// resource the entry relates to, then by its name (HPE's "System ROM",
// Lenovo's "XCC").
func kindOf(id, name string, related []string) string {
	fqdd := strings.ToLower(firmware.FQDD(id))
	switch {
	case strings.HasPrefix(fqdd, "bios."):
		return firmware.KindBIOS
	case strings.HasPrefix(fqdd, "idrac."):
		return firmware.KindBMC
	case fqdd != "":
		return ""
	}
	for _, r := range related {
		if strings.Contains(r, "/Managers/") {
			return firmware.KindBMC
		}
	}
	n := strings.ToLower(id + " " + name)
	switch {
	case strings.Contains(n, "bios") || strings.Contains(n, "system rom") || strings.Contains(n, "uefi"):
		return firmware.KindBIOS
	case slices.ContainsFunc([]string{"bmc", "idrac", "ilo ", "xcc", "imm2"}, func(w string) bool { return strings.Contains(n+" ", w) }):
		return firmware.KindBMC
	}
	return ""
}

// FirmwareUpdate asks for one component to run one version.
type FirmwareUpdate struct {
	// Component is what firmware.Component.Matches takes: "BIOS", "BMC",
	// an inventory id, name, software id or Dell FQDD.
	Component string
	// Version is the version the image carries, compared with the running
	// one (firmware.Compare) to decide whether anything is to be done.
	Version string
	// ImageURI is the image the BMC fetches (SimpleUpdate).
	ImageURI string
	// TransferProtocol, when set, is sent as is; else it is taken from the
	// URI's scheme when the BMC lists protocols.
	TransferProtocol string
	// Image, when set and the BMC offers MultipartHttpPushUri, is pushed
	// there instead (ImageURI then only names the file).
	Image []byte
	// Models, when set, are the system models the image fits; another
	// model is refused before anything is sent.
	Models []string
}

// FirmwareResult says what UpdateFirmware did.
type FirmwareResult struct {
	Before firmware.Component
	After  firmware.Component // as read once the task ended (Before when nothing was sent)
	// Sent: an update was sent (false when the version already ran or was
	// already staged).
	Sent bool
	Task string // the task the BMC ran it as, if any
	// ResetRequired: the new version is staged and runs only after the
	// system's next reset, which the caller must do (BIOS and most device
	// firmware). False when it already runs (BMC firmware, which the BMC
	// activates itself) or nothing was staged.
	ResetRequired bool
}

// UpdateFirmware makes u.Component run u.Version. It is idempotent: a
// component already at the version is success with no update request, and
// so is one whose version the BMC shows staged (ResetRequired is then
// true). Otherwise it pushes u.Image to the MultipartHttpPushUri when both
// exist, else sends SimpleUpdate with u.ImageURI, targeting the component's
// inventory entry, and follows the task with w until it ends (or, on
// iDRAC, until its job is Scheduled: a staged BIOS job ends only after the
// reset); a task that ends in Exception is an error naming the component,
// both versions and the task's messages. It never resets the system: when
// ResetRequired is true the caller resets the host (after taking it out of
// service) and reads FirmwareInventory to see the new version run. BMC firmware is waited for
// until the inventory shows it (the BMC restarts on its own meanwhile).
// sys (may be nil) supplies the model for u.Models and the system whose
// inventory counts on a multi-node BMC.
func (e *Endpoint) UpdateFirmware(ctx context.Context, sys *System, u FirmwareUpdate, w Waiter) (*FirmwareResult, error) {
	var res FirmwareResult
	if u.Version == "" || (u.ImageURI == "" && len(u.Image) == 0) {
		return nil, fmt.Errorf("%w: firmware update of %q on %s needs a version and an image", ErrInvalid, u.Component, e.cfg.Name)
	}
	sysURI := ""
	if sys != nil {
		sysURI = sys.URI
		if err := firmware.CheckImageModel(firmware.Image{URI: u.ImageURI, Component: u.Component, Version: u.Version, Models: u.Models}, sys.Model); err != nil {
			return nil, fmt.Errorf("%s: %w", e.cfg.Name, err)
		}
	}
	us, err := e.GetUpdateService(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := e.inventory(ctx, us, sysURI)
	if err != nil {
		return nil, err
	}
	c, err := firmware.Find(inv, u.Component)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.cfg.Name, err)
	}
	res.Before, res.After = c, c
	switch {
	case firmware.Compare(c.Version, u.Version) == 0:
		return &res, nil
	case c.Pending != "" && firmware.Compare(c.Pending, u.Version) == 0:
		res.ResetRequired = true
		return &res, nil
	case !c.Updateable:
		return nil, fmt.Errorf("%w: %s of %s (%s) is not updateable through Redfish", ErrNotSupported, c.Name, e.cfg.Name, c.Version)
	}
	what := fmt.Sprintf("updating %s of %s from %s to %s", c.Name, e.cfg.Name, c.Version, u.Version)
	if res.Task, err = e.sendUpdate(ctx, us, c, u); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res.Sent = true
	if res.Task != "" {
		// iDRAC keeps a BIOS update's job Scheduled until the host resets.
		if _, err := e.waitTask(ctx, res.Task, w, true); err != nil {
			return &res, fmt.Errorf("%s: %w", what, err)
		}
	}
	key := stableName(c)
	check := func() (bool, string, error) {
		inv, err := e.inventory(ctx, us, sysURI)
		if err != nil {
			return false, "", err
		}
		if res.After, err = firmware.Find(inv, key); err != nil {
			return false, "", err
		}
		return firmware.Compare(res.After.Version, u.Version) == 0, res.After.Version, nil
	}
	done, _, err := check()
	switch {
	case err != nil:
		return &res, fmt.Errorf("%s: reading it back: %w", what, err)
	case done:
	case c.Kind == firmware.KindBMC:
		// The BMC activates its own firmware, restarting meanwhile.
		if err := w.Until(ctx, "BMC firmware "+u.Version+" on "+e.cfg.Name, check); err != nil {
			return &res, fmt.Errorf("%s: %w: the task ended but the BMC still runs %s: %w", what, ErrPending, res.After.Version, err)
		}
	default:
		res.ResetRequired = true
	}
	return &res, nil
}

// stableName designates c across an update: iDRAC ids carry the version.
func stableName(c firmware.Component) string {
	if f := firmware.FQDD(c.ID); f != "" {
		return f
	}
	return c.ID
}

// sendUpdate starts the update and returns its task (or "" when the BMC
// answered without one).
func (e *Endpoint) sendUpdate(ctx context.Context, us *UpdateService, c firmware.Component, u FirmwareUpdate) (string, error) {
	if len(u.Image) > 0 && us.MultipartURI != "" {
		return e.pushImage(ctx, us.MultipartURI, c, u)
	}
	if u.ImageURI == "" {
		return "", fmt.Errorf("%w: %s offers no MultipartHttpPushUri; give an image URI", ErrNotSupported, e.cfg.Name)
	}
	if us.SimpleUpdateURI == "" {
		return "", fmt.Errorf("%w: %s offers no UpdateService.SimpleUpdate", ErrNotSupported, e.cfg.Name)
	}
	body := map[string]any{"ImageURI": u.ImageURI, "Targets": []string{c.URI}}
	if p := u.TransferProtocol; p != "" {
		body["TransferProtocol"] = p
	} else if scheme, _, ok := strings.Cut(u.ImageURI, "://"); ok && slices.Contains(us.Protocols, strings.ToUpper(scheme)) {
		body["TransferProtocol"] = strings.ToUpper(scheme)
	}
	resp, err := e.Post(ctx, us.SimpleUpdateURI, body)
	var he *HTTPError
	if asHTTP(err, &he) && he.Status == 400 && slices.ContainsFunc(he.Messages, func(m string) bool {
		return strings.Contains(m, "ActionParameterUnknown") && strings.Contains(m, "Targets")
	}) {
		// Some BMCs take no Targets (the image names its device); a 400
		// means nothing was started, so sending it again is safe.
		delete(body, "Targets")
		resp, err = e.Post(ctx, us.SimpleUpdateURI, body)
	}
	if err != nil {
		return "", err
	}
	return sessionLocation(resp), nil
}

// pushImage sends the image as multipart/form-data: UpdateParameters (JSON)
// and UpdateFile, as the Redfish specification lays the push out.
func (e *Endpoint) pushImage(ctx context.Context, uri string, c firmware.Component, u FirmwareUpdate) (string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	params, _ := json.Marshal(map[string]any{"Targets": []string{c.URI}, "@Redfish.OperationApplyTime": "Immediate"})
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="UpdateParameters"`)
	h.Set("Content-Type", "application/json")
	pw, err := mw.CreatePart(h)
	if err == nil {
		_, err = pw.Write(params)
	}
	name := path.Base(cmpOr(u.ImageURI, "firmware.bin"))
	var fw interface{ Write([]byte) (int, error) }
	if err == nil {
		fw, err = mw.CreateFormFile("UpdateFile", name)
	}
	if err == nil {
		_, err = fw.Write(u.Image)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return "", fmt.Errorf("%w: building the multipart body: %v", ErrInvalid, err)
	}
	resp, err := e.Do(ctx, "POST", uri, rawBody(buf.Bytes()), map[string]string{"Content-Type": mw.FormDataContentType()})
	if err != nil {
		return "", err
	}
	return sessionLocation(resp), nil
}

// RestartForFirmware resets the system so its staged firmware runs, then
// waits with w until the inventory shows every component of want
// (component -> version) at its version and the system is On again.
func (e *Endpoint) RestartForFirmware(ctx context.Context, sys *System, want map[string]string, w Waiter) error {
	s, err := e.GetSystem(ctx, sys.ID)
	if err != nil {
		return err
	}
	if err := e.boot(ctx, s); err != nil {
		return fmt.Errorf("rebooting to run the staged firmware: %w", err)
	}
	return e.WaitFirmware(ctx, sys, want, w)
}

// WaitFirmware waits until every component of want runs its version and
// the system is On.
func (e *Endpoint) WaitFirmware(ctx context.Context, sys *System, want map[string]string, w Waiter) error {
	return w.Until(ctx, "staged firmware to run on "+e.cfg.Name, func() (bool, string, error) {
		inv, err := e.FirmwareInventory(ctx, sys.URI)
		if err != nil {
			return false, "", err
		}
		var missing []string
		for name, v := range want {
			c, err := firmware.Find(inv, name)
			if err != nil {
				return false, "", err
			}
			if firmware.Compare(c.Version, v) != 0 {
				missing = append(missing, fmt.Sprintf("%s %s (runs %s)", name, v, c.Version))
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return false, "not yet: " + strings.Join(missing, ", "), nil
		}
		s, err := e.GetSystem(ctx, sys.ID)
		if err != nil {
			return false, "", err
		}
		return s.PowerState == "On", "power " + s.PowerState, nil
	})
}
