package sim

// The OSD device selection cephadm runs for an osd service spec on each
// host: Ceph's DriveSelection (ceph/deployment/drive_selection in
// python3-ceph-common 16.2.15: selector.py, filter.py, matchers.py),
// followed rule by rule:
//   - devices are taken in path order ("/dev/nvme10n1" before "/dev/nvme2n1");
//   - an unavailable device is skipped unless it is a Ceph device, and a Ceph
//     device is skipped when its OSD belongs to another spec
//     (osdspec_affinity);
//   - `limit` counts the spec's OSDs already on the host (existing_daemons)
//     and stops the walk when reached;
//   - filters: `size` (SizeMatcher on human_readable_size: "10G:50G",
//     ":60G", "50G:", "20G"; units K/M/G/T with optional B, upper-case only;
//     a range with decimals is refused as unparseable; an inverted range
//     is accepted and matches nothing), `model` and `vendor` (substring),
//     `rotational` (equality with sys_api's "0"/"1"), `all`; combined with
//     filter_logic AND (default) or OR.
// Devices selected as data are not offered to db/wal devices.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// deviceFilter is a spec's data_devices (or db_devices...).
type deviceFilter struct {
	Paths      []string
	Model      string
	Vendor     string
	Size       string
	Rotational *bool
	All        bool
	Limit      int
}

func (f *deviceFilter) empty() bool {
	return f == nil || (len(f.Paths) == 0 && f.Model == "" && f.Vendor == "" && f.Size == "" && f.Rotational == nil && !f.All && f.Limit == 0)
}

// sizeMatcher is Ceph's SizeMatcher: bounds in bytes, -1 when unset.
type sizeMatcher struct{ low, high, exact float64 }

var (
	sizeLowHigh = regexp.MustCompile(`^\d+[A-Z]{1,2}:\d+[A-Z]{1,2}`)
	sizeLow     = regexp.MustCompile(`^\d+[A-Z]{1,2}:$`)
	sizeHigh    = regexp.MustCompile(`^:\d+[A-Z]{1,2}`)
	sizeExact   = regexp.MustCompile(`^\d+\.?\d*[A-Z]{1,2}$`)
	sizeNum     = regexp.MustCompile(`\d+\.?\d*`)
	sizeUnit    = regexp.MustCompile(`[a-zA-Z]+`)
	sizeDiskNum = regexp.MustCompile(`\d+\.\d+`)
)

// sizeBytes is SizeMatcher.str_to_byte: digits then a K/M/G/T(B) unit,
// decimal multiples.
func sizeBytes(s string) (float64, error) {
	num := sizeNum.FindString(s)
	unit := strings.ToUpper(sizeUnit.FindString(s))
	mult := map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
	m, ok := mult[unit]
	if num == "" || unit == "" {
		return 0, fmt.Errorf("Couldn't parse %s", s)
	}
	if !ok {
		return 0, fmt.Errorf("Unit '%s' not supported", unit)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("Couldn't parse %s", s)
	}
	return v * m, nil
}

func parseSizeFilter(v string) (sizeMatcher, error) {
	m := sizeMatcher{-1, -1, -1}
	var err error
	if g := sizeLowHigh.FindString(v); g != "" {
		lo, hi, _ := strings.Cut(g, ":")
		if m.low, err = sizeBytes(lo); err != nil {
			return m, err
		}
		if m.high, err = sizeBytes(hi); err != nil {
			return m, err
		}
	}
	if g := sizeLow.FindString(v); g != "" {
		if m.low, err = sizeBytes(g); err != nil {
			return m, err
		}
	}
	if g := sizeHigh.FindString(v); g != "" {
		if m.high, err = sizeBytes(g); err != nil {
			return m, err
		}
	}
	if g := sizeExact.FindString(v); g != "" {
		if m.exact, err = sizeBytes(g); err != nil {
			return m, err
		}
	}
	if m.low < 0 && m.high < 0 && m.exact < 0 {
		return m, fmt.Errorf("Couldn't parse %s", v)
	}
	return m, nil
}

// match compares a device's human_readable_size ("3.49 TB": its number
// times the decimal unit, as Ceph does) with the bounds.
func (m sizeMatcher) match(hrs string) bool {
	num := sizeDiskNum.FindString(hrs)
	unit := strings.ToUpper(sizeUnit.FindString(hrs))
	mult := map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	b := v * mult[unit]
	switch {
	case m.low >= 0 && m.high >= 0:
		return b >= m.low && b <= m.high
	case m.low >= 0:
		return b >= m.low
	case m.high >= 0:
		return b <= m.high
	default:
		return b == m.exact
	}
}

// selectDevices is DriveSelection.assign_devices for one filter over one
// host's devices (sorted by path), existing being the spec's OSDs already
// on the host. It returns the selected devices, sorted by path.
func selectDevices(f *deviceFilter, logic, serviceID string, devices []cephDevice, existing int) ([]cephDevice, error) {
	if f.empty() {
		return nil, nil
	}
	if len(f.Paths) > 0 {
		var out []cephDevice
		for _, p := range f.Paths {
			out = append(out, cephDevice{Path: p})
		}
		return out, nil
	}
	var size *sizeMatcher
	if f.Size != "" {
		m, err := parseSizeFilter(f.Size)
		if err != nil {
			return nil, err
		}
		size = &m
	}
	var out []cephDevice
	for _, d := range devices {
		isCeph := d.CephDevice != nil && *d.CephDevice
		if !d.Available && !isCeph {
			continue
		}
		if !d.Available && isCeph {
			other := false
			for _, lv := range d.LVs {
				if lv.OSDSpecAffinity != serviceID {
					other = true
				}
			}
			if other {
				continue
			}
		}
		if f.Limit > 0 && len(out)+existing >= f.Limit {
			break
		}
		var results []bool
		if size != nil {
			results = append(results, size.match(d.SysAPI.HumanReadableSize))
		}
		if f.Model != "" {
			results = append(results, strings.Contains(d.SysAPI.Model, f.Model))
		}
		if f.Vendor != "" {
			results = append(results, strings.Contains(d.SysAPI.Vendor, f.Vendor))
		}
		if f.Rotational != nil {
			want := "0"
			if *f.Rotational {
				want = "1"
			}
			results = append(results, d.SysAPI.Rotational == want)
		}
		if f.All {
			results = append(results, true)
		}
		ok := logic != "OR"
		for _, r := range results {
			if logic == "OR" {
				ok = ok || r
			} else {
				ok = ok && r
			}
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}
