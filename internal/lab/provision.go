package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
)

// storageRoot is where the mock arrays serve their one storage subsystem.
const storageRoot = "/redfish/v1/Storage/controller_a"

// VolumeRequest carves one disk group and one volume with all its space on a
// mock array and maps it to hosts, as an administrator (or the provider's
// array resources) would. Tests and scripts use it to cable volumes without
// Terraform.
type VolumeRequest struct {
	Array  string   // endpoint name, e.g. me4084-1
	Pool   string   // disk group name
	RAID   string   // RAID6, RAID1, ...
	Drives []string // drive ids, e.g. "0.0" (enclosure.slot); "99.0" (tray.slot) on E-Series
	Volume string
	// SegmentBytes is the volume's strip (segment) size; 0 leaves the
	// array's default.
	SegmentBytes int64
	Hosts        []string
	LUN          int
	// FSType makes the volume look used: every node it is mapped to finds
	// this file-system signature on it (blkid), as on a reused volume.
	FSType string
}

// ProvisionVolume runs the Swordfish requests of r in-process (SANtricity
// requests over HTTPS on an E-Series array) and returns
// the volume's WWN (NAA hex).
func (l *Lab) ProvisionVolume(r VolumeRequest) (string, error) {
	if srv := l.eseriesServer(r.Array); srv != nil {
		return l.provisionESeries(srv, r)
	}
	s, err := l.mock.Design.Service(r.Array)
	if err != nil {
		return "", err
	}
	user, pass := s.Credentials()
	call := func(method, path string, body any) (map[string]any, error) {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		req := httptest.NewRequest(method, path, bytes.NewReader(b))
		req.SetBasicAuth(user, pass)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		if w.Code/100 != 2 {
			return out, fmt.Errorf("%s %s: %d %s", method, path, w.Code, w.Body.String())
		}
		return out, nil
	}
	var drives []any
	for _, d := range r.Drives {
		drives = append(drives, map[string]any{"@odata.id": storageRoot + "/Drives/" + d})
	}
	if _, err := call(http.MethodPost, storageRoot+"/StoragePools", map[string]any{"Name": r.Pool,
		"SupportedRAIDTypes": []string{r.RAID}, "CapacitySources": []any{map[string]any{"ProvidingDrives": drives}}}); err != nil {
		return "", err
	}
	vol := map[string]any{"Name": r.Volume, "CapacitySources": []any{map[string]any{"ProvidingPools": []any{
		map[string]any{"@odata.id": storageRoot + "/StoragePools/" + r.Pool}}}}}
	if r.SegmentBytes > 0 {
		vol["StripSizeBytes"] = r.SegmentBytes
	}
	v, err := call(http.MethodPost, storageRoot+"/Volumes", vol)
	if err != nil {
		return "", err
	}
	ids, _ := v["Identifiers"].([]any)
	var wwn string
	if len(ids) > 0 {
		id, _ := ids[0].(map[string]any)
		wwn, _ = id["DurableName"].(string)
	}
	if wwn == "" {
		return "", fmt.Errorf("volume %s on %s has no WWN", r.Volume, r.Array)
	}
	if r.FSType != "" {
		l.mu.Lock()
		if l.fstypes == nil {
			l.fstypes = map[string]string{}
		}
		l.fstypes[normWWN(wwn)] = r.FSType
		l.mu.Unlock()
	}
	volRef, _ := v["@odata.id"].(string)
	for _, h := range r.Hosts {
		if _, err := call(http.MethodPost, storageRoot+"/StorageGroups", map[string]any{"Name": r.Volume + "-" + h,
			"MappedVolumes":        []any{map[string]any{"Volume": map[string]any{"@odata.id": volRef}, "LogicalUnitNumber": strconv.Itoa(r.LUN)}},
			"ClientEndpointGroups": []any{map[string]any{"@odata.id": storageRoot + "/EndpointGroups/" + h}}}); err != nil {
			return wwn, err
		}
	}
	return normWWN(wwn), nil
}

// UnmapVolume removes the host mapping ProvisionVolume made for host.
func (l *Lab) UnmapVolume(array, volume, host string) error {
	if srv := l.eseriesServer(array); srv != nil {
		return unmapESeries(srv, volume, host)
	}
	s, err := l.mock.Design.Service(array)
	if err != nil {
		return err
	}
	user, pass := s.Credentials()
	req := httptest.NewRequest(http.MethodDelete, storageRoot+"/StorageGroups/"+volume+"-"+host, nil)
	req.SetBasicAuth(user, pass)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code/100 != 2 {
		return fmt.Errorf("unmap %s from %s: %d %s", volume, host, w.Code, w.Body.String())
	}
	return nil
}
