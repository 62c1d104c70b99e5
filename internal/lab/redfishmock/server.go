// Package redfishmock is a stateful Redfish and Swordfish service that
// behaves like the BMCs and storage arrays of the reference designs: vendor
// personalities, BIOS settings applied on reset, power transitions on an
// injectable clock, RAID pools and volumes with capacity accounting, host
// mappings, sessions, ETags, tasks, and fault injection. It backs the
// provider's acceptance tests, the lab, and users' own CI.
package redfishmock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type obj = map[string]any

func ref(path string) obj { return obj{"@odata.id": path} }

func refs(paths ...string) []any {
	out := make([]any, len(paths))
	for i, p := range paths {
		out[i] = ref(p)
	}
	return out
}

// Kind says what an endpoint emulates.
type Kind string

// Endpoint kinds.
const (
	KindServer Kind = "server"
	KindArray  Kind = "array"
	KindReplay Kind = "replay"
)

// Sentinel errors of the Go API.
var (
	ErrUnknownDesign   = errors.New("unknown design")
	ErrUnknownEndpoint = errors.New("unknown endpoint")
	ErrBadFault        = errors.New("invalid fault")
	ErrBadMockup       = errors.New("invalid mockup folder")
)

// Options tune a mock. The zero value is a sensible, secure default.
type Options struct {
	// Username and Password are the account every endpoint accepts. An empty
	// password gets a random one per endpoint (read it from Endpoint).
	Username, Password string
	// Clock drives delays and expiry; nil means a WallClock.
	Clock Clock
	// SessionLimit is the number of simultaneous sessions (default 8).
	SessionLimit int
	// SessionTimeout is the idle expiry of a session (default 30 minutes).
	SessionTimeout time.Duration
	// RequireIfMatch makes PATCH, PUT and DELETE without If-Match fail with 428.
	RequireIfMatch bool
	// PageSize splits collections larger than this into pages linked by
	// Members@odata.nextLink (0: no forced paging).
	PageSize int
	// PowerDelay is how long PoweringOn and PoweringOff last (default 5s).
	PowerDelay time.Duration
	// DriveSizeBytes overrides the HDD size of the design's arrays.
	DriveSizeBytes int64
	// ServerPersonality overrides the personality of every server
	// ("dell", "hpe", "generic").
	ServerPersonality string
}

func (o Options) withDefaults() Options {
	if o.Username == "" {
		o.Username = "admin"
	}
	if o.Clock == nil {
		o.Clock = &WallClock{}
	}
	if o.SessionLimit <= 0 {
		o.SessionLimit = 8
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	if o.PowerDelay <= 0 {
		o.PowerDelay = 5 * time.Second
	}
	return o
}

// doc is one stored JSON document and its version.
type doc struct {
	body obj
	raw  []byte
	gen  uint64
}

type handler func(s *Service, r *request) (*reply, error)

type route struct {
	method string
	segs   []string // "{}" matches one segment
	h      handler
}

// request is what a handler sees.
type request struct {
	method string
	path   string // normalised (no trailing slash)
	params []string
	body   obj
	raw    []byte
	header http.Header
}

// reply is what a handler returns; the router adds ETag and encoding.
type reply struct {
	status  int
	body    any
	headers map[string]string
}

type timer struct {
	at  time.Time
	seq int
	fn  func()
}

// Service is one emulated BMC or array. It is an http.Handler, safe for
// concurrent use: one mutex guards all state, which is how a BMC serialises
// its own configuration changes.
type Service struct {
	mu       sync.Mutex
	spec     EndpointSpec
	opts     Options
	clock    Clock
	password string

	docs    map[string]*doc
	routes  []route
	aliases map[string]string // path prefix -> canonical prefix (Dell's Oem/Dell/Jobs)

	sessionsPath string
	sessions     map[string]*session
	sessionSeq   int
	taskSeq      int
	tasks        map[string]*task

	timers   []timer
	timerSeq int
	firing   time.Time

	sys       *system
	arr       *array
	replay    bool
	replayDir string
	broken    map[string]string // replay: URI -> why its captured file is not JSON

	faults []*Fault
	stats  map[string]int
	images map[string]Image // firmware catalogue (kept across Reset)

	events    []MappingEvent
	outbox    []MappingEvent
	listeners []func(MappingEvent)
	// Power transitions of a server, for the lab to act on its node.
	powerOutbox    []PowerEvent
	powerListeners []func(PowerEvent)
	dispatch       sync.Mutex // serialises listener calls outside mu
}

func (s *Service) now() time.Time { return s.clock.Now().UTC() }

// Name is the endpoint name ("meta1-bmc", "me4084-1").
func (s *Service) Name() string { return s.spec.Name }

// Spec returns the endpoint description the service was seeded from.
func (s *Service) Spec() EndpointSpec { return s.spec }

// Credentials returns the account the service accepts.
func (s *Service) Credentials() (username, password string) { return s.opts.Username, s.password }

// Clock returns the clock the service reads.
func (s *Service) Clock() Clock { return s.clock }

func norm(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	for len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

// put stores a document; the version (and so the ETag) moves only when the
// content changes.
func (s *Service) put(path string, body obj) {
	key := norm(path)
	raw, err := json.Marshal(body)
	if err != nil {
		panic(fmt.Sprintf("redfishmock: document %s does not encode: %v", path, err))
	}
	d := s.docs[key]
	if d == nil {
		s.docs[key] = &doc{body: body, raw: raw, gen: 1}
		return
	}
	if !bytes.Equal(d.raw, raw) {
		d.gen++
	}
	d.body, d.raw = body, raw
}

func (s *Service) get(path string) obj {
	if d := s.docs[norm(path)]; d != nil {
		return d.body
	}
	return nil
}

func (s *Service) remove(path string) { delete(s.docs, norm(path)) }

// collection creates an empty collection document.
func (s *Service) collection(path, odataType, name string) {
	s.put(path, obj{
		"@odata.id":           path,
		"@odata.type":         odataType,
		"Name":                name,
		"Members":             []any{},
		"Members@odata.count": 0,
	})
}

// setMembers replaces a collection's members.
func (s *Service) setMembers(path string, members []string) {
	c := s.get(path)
	if c == nil {
		panic("redfishmock: no collection " + path)
	}
	nc := shallowCopy(c)
	nc["Members"] = refs(members...)
	nc["Members@odata.count"] = len(members)
	s.put(path, nc)
}

func (s *Service) addMember(path, member string) {
	c := s.get(path)
	if c == nil {
		panic("redfishmock: no collection " + path)
	}
	var list []string
	for _, m := range memberPaths(c) {
		if m != member {
			list = append(list, m)
		}
	}
	s.setMembers(path, append(list, member))
}

func (s *Service) removeMember(path, member string) {
	c := s.get(path)
	if c == nil {
		return
	}
	var list []string
	for _, m := range memberPaths(c) {
		if norm(m) != norm(member) {
			list = append(list, m)
		}
	}
	s.setMembers(path, list)
}

func memberPaths(c obj) []string {
	ms, _ := c["Members"].([]any)
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		if mo, ok := m.(map[string]any); ok {
			if id, ok := mo["@odata.id"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

func shallowCopy(m obj) obj {
	out := make(obj, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

// etag returns the entity tag of a stored document.
func (s *Service) etag(path string) string {
	d := s.docs[norm(path)]
	if d == nil {
		return ""
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%d|", s.spec.Name, norm(path), d.gen)
	h.Write(d.raw)
	tag := fmt.Sprintf("%q", fmt.Sprintf("%016X", h.Sum64()))
	if s.weakETags() {
		tag = "W/" + tag
	}
	return tag
}

func (s *Service) weakETags() bool { return s.spec.Personality == PersonalityHPE }

func etagMatch(header, current string) bool {
	strip := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strip(t) == strip(current) {
			return true
		}
	}
	return false
}

func (s *Service) handle(method, pattern string, h handler) {
	s.routes = append(s.routes, route{method: method, segs: strings.Split(norm(pattern), "/"), h: h})
}

func (s *Service) match(method, path string) (handler, []string) {
	segs := strings.Split(path, "/")
	for _, rt := range s.routes {
		if rt.method != method || len(rt.segs) != len(segs) {
			continue
		}
		var params []string
		ok := true
		for i, sg := range rt.segs {
			if sg == "{}" {
				params = append(params, segs[i])
			} else if sg != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return rt.h, params
		}
	}
	return nil, nil
}

// after schedules fn on the service clock; timers run lazily, at the next
// request or clock advance, in time order.
func (s *Service) after(d time.Duration, fn func()) {
	s.timerSeq++
	base := s.now()
	if !s.firing.IsZero() { // chained from a timer: count from when it was due
		base = s.firing
	}
	s.timers = append(s.timers, timer{at: base.Add(d), seq: s.timerSeq, fn: fn})
}

// tick runs every timer that is due and expires idle sessions.
func (s *Service) tick() {
	for {
		now := s.now()
		sort.SliceStable(s.timers, func(i, j int) bool {
			if s.timers[i].at.Equal(s.timers[j].at) {
				return s.timers[i].seq < s.timers[j].seq
			}
			return s.timers[i].at.Before(s.timers[j].at)
		})
		if len(s.timers) == 0 || s.timers[0].at.After(now) {
			break
		}
		t := s.timers[0]
		s.timers = s.timers[1:]
		s.firing = t.at
		t.fn()
		s.firing = time.Time{}
	}
	s.expireSessions()
}

// Advance moves the shared clock forward and runs what became due.
func (s *Service) Advance(d time.Duration) {
	s.clock.Advance(d)
	s.mu.Lock()
	s.tick()
	s.mu.Unlock()
	s.flushEvents()
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := norm(r.URL.Path)
	if strings.HasPrefix(path, controlPrefix) {
		s.serveControl(w, r, path)
		return
	}
	f := s.countAndFault(r.Method, path)
	if f != nil && s.applyFault(w, r, f) {
		return
	}
	status, hdr, body := s.serve(r, path)
	if f != nil && f.Kind == FaultTruncate && body != nil {
		body = body[:len(body)/2]
	}
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	if body != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("OData-Version", "4.0")
	}
	w.WriteHeader(status)
	if body != nil && r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	s.flushEvents()
}

// serve runs one request under the lock and returns status, headers, body.
func (s *Service) serve(r *http.Request, path string) (int, map[string]string, []byte) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return s.encodeError(rfErr(http.StatusBadRequest, "MalformedJSON"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	for from, to := range s.aliases {
		if rest, found := strings.CutPrefix(path, from); found && (rest == "" || rest[0] == '/') {
			path = to + rest
		}
	}

	if path == "/redfish" && r.Method == http.MethodGet {
		b, _ := json.Marshal(obj{"v1": "/redfish/v1/"})
		return http.StatusOK, nil, b
	}
	if !s.public(r.Method, path) {
		if aerr := s.authenticate(r); aerr != nil {
			return s.encodeError(aerr)
		}
	}
	req := &request{method: r.Method, path: path, raw: raw, header: r.Header}
	multipartBody := strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/")
	if len(bytes.TrimSpace(raw)) > 0 && r.Method != http.MethodGet && !multipartBody {
		var body any
		if err := json.Unmarshal(raw, &body); err != nil {
			return s.encodeError(rfErr(http.StatusBadRequest, "MalformedJSON"))
		}
		m, ok := body.(map[string]any)
		if !ok {
			return s.encodeError(rfErr(http.StatusBadRequest, "MalformedJSON").withSummary("the request body must be a JSON object"))
		}
		req.body = m
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return s.serveGet(r, path)
	case http.MethodPatch, http.MethodPut, http.MethodDelete:
		if d := s.docs[path]; d != nil {
			im := r.Header.Get("If-Match")
			if im == "" && s.opts.RequireIfMatch {
				return s.encodeError(rfErr(http.StatusPreconditionRequired, "PreconditionRequired"))
			}
			if im != "" && !etagMatch(im, s.etag(path)) {
				return s.encodeError(rfErr(http.StatusPreconditionFailed, "PreconditionFailed"))
			}
		}
	}
	h, params := s.match(r.Method, path)
	if h == nil && s.replay {
		h = replayWrite
	}
	if h == nil {
		if s.docs[path] == nil {
			if _, p := s.match(http.MethodPost, path); p != nil || r.Method == http.MethodPost {
				return s.encodeError(rfErr(http.StatusNotFound, "ActionNotSupported", path))
			}
			return s.encodeError(notFound(r.URL.Path))
		}
		return s.encodeError(&apiError{status: http.StatusMethodNotAllowed, summary: fmt.Sprintf("%s is not allowed on %s", r.Method, path),
			messages: []obj{message("ActionNotSupported", r.Method)}, headers: map[string]string{"Allow": s.allow(path)}})
	}
	req.params = params
	rep, err := h(s, req)
	if err != nil {
		var aerr *apiError
		if !errors.As(err, &aerr) {
			aerr = rfErr(http.StatusInternalServerError, "InternalError").withSummary("%v", err)
		}
		return s.encodeError(aerr)
	}
	hdr := map[string]string{}
	for k, v := range rep.headers {
		hdr[k] = v
	}
	if rep.body == nil {
		return rep.status, hdr, nil
	}
	if m, ok := rep.body.(obj); ok {
		if id, ok := m["@odata.id"].(string); ok && s.docs[norm(id)] != nil {
			hdr["ETag"] = s.etag(id)
		}
	}
	b, err := json.Marshal(rep.body)
	if err != nil {
		return s.encodeError(rfErr(http.StatusInternalServerError, "InternalError"))
	}
	return rep.status, hdr, b
}

func (s *Service) allow(path string) string {
	methods := []string{"GET", "HEAD"}
	for _, m := range []string{http.MethodPost, http.MethodPatch, http.MethodDelete} {
		if h, _ := s.match(m, path); h != nil {
			methods = append(methods, m)
		}
	}
	return strings.Join(methods, ", ")
}

func (s *Service) encodeError(e *apiError) (int, map[string]string, []byte) {
	b, _ := json.Marshal(e.body())
	hdr := map[string]string{}
	for k, v := range e.headers {
		hdr[k] = v
	}
	if e.status == http.StatusUnauthorized {
		hdr["WWW-Authenticate"] = `Basic realm="redfish"`
	}
	return e.status, hdr, b
}

func (s *Service) serveGet(r *http.Request, path string) (int, map[string]string, []byte) {
	if why, bad := s.broken[path]; bad {
		return s.encodeError(rfErr(http.StatusInternalServerError, "InternalError").withSummary("captured document is not valid JSON: %s", why))
	}
	d := s.docs[path]
	if d == nil {
		if t := s.monitor(path); t != nil {
			return s.serveMonitor(t)
		}
		return s.encodeError(notFound(r.URL.Path))
	}
	tag := s.etag(path)
	hdr := map[string]string{"ETag": tag}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, tag) {
		return http.StatusNotModified, hdr, nil
	}
	q := r.URL.Query()
	body := d.body
	if len(q) > 0 {
		var aerr *apiError
		body, aerr = s.applyQuery(path, d.body, q)
		if aerr != nil {
			return s.encodeError(aerr)
		}
	} else if _, isColl := body["Members"]; isColl && s.opts.PageSize > 0 {
		body, _ = s.page(path, body, 0, s.opts.PageSize)
	}
	if _, isColl := body["Members"]; !isColl {
		if _, has := body["@odata.etag"]; !has {
			body = shallowCopy(body)
			body["@odata.etag"] = tag
		}
	}
	b, _ := json.Marshal(body)
	return http.StatusOK, hdr, b
}

// applyQuery implements $top, $skip and $expand.
func (s *Service) applyQuery(path string, body obj, q map[string][]string) (obj, *apiError) {
	_, isColl := body["Members"]
	top, skip := -1, 0
	for k, v := range q {
		switch k {
		case "$top", "$skip":
			if !isColl {
				return nil, rfErr(http.StatusBadRequest, "QueryNotSupported")
			}
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 0 {
				return nil, rfErr(http.StatusBadRequest, "QueryParameterValueTypeError", v[0], k)
			}
			if k == "$top" {
				top = n
			} else {
				skip = n
			}
		case "$expand":
		default:
			// The service root advertises no only/$select/$filter support.
			if strings.HasPrefix(k, "$") || k == "only" {
				return nil, rfErr(http.StatusNotImplemented, "QueryNotSupported")
			}
		}
	}
	if isColl {
		size := top
		if size < 0 {
			size = s.opts.PageSize
		}
		if skip > 0 || size > 0 {
			body, _ = s.page(path, body, skip, size)
			if top >= 0 {
				if nl, ok := body["Members@odata.nextLink"].(string); ok {
					body["Members@odata.nextLink"] = nl + "&$top=" + strconv.Itoa(top)
				}
			}
		}
	}
	if ex := q["$expand"]; len(ex) > 0 {
		mode, levels, aerr := s.parseExpand(ex[0])
		if aerr != nil {
			return nil, aerr
		}
		body = s.expand(body, mode, levels, false).(obj)
	}
	return body, nil
}

// page cuts one page out of a collection and links the next one.
func (s *Service) page(path string, body obj, skip, size int) (obj, bool) {
	ms, _ := body["Members"].([]any)
	out := shallowCopy(body)
	if skip > len(ms) {
		skip = len(ms)
	}
	end := len(ms)
	if size > 0 && skip+size < end {
		end = skip + size
	}
	out["Members"] = ms[skip:end]
	if end < len(ms) {
		out["Members@odata.nextLink"] = body["@odata.id"].(string) + "?$skip=" + strconv.Itoa(end)
		return out, true
	}
	return out, false
}

func (s *Service) expandSupport() (modes string, maxLevels int) {
	switch s.spec.Personality {
	case PersonalityHPE:
		return ".", 1
	case PersonalityDell:
		return ".~*", 1
	default:
		return ".~*", 2
	}
}

func (s *Service) parseExpand(v string) (byte, int, *apiError) {
	modes, maxLevels := s.expandSupport()
	if v == "" || !strings.ContainsRune(modes, rune(v[0])) {
		return 0, 0, rfErr(http.StatusNotImplemented, "QueryNotSupported")
	}
	levels := 1
	if rest := v[1:]; rest != "" {
		var n int
		if _, err := fmt.Sscanf(rest, "($levels=%d)", &n); err != nil || n < 1 {
			return 0, 0, rfErr(http.StatusBadRequest, "QueryParameterValueTypeError", v, "$expand")
		}
		if n > maxLevels {
			return 0, 0, rfErr(http.StatusBadRequest, "QueryParameterOutOfRange", strconv.Itoa(n), "$levels", fmt.Sprintf("1-%d", maxLevels))
		}
		levels = n
	}
	return v[0], levels, nil
}

// expand replaces references by the documents they point to: "." expands
// subordinate references, "~" those under Links, "*" both.
func (s *Service) expand(v any, mode byte, levels int, inLinks bool) any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 1 && levels > 0 {
			if id, ok := t["@odata.id"].(string); ok {
				want := mode == '*' || (mode == '.' && !inLinks) || (mode == '~' && inLinks)
				if d := s.docs[norm(id)]; want && d != nil {
					return s.expand(d.body, mode, levels-1, false)
				}
				return t
			}
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			if k == "Actions" || k == "Oem" || strings.HasPrefix(k, "@") {
				out[k] = x
				continue
			}
			out[k] = s.expand(x, mode, levels, inLinks || k == "Links")
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = s.expand(x, mode, levels, inLinks)
		}
		return out
	default:
		return v
	}
}

// asString and asInt read decoded JSON values for type checks.
func asString(v any) (string, bool) { s, ok := v.(string); return s, ok }

func asInt(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// idOf extracts a reference: an {"@odata.id": ...} object or a bare string.
func idOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, t != ""
	case map[string]any:
		id, ok := t["@odata.id"].(string)
		return id, ok && id != ""
	}
	return "", false
}

func lastSeg(p string) string {
	p = norm(p)
	return p[strings.LastIndex(p, "/")+1:]
}

func ok(status int, body any) (*reply, error) { return &reply{status: status, body: body}, nil }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
