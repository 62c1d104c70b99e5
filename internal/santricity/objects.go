package santricity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// noRef is SANtricity's null reference (a drive in no volume group, a host
// in no host group, the default host group).
const noRef = "0000000000000000000000000000000000000000"

// RAID levels as the API spells them (VolumeGroupEx.raidLevel). RAID 1 with
// four or more drives is what other arrays call RAID 10.
const (
	RAID0    = "raid0"
	RAID1    = "raid1"
	RAID5    = "raid5"
	RAID6    = "raid6"
	DiskPool = "raidDiskPool"
)

// Levels lists the levels a volume group or pool can be created with.
var Levels = []string{RAID0, RAID1, RAID5, RAID6, DiskPool}

// num decodes SANtricity's capacities, which are JSON strings of bytes.
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("capacity %s: %w", b, err)
	}
	*n = num(v)
	return nil
}

// Drive is one drive (DriveEx).
type Drive struct {
	ID            string // driveRef
	Tray          int    // tray (shelf) id; 99 is usually the controller shelf
	Slot          int    // bay in the tray
	MediaType     string // ssd, hdd
	InterfaceType string // nvme, sas, ...
	CapacityBytes int64  // usable capacity
	HotSpare      bool
	Available     bool   // not in a volume group, not a spare
	VolumeGroupID string // "" when in none
	Status        string // optimal, failed, ...
	Product       string
	Serial        string
}

// Location is the drive's "tray.slot", as System Manager shows shelf and bay.
func (d Drive) Location() string { return fmt.Sprintf("%d.%d", d.Tray, d.Slot) }

type driveDoc struct {
	ID               string `json:"id"`
	DriveRef         string `json:"driveRef"`
	HotSpare         bool   `json:"hotSpare"`
	Available        bool   `json:"available"`
	Status           string `json:"status"`
	UsableCapacity   num    `json:"usableCapacity"`
	RawCapacity      num    `json:"rawCapacity"`
	DriveMediaType   string `json:"driveMediaType"`
	PhyDriveType     string `json:"phyDriveType"`
	CurrentVGRef     string `json:"currentVolumeGroupRef"`
	ProductID        string `json:"productID"`
	SerialNumber     string `json:"serialNumber"`
	PhysicalLocation struct {
		TrayRef string `json:"trayRef"`
		Slot    int    `json:"slot"`
	} `json:"physicalLocation"`
}

type trayDoc struct {
	TrayRef string `json:"trayRef"`
	TrayID  int    `json:"trayId"`
}

// trayIDs maps tray refs to tray ids, read once per client: shelves do not
// come and go during a run.
func (c *Client) trayIDs(ctx context.Context, sys string) (map[string]int, error) {
	c.mu.Lock()
	trays := c.trays
	c.mu.Unlock()
	if trays != nil {
		return trays, nil
	}
	var inv struct {
		Trays []trayDoc `json:"trays"`
	}
	if err := c.do(ctx, http.MethodGet, sys+"/hardware-inventory", nil, &inv); err != nil {
		return nil, err
	}
	trays = map[string]int{}
	for _, t := range inv.Trays {
		trays[t.TrayRef] = t.TrayID
	}
	c.mu.Lock()
	c.trays = trays
	c.mu.Unlock()
	return trays, nil
}

// Drives lists the array's drives in tray and slot order.
func (c *Client) Drives(ctx context.Context) ([]Drive, error) {
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	trays, err := c.trayIDs(ctx, sys)
	if err != nil {
		return nil, err
	}
	var docs []driveDoc
	if err := c.do(ctx, http.MethodGet, sys+"/drives", nil, &docs); err != nil {
		return nil, err
	}
	out := make([]Drive, 0, len(docs))
	for _, d := range docs {
		id := d.ID
		if id == "" {
			id = d.DriveRef
		}
		size := int64(d.UsableCapacity)
		if size == 0 {
			size = int64(d.RawCapacity)
		}
		vg := d.CurrentVGRef
		if vg == noRef {
			vg = ""
		}
		out = append(out, Drive{ID: id, Tray: trays[d.PhysicalLocation.TrayRef], Slot: d.PhysicalLocation.Slot,
			MediaType: d.DriveMediaType, InterfaceType: d.PhyDriveType, CapacityBytes: size, HotSpare: d.HotSpare,
			Available: d.Available, VolumeGroupID: vg, Status: d.Status, Product: strings.TrimSpace(d.ProductID),
			Serial: strings.TrimSpace(d.SerialNumber)})
	}
	slices.SortFunc(out, func(a, b Drive) int {
		if a.Tray != b.Tray {
			return a.Tray - b.Tray
		}
		return a.Slot - b.Slot
	})
	return out, nil
}

// VolumeGroup is a volume group or a Dynamic Disk Pool (VolumeGroupEx).
type VolumeGroup struct {
	ID         string
	Name       string
	RAIDLevel  string
	DiskPool   bool
	TotalBytes int64 // usable capacity after RAID
	UsedBytes  int64
	FreeBytes  int64
	DriveIDs   []string // filled by VolumeGroups from the drives
	// Adopted: a create found it already there, as asked, and made nothing.
	Adopted bool
}

type poolDoc struct {
	ID         string `json:"id"`
	Ref        string `json:"volumeGroupRef"`
	Name       string `json:"name"`
	Label      string `json:"label"`
	RAIDLevel  string `json:"raidLevel"`
	DiskPool   bool   `json:"diskPool"`
	TotalSpace num    `json:"totalRaidedSpace"`
	UsedSpace  num    `json:"usedSpace"`
	FreeSpace  num    `json:"freeSpace"`
}

func (d poolDoc) group() VolumeGroup {
	g := VolumeGroup{ID: d.ID, Name: d.Name, RAIDLevel: d.RAIDLevel, DiskPool: d.DiskPool,
		TotalBytes: int64(d.TotalSpace), UsedBytes: int64(d.UsedSpace), FreeBytes: int64(d.FreeSpace)}
	if g.ID == "" {
		g.ID = d.Ref
	}
	if g.Name == "" {
		g.Name = d.Label
	}
	return g
}

// VolumeGroups lists volume groups and pools with their member drives
// (hot spares excluded, as NetApp's storagepool module counts them).
func (c *Client) VolumeGroups(ctx context.Context) ([]VolumeGroup, error) {
	docs, err := getAll[poolDoc](ctx, c, "storage-pools")
	if err != nil {
		return nil, err
	}
	drives, err := c.Drives(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]VolumeGroup, 0, len(docs))
	for _, d := range docs {
		g := d.group()
		for _, dr := range drives {
			if dr.VolumeGroupID == g.ID && !dr.HotSpare {
				g.DriveIDs = append(g.DriveIDs, dr.ID)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// FindVolumeGroup returns the volume group or pool with this name or id.
// The drives are read only when the group exists, so a create's look-up
// of a new name costs one request.
func (c *Client) FindVolumeGroup(ctx context.Context, nameOrID string) (*VolumeGroup, error) {
	docs, err := getAll[poolDoc](ctx, c, "storage-pools")
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		g := d.group()
		if g.Name != nameOrID && g.ID != nameOrID {
			continue
		}
		drives, err := c.Drives(ctx)
		if err != nil {
			return nil, err
		}
		for _, dr := range drives {
			if dr.VolumeGroupID == g.ID && !dr.HotSpare {
				g.DriveIDs = append(g.DriveIDs, dr.ID)
			}
		}
		return &g, nil
	}
	return nil, fmt.Errorf("%w: no volume group %q on %s", ErrNotFound, nameOrID, c.cfg.Name)
}

// MismatchError says an object of the wanted name exists but is not what
// was asked for; nothing was changed.
type MismatchError struct {
	Kind, Name, Array string
	Diffs             []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s %q already exists on %s and differs: %s", e.Kind, e.Name, e.Array, strings.Join(e.Diffs, "; "))
}

func (e *MismatchError) Unwrap() error { return ErrConflict }

type outcome int

const (
	made outcome = iota + 1
	adopted
	recovered
)

// createOnce makes sure an object called name exists as wanted without ever
// sending a create twice blindly: it looks the object up first (adopting a
// matching one, refusing a different one), POSTs once, and when the answer
// is lost or the array is busy it waits and looks again before POSTing.
//
// When the POST itself succeeds, its answer (the new object) is decoded
// into out (outcome made); otherwise lookup has recorded the object, found
// before any POST (adopted) or after a lost answer (recovered).
func (c *Client) createOnce(ctx context.Context, path string, body, out any, lookup func() (bool, error)) (outcome, error) {
	found, err := lookup()
	if err != nil {
		return 0, err
	}
	if found {
		return adopted, nil
	}
	for attempt := 1; ; attempt++ {
		err := c.do(ctx, http.MethodPost, path, body, out)
		if err == nil {
			return made, nil
		}
		var se *Error
		retryAfter := ""
		switch {
		case errors.Is(err, ErrUncertain):
		case errors.As(err, &se) && transientStatus(se.Status):
			retryAfter = se.RetryAfter
		default:
			return 0, err
		}
		if attempt >= c.cfg.Retry.MaxAttempts {
			return 0, err
		}
		if werr := c.wait(ctx, attempt, retryAfter); werr != nil {
			return 0, werr
		}
		if found, lerr := lookup(); lerr != nil || found {
			return recovered, lerr // the lost POST did create it (or the look-up failed)
		}
	}
}

// CreateVolumeGroup makes a volume group (or, with DiskPool, a Dynamic Disk
// Pool) called name from the drives, or adopts one of that name with the
// same level and drives. Fields as StoragePoolCreateRequest.
func (c *Client) CreateVolumeGroup(ctx context.Context, name, level string, driveIDs []string) (*VolumeGroup, error) {
	if !slices.Contains(Levels, level) {
		return nil, fmt.Errorf("%w: raid level %q (one of %s)", ErrInvalid, level, strings.Join(Levels, ", "))
	}
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	var got *VolumeGroup
	lookup := func() (bool, error) {
		g, err := c.FindVolumeGroup(ctx, name)
		if IsGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		var diffs []string
		if g.RAIDLevel != level {
			diffs = append(diffs, fmt.Sprintf("raid level %s, not %s", g.RAIDLevel, level))
		}
		if a, b := slices.Sorted(slices.Values(g.DriveIDs)), slices.Sorted(slices.Values(driveIDs)); !slices.Equal(a, b) {
			diffs = append(diffs, fmt.Sprintf("%d drives %v, not %v", len(a), a, b))
		}
		if len(diffs) > 0 {
			return false, &MismatchError{Kind: "volume group", Name: name, Array: c.cfg.Name, Diffs: diffs}
		}
		got = g
		return true, nil
	}
	body := map[string]any{"name": name, "raidLevel": level, "diskDriveIds": driveIDs, "eraseSecuredDrives": false}
	var doc poolDoc
	how, err := c.createOnce(ctx, sys+"/storage-pools", body, &doc, lookup)
	if err != nil {
		return nil, err
	}
	if how == made {
		// The answer is the new group; its members are the drives given.
		g := doc.group()
		g.DriveIDs = slices.Clone(driveIDs)
		if g.ID == "" {
			return nil, fmt.Errorf("%w: %s created volume group %q without an id", ErrServer, c.cfg.Name, name)
		}
		return &g, nil
	}
	got.Adopted = how == adopted
	return got, nil
}

// DeleteVolumeGroup removes a volume group; one already gone counts as
// deleted. With deleteVolumes false the array refuses a group that still
// holds volumes.
func (c *Client) DeleteVolumeGroup(ctx context.Context, id string, deleteVolumes bool) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	p := sys + "/storage-pools/" + url.PathEscape(id)
	if deleteVolumes {
		p += "?delete-volumes=true"
	}
	if err := c.do(ctx, http.MethodDelete, p, nil, nil); err != nil && !IsGone(err) {
		return err
	}
	return nil
}

// Volume is a standard (thick) volume (VolumeEx).
type Volume struct {
	ID            string
	Name          string
	VolumeGroupID string
	CapacityBytes int64
	SegmentBytes  int64
	RAIDLevel     string
	WWN           string // lower-case hex, as the host sees it after "naa."/"eui."
	Mapped        bool
	// Adopted: a create found it already there, as asked, and made nothing.
	Adopted bool
}

type volumeDoc struct {
	ID            string `json:"id"`
	Ref           string `json:"volumeRef"`
	Name          string `json:"name"`
	Label         string `json:"label"`
	VolumeGroupID string `json:"volumeGroupRef"`
	Capacity      num    `json:"capacity"`
	SegmentSize   int64  `json:"segmentSize"`
	RAIDLevel     string `json:"raidLevel"`
	WWN           string `json:"wwn"`
	WorldWideName string `json:"worldWideName"`
	Mapped        bool   `json:"mapped"`
}

func (d volumeDoc) volume() Volume {
	v := Volume{ID: d.ID, Name: d.Name, VolumeGroupID: d.VolumeGroupID, CapacityBytes: int64(d.Capacity),
		SegmentBytes: d.SegmentSize, RAIDLevel: d.RAIDLevel, Mapped: d.Mapped}
	if v.ID == "" {
		v.ID = d.Ref
	}
	if v.Name == "" {
		v.Name = d.Label
	}
	w := d.WWN
	if w == "" {
		w = d.WorldWideName
	}
	v.WWN = strings.ToLower(strings.NewReplacer(":", "", " ", "").Replace(w))
	return v
}

// Volumes lists the standard volumes.
func (c *Client) Volumes(ctx context.Context) ([]Volume, error) {
	docs, err := getAll[volumeDoc](ctx, c, "volumes")
	if err != nil {
		return nil, err
	}
	out := make([]Volume, len(docs))
	for i, d := range docs {
		out[i] = d.volume()
	}
	return out, nil
}

// FindVolume returns the volume with this name or id.
func (c *Client) FindVolume(ctx context.Context, nameOrID string) (*Volume, error) {
	vs, err := c.Volumes(ctx)
	if err != nil {
		return nil, err
	}
	return findNamed(c, vs, "volume", nameOrID)
}

// VolumeSpec is what CreateVolume asks for.
type VolumeSpec struct {
	Name          string
	VolumeGroupID string
	CapacityBytes int64 // required: SANtricity has no "the rest of the group"
	SegmentBytes  int64 // 0 leaves the array's default (128 KiB)
}

// CreateVolume makes a volume (VolumeCreateRequest: sizeUnit bytes, segSize
// in KiB) or adopts one of the same name, group, size and segment size.
func (c *Client) CreateVolume(ctx context.Context, s VolumeSpec) (*Volume, error) {
	if s.Name == "" || s.VolumeGroupID == "" || s.CapacityBytes <= 0 {
		return nil, fmt.Errorf("%w: a volume needs a name, a volume group and a capacity", ErrInvalid)
	}
	if s.SegmentBytes%1024 != 0 {
		return nil, fmt.Errorf("%w: segment size %d is not a whole number of KiB", ErrInvalid, s.SegmentBytes)
	}
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	var got *Volume
	lookup := func() (bool, error) {
		v, err := c.FindVolume(ctx, s.Name)
		if IsGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		var diffs []string
		if v.VolumeGroupID != s.VolumeGroupID {
			diffs = append(diffs, fmt.Sprintf("in volume group %s, not %s", v.VolumeGroupID, s.VolumeGroupID))
		}
		if v.CapacityBytes != s.CapacityBytes {
			diffs = append(diffs, fmt.Sprintf("capacity %d bytes, not %d", v.CapacityBytes, s.CapacityBytes))
		}
		if s.SegmentBytes > 0 && v.SegmentBytes != s.SegmentBytes {
			diffs = append(diffs, fmt.Sprintf("segment size %d, not %d", v.SegmentBytes, s.SegmentBytes))
		}
		if len(diffs) > 0 {
			return false, &MismatchError{Kind: "volume", Name: s.Name, Array: c.cfg.Name, Diffs: diffs}
		}
		got = v
		return true, nil
	}
	body := map[string]any{"name": s.Name, "poolId": s.VolumeGroupID, "sizeUnit": "bytes", "size": s.CapacityBytes,
		"dataAssuranceEnabled": false}
	if s.SegmentBytes > 0 {
		body["segSize"] = s.SegmentBytes / 1024
	}
	var doc volumeDoc
	how, err := c.createOnce(ctx, sys+"/volumes", body, &doc, lookup)
	if err != nil {
		return nil, err
	}
	if how == made {
		v := doc.volume()
		if v.ID == "" {
			return nil, fmt.Errorf("%w: %s created volume %q without an id", ErrServer, c.cfg.Name, s.Name)
		}
		return &v, nil
	}
	got.Adopted = how == adopted
	return got, nil
}

// ExpandVolume grows a volume to capacity bytes (VolumeExpansionRequest;
// expansionSize is the new total). The target is absolute, so after a lost
// answer the volume is read again rather than expanded twice.
func (c *Client) ExpandVolume(ctx context.Context, id string, capacity int64) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	body := map[string]any{"sizeUnit": "bytes", "expansionSize": capacity}
	err = c.do(ctx, http.MethodPost, sys+"/volumes/"+url.PathEscape(id)+"/expand", body, nil)
	if err != nil && errors.Is(err, ErrUncertain) {
		v, rerr := c.FindVolume(ctx, id)
		if rerr == nil && v.CapacityBytes >= capacity {
			return nil
		}
	}
	return err
}

// DeleteVolume removes a volume; one already gone counts as deleted.
func (c *Client) DeleteVolume(ctx context.Context, id string) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	if err := c.do(ctx, http.MethodDelete, sys+"/volumes/"+url.PathEscape(id), nil, nil); err != nil && !IsGone(err) {
		return err
	}
	return nil
}

// HostPort is one initiator of a host (HostSidePort / HostPortCreateRequest).
type HostPort struct {
	Type    string `json:"type"` // iscsi, fc, sas, ib, nvmeof
	Address string `json:"address"`
	Label   string `json:"label"`
}

// Host is a host object (HostEx).
type Host struct {
	ID            string
	Name          string
	HostTypeIndex int
	HostGroupID   string // "" when in no host group
	Ports         []HostPort
	// Adopted: a create found it already there, as asked, and made nothing.
	Adopted bool
}

type hostDoc struct {
	ID            string     `json:"id"`
	Ref           string     `json:"hostRef"`
	Name          string     `json:"name"`
	Label         string     `json:"label"`
	HostTypeIndex int        `json:"hostTypeIndex"`
	ClusterRef    string     `json:"clusterRef"`
	HostSidePorts []HostPort `json:"hostSidePorts"`
}

func (d hostDoc) host() Host {
	h := Host{ID: d.ID, Name: d.Name, HostTypeIndex: d.HostTypeIndex, HostGroupID: d.ClusterRef, Ports: d.HostSidePorts}
	if h.ID == "" {
		h.ID = d.Ref
	}
	if h.Name == "" {
		h.Name = d.Label
	}
	if h.HostGroupID == noRef {
		h.HostGroupID = ""
	}
	return h
}

// HostTypeLinuxDMMP is the host type index of "Linux DM-MP", the type NetApp's
// modules give Linux hosts using device-mapper multipath.
const HostTypeLinuxDMMP = 28

// Hosts lists the host objects.
func (c *Client) Hosts(ctx context.Context) ([]Host, error) {
	docs, err := getAll[hostDoc](ctx, c, "hosts")
	if err != nil {
		return nil, err
	}
	out := make([]Host, len(docs))
	for i, d := range docs {
		out[i] = d.host()
	}
	return out, nil
}

// FindHost returns the host with this name or id.
func (c *Client) FindHost(ctx context.Context, nameOrID string) (*Host, error) {
	hs, err := c.Hosts(ctx)
	if err != nil {
		return nil, err
	}
	return findNamed(c, hs, "host", nameOrID)
}

// CreateHost makes a host object with its initiator ports (HostCreateRequest),
// or adopts one of the same name, type and ports.
func (c *Client) CreateHost(ctx context.Context, name string, hostType int, ports []HostPort) (*Host, error) {
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	key := func(ps []HostPort) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = strings.ToLower(p.Type + ":" + p.Address)
		}
		slices.Sort(out)
		return out
	}
	var got *Host
	lookup := func() (bool, error) {
		h, err := c.FindHost(ctx, name)
		if IsGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		var diffs []string
		if h.HostTypeIndex != hostType {
			diffs = append(diffs, fmt.Sprintf("host type %d, not %d", h.HostTypeIndex, hostType))
		}
		if a, b := key(h.Ports), key(ports); !slices.Equal(a, b) {
			diffs = append(diffs, fmt.Sprintf("ports %v, not %v", a, b))
		}
		if len(diffs) > 0 {
			return false, &MismatchError{Kind: "host", Name: name, Array: c.cfg.Name, Diffs: diffs}
		}
		got = h
		return true, nil
	}
	reqPorts := make([]map[string]string, len(ports))
	for i, p := range ports {
		reqPorts[i] = map[string]string{"type": p.Type, "port": p.Address, "label": p.Label}
	}
	body := map[string]any{"name": name, "hostType": map[string]int{"index": hostType}, "ports": reqPorts}
	var doc hostDoc
	how, err := c.createOnce(ctx, sys+"/hosts", body, &doc, lookup)
	if err != nil {
		return nil, err
	}
	if how == made {
		h := doc.host()
		if h.ID == "" {
			return nil, fmt.Errorf("%w: %s created host %q without an id", ErrServer, c.cfg.Name, name)
		}
		return &h, nil
	}
	got.Adopted = how == adopted
	return got, nil
}

// DeleteHost removes a host object; one already gone counts as deleted.
func (c *Client) DeleteHost(ctx context.Context, id string) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	if err := c.do(ctx, http.MethodDelete, sys+"/hosts/"+url.PathEscape(id), nil, nil); err != nil && !IsGone(err) {
		return err
	}
	return nil
}

// HostGroup is a host group (cluster in SYMbol terms).
type HostGroup struct {
	ID      string
	Name    string
	HostIDs []string
	// Adopted: a create found it already there, as asked, and made nothing.
	Adopted bool
}

type groupDoc struct {
	ID         string `json:"id"`
	ClusterRef string `json:"clusterRef"`
	Name       string `json:"name"`
	Label      string `json:"label"`
}

func (d groupDoc) group() HostGroup {
	g := HostGroup{ID: d.ID, Name: d.Name}
	if g.ID == "" {
		g.ID = d.ClusterRef
	}
	if g.Name == "" {
		g.Name = d.Label
	}
	return g
}

// HostGroups lists host groups with their member hosts.
func (c *Client) HostGroups(ctx context.Context) ([]HostGroup, error) {
	docs, err := getAll[groupDoc](ctx, c, "host-groups")
	if err != nil {
		return nil, err
	}
	hosts, err := c.Hosts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]HostGroup, len(docs))
	for i, d := range docs {
		g := d.group()
		for _, h := range hosts {
			if h.HostGroupID == g.ID {
				g.HostIDs = append(g.HostIDs, h.ID)
			}
		}
		slices.Sort(g.HostIDs)
		out[i] = g
	}
	return out, nil
}

// FindHostGroup returns the host group with this name or id.
func (c *Client) FindHostGroup(ctx context.Context, nameOrID string) (*HostGroup, error) {
	gs, err := c.HostGroups(ctx)
	if err != nil {
		return nil, err
	}
	return findNamed(c, gs, "host group", nameOrID)
}

// CreateHostGroup makes a host group holding hostIDs (HostGroupCreateRequest),
// or adopts one of the same name and members.
func (c *Client) CreateHostGroup(ctx context.Context, name string, hostIDs []string) (*HostGroup, error) {
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	var got *HostGroup
	lookup := func() (bool, error) {
		g, err := c.FindHostGroup(ctx, name)
		if IsGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if want := slices.Sorted(slices.Values(hostIDs)); !slices.Equal(g.HostIDs, want) {
			return false, &MismatchError{Kind: "host group", Name: name, Array: c.cfg.Name,
				Diffs: []string{fmt.Sprintf("hosts %v, not %v", g.HostIDs, want)}}
		}
		got = g
		return true, nil
	}
	var doc groupDoc
	how, err := c.createOnce(ctx, sys+"/host-groups", map[string]any{"name": name, "hosts": hostIDs}, &doc, lookup)
	if err != nil {
		return nil, err
	}
	if how == made {
		g := doc.group()
		g.HostIDs = slices.Sorted(slices.Values(hostIDs))
		if g.ID == "" {
			return nil, fmt.Errorf("%w: %s created host group %q without an id", ErrServer, c.cfg.Name, name)
		}
		return &g, nil
	}
	got.Adopted = how == adopted
	return got, nil
}

// DeleteHostGroup removes a host group; one already gone counts as deleted.
func (c *Client) DeleteHostGroup(ctx context.Context, id string) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	if err := c.do(ctx, http.MethodDelete, sys+"/host-groups/"+url.PathEscape(id), nil, nil); err != nil && !IsGone(err) {
		return err
	}
	return nil
}

// Mapping is a LUN mapping (LUNMapping): a volume exposed to a host or a
// host group under a LUN.
type Mapping struct {
	ID       string `json:"id"`
	VolumeID string `json:"volumeRef"`
	TargetID string `json:"mapRef"` // host or host group id
	Type     string `json:"type"`   // host, cluster
	LUN      int    `json:"lun"`
	// Adopted: a create found it already there, as asked, and made nothing.
	Adopted bool `json:"-"`
}

// Mappings lists every LUN mapping.
func (c *Client) Mappings(ctx context.Context) ([]Mapping, error) {
	out, err := getAll[Mapping](ctx, c, "volume-mappings")
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Map exposes a volume to a host or host group under lun
// (VolumeMappingCreateRequest). A volume has one mapping on E-Series: an
// existing mapping to the same target and LUN is adopted, one elsewhere is
// refused with its details.
func (c *Client) Map(ctx context.Context, volumeID, targetID string, lun int) (*Mapping, error) {
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	var got *Mapping
	lookup := func() (bool, error) {
		ms, err := c.Mappings(ctx)
		if err != nil {
			return false, err
		}
		for _, m := range ms {
			if m.VolumeID != volumeID {
				continue
			}
			if m.TargetID == targetID && m.LUN == lun {
				got = &m
				return true, nil
			}
			return false, &MismatchError{Kind: "mapping of volume", Name: volumeID, Array: c.cfg.Name,
				Diffs: []string{fmt.Sprintf("mapped to %s as LUN %d, not to %s as LUN %d", m.TargetID, m.LUN, targetID, lun)}}
		}
		return false, nil
	}
	body := map[string]any{"mappableObjectId": volumeID, "targetId": targetID, "lun": lun}
	var doc Mapping
	how, err := c.createOnce(ctx, sys+"/volume-mappings", body, &doc, lookup)
	if err != nil {
		return nil, err
	}
	if how == made {
		if doc.ID == "" {
			return nil, fmt.Errorf("%w: %s created the mapping of %s without an id", ErrServer, c.cfg.Name, volumeID)
		}
		return &doc, nil
	}
	got.Adopted = how == adopted
	return got, nil
}

// Unmap removes a LUN mapping; one already gone counts as removed.
func (c *Client) Unmap(ctx context.Context, id string) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	if err := c.do(ctx, http.MethodDelete, sys+"/volume-mappings/"+url.PathEscape(id), nil, nil); err != nil && !IsGone(err) {
		return err
	}
	return nil
}

// SetHotSpares makes drives global hot spares (on) or plain drives (off),
// through the SYMbol calls assignSpecificDrivesAsHotSpares and
// deassignDrivesAsHotSpares (body DriveRefList). Drives already in the
// wanted state are left alone, so the call can be repeated.
func (c *Client) SetHotSpares(ctx context.Context, driveIDs []string, on bool) error {
	sys, err := c.sys(ctx)
	if err != nil {
		return err
	}
	drives, err := c.Drives(ctx)
	if err != nil {
		return err
	}
	byID := map[string]Drive{}
	for _, d := range drives {
		byID[d.ID] = d
	}
	var todo []string
	for _, id := range driveIDs {
		d, ok := byID[id]
		if !ok {
			return fmt.Errorf("%w: no drive %q on %s", ErrNotFound, id, c.cfg.Name)
		}
		if d.HotSpare != on {
			todo = append(todo, id)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	call := "deassignDrivesAsHotSpares"
	if on {
		call = "assignSpecificDrivesAsHotSpares"
	}
	err = c.do(ctx, http.MethodPost, sys+"/symbol/"+call+"?verboseErrorResponse=true", map[string]any{"driveRef": todo}, nil)
	if errors.Is(err, ErrUncertain) {
		// Assigning is a set operation: read back rather than guess.
		drives, rerr := c.Drives(ctx)
		if rerr != nil {
			return err
		}
		for _, d := range drives {
			if slices.Contains(todo, d.ID) && d.HotSpare != on {
				return err
			}
		}
		return nil
	}
	return err
}

// getAll reads one collection of the storage system (GET
// storage-systems/<id>/<coll>).
func getAll[D any](ctx context.Context, c *Client, coll string) ([]D, error) {
	sys, err := c.sys(ctx)
	if err != nil {
		return nil, err
	}
	var docs []D
	if err := c.do(ctx, http.MethodGet, sys+"/"+coll, nil, &docs); err != nil {
		return nil, err
	}
	return docs, nil
}

// named is an object found by its name or its id.
type named interface {
	ident() (name, id string)
}

func (v Volume) ident() (string, string)    { return v.Name, v.ID }
func (h Host) ident() (string, string)      { return h.Name, h.ID }
func (g HostGroup) ident() (string, string) { return g.Name, g.ID }

// findNamed returns the object of items whose name or id is nameOrID.
func findNamed[T named](c *Client, items []T, what, nameOrID string) (*T, error) {
	for i := range items {
		if name, id := items[i].ident(); name == nameOrID || id == nameOrID {
			return &items[i], nil
		}
	}
	return nil, fmt.Errorf("%w: no %s %q on %s", ErrNotFound, what, nameOrID, c.cfg.Name)
}
