package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const storagePath = "/redfish/v1/Storage"

// Drive is one physical drive of an array.
type Drive struct {
	ID            string
	URI           string
	ETag          string
	MediaType     string
	CapacityBytes int64
	Enclosure     int
	Drawer        int
	Slot          int
	HotspareType  string // None, Global, ...
	PoolURI       string // pool the drive belongs to, "" when free
	Model         string
	SerialNumber  string
	// Absent: an empty bay (Status.State Absent); lists leave it out.
	Absent bool
	// Warnings name members of the drive's document that could not be read.
	Warnings []string
}

// StoragePool is a Swordfish StoragePool (a disk group).
type StoragePool struct {
	ID             string
	URI            string
	Name           string
	RAIDLevel      string
	DriveIDs       []string
	AllocatedBytes int64 // usable capacity
	ConsumedBytes  int64
}

// Volume is a Swordfish Volume with its host mappings.
type Volume struct {
	ID                 string
	URI                string
	ETag               string
	Name               string
	PoolID             string
	CapacityBytes      int64
	StripSizeBytes     int64
	OptimumIOSizeBytes int64
	RAIDType           string
	WWN                string
	// Warnings name members of the volume's document that could not be read.
	Warnings []string
}

// Mapping exposes a volume to one host with a LUN.
type Mapping struct {
	URI  string
	Host string
	LUN  int64
}

// StorageURI is the URI of an array's Storage resource: a top-level
// Swordfish id (controller_a), or a full path for storage under a system
// (/redfish/v1/Systems/1/Storage/RAID).
func StorageURI(id string) string {
	if strings.HasPrefix(id, "/redfish/v1/") {
		return strings.TrimRight(id, "/")
	}
	return storagePath + "/" + id
}

// FindStorage returns id when given, else the only Storage of the
// endpoint: a Swordfish array's under /redfish/v1/Storage (returned as its
// plain id), or, when there is none there, a server's under
// Systems/<id>/Storage (returned as its full @odata.id).
func (e *Endpoint) FindStorage(ctx context.Context, id string) (string, error) {
	if id != "" {
		return id, nil
	}
	var coll struct {
		Members []schemasLink `json:"Members"`
	}
	var found []string
	_, err := e.Get(ctx, storagePath, &coll)
	switch {
	case err == nil:
		for _, m := range coll.Members {
			found = append(found, path.Base(m.ID))
		}
	case !IsGone(err):
		return "", err
	}
	looked := []string{storagePath}
	if len(found) == 0 {
		var systems struct {
			Members []schemasLink `json:"Members"`
		}
		if _, err := e.Get(ctx, systemsPath, &systems); err != nil && !IsGone(err) {
			return "", err
		}
		for _, s := range systems.Members {
			uri := strings.TrimRight(s.ID, "/") + "/Storage"
			looked = append(looked, uri)
			coll.Members = nil
			if _, err := e.Get(ctx, uri, &coll); err != nil {
				if IsGone(err) {
					continue
				}
				return "", err
			}
			for _, m := range coll.Members {
				found = append(found, strings.TrimRight(m.ID, "/"))
			}
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w: %s has no storage (looked at %s)", ErrNotFound, e.cfg.Name, strings.Join(looked, ", "))
	case 1:
		return found[0], nil
	}
	return "", &StorageChoiceError{Endpoint: e.cfg.Name, IDs: found}
}

// StorageChoiceError: FindStorage found several storage services and was
// given no id; IDs are the ones to choose from (as storage_id takes them).
type StorageChoiceError struct {
	Endpoint string
	IDs      []string
}

func (e *StorageChoiceError) Error() string {
	return fmt.Sprintf("%v: %s has %d storage services (%s); set storage_id to one of them", ErrInvalid, e.Endpoint, len(e.IDs), strings.Join(e.IDs, ", "))
}

func (e *StorageChoiceError) Unwrap() error { return ErrInvalid }

var (
	reDrawer    = regexp.MustCompile(`(?i)drawer\s*(\d+)`)
	reEnclosure = regexp.MustCompile(`(?i)enclosure\s*(\d+)`)
)

// driveDoc holds only the Drive members the provider uses. A member we do
// not declare is never decoded, so a valid field of a newer schema (an
// integer NVMe personality Identifier, say) cannot fail the read.
type driveDoc struct {
	ID            string `json:"Id"`
	ODataID       string `json:"@odata.id"`
	ETag          string `json:"@odata.etag"`
	MediaType     string `json:"MediaType"`
	CapacityBytes *int64 `json:"CapacityBytes"`
	HotspareType  string `json:"HotspareType"`
	Model         string `json:"Model"`
	SerialNumber  string `json:"SerialNumber"`
	Status        struct {
		State string `json:"State"`
	} `json:"Status"`
	Links struct {
		StoragePools []schemasLink `json:"StoragePools"`
	} `json:"Links"`
	PhysicalLocation struct {
		PartLocation struct {
			Ordinal      *int   `json:"LocationOrdinalValue"`
			ServiceLabel string `json:"ServiceLabel"`
		} `json:"PartLocation"`
	} `json:"PhysicalLocation"`
}

// decodeLenient decodes raw into v; a member of the wrong type is left at
// its zero value and named in the returned warning, the rest is decoded.
func decodeLenient(raw []byte, v any) (warning string, err error) {
	err = json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &te):
		return fmt.Sprintf("member %s holds a JSON %s where %s was expected; it was ignored", te.Field, te.Value, te.Type), nil
	}
	return "", fmt.Errorf("%w: %v", ErrServer, err)
}

// lastSegment is the last path segment of an @odata.id.
func lastSegment(uri string) string {
	uri = strings.TrimRight(uri, "/")
	return uri[strings.LastIndex(uri, "/")+1:]
}

func decodeDrive(raw json.RawMessage, etag string) (Drive, error) {
	var d driveDoc
	warn, err := decodeLenient(raw, &d)
	if err != nil {
		return Drive{}, fmt.Errorf("decoding drive: %w", err)
	}
	out := Drive{ID: cmpOr(d.ID, lastSegment(d.ODataID)), URI: d.ODataID, ETag: cmpOr(etag, d.ETag), MediaType: d.MediaType,
		CapacityBytes: derefInt64(d.CapacityBytes), HotspareType: cmpOr(d.HotspareType, "None"),
		Model: d.Model, SerialNumber: d.SerialNumber, Absent: d.Status.State == "Absent"}
	if warn != "" {
		out.Warnings = append(out.Warnings, warn)
	}
	label := d.PhysicalLocation.PartLocation.ServiceLabel
	if m := reDrawer.FindStringSubmatch(label); m != nil {
		out.Drawer, _ = strconv.Atoi(m[1])
	}
	if m := reEnclosure.FindStringSubmatch(label); m != nil {
		out.Enclosure, _ = strconv.Atoi(m[1])
	}
	if o := d.PhysicalLocation.PartLocation.Ordinal; o != nil {
		out.Slot = *o
	}
	if len(d.Links.StoragePools) > 0 {
		out.PoolURI = d.Links.StoragePools[0].ID
	}
	return out, nil
}

func derefInt64[T ~int64 | ~int](p *T) int64 {
	if p == nil {
		return 0
	}
	return int64(*p)
}

// expandMembers reads a collection (or an array of links in a resource)
// with $expand when the service offers it, else member by member.
func (e *Endpoint) expandMembers(ctx context.Context, uri, member string) ([]json.RawMessage, error) {
	var doc map[string]json.RawMessage
	if _, err := e.Get(ctx, uri+"?$expand=.($levels=1)", &doc); err != nil {
		var he *HTTPError
		if !asHTTP(err, &he) || (he.Status != 400 && he.Status != 501) {
			return nil, err
		}
		if _, err := e.Get(ctx, uri, &doc); err != nil {
			return nil, err
		}
	}
	var items []json.RawMessage
	if raw, ok := doc[member]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%w: decoding %s of %s: %v", ErrServer, member, uri, err)
		}
	}
	for i, it := range items {
		l, linkOnly := linkOf(it)
		if !linkOnly {
			continue // already expanded
		}
		resp, err := e.Get(ctx, l.ID, nil)
		if err != nil {
			return nil, err
		}
		items[i] = resp.Body
	}
	return items, nil
}

// linkOf reads a collection member that is only a link ({"@odata.id":
// ...}); ok is false for anything more (an expanded member). The decoder
// stops at the first other member, so an expanded drive document is not
// parsed whole just to learn that.
func linkOf(raw json.RawMessage) (l schemasLink, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return l, dec.Decode(&l) == nil
}

// Drives lists the drives of an array in bay order; empty bays (Status
// Absent) are left out.
func (e *Endpoint) Drives(ctx context.Context, storageID string) ([]Drive, error) {
	items, err := e.expandMembers(ctx, StorageURI(storageID), "Drives")
	if err != nil {
		return nil, err
	}
	return drivesOf(items)
}

func drivesOf(items []json.RawMessage) ([]Drive, error) {
	out := make([]Drive, 0, len(items))
	for _, it := range items {
		d, err := decodeDrive(it, "")
		if err != nil {
			return nil, err
		}
		if !d.Absent {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Drive) int {
		if a.Enclosure != b.Enclosure {
			return a.Enclosure - b.Enclosure
		}
		return a.Slot - b.Slot
	})
	return out, nil
}

// DriveURI is the URI of a drive of an array.
func DriveURI(storageID, driveID string) string { return StorageURI(storageID) + "/Drives/" + driveID }

// GetDrive reads one drive.
func (e *Endpoint) GetDrive(ctx context.Context, storageID, driveID string) (*Drive, error) {
	resp, err := e.Get(ctx, DriveURI(storageID, driveID), nil)
	if err != nil {
		return nil, err
	}
	d, err := decodeDrive(resp.Body, resp.ETag())
	return &d, err
}

// SetHotspare makes a drive a global spare ("Global") or a plain drive ("None").
func (e *Endpoint) SetHotspare(ctx context.Context, d *Drive, kind string) error {
	if d.HotspareType == kind {
		return nil
	}
	_, err := e.Patch(ctx, d.URI, d.ETag, map[string]string{"HotspareType": kind})
	return err
}

// PoolsURI is the pool collection of an array.
func PoolsURI(storageID string) string { return StorageURI(storageID) + "/StoragePools" }

type poolDoc struct {
	ID                 string   `json:"Id"`
	ODataID            string   `json:"@odata.id"`
	Name               string   `json:"Name"`
	SupportedRAIDTypes []string `json:"SupportedRAIDTypes"`
	Capacity           struct {
		Data struct {
			AllocatedBytes int64 `json:"AllocatedBytes"`
			ConsumedBytes  int64 `json:"ConsumedBytes"`
		} `json:"Data"`
	} `json:"Capacity"`
	CapacitySources []struct {
		ProvidingDrives json.RawMessage `json:"ProvidingDrives"`
	} `json:"CapacitySources"`
}

// GetPool reads a pool and its member drives.
func (e *Endpoint) GetPool(ctx context.Context, uri string) (*StoragePool, error) {
	var doc poolDoc
	if _, err := e.Get(ctx, uri, &doc); err != nil {
		return nil, err
	}
	return e.poolFromDoc(ctx, doc)
}

func (e *Endpoint) poolFromDoc(ctx context.Context, doc poolDoc) (*StoragePool, error) {
	p := &StoragePool{ID: doc.ID, URI: doc.ODataID, Name: doc.Name, AllocatedBytes: doc.Capacity.Data.AllocatedBytes,
		ConsumedBytes: doc.Capacity.Data.ConsumedBytes}
	if len(doc.SupportedRAIDTypes) > 0 {
		p.RAIDLevel = doc.SupportedRAIDTypes[0]
	}
	for _, cs := range doc.CapacitySources {
		// ProvidingDrives is a collection link (Swordfish) or a plain list.
		var list []schemasLink
		if json.Unmarshal(cs.ProvidingDrives, &list) != nil {
			var coll struct {
				ID      string        `json:"@odata.id"`
				Members []schemasLink `json:"Members"`
			}
			_ = json.Unmarshal(cs.ProvidingDrives, &coll)
			list = coll.Members
			if len(list) == 0 && coll.ID != "" {
				if _, err := e.Get(ctx, coll.ID, &coll); err != nil {
					return nil, err
				}
				list = coll.Members
			}
		}
		for _, l := range list {
			p.DriveIDs = append(p.DriveIDs, path.Base(l.ID))
		}
	}
	return p, nil
}

// FindPool returns the pool called name (by Name or Id), or ErrNotFound.
func (e *Endpoint) FindPool(ctx context.Context, storageID, name string) (*StoragePool, error) {
	items, err := e.expandMembers(ctx, PoolsURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		var doc poolDoc
		if err := json.Unmarshal(it, &doc); err != nil {
			return nil, fmt.Errorf("%w: decoding pool: %v", ErrServer, err)
		}
		if doc.Name == name || doc.ID == name {
			return e.poolFromDoc(ctx, doc)
		}
	}
	return nil, fmt.Errorf("%w: no disk group %q on %s", ErrNotFound, name, e.cfg.Name)
}

// Pools lists the storage's pools with their drives.
func (e *Endpoint) Pools(ctx context.Context, storageID string) ([]*StoragePool, error) {
	items, err := e.expandMembers(ctx, PoolsURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	out := make([]*StoragePool, 0, len(items))
	for _, it := range items {
		var doc poolDoc
		if err := json.Unmarshal(it, &doc); err != nil {
			return nil, fmt.Errorf("%w: decoding pool: %v", ErrServer, err)
		}
		p, err := e.poolFromDoc(ctx, doc)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// createOnce POSTs body to collection without ever re-sending it blindly:
// when the answer is lost or the service is busy, it waits, looks the object
// up by name, and only POSTs again if it is not there.
func (e *Endpoint) createOnce(ctx context.Context, collection string, body any, lookup func() (string, error)) (string, error) {
	for attempt := 1; ; attempt++ {
		resp, err := e.Post(ctx, collection, body)
		if err == nil {
			if loc := sessionLocation(resp); loc != "" {
				return loc, nil
			}
			return lookup()
		}
		var he *HTTPError
		retryAfter := ""
		switch {
		case errors.Is(err, ErrUncertain):
		case asHTTP(err, &he) && transientStatus(he.Status):
			retryAfter = he.RetryAfter
		default:
			return "", err
		}
		if attempt >= e.cfg.Retry.MaxAttempts {
			return "", err
		}
		if werr := e.wait(ctx, attempt, retryAfter); werr != nil {
			return "", werr
		}
		uri, lerr := lookup()
		switch {
		case lerr == nil:
			return uri, nil // the earlier POST did create it
		case !errors.Is(lerr, ErrNotFound):
			return "", lerr
		}
	}
}

// CreatePool creates a disk group from drives, or returns the one a lost
// earlier attempt created.
func (e *Endpoint) CreatePool(ctx context.Context, storageID, name, level string, driveIDs []string) (*StoragePool, error) {
	drives := make([]map[string]string, len(driveIDs))
	for i, id := range driveIDs {
		drives[i] = map[string]string{"@odata.id": DriveURI(storageID, id)}
	}
	body := map[string]any{
		"Name":               name,
		"SupportedRAIDTypes": []string{level},
		"CapacitySources":    []any{map[string]any{"ProvidingDrives": drives}},
	}
	uri, err := e.createOnce(ctx, PoolsURI(storageID), body, func() (string, error) {
		p, err := e.FindPool(ctx, storageID, name)
		if err != nil {
			return "", err
		}
		return p.URI, nil
	})
	if err != nil {
		return nil, err
	}
	return e.GetPool(ctx, uri)
}

// DeleteURI deletes an object; one already gone counts as deleted.
func (e *Endpoint) DeleteURI(ctx context.Context, uri string) error {
	_, err := e.Delete(ctx, uri)
	if IsGone(err) {
		return nil
	}
	return err
}

// VolumesURI is the volume collection of an array.
func VolumesURI(storageID string) string { return StorageURI(storageID) + "/Volumes" }

// volumeDoc holds only the Volume members the provider uses.
type volumeDoc struct {
	ID                 string `json:"Id"`
	ODataID            string `json:"@odata.id"`
	ETag               string `json:"@odata.etag"`
	Name               string `json:"Name"`
	CapacityBytes      *int64 `json:"CapacityBytes"`
	StripSizeBytes     *int64 `json:"StripSizeBytes"`
	OptimumIOSizeBytes *int64 `json:"OptimumIOSizeBytes"`
	RAIDType           string `json:"RAIDType"`
	Identifiers        []struct {
		DurableName       string `json:"DurableName"`
		DurableNameFormat string `json:"DurableNameFormat"`
	} `json:"Identifiers"`
	Links struct {
		Pool schemasLink `json:"ProvidingStoragePool"`
	} `json:"Links"`
}

func decodeVolume(raw []byte, etag string) (*Volume, error) {
	var v volumeDoc
	warn, err := decodeLenient(raw, &v)
	if err != nil {
		return nil, fmt.Errorf("decoding volume: %w", err)
	}
	out := &Volume{ID: cmpOr(v.ID, lastSegment(v.ODataID)), URI: v.ODataID, ETag: cmpOr(etag, v.ETag), Name: v.Name,
		CapacityBytes: derefInt64(v.CapacityBytes), StripSizeBytes: derefInt64(v.StripSizeBytes),
		OptimumIOSizeBytes: derefInt64(v.OptimumIOSizeBytes), RAIDType: v.RAIDType}
	if v.Links.Pool.ID != "" {
		out.PoolID = lastSegment(v.Links.Pool.ID)
	}
	if warn != "" {
		out.Warnings = append(out.Warnings, warn)
	}
	for _, id := range v.Identifiers {
		if id.DurableNameFormat == "NAA" || out.WWN == "" {
			out.WWN = strings.ToLower(id.DurableName)
		}
	}
	return out, nil
}

// GetVolume reads a volume.
func (e *Endpoint) GetVolume(ctx context.Context, uri string) (*Volume, error) {
	resp, err := e.Get(ctx, uri, nil)
	if err != nil {
		return nil, err
	}
	return decodeVolume(resp.Body, resp.ETag())
}

// FindVolume returns the volume called name, or ErrNotFound.
func (e *Endpoint) FindVolume(ctx context.Context, storageID, name string) (*Volume, error) {
	items, err := e.expandMembers(ctx, VolumesURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		v, err := decodeVolume(it, "")
		if err != nil {
			return nil, err
		}
		if v.Name == name || v.ID == name {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%w: no volume %q on %s", ErrNotFound, name, e.cfg.Name)
}

// Volumes lists the storage's volumes.
func (e *Endpoint) Volumes(ctx context.Context, storageID string) ([]*Volume, error) {
	items, err := e.expandMembers(ctx, VolumesURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	out := make([]*Volume, 0, len(items))
	for _, it := range items {
		v, err := decodeVolume(it, "")
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CreateVolume creates a volume in a pool: capacity bytes, or every byte
// left when capacity is 0; strip 0 leaves the array's default.
func (e *Endpoint) CreateVolume(ctx context.Context, storageID, poolID, name string, capacity, strip int64) (*Volume, error) {
	body := map[string]any{
		"Name":            name,
		"CapacitySources": []any{map[string]any{"ProvidingPools": []any{map[string]string{"@odata.id": PoolsURI(storageID) + "/" + poolID}}}},
	}
	if capacity > 0 {
		body["CapacityBytes"] = capacity
	}
	if strip > 0 {
		body["StripSizeBytes"] = strip
	}
	uri, err := e.createOnce(ctx, VolumesURI(storageID), body, func() (string, error) {
		v, err := e.FindVolume(ctx, storageID, name)
		if err != nil {
			return "", err
		}
		return v.URI, nil
	})
	if err != nil {
		return nil, err
	}
	return e.GetVolume(ctx, uri)
}

// ResizeVolume grows a volume in place (PATCH with If-Match).
func (e *Endpoint) ResizeVolume(ctx context.Context, v *Volume, capacity int64) error {
	_, err := e.Patch(ctx, v.URI, v.ETag, map[string]any{"CapacityBytes": capacity})
	return err
}

// StorageGroupsURI is where host mappings live.
func StorageGroupsURI(storageID string) string { return StorageURI(storageID) + "/StorageGroups" }

// Mappings lists the hosts a volume is mapped to, from the array's
// StorageGroups.
func (e *Endpoint) Mappings(ctx context.Context, storageID, volumeURI string) ([]Mapping, error) {
	e.cache.invalidate()
	return e.cachedMappings(ctx, storageID, volumeURI)
}

func (e *Endpoint) cachedMappings(ctx context.Context, storageID, volumeURI string) ([]Mapping, error) {
	items, err := e.cachedMembers(ctx, StorageGroupsURI(storageID), "Members")
	if err != nil {
		if IsGone(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []Mapping
	for _, it := range items {
		var g struct {
			ID            string `json:"@odata.id"`
			MappedVolumes []struct {
				Volume schemasLink `json:"Volume"`
				LUN    string      `json:"LogicalUnitNumber"`
			} `json:"MappedVolumes"`
			// Top level in StorageGroup v1.6+, under Links before.
			Groups []schemasLink `json:"ClientEndpointGroups"`
			Links  struct {
				Groups []schemasLink `json:"ClientEndpointGroups"`
			} `json:"Links"`
		}
		if err := json.Unmarshal(it, &g); err != nil {
			return nil, fmt.Errorf("%w: decoding storage group: %v", ErrServer, err)
		}
		for _, mv := range g.MappedVolumes {
			if mv.Volume.ID != volumeURI {
				continue
			}
			lun, _ := strconv.ParseInt(mv.LUN, 10, 64)
			for _, h := range append(g.Groups, g.Links.Groups...) {
				out = append(out, Mapping{URI: g.ID, Host: path.Base(h.ID), LUN: lun})
			}
		}
	}
	slices.SortFunc(out, func(a, b Mapping) int { return strings.Compare(a.Host, b.Host) })
	return out, nil
}

// mappingName names the StorageGroup of one volume and host, so a lost
// answer can be recovered by looking it up.
func mappingName(volumeID, host string) string {
	n := volumeID + "_" + host
	if len(n) > 32 {
		n = n[:32]
	}
	return n
}

// ErrExists: an object with the name a create uses is already on the array
// and is not the one the create asked for.
var ErrExists = errors.New("already exists")

// StorageGroup is a host mapping group as the array lists it.
type StorageGroup struct {
	URI, Name string
	Volumes   []string // volume URIs
	LUNs      []int64  // LUN of each volume
	Hosts     []string // host (endpoint group) ids
}

// FindStorageGroup returns the mapping group called name (by Name or Id),
// or ErrNotFound.
func (e *Endpoint) FindStorageGroup(ctx context.Context, storageID, name string) (*StorageGroup, error) {
	items, err := e.expandMembers(ctx, StorageGroupsURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		var g struct {
			ID            string `json:"@odata.id"`
			ShortID       string `json:"Id"`
			Name          string `json:"Name"`
			MappedVolumes []struct {
				Volume schemasLink `json:"Volume"`
				LUN    string      `json:"LogicalUnitNumber"`
			} `json:"MappedVolumes"`
			Groups []schemasLink `json:"ClientEndpointGroups"`
			Links  struct {
				Groups []schemasLink `json:"ClientEndpointGroups"`
			} `json:"Links"`
		}
		if err := json.Unmarshal(it, &g); err != nil {
			return nil, fmt.Errorf("%w: decoding storage group: %v", ErrServer, err)
		}
		if g.Name != name && g.ShortID != name {
			continue
		}
		out := &StorageGroup{URI: g.ID, Name: cmpOr(g.Name, g.ShortID)}
		for _, mv := range g.MappedVolumes {
			lun, _ := strconv.ParseInt(mv.LUN, 10, 64)
			out.Volumes = append(out.Volumes, mv.Volume.ID)
			out.LUNs = append(out.LUNs, lun)
		}
		for _, h := range append(g.Groups, g.Links.Groups...) {
			out.Hosts = append(out.Hosts, path.Base(h.ID))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: no storage group %q on %s", ErrNotFound, name, e.cfg.Name)
}

// Map exposes a volume to host with lun (one StorageGroup per host). A
// group of the same name left by an earlier run is taken over when it maps
// exactly this volume to this host with this LUN; any other is ErrExists.
func (e *Endpoint) Map(ctx context.Context, storageID string, v *Volume, host string, lun int64) error {
	name := mappingName(v.ID, host)
	body := map[string]any{
		"Name":          name,
		"MappedVolumes": []any{map[string]any{"Volume": map[string]string{"@odata.id": v.URI}, "LogicalUnitNumber": strconv.FormatInt(lun, 10), "AccessCapability": "ReadWrite"}},
		"Links":         map[string]any{"ClientEndpointGroups": []any{map[string]string{"@odata.id": StorageURI(storageID) + "/EndpointGroups/" + host}}},
	}
	_, err := e.createOnce(ctx, StorageGroupsURI(storageID), body, func() (string, error) {
		ms, err := e.Mappings(ctx, storageID, v.URI)
		if err != nil {
			return "", err
		}
		for _, m := range ms {
			if m.Host == host && m.LUN == lun {
				return m.URI, nil
			}
		}
		return "", fmt.Errorf("%w: mapping of %s to %s", ErrNotFound, v.Name, host)
	})
	if err == nil || !errors.Is(err, ErrConflict) {
		return err
	}
	g, ferr := e.FindStorageGroup(ctx, storageID, name)
	if ferr != nil {
		return err // no group of that name: the conflict is something else (a LUN in use)
	}
	if len(g.Volumes) == 1 && g.Volumes[0] == v.URI && g.LUNs[0] == lun && slices.Equal(g.Hosts, []string{host}) {
		return nil
	}
	return fmt.Errorf("%w: storage group %s (%s) maps %v as LUNs %v to hosts %v, not %s as LUN %d to %s: %w",
		ErrExists, g.Name, g.URI, g.Volumes, g.LUNs, g.Hosts, v.URI, lun, host, err)
}

// CachedDrives lists the drives of an array from the short-lived collection
// cache (one expanded GET per array for a whole plan).
func (e *Endpoint) CachedDrives(ctx context.Context, storageID string) ([]Drive, error) {
	ent, err := e.cachedEntry(ctx, StorageURI(storageID), "Drives")
	if err != nil {
		return nil, err
	}
	ent.drivesOnce.Do(func() { ent.drives, ent.drivesErr = drivesOf(ent.items) })
	if ent.drivesErr != nil {
		return nil, ent.drivesErr
	}
	// Callers may reorder or edit their copy; Warnings are only read.
	return slices.Clone(ent.drives), nil
}

// ReadPool reads a pool by id or name through the collection cache; its
// drives come from the drives' own links, so no per-pool request is made.
func (e *Endpoint) ReadPool(ctx context.Context, storageID, idOrName string) (*StoragePool, error) {
	items, err := e.cachedMembers(ctx, PoolsURI(storageID), "Members")
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		var doc poolDoc
		if err := json.Unmarshal(it, &doc); err != nil {
			return nil, fmt.Errorf("%w: decoding pool: %v", ErrServer, err)
		}
		if doc.ID != idOrName && doc.Name != idOrName {
			continue
		}
		doc.CapacitySources = nil
		p, err := e.poolFromDoc(ctx, doc)
		if err != nil {
			return nil, err
		}
		drives, err := e.CachedDrives(ctx, storageID)
		if err != nil {
			return nil, err
		}
		for _, d := range drives {
			if d.PoolURI == p.URI {
				p.DriveIDs = append(p.DriveIDs, d.ID)
			}
		}
		return p, nil
	}
	return nil, fmt.Errorf("%w: no disk group %q on %s", ErrNotFound, idOrName, e.cfg.Name)
}

// ReadVolume reads a volume by id or name and its mappings through the
// collection cache.
func (e *Endpoint) ReadVolume(ctx context.Context, storageID, idOrName string) (*Volume, []Mapping, error) {
	items, err := e.cachedMembers(ctx, VolumesURI(storageID), "Members")
	if err != nil {
		return nil, nil, err
	}
	for _, it := range items {
		v, err := decodeVolume(it, "")
		if err != nil {
			return nil, nil, err
		}
		if v.ID != idOrName && v.Name != idOrName {
			continue
		}
		ms, err := e.cachedMappings(ctx, storageID, v.URI)
		return v, ms, err
	}
	return nil, nil, fmt.Errorf("%w: no volume %q on %s", ErrNotFound, idOrName, e.cfg.Name)
}

// Unmap removes the mapping group of a volume and host.
func (e *Endpoint) Unmap(ctx context.Context, m Mapping) error { return e.DeleteURI(ctx, m.URI) }

// Hosts lists the host (initiator) groups an array can map volumes to, from
// its EndpointGroups collection; nil when the array publishes none.
func (e *Endpoint) Hosts(ctx context.Context, storageID string) ([]string, error) {
	items, err := e.cachedMembers(ctx, StorageURI(storageID)+"/EndpointGroups", "Members")
	if IsGone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		var g struct {
			ID string `json:"@odata.id"`
		}
		if json.Unmarshal(it, &g) == nil && g.ID != "" {
			out = append(out, path.Base(g.ID))
		}
	}
	slices.Sort(out)
	return out, nil
}

// LUNsInUse maps host to LUN to the volume URI using it, from the array's
// mappings (read through the collection cache).
func (e *Endpoint) LUNsInUse(ctx context.Context, storageID string) (map[string]map[int64]string, error) {
	items, err := e.cachedMembers(ctx, StorageGroupsURI(storageID), "Members")
	if IsGone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]map[int64]string{}
	for _, it := range items {
		var g struct {
			MappedVolumes []struct {
				Volume schemasLink `json:"Volume"`
				LUN    string      `json:"LogicalUnitNumber"`
			} `json:"MappedVolumes"`
			Groups []schemasLink `json:"ClientEndpointGroups"`
			Links  struct {
				Groups []schemasLink `json:"ClientEndpointGroups"`
			} `json:"Links"`
		}
		if err := json.Unmarshal(it, &g); err != nil {
			return nil, fmt.Errorf("%w: decoding storage group: %v", ErrServer, err)
		}
		for _, mv := range g.MappedVolumes {
			lun, err := strconv.ParseInt(mv.LUN, 10, 64)
			if err != nil {
				continue
			}
			for _, h := range append(g.Groups, g.Links.Groups...) {
				host := path.Base(h.ID)
				if out[host] == nil {
					out[host] = map[int64]string{}
				}
				out[host][lun] = mv.Volume.ID
			}
		}
	}
	return out, nil
}
