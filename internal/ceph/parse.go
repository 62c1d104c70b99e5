package ceph

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrParse is wrapped by every parse error.
var ErrParse = errors.New("cannot parse Ceph output")

func decode(what string, out []byte, v any) error {
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrParse, what, err)
	}
	return nil
}

// Host is one line of `ceph orch host ls --format json`.
type Host struct {
	Hostname string   `json:"hostname"`
	Addr     string   `json:"addr"`
	Labels   []string `json:"labels"`
	Status   string   `json:"status"`
}

// ParseHostLs parses `ceph orch host ls --format json`.
func ParseHostLs(out []byte) ([]Host, error) {
	var hs []Host
	if err := decode("ceph orch host ls", out, &hs); err != nil {
		return nil, err
	}
	return hs, nil
}

// ParseOrchExport parses `ceph orch ls --export --format json`: the specs by
// service name, with their dynamic fields left in (StaticSpec drops them).
func ParseOrchExport(out []byte) (map[string]map[string]any, error) {
	var specs []map[string]any
	if err := decode("ceph orch ls --export", out, &specs); err != nil {
		return nil, err
	}
	m := map[string]map[string]any{}
	for _, s := range specs {
		name, _ := s["service_name"].(string)
		if name == "" {
			t, _ := s["service_type"].(string)
			id, _ := s["service_id"].(string)
			name = t
			if id != "" {
				name += "." + id
			}
		}
		if name == "" {
			return nil, fmt.Errorf("%w: ceph orch ls --export: a spec without service_type", ErrParse)
		}
		m[name] = s
	}
	return m, nil
}

// inventoryDevice is one device of `ceph orch device ls --format json`
// (ceph.deployment.inventory.Device.to_json).
type inventoryDevice struct {
	Path            string   `json:"path"`
	Available       bool     `json:"available"`
	RejectedReasons []string `json:"rejected_reasons"`
	CephDevice      *bool    `json:"ceph_device"`
	SysAPI          struct {
		Model      string  `json:"model"`
		Vendor     string  `json:"vendor"`
		Rotational string  `json:"rotational"`
		Size       float64 `json:"size"`
	} `json:"sys_api"`
}

// ParseDeviceLs parses `ceph orch device ls --format json`: each host's
// devices with cephadm's availability and reject reasons.
func ParseDeviceLs(out []byte) (map[string][]Device, error) {
	var hosts []struct {
		Name    string            `json:"name"`
		Devices []inventoryDevice `json:"devices"`
	}
	if err := decode("ceph orch device ls", out, &hosts); err != nil {
		return nil, err
	}
	m := map[string][]Device{}
	for _, h := range hosts {
		devs := []Device{}
		for _, d := range h.Devices {
			devs = append(devs, Device{Path: d.Path, SizeBytes: int64(d.SysAPI.Size), Model: d.SysAPI.Model, Vendor: d.SysAPI.Vendor,
				Rotational: d.SysAPI.Rotational == "1", Available: d.Available, Rejected: d.RejectedReasons,
				CephDevice: d.CephDevice != nil && *d.CephDevice})
		}
		m[h.Name] = devs
	}
	return m, nil
}

// Mon is a monitor of `ceph mon dump -f json`.
type Mon struct {
	Rank int    `json:"rank"`
	Name string `json:"name"`
	// Addr is the v1 address ("10.0.0.1:6789/0").
	Addr string `json:"addr"`
}

// MonMap is `ceph mon dump -f json`.
type MonMap struct {
	Epoch  int    `json:"epoch"`
	FSID   string `json:"fsid"`
	Mons   []Mon  `json:"mons"`
	Quorum []int  `json:"quorum"`
}

// IP is the monitor's address without port and nonce.
func (m Mon) IP() string {
	a, _, _ := strings.Cut(m.Addr, "/")
	if i := strings.LastIndex(a, ":"); i >= 0 {
		a = a[:i]
	}
	return strings.Trim(a, "[]")
}

// ParseMonDump parses `ceph mon dump -f json`.
func ParseMonDump(out []byte) (MonMap, error) {
	var m MonMap
	if err := decode("ceph mon dump", out, &m); err != nil {
		return m, err
	}
	if m.FSID == "" {
		return m, fmt.Errorf("%w: ceph mon dump: no fsid", ErrParse)
	}
	return m, nil
}

// Names are the monitors' names, sorted.
func (m MonMap) Names() []string {
	out := make([]string, 0, len(m.Mons))
	for _, mon := range m.Mons {
		out = append(out, mon.Name)
	}
	sort.Strings(out)
	return out
}

// Pool is one pool of `ceph osd pool ls detail -f json`.
type Pool struct {
	ID              int                       `json:"pool_id"`
	Name            string                    `json:"pool_name"`
	Size            int                       `json:"size"`
	MinSize         int                       `json:"min_size"`
	PGNum           int                       `json:"pg_num"`
	PGAutoscaleMode string                    `json:"pg_autoscale_mode"`
	CrushRule       int                       `json:"crush_rule"`
	Applications    map[string]map[string]any `json:"application_metadata"`
}

// ParsePoolLsDetail parses `ceph osd pool ls detail -f json`, by name.
func ParsePoolLsDetail(out []byte) (map[string]Pool, error) {
	var ps []Pool
	if err := decode("ceph osd pool ls detail", out, &ps); err != nil {
		return nil, err
	}
	m := map[string]Pool{}
	for _, p := range ps {
		m[p.Name] = p
	}
	return m, nil
}

// Image is one image of `rbd ls -l --format json`.
type Image struct {
	Name      string `json:"image"`
	SizeBytes int64  `json:"size"`
	Format    int    `json:"format"`
}

// ParseRbdLs parses `rbd ls -l --format json POOL`, by image name (one
// entry per image: snapshots, listed with a "snapshot" key, are skipped).
func ParseRbdLs(out []byte) (map[string]Image, error) {
	var raw []struct {
		Image
		Snapshot string `json:"snapshot"`
	}
	if err := decode("rbd ls -l", out, &raw); err != nil {
		return nil, err
	}
	m := map[string]Image{}
	for _, r := range raw {
		if r.Snapshot == "" {
			m[r.Name] = r.Image
		}
	}
	return m, nil
}

// Mapped is one line of `rbd showmapped --format json`.
type Mapped struct {
	ID        string `json:"id"`
	Pool      string `json:"pool"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Snap      string `json:"snap"`
	Device    string `json:"device"`
}

// ParseShowmapped parses `rbd showmapped --format json`, by "pool/image"
// (snapshot mappings are left out).
func ParseShowmapped(out []byte) (map[string]Mapped, error) {
	var ms []Mapped
	if err := decode("rbd showmapped", out, &ms); err != nil {
		return nil, err
	}
	m := map[string]Mapped{}
	for _, x := range ms {
		if x.Snap != "" && x.Snap != "-" {
			continue
		}
		m[x.Pool+"/"+x.Name] = x
	}
	return m, nil
}

// AuthEntity is one entry of `ceph auth get CLIENT -f json`.
type AuthEntity struct {
	Entity string            `json:"entity"`
	Key    string            `json:"key"`
	Caps   map[string]string `json:"caps"`
}

// ParseAuthGet parses `ceph auth get CLIENT -f json`.
func ParseAuthGet(out []byte) (AuthEntity, error) {
	var es []AuthEntity
	if err := decode("ceph auth get", out, &es); err != nil {
		return AuthEntity{}, err
	}
	if len(es) != 1 {
		return AuthEntity{}, fmt.Errorf("%w: ceph auth get: %d entities, want 1", ErrParse, len(es))
	}
	return es[0], nil
}
