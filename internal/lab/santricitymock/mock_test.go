package santricitymock

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// raw is a plain HTTP client of one running array, with basic credentials.
type raw struct {
	t   *testing.T
	srv *Server
	hc  *http.Client
}

func startRaw(t *testing.T) *raw {
	t.Helper()
	srv, err := Start(New(EF600("ef600-1", 3840*1000*1000*1000, "bb1-node1", "bb1-node2"), Options{}), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return &raw{t: t, srv: srv, hc: srv.Client()}
}

// call sends a request and decodes the answer into a generic value.
func (r *raw) call(method, path string, body any) (int, any) {
	r.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, r.srv.URL+path, rd)
	req.SetBasicAuth(r.srv.Username, r.srv.Password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (r *raw) ok(method, path string, body any) map[string]any {
	r.t.Helper()
	st, out := r.call(method, path, body)
	if st/100 != 2 {
		r.t.Fatalf("%s %s: %d %v", method, path, st, out)
	}
	m, _ := out.(map[string]any)
	return m
}

// refused checks a SANtricity error answer: status, retcode and codeType.
func (r *raw) refused(method, path string, body any, status int, retcode string) {
	r.t.Helper()
	st, out := r.call(method, path, body)
	m, _ := out.(map[string]any)
	if st != status || m["retcode"] != retcode || m["errorMessage"] == "" || m["codeType"] == nil {
		r.t.Fatalf("%s %s: %d %v; want %d with retcode %s", method, path, st, out, status, retcode)
	}
}

func (r *raw) driveRefs(n int) []string {
	_, out := r.call(http.MethodGet, sysPrefix+"/drives", nil)
	var ids []string
	for _, d := range out.([]any)[:n] {
		ids = append(ids, d.(map[string]any)["id"].(string))
	}
	return ids
}

// TestStateRules walks the rules an E-Series array enforces.
func TestStateRules(t *testing.T) {
	r := startRaw(t)
	ids := r.driveRefs(24)
	pool := r.ok(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "stor1", "raidLevel": "raid6", "diskDriveIds": ids[:10]})
	if pool["totalRaidedSpace"] != "30720000000000" || pool["freeSpace"] != "30720000000000" {
		t.Fatalf("RAID 6 8+2 capacity: %v", pool)
	}
	poolID := pool["id"].(string)
	// Drives are consumed: a second group cannot take them.
	r.refused(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "x", "raidLevel": "raid1", "diskDriveIds": ids[8:10]},
		422, "driveNotUnassigned")
	r.refused(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "stor1", "raidLevel": "raid1", "diskDriveIds": ids[10:12]},
		422, "invalidLabel")
	r.refused(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "y", "raidLevel": "raid1", "diskDriveIds": ids[10:13]},
		422, "numdrivesGroup")
	r.refused(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "y", "raidLevel": "raid10", "diskDriveIds": ids[10:14]},
		422, "invalidRaidlevel")
	r.refused(http.MethodPost, sysPrefix+"/storage-pools", map[string]any{"name": "ddp", "raidLevel": "raidDiskPool", "diskDriveIds": ids[10:20]},
		422, "numdrivesGroup")

	// Capacity is used by volumes; a second volume of the same name is refused.
	vol := map[string]any{"poolId": poolID, "name": "stor_101", "sizeUnit": "bytes", "size": 20e12, "segSize": 512}
	v := r.ok(http.MethodPost, sysPrefix+"/volumes", vol)
	r.refused(http.MethodPost, sysPrefix+"/volumes", vol, 422, "invalidLabel")
	vol["name"] = "stor_102"
	r.refused(http.MethodPost, sysPrefix+"/volumes", vol, 422, "insufficientCapacity")
	vol["size"], vol["segSize"] = 1e12, 1024
	r.refused(http.MethodPost, sysPrefix+"/volumes", vol, 422, "invalidSegmentsize")
	if p := r.ok(http.MethodGet, sysPrefix+"/storage-pools/"+poolID, nil); p["freeSpace"] != "10720000000000" {
		t.Fatalf("free after a 20 TB volume: %v", p["freeSpace"])
	}
	r.refused(http.MethodDelete, sysPrefix+"/storage-pools/"+poolID, nil, 422, "storagePoolNotEmpty")

	// Hosts, a group, and the mapping rules.
	h1 := r.ok(http.MethodPost, sysPrefix+"/hosts", map[string]any{"name": "bb1-node1", "hostType": map[string]any{"index": 28},
		"ports": []any{map[string]any{"type": "nvmeof", "port": "nqn.a", "label": "p1"}}})
	r.refused(http.MethodPost, sysPrefix+"/hosts", map[string]any{"name": "bb1-node9", "hostType": map[string]any{"index": 28},
		"ports": []any{map[string]any{"type": "nvmeof", "port": "nqn.a", "label": "p1"}}}, 422, "partDupId")
	h2 := r.ok(http.MethodPost, sysPrefix+"/hosts", map[string]any{"name": "bb1-node2", "hostType": map[string]any{"index": 28}})
	g := r.ok(http.MethodPost, sysPrefix+"/host-groups", map[string]any{"name": "bb1", "hosts": []any{h1["id"], h2["id"]}})
	vol["size"], vol["segSize"], vol["name"] = 1e12, 512, "stor_102"
	v2 := r.ok(http.MethodPost, sysPrefix+"/volumes", vol)
	r.ok(http.MethodPost, sysPrefix+"/volume-mappings", map[string]any{"mappableObjectId": v["id"], "targetId": h1["id"], "lun": 1})
	// The group reaches node1, which already uses LUN 1.
	r.refused(http.MethodPost, sysPrefix+"/volume-mappings", map[string]any{"mappableObjectId": v2["id"], "targetId": g["id"], "lun": 1},
		422, "partLunCollision")
	r.refused(http.MethodPost, sysPrefix+"/volume-mappings", map[string]any{"mappableObjectId": v["id"], "targetId": h2["id"], "lun": 2},
		422, "duplicateVolMapping")
	m := r.ok(http.MethodPost, sysPrefix+"/volume-mappings", map[string]any{"mappableObjectId": v2["id"], "targetId": g["id"]})
	if m["lun"] != float64(2) || m["type"] != "cluster" {
		t.Fatalf("mapping without a LUN: %v", m)
	}
	// Expanding a mapped volume tells both hosts; deleting the pool with
	// delete-volumes unmaps everything.
	r.ok(http.MethodPost, sysPrefix+"/volumes/"+v2["id"].(string)+"/expand", map[string]any{"sizeUnit": "bytes", "expansionSize": 2e12})
	r.ok(http.MethodDelete, sysPrefix+"/storage-pools/"+poolID+"?delete-volumes=true", nil)
	kinds := map[string]int{}
	for _, e := range r.srv.Service.MappingEvents() {
		kinds[e.Kind+" "+e.Host]++
	}
	want := map[string]int{"mapped bb1-node1": 2, "mapped bb1-node2": 1, "resized bb1-node1": 1, "resized bb1-node2": 1,
		"unmapped bb1-node1": 2, "unmapped bb1-node2": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("events %v, want %v", kinds, want)
			break
		}
	}
	if c := r.srv.Service.Counts(); c.FreeDrives != 24 || c.Volumes != 0 || c.Mappings != 0 {
		t.Fatalf("after deleting the pool: %+v", c)
	}
}

// TestAuthAndSessions: the API needs a session or basic credentials; a
// session ends on logout and on idle expiry.
func TestAuthAndSessions(t *testing.T) {
	r := startRaw(t)
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL+sysPrefix+"/drives", nil)
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without credentials: %d", resp.StatusCode)
	}
	body, _ := json.Marshal(map[string]any{"userId": "admin", "password": r.srv.Password, "xsrfProtected": false})
	resp, err = r.hc.Post(r.srv.URL+"/devmgr/utils/login", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "JSESSIONID" {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusOK || cookie == nil || !cookie.HttpOnly || !cookie.Secure {
		t.Fatalf("login: %d cookie %+v", resp.StatusCode, cookie)
	}
	get := func() int {
		req, _ := http.NewRequest(http.MethodGet, r.srv.URL+sysPrefix+"/volumes", nil)
		req.AddCookie(cookie)
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := get(); st != http.StatusOK {
		t.Fatalf("with the session: %d", st)
	}
	r.srv.Service.ExpireSessions()
	if st := get(); st != http.StatusUnauthorized {
		t.Fatalf("expired session: %d", st)
	}
}

// TestControlAPI: faults, statistics and reset over HTTP, behind the
// endpoint's credentials.
func TestControlAPI(t *testing.T) {
	r := startRaw(t)
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL+"/_mock/stats", nil)
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("control without credentials: %d", resp.StatusCode)
	}
	r.ok(http.MethodPost, "/_mock/faults", map[string]any{"method": "GET", "path": sysPrefix + "/drives", "kind": "status", "status": 503, "count": 2})
	for i := 0; i < 2; i++ {
		r.refused(http.MethodGet, sysPrefix+"/drives", nil, 503, "busy")
	}
	if st, _ := r.call(http.MethodGet, sysPrefix+"/drives", nil); st != 200 {
		t.Fatalf("after the burst: %d", st)
	}
	st, out := r.call(http.MethodGet, "/_mock/stats", nil)
	reqs := out.(map[string]any)["requests"].(map[string]any)
	if st != 200 || reqs["GET "+sysPrefix+"/drives"] != float64(3) {
		t.Fatalf("stats %v", out)
	}
	r.ok(http.MethodPost, sysPrefix+"/hosts", map[string]any{"name": "h1", "hostType": map[string]any{"index": 28}})
	if r.srv.Service.Counts().Hosts != 1 {
		t.Fatal("host not created")
	}
	r.call(http.MethodPost, "/_mock/reset", nil)
	if c := r.srv.Service.Counts(); c.Hosts != 0 || c.FreeDrives != 24 {
		t.Fatalf("after reset: %+v", c)
	}
	st, out = r.call(http.MethodGet, "/_mock/info", nil)
	if st != 200 || out.(map[string]any)["personality"] != "santricity" || !strings.Contains(strings.Join(r.srv.Service.Spec().CabledTo, ","), "bb1-node2") {
		t.Fatalf("info %v", out)
	}
}
