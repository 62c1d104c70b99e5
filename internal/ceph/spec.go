// Package ceph renders what the provider asks of a cephadm-managed Ceph
// cluster (Pacific): service specs as `ceph orch apply -i` reads them, the
// device selection cephadm makes for an OSD spec (the same rules as Ceph's
// DriveSelection, so a plan can say which devices become OSDs), and the
// parsers of the JSON the ceph and rbd commands print, and the placement
// rules Ceph applies across a cluster (placement.go). Pure functions, but
// for the OSD spec's apply sequence (osdapply.go), which runs over a small
// Runner the provider implements with the agent.
package ceph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ErrInvalid is wrapped by every validation error; each is a located error
// (internal/located) whose path names the field at fault in the terms of
// the resource that renders it.
var ErrInvalid = errors.New("invalid Ceph setting")

// invalid is a validation error at p.
func invalid(p located.Path, format string, a ...any) error {
	return located.Errorf(p, "%w: "+format, append([]any{ErrInvalid}, a...)...)
}

// Service types this package renders.
const (
	TypeMon = "mon"
	TypeMgr = "mgr"
	TypeOSD = "osd"
)

// ServiceTypes are the service types a spec may have here.
var ServiceTypes = []string{TypeMon, TypeMgr, TypeOSD}

// Placement says where cephadm runs a service: hosts by name, or every host
// with a label; Count bounds the number of daemons.
type Placement struct {
	Hosts []string
	Label string
	Count int
}

// DeviceFilter is a cephadm device selection (`data_devices`,
// `db_devices`): every set filter must match (filter_logic AND).
type DeviceFilter struct {
	Rotational *bool
	// Model and Vendor match substrings of the device's model and vendor.
	Model  string
	Vendor string
	// Size is Ceph's size filter: `LOW:HIGH`, `:HIGH`, `LOW:` or an exact
	// size, with units KB/MB/GB/TB (or K/M/G/T), decimal.
	Size string
	// Limit caps the devices taken per host (0: no cap).
	Limit int
	All   bool
}

// ServiceSpec is one cephadm service spec (mon, mgr or osd).
type ServiceSpec struct {
	ServiceType string
	// ServiceID names an OSD spec (required here: cephadm names OSDs'
	// service osd.<id>, and specs without one are mishandled on re-apply).
	ServiceID string
	Placement Placement
	// OSD only.
	DataDevices   *DeviceFilter
	DBDevices     *DeviceFilter
	OSDsPerDevice int
	Encrypted     bool
	// CrushDeviceClass is the OSDs' CRUSH device class (the top-level
	// key: Pacific 16.2.15's classes accept it too).
	CrushDeviceClass string
	// Release is the Ceph release the spec is rendered for ("": the
	// default, Pacific): a key the release lacks is never rendered.
	Release string
}

// release is the spec's release, the default when unset.
func (s ServiceSpec) release() string {
	if s.Release == "" {
		return DefaultRelease
	}
	return s.Release
}

var reServiceID = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// ServiceName is cephadm's name for the service: type[.id].
func (s ServiceSpec) ServiceName() string {
	if s.ServiceID != "" {
		return s.ServiceType + "." + s.ServiceID
	}
	return s.ServiceType
}

// Validate checks the spec as cephadm would, plus this provider's stricter
// rules (an OSD spec has a service_id; a size range is not inverted). The
// errors are located at the hpcstorage_ceph_osd_spec attribute that holds
// the value (placement_label, placement_hosts, data_devices.size, ...).
func (s ServiceSpec) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, invalid(fieldPath(field), format, a...))
	}
	switch s.ServiceType {
	case TypeMon, TypeMgr:
		if s.ServiceID != "" {
			bad("service_id", "a %s service has no service_id", s.ServiceType)
		}
		if s.DataDevices != nil || s.DBDevices != nil || s.OSDsPerDevice != 0 || s.Encrypted {
			bad("service_type", "device settings belong to an osd spec, not %s", s.ServiceType)
		}
	case TypeOSD:
		if s.ServiceID == "" {
			bad("service_id", "an osd spec needs a service_id")
		}
		if s.DataDevices == nil {
			bad("data_devices", "an osd spec needs data_devices")
		} else if err := located.Under(located.At("data_devices"), s.DataDevices.validate()); err != nil {
			errs = append(errs, err)
		}
		if s.DBDevices != nil {
			if err := located.Under(located.At("db_devices"), s.DBDevices.validate()); err != nil {
				errs = append(errs, err)
			}
			if s.DBDevices.All {
				bad("db_devices.all", "all is only allowed for data_devices")
			}
		}
		if s.OSDsPerDevice < 0 || s.OSDsPerDevice > 8 {
			bad("osds_per_device", "%d: want 1 to 8 (0: cephadm's default, 1)", s.OSDsPerDevice)
		}
		if s.Placement.Count != 0 {
			bad("placement.count", "an osd spec is placed by hosts or label, not a count")
		}
		if s.CrushDeviceClass != "" && !reServiceID.MatchString(s.CrushDeviceClass) {
			bad("crush_device_class", "%q: only letters, digits, '_', '.' and '-'", s.CrushDeviceClass)
		}
	default:
		bad("service_type", "%q: want one of %s", s.ServiceType, strings.Join(ServiceTypes, ", "))
	}
	if releaseIndex(s.release()) < 0 {
		bad("release", "%q: want one of %s", s.Release, strings.Join(Releases, ", "))
	}
	if s.ServiceType != TypeOSD && s.CrushDeviceClass != "" {
		bad("crush_device_class", "belongs to an osd spec, not %s", s.ServiceType)
	}
	if s.ServiceID != "" && !reServiceID.MatchString(s.ServiceID) {
		bad("service_id", "%q: only letters, digits, '_', '.' and '-'", s.ServiceID)
	}
	p := s.Placement
	if len(p.Hosts) > 0 && p.Label != "" {
		bad("placement_hosts", "hosts and label are mutually exclusive")
	}
	if len(p.Hosts) == 0 && p.Label == "" && p.Count == 0 {
		bad("placement_label", "name hosts, a label or a count")
	}
	if p.Count < 0 {
		bad("placement.count", "%d: want at least 1", p.Count)
	}
	seen := map[string]bool{}
	for i, h := range p.Hosts {
		if !reHostname.MatchString(h) {
			errs = append(errs, invalid(located.At("placement_hosts").Index(i), "%q: not a host name", h))
		}
		if seen[h] {
			errs = append(errs, invalid(located.At("placement_hosts").Index(i), "%q listed twice", h))
		}
		seen[h] = true
	}
	return errors.Join(errs...)
}

var reHostname = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$`)

// fieldPath is a spec field's attribute: "a.b" is a nested one; the
// placement's count belongs to the label (the osd spec has no count).
func fieldPath(field string) located.Path {
	switch field {
	case "placement.count":
		field = "placement_label"
	case "service_type":
		return nil // the resource's type itself
	}
	parts := strings.Split(field, ".")
	p := located.At(parts[0])
	for _, n := range parts[1:] {
		p = p.Name(n)
	}
	return p
}

// validate checks one device filter; paths are the filter's own.
func (f *DeviceFilter) validate() error {
	var errs []error
	bad := func(sub, format string, a ...any) {
		errs = append(errs, invalid(located.At(sub), format, a...))
	}
	empty := f.Rotational == nil && f.Model == "" && f.Vendor == "" && f.Size == ""
	if f.All && !empty {
		bad("all", "all and other filters are mutually exclusive")
	}
	if !f.All && empty {
		bad("all", "the device selection is empty: set rotational, model, vendor, size or all")
	}
	if f.Limit < 0 {
		bad("limit", "%d: want 0 (no limit) or more", f.Limit)
	}
	if f.Size != "" {
		if _, err := ParseSizeFilter(f.Size); err != nil {
			bad("size", "%v", err)
		}
	}
	return errors.Join(errs...)
}

// The JSON (and YAML) shape of a spec, as Ceph's ServiceSpec.to_json writes
// it: what `ceph orch ls --export` prints back for an applied spec.
type specDoc struct {
	ServiceType string `json:"service_type" yaml:"service_type"`
	ServiceID   string `json:"service_id,omitempty" yaml:"service_id,omitempty"`
	// service_name is what to_json adds; the applied file leaves it out
	// (Ceph derives it from type and id).
	ServiceName string        `json:"service_name" yaml:"-"`
	Placement   *placementDoc `json:"placement,omitempty" yaml:"placement,omitempty"`
	Spec        *osdDoc       `json:"spec,omitempty" yaml:"spec,omitempty"`
}

type placementDoc struct {
	Label string   `json:"label,omitempty" yaml:"label,omitempty"`
	Hosts []string `json:"hosts,omitempty" yaml:"hosts,omitempty"`
	Count int      `json:"count,omitempty" yaml:"count,omitempty"`
}

// osdDoc keys are sorted, as to_json sorts them; Ceph fills filter_logic
// and objectstore with their defaults.
type osdDoc struct {
	CrushDeviceClass string     `json:"crush_device_class,omitempty" yaml:"crush_device_class,omitempty"`
	DataDevices      *filterDoc `json:"data_devices,omitempty" yaml:"data_devices,omitempty"`
	DBDevices        *filterDoc `json:"db_devices,omitempty" yaml:"db_devices,omitempty"`
	Encrypted        bool       `json:"encrypted,omitempty" yaml:"encrypted,omitempty"`
	FilterLogic      string     `json:"filter_logic" yaml:"filter_logic"`
	Objectstore      string     `json:"objectstore" yaml:"objectstore"`
	OSDsPerDevice    int        `json:"osds_per_device,omitempty" yaml:"osds_per_device,omitempty"`
}

// filterDoc follows DeviceSelection.to_json's order and omissions.
type filterDoc struct {
	Model      string `json:"model,omitempty" yaml:"model,omitempty"`
	Vendor     string `json:"vendor,omitempty" yaml:"vendor,omitempty"`
	Size       string `json:"size,omitempty" yaml:"size,omitempty"`
	Rotational *bool  `json:"rotational,omitempty" yaml:"rotational,omitempty"`
	Limit      int    `json:"limit,omitempty" yaml:"limit,omitempty"`
	All        bool   `json:"all,omitempty" yaml:"all,omitempty"`
}

func (f *DeviceFilter) doc() *filterDoc {
	if f == nil {
		return nil
	}
	return &filterDoc{Model: f.Model, Vendor: f.Vendor, Size: f.Size, Rotational: f.Rotational, Limit: f.Limit, All: f.All}
}

func (s ServiceSpec) doc() specDoc {
	d := specDoc{ServiceType: s.ServiceType, ServiceID: s.ServiceID, ServiceName: s.ServiceName()}
	p := placementDoc{Label: s.Placement.Label, Hosts: s.Placement.Hosts, Count: s.Placement.Count}
	if p.Label != "" || len(p.Hosts) > 0 || p.Count > 0 {
		d.Placement = &p
	}
	if s.ServiceType == TypeOSD {
		d.Spec = &osdDoc{DataDevices: s.DataDevices.doc(), DBDevices: s.DBDevices.doc(), Encrypted: s.Encrypted,
			FilterLogic: "AND", Objectstore: "bluestore", OSDsPerDevice: s.OSDsPerDevice, CrushDeviceClass: s.CrushDeviceClass}
	}
	return d
}

// JSON is the spec as Ceph's ServiceSpec.to_json writes it (and `ceph orch
// ls --export --format json` prints it back).
func (s ServiceSpec) JSON() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(s.doc())
}

// RenderYAML is the file `ceph orch apply -i` reads: the specs as YAML
// documents separated by `---`.
func RenderYAML(specs ...ServiceSpec) ([]byte, error) {
	var buf bytes.Buffer
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("spec %s: %w", s.ServiceName(), err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(s.doc()); err != nil {
			return nil, fmt.Errorf("spec %s: %w", s.ServiceName(), err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// exportKeys are the keys of an exported spec that describe it; the others
// (status, events, created, last_refresh, running, size...) change while
// the cluster runs and are ignored when comparing.
var exportKeys = []string{"service_type", "service_id", "service_name", "placement", "unmanaged", "networks", "config",
	"spec", "extra_container_args", "extra_entrypoint_args", "custom_configs"}

// StaticSpec keeps the keys of an exported spec that describe it.
func StaticSpec(exported map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range exportKeys {
		if v, ok := exported[k]; ok {
			out[k] = v
		}
	}
	if sp, ok := out["spec"].(map[string]any); ok {
		// Pacific's export of some services carries no dynamic field
		// inside spec; drop empty values as to_json does.
		clean := map[string]any{}
		for k, v := range sp {
			if !emptyJSON(v) {
				clean[k] = v
			}
		}
		out["spec"] = clean
	}
	return out
}

func emptyJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// SpecDiff compares the desired spec with the one cephadm exported,
// ignoring dynamic fields; "" when they agree, else a short description of
// what differs.
func SpecDiff(want ServiceSpec, exported map[string]any) (string, error) {
	b, err := want.JSON()
	if err != nil {
		return "", err
	}
	var w map[string]any
	if err := json.Unmarshal(b, &w); err != nil {
		return "", err
	}
	got := StaticSpec(exported)
	if sp, ok := w["spec"].(map[string]any); ok {
		w["spec"] = StaticSpec(map[string]any{"spec": sp})["spec"]
	}
	var diffs []string
	keys := map[string]bool{}
	for k := range w {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	for _, k := range sortedSet(keys) {
		a, _ := json.Marshal(w[k])
		g, _ := json.Marshal(got[k])
		if !bytes.Equal(a, g) {
			diffs = append(diffs, fmt.Sprintf("%s: %s -> %s", k, g, a))
		}
	}
	return strings.Join(diffs, "; "), nil
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
