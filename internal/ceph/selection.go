package ceph

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Device is a host's disk as cephadm's inventory (ceph-volume) sees it.
type Device struct {
	Path       string
	SizeBytes  int64
	Model      string
	Vendor     string
	Rotational bool
	// Available is false when ceph-volume rejects the device; Rejected
	// holds its reasons ("locked", "Has partitions", "LVM detected"...).
	Available bool
	Rejected  []string
	// CephDevice: already holds an OSD (ceph-volume reports it unavailable,
	// yet DriveSelection still counts it for its spec).
	CephDevice bool
}

// HumanReadableSize is ceph-volume's human_readable_size: the size divided
// by 1024 while it is at least 1024, with two decimals and a decimal-looking
// unit ("3.49 TB" for a 3.84 TB drive). Size filters compare against this
// string, so a drive sold as 3.84 TB matches `3TB:4TB` but not `3.5TB:`.
func HumanReadableSize(bytes int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB"}
	size := float64(bytes)
	u := 0
	for u < len(units)-1 && size >= 1024 {
		size /= 1024
		u++
	}
	return strconv.FormatFloat(size, 'f', 2, 64) + " " + units[u]
}

// unitScale: Ceph's size matcher reads its units as decimal powers.
var unitScale = map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

// SizeFilter is a parsed size filter, in bytes; the Has flags say which
// bounds are set.
type SizeFilter struct {
	Low, High, Exact          float64
	HasLow, HasHigh, HasExact bool
}

var (
	reLowHigh  = regexp.MustCompile(`^\d+[A-Z]{1,2}:\d+[A-Z]{1,2}`)
	reLow      = regexp.MustCompile(`^\d+[A-Z]{1,2}:$`)
	reHigh     = regexp.MustCompile(`^:\d+[A-Z]{1,2}`)
	reExact    = regexp.MustCompile(`^\d+\.?\d*[A-Z]{1,2}$`)
	reNumber   = regexp.MustCompile(`\d+\.?\d*`)
	reLetters  = regexp.MustCompile(`[a-zA-Z]+`)
	reDiskSize = regexp.MustCompile(`\d+\.\d+`)
)

// ErrInvertedRange is returned for a size range whose low bound is above its
// high bound: Ceph accepts it and matches nothing.
var ErrInvertedRange = errors.New("inverted size range")

// ParseSizeFilter parses a size filter the way Ceph's SizeMatcher does:
// `NTB:MTB`, `:MTB`, `NTB:` (whole numbers, upper-case units) or an exact
// `N[.M]TB`; anything else is refused as Ceph refuses it. Unlike Ceph, an
// inverted range is an error (ErrInvertedRange).
func ParseSizeFilter(s string) (SizeFilter, error) {
	var f SizeFilter
	kv := func(part string) (float64, error) {
		n := reNumber.FindString(part)
		u := reLetters.FindString(part)
		scale, ok := unitScale[strings.ToUpper(u)]
		if !ok {
			return 0, fmt.Errorf("unit %q not supported (KB, MB, GB, TB)", strings.ToUpper(u))
		}
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return 0, err
		}
		return v * scale, nil
	}
	var err error
	set := false
	if m := reLowHigh.FindString(s); m != "" {
		lo, hi, _ := strings.Cut(m, ":")
		if f.Low, err = kv(lo); err != nil {
			return f, err
		}
		if f.High, err = kv(hi); err != nil {
			return f, err
		}
		f.HasLow, f.HasHigh, set = true, true, true
	}
	if m := reLow.FindString(s); m != "" {
		if f.Low, err = kv(m); err != nil {
			return f, err
		}
		f.HasLow, set = true, true
	}
	if m := reHigh.FindString(s); m != "" {
		if f.High, err = kv(m); err != nil {
			return f, err
		}
		f.HasHigh, set = true, true
	}
	if m := reExact.FindString(s); m != "" {
		if f.Exact, err = kv(m); err != nil {
			return f, err
		}
		f.HasExact, set = true, true
	}
	if !set {
		return f, fmt.Errorf("%q: want LOW:HIGH, :HIGH, LOW: or an exact size, whole numbers with KB, MB, GB or TB "+
			"(Ceph cannot parse it)", s)
	}
	if f.HasLow && f.HasHigh && f.Low > f.High {
		return f, fmt.Errorf("%w %q: the low bound is above the high bound, so no device can match", ErrInvertedRange, s)
	}
	return f, nil
}

// matchSize compares the device's human-readable size as Ceph does.
func (f SizeFilter) matchSize(bytes int64) (bool, error) {
	hr := HumanReadableSize(bytes)
	n := reDiskSize.FindString(hr)
	u := reLetters.FindString(hr)
	scale, ok := unitScale[strings.ToUpper(u)]
	if !ok || n == "" {
		return false, fmt.Errorf("device size %s: unit not supported by Ceph's size filter", hr)
	}
	v, _ := strconv.ParseFloat(n, 64)
	size := v * scale
	switch {
	case f.HasLow && f.HasHigh:
		return size >= f.Low && size <= f.High, nil
	case f.HasLow:
		return size >= f.Low, nil
	case f.HasHigh:
		return size <= f.High, nil
	case f.HasExact:
		return size == f.Exact, nil
	}
	return false, errors.New("no size filter")
}

// Match says whether every filter of f matches d (filter_logic AND).
func (f DeviceFilter) Match(d Device) (bool, error) {
	if f.Size != "" {
		sf, err := ParseSizeFilter(f.Size)
		if err != nil && !errors.Is(err, ErrInvertedRange) {
			return false, err
		}
		ok, err := sf.matchSize(d.SizeBytes)
		if err != nil || !ok {
			return false, err
		}
	}
	if f.Model != "" && !strings.Contains(d.Model, f.Model) {
		return false, nil
	}
	if f.Vendor != "" && !strings.Contains(d.Vendor, f.Vendor) {
		return false, nil
	}
	if f.Rotational != nil && *f.Rotational != d.Rotational {
		return false, nil
	}
	return true, nil
}

// Selection is what an OSD spec takes on one host.
type Selection struct {
	Data []Device
	DB   []Device
}

// Select applies an OSD spec's device filters to one host's devices as
// Ceph's DriveSelection does: devices in inventory order (sorted by path),
// unavailable ones skipped (unless they already hold an OSD), `limit` counting the daemons the spec already
// has on the host, a device taken for data not taken again for DB; each
// list sorted by path.
func Select(spec ServiceSpec, devices []Device, existingDaemons int) (Selection, error) {
	disks := append([]Device(nil), devices...)
	sort.SliceStable(disks, func(i, j int) bool { return disks[i].Path < disks[j].Path })
	var sel Selection
	if spec.DataDevices == nil {
		return sel, nil
	}
	taken := map[string]bool{}
	assign := func(f *DeviceFilter) ([]Device, error) {
		if f == nil {
			return nil, nil
		}
		var out []Device
		for _, d := range disks {
			if taken[d.Path] || (!d.Available && !d.CephDevice) {
				continue
			}
			if f.Limit > 0 && len(out)+existingDaemons >= f.Limit {
				break
			}
			ok, err := f.Match(d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", d.Path, err)
			}
			if ok {
				out = append(out, d)
			}
		}
		for _, d := range out {
			taken[d.Path] = true
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
		return out, nil
	}
	var err error
	if sel.Data, err = assign(spec.DataDevices); err != nil {
		return sel, invalid(located.At("data_devices"), "%w", err)
	}
	if sel.DB, err = assign(spec.DBDevices); err != nil {
		return sel, invalid(located.At("db_devices"), "%w", err)
	}
	return sel, nil
}

// HostPlan is the devices one host turns into OSDs.
type HostPlan struct {
	Host string
	Selection
	// OSDs is the number of OSD daemons: data devices × osds_per_device.
	OSDs int
}

// ErrNoOSD is wrapped when a host placed by an OSD spec would get no OSD.
var ErrNoOSD = errors.New("spec selects no device")

// PlanOSDs selects devices on every placed host (host -> its devices) and
// fails, naming each such host and why its devices were passed over, when a
// host would get no OSD.
func PlanOSDs(spec ServiceSpec, hosts map[string][]Device) ([]HostPlan, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.DataDevices != nil && spec.DataDevices.Size != "" {
		if _, err := ParseSizeFilter(spec.DataDevices.Size); err != nil {
			return nil, located.Wrap(located.At("data_devices").Name("size"), err)
		}
	}
	per := spec.OSDsPerDevice
	if per == 0 {
		per = 1
	}
	names := make([]string, 0, len(hosts))
	for h := range hosts {
		names = append(names, h)
	}
	sort.Strings(names)
	var out []HostPlan
	var errs []error
	for _, h := range names {
		sel, err := Select(spec, hosts[h], 0)
		if err != nil {
			at := located.At("data_devices")
			if le, ok := located.Find(err); ok {
				at, err = le.Path, le.Err
			}
			errs = append(errs, located.Wrap(at, fmt.Errorf("host %s: %w", h, err)))
			continue
		}
		if len(sel.Data) == 0 {
			errs = append(errs, located.Errorf(located.At("data_devices"), "%w: host %s: %s", ErrNoOSD, h, whyNone(spec, hosts[h])))
			continue
		}
		out = append(out, HostPlan{Host: h, Selection: sel, OSDs: len(sel.Data) * per})
	}
	return out, errors.Join(errs...)
}

// DescribeDevices lists devices with cephadm's verdict on each.
func DescribeDevices(devs []Device) string {
	var parts []string
	for _, d := range devs {
		switch {
		case d.CephDevice:
			parts = append(parts, d.Path+" holds an OSD")
		case !d.Available:
			parts = append(parts, fmt.Sprintf("%s rejected (%s)", d.Path, strings.Join(d.Rejected, ", ")))
		default:
			parts = append(parts, d.Path+" available")
		}
	}
	return strings.Join(parts, "; ")
}

// whyNone summarises a host's devices for the error of a spec selecting
// none of them.
func whyNone(spec ServiceSpec, devs []Device) string {
	if len(devs) == 0 {
		return "it reports no device"
	}
	var parts []string
	for _, d := range devs {
		switch {
		case !d.Available:
			parts = append(parts, fmt.Sprintf("%s rejected by cephadm (%s)", d.Path, strings.Join(d.Rejected, ", ")))
		default:
			parts = append(parts, fmt.Sprintf("%s (%s, %s, rotational %t) not matched", d.Path, d.Model, HumanReadableSize(d.SizeBytes), d.Rotational))
		}
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return "data_devices matches none of its devices: " + strings.Join(parts, "; ")
}

// MinOSDBytes is ceph-volume's floor: smaller devices are rejected.
const MinOSDBytes = 5 << 30

// FromFacts is a device as the agent's facts show it (kernel name, size,
// rotational, model, vendor, the signature blkid finds), with the reasons
// ceph-volume gives for refusing it: a partition table ("Has partitions"),
// an LVM member ("LVM detected"), a file system ("Has a FileSystem"), less
// than 5 GB ("Insufficient space (<5GB)").
func FromFacts(name string, sizeBytes int64, rotational bool, model, vendor, fstype string) Device {
	d := Device{Path: "/dev/" + strings.TrimPrefix(name, "/dev/"), SizeBytes: sizeBytes, Rotational: rotational,
		Model: strings.TrimSpace(model), Vendor: strings.TrimSpace(vendor)}
	switch fstype {
	case "":
	case "gpt", "dos", "PMBR":
		d.Rejected = append(d.Rejected, "Has partitions")
	case "LVM2_member":
		d.Rejected = append(d.Rejected, "LVM detected")
	default:
		d.Rejected = append(d.Rejected, "Has a FileSystem")
	}
	if sizeBytes < MinOSDBytes {
		d.Rejected = append(d.Rejected, "Insufficient space (<5GB)")
	}
	d.Available = len(d.Rejected) == 0
	return d
}
