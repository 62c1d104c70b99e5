package redfish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

const systemsPath = "/redfish/v1/Systems"

// System is what the provider tracks of a ComputerSystem.
type System struct {
	ID           string
	URI          string
	ETag         string
	PowerState   string
	Manufacturer string
	Model        string
	SerialNumber string
	BiosVersion  string
	CPUCount     int64
	CoreCount    int64
	MemoryGiB    float64
	NUMADomains  int64 // 0 when the BMC does not publish it
	Boot         BootOverride
	BootTargets  []string // allowed BootSourceOverrideTarget values
	ResetTypes   []string
	ResetTarget  string
	BiosURI      string
	ManagerURI   string // first manager of the system, "" when not linked
	// ProcessorsURI is the Processors collection, read by ProcessorCounts.
	ProcessorsURI string
}

// BootOverride is the one-time or continuous boot source override.
type BootOverride struct {
	Target  string // None, Pxe, Hdd, Cd, BiosSetup, UefiHttp ...
	Enabled string // Disabled, Once, Continuous
	Mode    string // UEFI, Legacy ("" when not published)
}

// systemFields are the ComputerSystem members the provider reports.
type systemFields struct {
	PowerState   string `json:"PowerState"`
	Manufacturer string `json:"Manufacturer"`
	Model        string `json:"Model"`
	SerialNumber string `json:"SerialNumber"`
	BiosVersion  string `json:"BiosVersion"`
	Boot         struct {
		Target  string   `json:"BootSourceOverrideTarget"`
		Enabled string   `json:"BootSourceOverrideEnabled"`
		Mode    string   `json:"BootSourceOverrideMode"`
		Allowed []string `json:"BootSourceOverrideTarget@Redfish.AllowableValues"`
	} `json:"Boot"`
	ProcessorSummary struct {
		Count     int64 `json:"Count"`
		CoreCount int64 `json:"CoreCount"`
	} `json:"ProcessorSummary"`
	MemorySummary struct {
		TotalSystemMemoryGiB float64 `json:"TotalSystemMemoryGiB"`
	} `json:"MemorySummary"`
}

// systemDoc carries the links and the reset action of a ComputerSystem.
type systemDoc struct {
	Bios       schemasLink `json:"Bios"`
	Processors schemasLink `json:"Processors"`
	Actions    struct {
		Reset struct {
			Target  string   `json:"target"`
			Allowed []string `json:"ResetType@Redfish.AllowableValues"`
		} `json:"#ComputerSystem.Reset"`
	} `json:"Actions"`
	Links struct {
		ManagedBy []schemasLink `json:"ManagedBy"`
	} `json:"Links"`
	EthernetInterfaces schemasLink                `json:"EthernetInterfaces"`
	OEM                map[string]json.RawMessage `json:"Oem"`
}

type schemasLink struct {
	ID string `json:"@odata.id"`
}

// SystemURI is the URI of system id on an endpoint.
func SystemURI(id string) string { return systemsPath + "/" + id }

// FindSystem returns the id of the system: id itself when given (checked
// to exist), else the only system of the endpoint. It never guesses among
// several: a multi-node chassis needs an explicit id.
func (e *Endpoint) FindSystem(ctx context.Context, id string) (string, error) {
	if id != "" {
		return id, nil
	}
	ids, err := e.SystemIDs(ctx)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%w: %s has no computer system", ErrNotFound, e.cfg.Name)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w: %s has %d systems (%s); set system_id", ErrInvalid, e.cfg.Name, len(ids), strings.Join(ids, ", "))
}

// SystemIDs lists the ids of the endpoint's computer systems.
func (e *Endpoint) SystemIDs(ctx context.Context) ([]string, error) {
	var coll struct {
		Members []schemasLink `json:"Members"`
	}
	if _, err := e.Get(ctx, systemsPath, &coll); err != nil {
		return nil, err
	}
	ids := make([]string, len(coll.Members))
	for i, m := range coll.Members {
		ids[i] = path.Base(m.ID)
	}
	return ids, nil
}

// GetSystem reads one system (one GET).
func (e *Endpoint) GetSystem(ctx context.Context, id string) (*System, error) {
	uri := SystemURI(id)
	resp, err := e.Get(ctx, uri, nil)
	if err != nil {
		return nil, err
	}
	// Only the members used are decoded, leniently: a member of a newer
	// schema, or one of an odd type, never fails the read of the system.
	var cs systemFields
	if _, err := decodeLenient(resp.Body, &cs); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", uri, err)
	}
	var doc systemDoc
	_, _ = decodeLenient(resp.Body, &doc)
	s := &System{
		ID: id, URI: uri, ETag: resp.ETag(), PowerState: cs.PowerState,
		Manufacturer: cs.Manufacturer, Model: cs.Model, SerialNumber: cs.SerialNumber, BiosVersion: cs.BiosVersion,
		Boot:       BootOverride{Target: cs.Boot.Target, Enabled: cs.Boot.Enabled, Mode: cs.Boot.Mode},
		ResetTypes: doc.Actions.Reset.Allowed, ResetTarget: doc.Actions.Reset.Target, BiosURI: doc.Bios.ID,
		ProcessorsURI: doc.Processors.ID, BootTargets: cs.Boot.Allowed,
	}
	if len(doc.Links.ManagedBy) > 0 {
		s.ManagerURI = doc.Links.ManagedBy[0].ID
	}
	s.CPUCount, s.CoreCount = cs.ProcessorSummary.Count, cs.ProcessorSummary.CoreCount
	s.MemoryGiB = cs.MemorySummary.TotalSystemMemoryGiB
	// No standard property holds the NUMA domain count; take it from any
	// OEM section that publishes one.
	for _, raw := range doc.OEM {
		var o struct{ NumaNodes, NUMANodes, NumaDomains int64 }
		if json.Unmarshal(raw, &o) == nil {
			if n := max(o.NumaNodes, o.NUMANodes, o.NumaDomains); n > 0 {
				s.NUMADomains = n
			}
		}
	}
	if s.ResetTarget == "" {
		s.ResetTarget = uri + "/Actions/ComputerSystem.Reset"
	}
	return s, nil
}

// ProcessorCounts fills CPUCount and CoreCount from the Processors
// collection when ProcessorSummary leaves them out (many BMCs publish no
// CoreCount there): CPUs are the processors of type CPU (or untyped) that
// are not Absent, cores the sum of their TotalCores. It sends nothing when
// the summary had both.
func (e *Endpoint) ProcessorCounts(ctx context.Context, s *System) error {
	if (s.CPUCount > 0 && s.CoreCount > 0) || s.ProcessorsURI == "" {
		return nil
	}
	items, err := e.expandMembers(ctx, s.ProcessorsURI, "Members")
	if IsGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the processors of %s: %w", s.ID, err)
	}
	var cpus, cores int64
	for _, it := range items {
		var p struct {
			ProcessorType string `json:"ProcessorType"`
			TotalCores    int64  `json:"TotalCores"`
			Status        struct {
				State string `json:"State"`
			} `json:"Status"`
		}
		if _, err := decodeLenient(it, &p); err != nil {
			continue
		}
		if p.Status.State == "Absent" || (p.ProcessorType != "" && p.ProcessorType != "CPU") {
			continue
		}
		cpus++
		cores += p.TotalCores
	}
	if s.CPUCount == 0 {
		s.CPUCount = cpus
	}
	if s.CoreCount == 0 {
		s.CoreCount = cores
	}
	return nil
}

// NICMACs lists the MAC addresses of the system's Ethernet interfaces, in
// interface order (one GET per interface, or one with $expand).
func (e *Endpoint) NICMACs(ctx context.Context, id string) ([]string, error) {
	var coll struct {
		Members []json.RawMessage `json:"Members"`
	}
	uri := SystemURI(id) + "/EthernetInterfaces"
	if _, err := e.Get(ctx, uri+"?$expand=.($levels=1)", &coll); err != nil {
		var he *HTTPError
		if !IsGone(err) && (!asHTTP(err, &he) || he.Status != http.StatusBadRequest && he.Status != http.StatusNotImplemented) {
			return nil, err
		}
		if _, err := e.Get(ctx, uri, &coll); err != nil {
			if IsGone(err) {
				return nil, nil
			}
			return nil, err
		}
	}
	var macs []string
	for _, raw := range coll.Members {
		var m struct {
			ID   string `json:"@odata.id"`
			MAC  string `json:"MACAddress"`
			PMAC string `json:"PermanentMACAddress"`
		}
		_ = json.Unmarshal(raw, &m)
		if m.MAC == "" && m.PMAC == "" && m.ID != "" {
			if _, err := e.Get(ctx, m.ID, &m); err != nil {
				return nil, err
			}
		}
		if mac := strings.ToLower(cmpOr(m.PMAC, m.MAC)); mac != "" {
			macs = append(macs, mac)
		}
	}
	return macs, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// SetBootOverride PATCHes the boot override with the system's ETag.
func (e *Endpoint) SetBootOverride(ctx context.Context, s *System, b BootOverride) error {
	boot := map[string]string{"BootSourceOverrideTarget": b.Target, "BootSourceOverrideEnabled": b.Enabled}
	if b.Mode != "" {
		boot["BootSourceOverrideMode"] = b.Mode
	}
	_, err := e.Patch(ctx, s.URI, s.ETag, map[string]any{"Boot": boot})
	return err
}

// SetBootOverrideFresh is SetBootOverride that survives one concurrent
// change: on 412 it reads the system again and retries with the new ETag.
func (e *Endpoint) SetBootOverrideFresh(ctx context.Context, id string, b BootOverride) error {
	for attempt := 1; ; attempt++ {
		s, err := e.GetSystem(ctx, id)
		if err != nil {
			return err
		}
		if s.Boot.Target == b.Target && s.Boot.Enabled == b.Enabled && (b.Mode == "" || s.Boot.Mode == b.Mode) {
			return nil
		}
		err = e.SetBootOverride(ctx, s, b)
		if errors.Is(err, ErrPreconditionFailed) && attempt < 3 {
			continue
		}
		return err
	}
}

// Reset posts a ComputerSystem.Reset. A reset is not idempotent, so it is
// sent once; callers poll the power state to see its effect.
func (e *Endpoint) Reset(ctx context.Context, s *System, resetType string) error {
	if len(s.ResetTypes) > 0 && !slices.Contains(s.ResetTypes, resetType) {
		return fmt.Errorf("%w: %s does not offer reset %q (offers %s)", ErrNotSupported, e.cfg.Name, resetType, strings.Join(s.ResetTypes, ", "))
	}
	_, err := e.Post(ctx, s.ResetTarget, map[string]string{"ResetType": resetType})
	return err
}

// PickReset returns the first of the wanted reset types the system offers
// (all of them when it publishes none).
func PickReset(s *System, wanted ...string) string {
	for _, w := range wanted {
		if len(s.ResetTypes) == 0 || slices.Contains(s.ResetTypes, w) {
			return w
		}
	}
	return wanted[0]
}

// Waiter polls with an injected clock so tests run fast.
type Waiter struct {
	Interval time.Duration
	Timeout  time.Duration
	Sleep    func(ctx context.Context, d time.Duration) error
}

// maxBackoff bounds how far Until stretches its interval (times Interval).
const maxBackoff = 4

// Until calls check until it reports done, fails, or Timeout passes
// (ErrTimeout, with what check last said). It waits Interval at first and
// half as long again after each check that changed nothing, up to four
// times Interval: a reboot that takes minutes costs a few dozen polls, not
// hundreds, and a quick change is still seen quickly.
func (w Waiter) Until(ctx context.Context, what string, check func() (bool, string, error)) error {
	deadline := time.Now().Add(w.Timeout)
	sleep := w.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	d := w.Interval
	last := ""
	for {
		done, status, err := check()
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: waiting %s for %s (last: %s)", ErrTimeout, w.Timeout, what, status)
		}
		if status != last {
			d = w.Interval // something moved: look again soon
		}
		last = status
		if err := sleep(ctx, d); err != nil {
			return err
		}
		d = min(d+d/2, maxBackoff*w.Interval)
	}
}

// SetPower brings the system to On or Off and waits for it: a graceful
// shutdown first, forced off if the host ignores it for half the timeout.
func (e *Endpoint) SetPower(ctx context.Context, id, want string, w Waiter) error {
	s, err := e.GetSystem(ctx, id)
	if err != nil {
		return err
	}
	if strings.HasPrefix(s.PowerState, "Powering") {
		// A transition is under way (resets are refused meanwhile): let it end.
		err := w.Until(ctx, "the power transition on "+e.cfg.Name, func() (bool, string, error) {
			if s, err = e.GetSystem(ctx, id); err != nil {
				return false, "", err
			}
			return !strings.HasPrefix(s.PowerState, "Powering"), "power " + s.PowerState, nil
		})
		if err != nil {
			return err
		}
	}
	if s.PowerState == want {
		return nil
	}
	switch want {
	case "On":
		if err := e.Reset(ctx, s, PickReset(s, "On", "ForceOn", "PushPowerButton")); err != nil {
			return err
		}
	case "Off":
		if err := e.Reset(ctx, s, PickReset(s, "GracefulShutdown", "ForceOff")); err != nil {
			return err
		}
		half := w
		half.Timeout = w.Timeout / 2
		if err := e.waitPower(ctx, id, "Off", half); err == nil {
			return nil
		}
		if s, err = e.GetSystem(ctx, id); err != nil {
			return err
		}
		if s.PowerState != "Off" {
			if err := e.Reset(ctx, s, PickReset(s, "ForceOff")); err != nil && !isConflict(err) {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: power state %q", ErrInvalid, want)
	}
	return e.waitPower(ctx, id, want, w)
}

func isConflict(err error) bool {
	var he *HTTPError
	return asHTTP(err, &he) && he.Status == http.StatusConflict
}

func (e *Endpoint) waitPower(ctx context.Context, id, want string, w Waiter) error {
	return w.Until(ctx, "power "+want+" on "+e.cfg.Name, func() (bool, string, error) {
		s, err := e.GetSystem(ctx, id)
		if err != nil {
			return false, "", err
		}
		return s.PowerState == want, "power " + s.PowerState, nil
	})
}

// boot makes s go through POST: powered on when off, else restarted
// (gracefully where the BMC offers it). Settings and firmware staged for
// the next reset apply then.
func (e *Endpoint) boot(ctx context.Context, s *System) error {
	if s.PowerState == "Off" {
		return e.Reset(ctx, s, PickReset(s, "On", "ForceOn"))
	}
	return e.Reset(ctx, s, PickReset(s, "GracefulRestart", "ForceRestart", "PowerCycle"))
}

// Restart reboots the system (gracefully where the BMC offers it) and
// waits with w until it was seen leaving On and is On again.
func (e *Endpoint) Restart(ctx context.Context, id string, w Waiter) error {
	s, err := e.GetSystem(ctx, id)
	if err != nil {
		return err
	}
	if s.PowerState == "Off" {
		return e.SetPower(ctx, id, "On", w)
	}
	if err := e.boot(ctx, s); err != nil {
		return fmt.Errorf("restarting: %w", err)
	}
	left := false
	return w.Until(ctx, "restart of "+e.cfg.Name, func() (bool, string, error) {
		s, err := e.GetSystem(ctx, id)
		if err != nil {
			return false, "", err
		}
		left = left || s.PowerState != "On"
		return left && s.PowerState == "On", "power " + s.PowerState, nil
	})
}

// PowerOff cuts the system's power at once (ForceOff: a failure, not a
// shutdown) and waits with w until it is Off.
func (e *Endpoint) PowerOff(ctx context.Context, id string, w Waiter) error {
	s, err := e.GetSystem(ctx, id)
	if err != nil {
		return err
	}
	if s.PowerState != "Off" {
		if err := e.Reset(ctx, s, PickReset(s, "ForceOff", "PushPowerButton")); err != nil {
			return fmt.Errorf("powering off: %w", err)
		}
	}
	return w.Until(ctx, "power off of "+e.cfg.Name, func() (bool, string, error) {
		s, err := e.GetSystem(ctx, id)
		if err != nil {
			return false, "", err
		}
		return s.PowerState == "Off", "power " + s.PowerState, nil
	})
}
