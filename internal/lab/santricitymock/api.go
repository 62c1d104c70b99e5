package santricitymock

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

const (
	apiPrefix     = "/devmgr/v2"
	sysPrefix     = apiPrefix + "/storage-systems/1"
	controlPrefix = "/_mock"
)

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("santricitymock: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// apiError is a refusal in SANtricity's error shape.
type apiError struct {
	status   int
	message  string
	retcode  string
	codeType string // symbol, devicemgrerror, systemerror
	headers  map[string]string
}

func (e *apiError) Error() string { return e.retcode + ": " + e.message }

func symErr(retcode, format string, args ...any) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, retcode: retcode, codeType: "symbol", message: fmt.Sprintf(format, args...)}
}

func mgrErr(status int, retcode, format string, args ...any) *apiError {
	return &apiError{status: status, retcode: retcode, codeType: "devicemgrerror", message: fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	for k, v := range e.headers {
		w.Header().Set(k, v)
	}
	writeJSON(w, e.status, map[string]any{"errorMessage": e.message, "developerMessage": nil, "localizedMessage": e.message,
		"retcode": e.retcode, "codeType": e.codeType, "invalidFieldsIfKnown": nil})
}

func norm(p string) string {
	for len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

// ServeHTTP serves the API and the control API.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := norm(r.URL.Path)
	if path == controlPrefix || strings.HasPrefix(path, controlPrefix+"/") {
		s.serveControl(w, r, strings.TrimPrefix(path, controlPrefix))
		return
	}
	if f := s.countAndFault(r.Method, path); f != nil && s.applyFault(w, r, f) {
		return
	}
	status, body, setCookie, err := s.route(r, path)
	// Cable before answering: when the client hears "mapped", the volume
	// is already on the nodes.
	s.flushEvents()
	if err != nil {
		writeError(w, err)
		return
	}
	if setCookie != "" {
		http.SetCookie(w, &http.Cookie{Name: "JSESSIONID", Value: setCookie, Path: "/", HttpOnly: true, Secure: r.TLS != nil})
	}
	if body == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

// authenticated accepts a live session cookie or basic credentials.
func (s *Service) authenticated(r *http.Request) bool {
	if c, err := r.Cookie("JSESSIONID"); err == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		last, ok := s.sessions[c.Value]
		if ok && s.opts.Now().Sub(last) < s.opts.SessionIdle {
			s.sessions[c.Value] = s.opts.Now()
			return true
		}
		delete(s.sessions, c.Value)
		return false
	}
	u, p, ok := r.BasicAuth()
	return ok && s.checkPassword(u, p)
}

func (s *Service) checkPassword(u, p string) bool {
	return subtle.ConstantTimeCompare([]byte(u), []byte(s.opts.Username)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(s.opts.Password)) == 1
}

func decode(r *http.Request, v any) *apiError {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return mgrErr(http.StatusBadRequest, "invalidRequest", "The request body could not be read: %v", err)
	}
	return nil
}

// route dispatches one API request: status, body, a new session cookie.
func (s *Service) route(r *http.Request, path string) (int, any, string, *apiError) {
	switch {
	case path == "/devmgr/utils/about" && r.Method == http.MethodGet:
		return http.StatusOK, map[string]any{"runningAsProxy": false, "version": "05.40.0000.0001", "systemId": s.systemWWN(),
			"controllerPosition": 1, "startTimestamp": "2026-01-01T00:00:00Z"}, "", nil
	case path == "/devmgr/utils/login" && r.Method == http.MethodPost:
		return s.login(r)
	case path == "/devmgr/utils/login" && r.Method == http.MethodDelete:
		if c, err := r.Cookie("JSESSIONID"); err == nil {
			s.mu.Lock()
			delete(s.sessions, c.Value)
			s.mu.Unlock()
		}
		return http.StatusNoContent, nil, "", nil
	}
	if !strings.HasPrefix(path, apiPrefix+"/") {
		return 0, nil, "", mgrErr(http.StatusNotFound, "notFound", "No resource at %s", path)
	}
	if !s.authenticated(r) {
		return 0, nil, "", mgrErr(http.StatusUnauthorized, "unauthorized", "Authentication is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == apiPrefix+"/storage-systems" && r.Method == http.MethodGet {
		return http.StatusOK, []any{s.systemDoc()}, "", nil
	}
	rest, ok := strings.CutPrefix(path, apiPrefix+"/storage-systems/")
	if !ok {
		return 0, nil, "", mgrErr(http.StatusNotFound, "notFound", "No resource at %s", path)
	}
	sysID, rest, _ := strings.Cut(rest, "/")
	if sysID != "1" && !strings.EqualFold(sysID, s.systemWWN()) {
		return 0, nil, "", mgrErr(http.StatusNotFound, "storageDeviceNotFound", "The storage system %s is not known", sysID)
	}
	parts := strings.Split(rest, "/")
	if rest == "" {
		parts = nil
	}
	st, body, err := s.handle(r, parts)
	return st, body, "", err
}

func (s *Service) login(r *http.Request) (int, any, string, *apiError) {
	var in struct {
		UserID   string `json:"userId"`
		Password string `json:"password"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, "", err
	}
	if !s.checkPassword(in.UserID, in.Password) {
		return 0, nil, "", mgrErr(http.StatusUnauthorized, "authenticationFailed", "The user name or password is not valid")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	for k, last := range s.sessions {
		if now.Sub(last) >= s.opts.SessionIdle {
			delete(s.sessions, k)
		}
	}
	if len(s.sessions) >= s.opts.SessionLimit {
		return 0, nil, "", mgrErr(http.StatusUnprocessableEntity, "sessionLimitExceeded", "The maximum of %d sessions is in use", s.opts.SessionLimit)
	}
	tok := strings.ToUpper(randomHex(16))
	s.sessions[tok] = now
	s.logins++
	return http.StatusOK, map[string]any{"userId": in.UserID, "roles": []string{"storage.admin", "security.admin", "support.admin", "storage.monitor"},
		"sessionInactivePeriod": int(s.opts.SessionIdle.Seconds())}, tok, nil
}

func (s *Service) systemWWN() string {
	return strings.ToUpper("600a0980" + hash(s.spec.Name, "system")[:24])
}

func (s *Service) systemDoc() map[string]any {
	var free, used, unconf int64
	for _, p := range s.pools {
		used += p.used()
		free += p.total - p.used()
	}
	for _, d := range s.drives {
		if d.vg == nil && !d.hotSpare {
			unconf += d.bytes
		}
	}
	spares := 0
	for _, d := range s.drives {
		if d.hotSpare {
			spares++
		}
	}
	return map[string]any{"id": "1", "name": s.spec.Name, "wwn": s.systemWWN(), "model": strings.TrimPrefix(s.spec.Model, "EF"),
		"status": "optimal", "driveCount": len(s.drives), "trayCount": len(s.spec.Trays), "fwVersion": "08.80.00.00",
		"appVersion": "08.80.00.00", "hotSpareCount": spares, "usedPoolSpace": strconv.FormatInt(used, 10),
		"freePoolSpace": strconv.FormatInt(free, 10), "unconfiguredSpace": strconv.FormatInt(unconf, 10),
		"chassisSerialNumber": strings.ToUpper(hash(s.spec.Name, "chassis")[:12])}
}

// handle serves storage-systems/1/<parts...>; mu held.
func (s *Service) handle(r *http.Request, parts []string) (int, any, *apiError) {
	m := r.Method
	n := len(parts)
	head := ""
	if n > 0 {
		head = parts[0]
	}
	switch {
	case n == 0 && m == http.MethodGet:
		return http.StatusOK, s.systemDoc(), nil
	case head == "hardware-inventory" && n == 1 && m == http.MethodGet:
		trays := []any{}
		for _, t := range s.spec.Trays {
			trays = append(trays, map[string]any{"trayRef": s.trays[t.ID], "trayId": t.ID, "type": "NVMe shelf",
				"driveLayout": map[string]any{"numRows": 1, "numColumns": t.Slots}})
		}
		drives := make([]any, len(s.drives))
		for i, d := range s.drives {
			drives[i] = s.driveDoc(d)
		}
		return http.StatusOK, map[string]any{"trays": trays, "drives": drives}, nil
	case head == "drives" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.drives))
		for i, d := range s.drives {
			out[i] = s.driveDoc(d)
		}
		return http.StatusOK, out, nil
	case head == "drives" && n == 2 && m == http.MethodGet:
		for _, d := range s.drives {
			if d.ref == parts[1] {
				return http.StatusOK, s.driveDoc(d), nil
			}
		}
		return 0, nil, mgrErr(http.StatusNotFound, "driveNotExist", "Drive %s does not exist", parts[1])
	case head == "storage-pools" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.pools))
		for i, p := range s.pools {
			out[i] = s.poolDoc(p)
		}
		return http.StatusOK, out, nil
	case head == "storage-pools" && n == 1 && m == http.MethodPost:
		return s.createPool(r)
	case head == "storage-pools" && n == 2 && m == http.MethodGet:
		p := s.findPool(parts[1])
		if p == nil {
			return 0, nil, mgrErr(http.StatusNotFound, "volumeGroupNotExist", "Storage pool %s does not exist", parts[1])
		}
		return http.StatusOK, s.poolDoc(p), nil
	case head == "storage-pools" && n == 2 && m == http.MethodDelete:
		return s.deletePool(parts[1], r.URL.Query().Get("delete-volumes") == "true")
	case head == "volumes" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.volumes))
		for i, v := range s.volumes {
			out[i] = s.volumeDoc(v)
		}
		return http.StatusOK, out, nil
	case head == "volumes" && n == 1 && m == http.MethodPost:
		return s.createVolume(r)
	case head == "volumes" && n == 2 && m == http.MethodGet:
		v := s.findVolume(parts[1])
		if v == nil {
			return 0, nil, mgrErr(http.StatusNotFound, "volumeNotExist", "Volume %s does not exist", parts[1])
		}
		return http.StatusOK, s.volumeDoc(v), nil
	case head == "volumes" && n == 2 && m == http.MethodDelete:
		return s.deleteVolume(parts[1])
	case head == "volumes" && n == 3 && parts[2] == "expand" && m == http.MethodPost:
		return s.expandVolume(r, parts[1])
	case head == "hosts" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.hosts))
		for i, h := range s.hosts {
			out[i] = s.hostDoc(h)
		}
		return http.StatusOK, out, nil
	case head == "hosts" && n == 1 && m == http.MethodPost:
		return s.createHost(r)
	case head == "hosts" && n == 2 && m == http.MethodDelete:
		return s.deleteHost(parts[1])
	case head == "host-groups" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.groups))
		for i, g := range s.groups {
			out[i] = s.groupDoc(g)
		}
		return http.StatusOK, out, nil
	case head == "host-groups" && n == 1 && m == http.MethodPost:
		return s.createGroup(r)
	case head == "host-groups" && n == 2 && m == http.MethodDelete:
		return s.deleteGroup(parts[1])
	case head == "host-types" && n == 1 && m == http.MethodGet:
		return http.StatusOK, []any{
			map[string]any{"name": "Linux DM-MP", "index": 28, "code": "LnxDHALUA", "used": true, "default": false},
			map[string]any{"name": "Linux ATTO", "index": 24, "code": "LnxTPGSALUA", "used": false, "default": false},
			map[string]any{"name": "Factory Default", "index": 0, "code": "FactoryDefault", "used": false, "default": true},
		}, nil
	case head == "volume-mappings" && n == 1 && m == http.MethodGet:
		out := make([]any, len(s.maps))
		for i, mp := range s.maps {
			out[i] = s.mappingDoc(mp)
		}
		return http.StatusOK, out, nil
	case head == "volume-mappings" && n == 1 && m == http.MethodPost:
		return s.createMapping(r)
	case head == "volume-mappings" && n == 2 && m == http.MethodDelete:
		return s.deleteMapping(parts[1])
	case head == "symbol" && n == 2 && m == http.MethodPost &&
		(parts[1] == "assignSpecificDrivesAsHotSpares" || parts[1] == "deassignDrivesAsHotSpares"):
		return s.hotSpares(r, parts[1] == "assignSpecificDrivesAsHotSpares")
	}
	return 0, nil, mgrErr(http.StatusNotFound, "notFound", "No %s resource at storage-systems/1/%s", m, strings.Join(parts, "/"))
}

func (s *Service) driveDoc(d *drive) map[string]any {
	vg := noRef
	if d.vg != nil {
		vg = d.vg.ref
	}
	return map[string]any{"id": d.ref, "driveRef": d.ref, "available": d.vg == nil && !d.hotSpare && d.status == "optimal",
		"hotSpare": d.hotSpare, "status": d.status, "offline": false, "rawCapacity": strconv.FormatInt(d.bytes, 10),
		"usableCapacity": strconv.FormatInt(d.bytes, 10), "driveMediaType": d.media, "phyDriveType": d.iface,
		"currentVolumeGroupRef": vg, "productID": d.product, "serialNumber": d.serial, "worldWideName": d.wwn,
		"fdeCapable": false, "fdeEnabled": false,
		"physicalLocation": map[string]any{"trayRef": d.tray, "slot": d.slot, "locationPosition": d.slot + 1}}
}

const noRef = "0000000000000000000000000000000000000000"

func (s *Service) poolDoc(p *pool) map[string]any {
	used := p.used()
	media, iface := "", ""
	if len(p.drives) > 0 {
		media, iface = p.drives[0].media, p.drives[0].iface
	}
	return map[string]any{"id": p.ref, "volumeGroupRef": p.ref, "name": p.name, "label": p.name, "raidLevel": p.level,
		"diskPool": p.level == "raidDiskPool", "state": "complete", "raidStatus": "optimal",
		"totalRaidedSpace": strconv.FormatInt(p.total, 10), "usedSpace": strconv.FormatInt(used, 10),
		"freeSpace": strconv.FormatInt(p.total-used, 10), "largestFreeExtentSize": strconv.FormatInt(p.total-used, 10),
		"driveMediaType": media, "drivePhysicalType": iface, "securityType": "none"}
}

func (s *Service) volumeDoc(v *volume) map[string]any {
	var maps []any
	for _, m := range s.maps {
		if m.vol == v {
			maps = append(maps, s.mappingDoc(m))
		}
	}
	if maps == nil {
		maps = []any{}
	}
	return map[string]any{"id": v.ref, "volumeRef": v.ref, "name": v.name, "label": v.name, "volumeGroupRef": v.pool.ref,
		"capacity": strconv.FormatInt(v.bytes, 10), "totalSizeInBytes": strconv.FormatInt(v.bytes, 10),
		"segmentSize": v.segment, "raidLevel": v.pool.level, "diskPool": v.pool.level == "raidDiskPool",
		"wwn": v.wwn, "worldWideName": v.wwn, "status": "optimal", "blkSize": 512, "thinProvisioned": false,
		"mapped": len(maps) > 0, "listOfMappings": maps}
}

func (s *Service) hostDoc(h *host) map[string]any {
	cluster := noRef
	if h.group != nil {
		cluster = h.group.ref
	}
	ports := []any{}
	for _, p := range h.ports {
		ports = append(ports, map[string]any{"type": p.Type, "address": p.Address, "label": p.Label})
	}
	return map[string]any{"id": h.ref, "hostRef": h.ref, "name": h.name, "label": h.name, "hostTypeIndex": h.typeIndex,
		"clusterRef": cluster, "isSAControlled": false, "hostSidePorts": ports}
}

func (s *Service) groupDoc(g *hostGroup) map[string]any {
	var hosts []string
	for _, h := range s.hosts {
		if h.group == g {
			hosts = append(hosts, h.ref)
		}
	}
	return map[string]any{"id": g.ref, "clusterRef": g.ref, "name": g.name, "label": g.name, "isSAControlled": false, "hosts": hosts}
}

func (s *Service) mappingDoc(m *mapping) map[string]any {
	typ := "host"
	if m.group != nil {
		typ = "cluster"
	}
	return map[string]any{"id": m.ref, "lunMappingRef": m.ref, "lun": m.lun, "ssid": 0, "perms": 15,
		"volumeRef": m.vol.ref, "mapRef": m.targetRef(), "type": typ}
}

func (s *Service) findPool(idOrName string) *pool {
	for _, p := range s.pools {
		if p.ref == idOrName || p.name == idOrName {
			return p
		}
	}
	return nil
}

func (s *Service) findVolume(idOrName string) *volume {
	for _, v := range s.volumes {
		if v.ref == idOrName || v.name == idOrName {
			return v
		}
	}
	return nil
}

// checkLabel applies SANtricity's naming rules: 1 to 30 characters of
// letters, digits, '_', '-' and '#'.
func checkLabel(kind, name string) *apiError {
	if name == "" || len(name) > 30 {
		return symErr("invalidLabel", "The %s name %q must have 1 to 30 characters", kind, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '#') {
			return symErr("invalidLabel", "The %s name %q may hold only letters, digits, '_', '-' and '#'", kind, name)
		}
	}
	return nil
}

func (s *Service) createPool(r *http.Request) (int, any, *apiError) {
	var in struct {
		Name     string   `json:"name"`
		Level    string   `json:"raidLevel"`
		DriveIDs []string `json:"diskDriveIds"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if err := checkLabel("storage pool", in.Name); err != nil {
		return 0, nil, err
	}
	if s.findPool(in.Name) != nil {
		return 0, nil, symErr("invalidLabel", "The name %s is already used by another storage pool", in.Name)
	}
	if msg := checkDriveCount(in.Level, len(in.DriveIDs)); msg != "" {
		code := "numdrivesGroup"
		if msg == "unknown RAID level" {
			code = "invalidRaidlevel"
			msg = fmt.Sprintf("RAID level %q is not one of raid0, raid1, raid5, raid6, raidDiskPool", in.Level)
		}
		return 0, nil, symErr(code, "%s (got %d)", msg, len(in.DriveIDs))
	}
	var drives []*drive
	for _, id := range in.DriveIDs {
		var d *drive
		for _, x := range s.drives {
			if x.ref == id {
				d = x
			}
		}
		switch {
		case d == nil:
			return 0, nil, symErr("invalidDriveref", "Drive %s does not exist", id)
		case slices.Contains(drives, d):
			return 0, nil, symErr("duplicateDrives", "Drive %s is listed twice", id)
		case d.vg != nil || d.hotSpare:
			return 0, nil, symErr("driveNotUnassigned", "Drive %s (tray %d, slot %d) is already in use", id, d.trayID, d.slot)
		case d.status != "optimal":
			return 0, nil, symErr("driveNotOptimal", "Drive %s is %s", id, d.status)
		case len(drives) > 0 && (d.media != drives[0].media || d.iface != drives[0].iface):
			return 0, nil, symErr("driveTypeMismatch", "Drive %s is %s/%s, not %s/%s like the others", id, d.iface, d.media, drives[0].iface, drives[0].media)
		}
		drives = append(drives, d)
	}
	min := drives[0].bytes
	for _, d := range drives {
		min = minInt(min, d.bytes)
	}
	p := &pool{ref: s.ref(0x04), name: in.Name, level: in.Level, drives: drives, total: usable(in.Level, len(drives), min)}
	for _, d := range drives {
		d.vg = p
	}
	s.pools = append(s.pools, p)
	return http.StatusOK, s.poolDoc(p), nil
}

func minInt(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

func (s *Service) deletePool(id string, deleteVolumes bool) (int, any, *apiError) {
	p := s.findPool(id)
	if p == nil {
		return 0, nil, mgrErr(http.StatusNotFound, "volumeGroupNotExist", "Storage pool %s does not exist", id)
	}
	if len(p.volumes) > 0 && !deleteVolumes {
		return 0, nil, mgrErr(http.StatusUnprocessableEntity, "storagePoolNotEmpty",
			"Storage pool %s holds %d volumes; delete them first or pass delete-volumes=true", p.name, len(p.volumes))
	}
	for _, v := range slices.Clone(p.volumes) {
		s.removeVolume(v)
	}
	for _, d := range p.drives {
		d.vg = nil
	}
	s.pools = slices.DeleteFunc(s.pools, func(x *pool) bool { return x == p })
	return http.StatusNoContent, nil, nil
}

func (s *Service) createVolume(r *http.Request) (int, any, *apiError) {
	var in struct {
		PoolID   string  `json:"poolId"`
		Name     string  `json:"name"`
		SizeUnit string  `json:"sizeUnit"`
		Size     float64 `json:"size"`
		SegSize  int64   `json:"segSize"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if err := checkLabel("volume", in.Name); err != nil {
		return 0, nil, err
	}
	if s.findVolume(in.Name) != nil {
		return 0, nil, symErr("invalidLabel", "The name %s is already used by another volume", in.Name)
	}
	p := s.findPool(in.PoolID)
	if p == nil || p.ref != in.PoolID {
		return 0, nil, symErr("volumeGroupNotExist", "Storage pool %s does not exist", in.PoolID)
	}
	unit, ok := map[string]float64{"bytes": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}[strings.ToLower(in.SizeUnit)]
	if !ok {
		return 0, nil, mgrErr(http.StatusBadRequest, "invalidRequest", "sizeUnit %q is not one of bytes, kb, mb, gb, tb", in.SizeUnit)
	}
	size := int64(in.Size * unit)
	if size <= 0 {
		return 0, nil, symErr("invalidTotalsize", "The volume size must be positive")
	}
	seg := in.SegSize
	if seg == 0 {
		seg = 128
	}
	if !slices.Contains(segmentChoicesKiB, seg) {
		return 0, nil, symErr("invalidSegmentsize", "Segment size %d KiB is not one of %v", seg, segmentChoicesKiB)
	}
	if free := p.total - p.used(); size > free {
		return 0, nil, symErr("insufficientCapacity", "Storage pool %s has %d bytes free, the volume needs %d", p.name, free, size)
	}
	v := &volume{ref: s.ref(0x02), name: in.Name, pool: p, bytes: size, segment: seg << 10}
	v.wwn = s.volumeWWN(v.name)
	p.volumes = append(p.volumes, v)
	s.volumes = append(s.volumes, v)
	return http.StatusOK, s.volumeDoc(v), nil
}

// removeVolume drops a volume and its mapping; mu held.
func (s *Service) removeVolume(v *volume) {
	for _, m := range slices.Clone(s.maps) {
		if m.vol == v {
			s.emitMapping("unmapped", m)
			s.maps = slices.DeleteFunc(s.maps, func(x *mapping) bool { return x == m })
		}
	}
	v.pool.volumes = slices.DeleteFunc(v.pool.volumes, func(x *volume) bool { return x == v })
	s.volumes = slices.DeleteFunc(s.volumes, func(x *volume) bool { return x == v })
}

func (s *Service) deleteVolume(id string) (int, any, *apiError) {
	v := s.findVolume(id)
	if v == nil || v.ref != id {
		return 0, nil, mgrErr(http.StatusNotFound, "volumeNotExist", "Volume %s does not exist", id)
	}
	s.removeVolume(v)
	return http.StatusNoContent, nil, nil
}

func (s *Service) expandVolume(r *http.Request, id string) (int, any, *apiError) {
	v := s.findVolume(id)
	if v == nil || v.ref != id {
		return 0, nil, mgrErr(http.StatusNotFound, "volumeNotExist", "Volume %s does not exist", id)
	}
	var in struct {
		SizeUnit      string `json:"sizeUnit"`
		ExpansionSize int64  `json:"expansionSize"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if in.SizeUnit != "bytes" {
		return 0, nil, mgrErr(http.StatusBadRequest, "invalidRequest", "this array takes sizeUnit bytes")
	}
	if in.ExpansionSize <= v.bytes {
		return 0, nil, symErr("invalidTotalsize", "Volume %s is already %d bytes; a volume can only grow", v.name, v.bytes)
	}
	if free := v.pool.total - v.pool.used(); in.ExpansionSize-v.bytes > free {
		return 0, nil, symErr("insufficientCapacity", "Storage pool %s has %d bytes free, growing %s needs %d", v.pool.name, free, v.name, in.ExpansionSize-v.bytes)
	}
	v.bytes = in.ExpansionSize
	for _, m := range s.maps {
		if m.vol == v {
			s.emitMapping("resized", m)
		}
	}
	return http.StatusOK, map[string]any{"volumeRef": v.ref, "percentComplete": 100, "timeToCompletion": 0, "action": "none"}, nil
}

var portTypes = []string{"iscsi", "fc", "sas", "ib", "nvmeof"}

func (s *Service) createHost(r *http.Request) (int, any, *apiError) {
	var in struct {
		Name     string `json:"name"`
		HostType struct {
			Index int `json:"index"`
		} `json:"hostType"`
		GroupID string `json:"groupId"`
		Ports   []struct {
			Type, Port, Label string
		} `json:"ports"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if err := checkLabel("host", in.Name); err != nil {
		return 0, nil, err
	}
	for _, h := range s.hosts {
		if strings.EqualFold(h.name, in.Name) {
			return 0, nil, symErr("partDupId", "The name %s is already used by another host", in.Name)
		}
	}
	h := &host{ref: s.ref(0x84), name: in.Name, typeIndex: in.HostType.Index}
	if in.GroupID != "" && in.GroupID != noRef {
		for _, g := range s.groups {
			if g.ref == in.GroupID {
				h.group = g
			}
		}
		if h.group == nil {
			return 0, nil, symErr("partNodeNonexistent", "Host group %s does not exist", in.GroupID)
		}
	}
	for _, p := range in.Ports {
		if !slices.Contains(portTypes, p.Type) {
			return 0, nil, symErr("invalidPortname", "Port type %q is not one of %v", p.Type, portTypes)
		}
		if p.Port == "" {
			return 0, nil, symErr("invalidPortname", "A host port needs an address")
		}
		for _, o := range s.hosts {
			for _, op := range o.ports {
				if strings.EqualFold(op.Address, p.Port) {
					return 0, nil, symErr("partDupId", "Port %s already belongs to host %s", p.Port, o.name)
				}
			}
		}
		h.ports = append(h.ports, port{Type: p.Type, Address: p.Port, Label: p.Label})
	}
	s.hosts = append(s.hosts, h)
	if h.group != nil {
		for _, m := range s.maps {
			if m.group == h.group {
				s.emitOne("mapped", m, h)
			}
		}
	}
	return http.StatusCreated, s.hostDoc(h), nil
}

func (s *Service) emitOne(kind string, m *mapping, h *host) {
	e := mappingEvent(s, kind, m, h)
	s.events = append(s.events, e)
	s.outbox = append(s.outbox, e)
}

func (s *Service) deleteHost(id string) (int, any, *apiError) {
	i := slices.IndexFunc(s.hosts, func(h *host) bool { return h.ref == id })
	if i < 0 {
		return 0, nil, mgrErr(http.StatusNotFound, "partNodeNonexistent", "Host %s does not exist", id)
	}
	h := s.hosts[i]
	for _, m := range slices.Clone(s.maps) {
		switch {
		case m.host == h:
			s.emitMapping("unmapped", m)
			s.maps = slices.DeleteFunc(s.maps, func(x *mapping) bool { return x == m })
		case h.group != nil && m.group == h.group:
			s.emitOne("unmapped", m, h)
		}
	}
	s.hosts = slices.Delete(s.hosts, i, i+1)
	return http.StatusNoContent, nil, nil
}

func (s *Service) createGroup(r *http.Request) (int, any, *apiError) {
	var in struct {
		Name  string   `json:"name"`
		Hosts []string `json:"hosts"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if err := checkLabel("host group", in.Name); err != nil {
		return 0, nil, err
	}
	for _, g := range s.groups {
		if strings.EqualFold(g.name, in.Name) {
			return 0, nil, symErr("partDupId", "The name %s is already used by another host group", in.Name)
		}
	}
	var members []*host
	for _, id := range in.Hosts {
		i := slices.IndexFunc(s.hosts, func(h *host) bool { return h.ref == id })
		if i < 0 {
			return 0, nil, symErr("partNodeNonexistent", "Host %s does not exist", id)
		}
		if s.hosts[i].group != nil {
			return 0, nil, symErr("partDupId", "Host %s is already in host group %s", s.hosts[i].name, s.hosts[i].group.name)
		}
		members = append(members, s.hosts[i])
	}
	g := &hostGroup{ref: s.ref(0x85), name: in.Name}
	for _, h := range members {
		h.group = g
	}
	s.groups = append(s.groups, g)
	return http.StatusCreated, s.groupDoc(g), nil
}

func (s *Service) deleteGroup(id string) (int, any, *apiError) {
	i := slices.IndexFunc(s.groups, func(g *hostGroup) bool { return g.ref == id })
	if i < 0 {
		return 0, nil, mgrErr(http.StatusNotFound, "partNodeNonexistent", "Host group %s does not exist", id)
	}
	g := s.groups[i]
	for _, m := range slices.Clone(s.maps) {
		if m.group == g {
			s.emitMapping("unmapped", m)
			s.maps = slices.DeleteFunc(s.maps, func(x *mapping) bool { return x == m })
		}
	}
	for _, h := range s.hosts {
		if h.group == g {
			h.group = nil
		}
	}
	s.groups = slices.Delete(s.groups, i, i+1)
	return http.StatusNoContent, nil, nil
}

func (s *Service) createMapping(r *http.Request) (int, any, *apiError) {
	var in struct {
		Volume string `json:"mappableObjectId"`
		Target string `json:"targetId"`
		LUN    *int   `json:"lun"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	v := s.findVolume(in.Volume)
	if v == nil || v.ref != in.Volume {
		return 0, nil, symErr("volumeNotExist", "Volume %s does not exist", in.Volume)
	}
	m := &mapping{vol: v}
	for _, h := range s.hosts {
		if h.ref == in.Target {
			m.host = h
		}
	}
	for _, g := range s.groups {
		if g.ref == in.Target {
			m.group = g
		}
	}
	if m.host == nil && m.group == nil {
		return 0, nil, symErr("partNodeNonexistent", "Host or host group %s does not exist", in.Target)
	}
	for _, o := range s.maps {
		if o.vol == v {
			return 0, nil, symErr("duplicateVolMapping", "Volume %s is already mapped (LUN %d)", v.name, o.lun)
		}
	}
	// Every host the mapping reaches must have the LUN free.
	used := map[int]bool{}
	reach := s.hostsSeeing(m)
	if m.group != nil {
		for _, o := range s.maps {
			if o.group == m.group {
				used[o.lun] = true
			}
		}
	}
	for _, h := range reach {
		for lun := range s.lunsOfHost(h) {
			used[lun] = true
		}
	}
	if in.LUN == nil {
		lun := 1 // NetApp keeps LUN 0 for the access volume by default
		for used[lun] {
			lun++
		}
		in.LUN = &lun
	}
	if *in.LUN < 0 || *in.LUN > 255 {
		return 0, nil, symErr("invalidLun", "LUN %d is outside 0 to 255", *in.LUN)
	}
	if used[*in.LUN] {
		return 0, nil, symErr("partLunCollision", "LUN %d is already used by the target", *in.LUN)
	}
	m.lun = *in.LUN
	m.ref = s.ref(0x88)
	s.maps = append(s.maps, m)
	s.emitMapping("mapped", m)
	return http.StatusOK, s.mappingDoc(m), nil
}

func (s *Service) deleteMapping(id string) (int, any, *apiError) {
	i := slices.IndexFunc(s.maps, func(m *mapping) bool { return m.ref == id })
	if i < 0 {
		return 0, nil, mgrErr(http.StatusNotFound, "partMappingNonexistent", "LUN mapping %s does not exist", id)
	}
	s.emitMapping("unmapped", s.maps[i])
	s.maps = slices.Delete(s.maps, i, i+1)
	return http.StatusNoContent, nil, nil
}

func (s *Service) hotSpares(r *http.Request, assign bool) (int, any, *apiError) {
	var in struct {
		DriveRef []string `json:"driveRef"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	var drives []*drive
	for _, id := range in.DriveRef {
		i := slices.IndexFunc(s.drives, func(d *drive) bool { return d.ref == id })
		if i < 0 {
			return 0, nil, symErr("invalidDriveref", "Drive %s does not exist", id)
		}
		d := s.drives[i]
		switch {
		case assign && (d.vg != nil || d.hotSpare):
			return 0, nil, symErr("driveNotUnassigned", "Drive %s (tray %d, slot %d) is not unassigned", id, d.trayID, d.slot)
		case !assign && !d.hotSpare:
			return 0, nil, symErr("noSparesDeassigned", "Drive %s (tray %d, slot %d) is not a hot spare", id, d.trayID, d.slot)
		}
		drives = append(drives, d)
	}
	for _, d := range drives {
		d.hotSpare = assign
	}
	return http.StatusOK, "ok", nil
}
