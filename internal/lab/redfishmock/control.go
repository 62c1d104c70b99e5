package redfishmock

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// controlPrefix is the reserved path of the control API. Real Redfish
// services live under /redfish, so it cannot clash with a resource.
const controlPrefix = "/_mock"

// FaultKind selects what an injected fault does.
type FaultKind string

// Fault kinds.
const (
	// FaultStatus answers with Status (503, 429, 500, ...) and a Redfish error.
	FaultStatus FaultKind = "status"
	// FaultLatency delays the request by Latency, then serves it normally.
	FaultLatency FaultKind = "latency"
	// FaultReset drops the TCP connection without an answer.
	FaultReset FaultKind = "reset"
	// FaultTruncate serves the normal answer with its JSON cut in half.
	FaultTruncate FaultKind = "truncate"
)

// Fault is one injected failure. It applies to requests whose method equals
// Method (empty: any) and whose path equals Path, or starts with it when Path
// ends in "*". Count limits how many requests it hits (0: all of them).
type Fault struct {
	Method     string        `json:"method,omitempty"`
	Path       string        `json:"path"`
	Kind       FaultKind     `json:"kind"`
	Status     int           `json:"status,omitempty"`
	RetryAfter int           `json:"retry_after,omitempty"`
	Latency    time.Duration `json:"latency,omitempty"`
	Count      int           `json:"count,omitempty"`
	Hits       int           `json:"hits"`
}

func (f *Fault) validate() error {
	if f.Path == "" {
		return fmt.Errorf("%w: path is required", ErrBadFault)
	}
	switch f.Kind {
	case FaultStatus:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("%w: status %d is not an HTTP error status", ErrBadFault, f.Status)
		}
	case FaultLatency:
		if f.Latency <= 0 || f.Latency > time.Minute {
			return fmt.Errorf("%w: latency %s must be between 0 and 1m", ErrBadFault, f.Latency)
		}
	case FaultReset, FaultTruncate:
	default:
		return fmt.Errorf("%w: kind %q is not one of status, latency, reset, truncate", ErrBadFault, f.Kind)
	}
	if f.Count < 0 {
		return fmt.Errorf("%w: count %d is negative", ErrBadFault, f.Count)
	}
	return nil
}

func (f *Fault) matches(method, path string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if p, ok := strings.CutSuffix(f.Path, "*"); ok {
		return strings.HasPrefix(path, p)
	}
	return norm(f.Path) == path
}

// InjectFault adds a fault.
func (s *Service) InjectFault(f Fault) error {
	if err := f.validate(); err != nil {
		return err
	}
	f.Hits = 0
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
	return nil
}

// ClearFaults removes every fault.
func (s *Service) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// Faults lists the active faults with their hit counts.
func (s *Service) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, len(s.faults))
	for i, f := range s.faults {
		out[i] = *f
	}
	return out
}

// countAndFault records the request and picks the first matching fault.
func (s *Service) countAndFault(method, path string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats[method+" "+path]++
	for i, f := range s.faults {
		if !f.matches(method, path) {
			continue
		}
		f.Hits++
		if f.Count > 0 && f.Hits >= f.Count {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		c := *f
		return &c
	}
	return nil
}

// applyFault acts on a fault; true means the request is finished.
func (s *Service) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	switch f.Kind {
	case FaultLatency:
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return true
		}
		return false
	case FaultReset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				raw := conn
				if tc, ok := conn.(interface{ NetConn() net.Conn }); ok { // TLS: drop the TCP connection itself
					raw = tc.NetConn()
				}
				if tc, ok := raw.(interface{ SetLinger(int) error }); ok {
					_ = tc.SetLinger(0) // RST rather than FIN
				}
				_ = raw.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	case FaultStatus:
		var e *apiError
		switch f.Status {
		case http.StatusServiceUnavailable:
			ra := f.RetryAfter
			if ra <= 0 {
				ra = 30
			}
			e = rfErr(f.Status, "ServiceTemporarilyUnavailable", strconv.Itoa(ra))
			e.headers = map[string]string{"Retry-After": strconv.Itoa(ra)}
		case http.StatusTooManyRequests:
			e = rfErr(f.Status, "GeneralError").withSummary("too many requests")
			e.headers = map[string]string{"Retry-After": strconv.Itoa(max(f.RetryAfter, 1))}
		default:
			e = rfErr(f.Status, "InternalError")
			if f.RetryAfter > 0 {
				e.headers = map[string]string{"Retry-After": strconv.Itoa(f.RetryAfter)}
			}
		}
		status, hdr, body := s.encodeError(e)
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return true
	}
	return false
}

// Stats returns how many requests each "METHOD /path" received (control API
// requests excluded), so tests can assert how many calls a plan makes.
func (s *Service) Stats() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.stats))
	for k, v := range s.stats {
		out[k] = v
	}
	return out
}

// RequestCount is the number of requests with this method and path.
func (s *Service) RequestCount(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats[method+" "+norm(path)]
}

// ResetStats zeroes the request counters.
func (s *Service) ResetStats() {
	s.mu.Lock()
	s.stats = map[string]int{}
	s.mu.Unlock()
}

// SetRequireIfMatch switches the 428-without-If-Match mode.
func (s *Service) SetRequireIfMatch(on bool) {
	s.mu.Lock()
	s.opts.RequireIfMatch = on
	s.mu.Unlock()
}

// SetPageSize forces collection paging (0 turns it off).
func (s *Service) SetPageSize(n int) {
	s.mu.Lock()
	s.opts.PageSize = max(n, 0)
	s.mu.Unlock()
}

// SetSessionLimit changes the simultaneous session limit.
func (s *Service) SetSessionLimit(n int) {
	s.mu.Lock()
	s.opts.SessionLimit = max(n, 1)
	s.mu.Unlock()
}

// OnMapping registers a callback run after every host-mapping change of an
// array (mapped, unmapped, resized). Callbacks run outside the service lock,
// one at a time, in order.
func (s *Service) OnMapping(fn func(MappingEvent)) {
	s.mu.Lock()
	s.listeners = append(s.listeners, fn)
	s.mu.Unlock()
}

// MappingEvents returns every mapping event so far.
func (s *Service) MappingEvents() []MappingEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]MappingEvent(nil), s.events...)
}

// PowerEvent reports that a server's host finished powering off or
// booting (after a ComputerSystem.Reset or a power button): the lab
// reboots the node behind it.
type PowerEvent struct {
	System string `json:"system"` // endpoint name of the BMC
	Node   string `json:"node"`   // host name of the server's node
	State  string `json:"state"`  // PowerOff or PowerOn
	// Graceful is set on a PowerOff the OS was asked to do (ACPI: a
	// graceful shutdown or restart): it stops its services first.
	Graceful bool      `json:"graceful,omitempty"`
	Time     time.Time `json:"time"`
}

// OnPower registers fn to be called, outside the service's lock, after
// each power transition of this server.
func (s *Service) OnPower(fn func(PowerEvent)) {
	s.mu.Lock()
	s.powerListeners = append(s.powerListeners, fn)
	s.mu.Unlock()
}

func (s *Service) emitPower(state string, graceful bool) {
	s.powerOutbox = append(s.powerOutbox, PowerEvent{System: s.spec.Name, Node: s.spec.Node, State: state, Graceful: graceful, Time: s.now()})
}

func (s *Service) emit(e MappingEvent) {
	s.events = append(s.events, e)
	s.outbox = append(s.outbox, e)
}

func (s *Service) flushEvents() {
	s.dispatch.Lock()
	defer s.dispatch.Unlock()
	s.mu.Lock()
	out := s.outbox
	ls := append([]func(MappingEvent){}, s.listeners...)
	s.outbox = nil
	power := s.powerOutbox
	pls := append([]func(PowerEvent){}, s.powerListeners...)
	s.powerOutbox = nil
	s.mu.Unlock()
	for _, e := range out {
		for _, fn := range ls {
			fn(e)
		}
	}
	for _, e := range power {
		for _, fn := range pls {
			fn(e)
		}
	}
}

// serveControl is the HTTP control API; it needs the endpoint's credentials.
func (s *Service) serveControl(w http.ResponseWriter, r *http.Request, path string) {
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, err error) { writeJSON(status, map[string]string{"error": err.Error()}) }
	if u, p, okAuth := r.BasicAuth(); !okAuth || !s.checkPassword(u, p) {
		w.Header().Set("WWW-Authenticate", `Basic realm="redfishmock-control"`)
		fail(http.StatusUnauthorized, fmt.Errorf("control API needs the endpoint's basic credentials"))
		return
	}
	decode := func(v any) bool {
		if err := json.NewDecoder(r.Body).Decode(v); err != nil {
			fail(http.StatusBadRequest, fmt.Errorf("request body: %w", err))
			return false
		}
		return true
	}
	key := r.Method + " " + strings.TrimPrefix(path, controlPrefix)
	switch key {
	case "GET ", "GET /info":
		s.mu.Lock()
		info := map[string]any{"name": s.spec.Name, "kind": s.spec.Kind, "personality": s.spec.Personality,
			"model": s.spec.Model, "design": s.spec.Design, "now": s.now(), "cabled_to": s.spec.CabledTo}
		s.mu.Unlock()
		writeJSON(http.StatusOK, info)
	case "GET /stats":
		st := s.Stats()
		total := 0
		keys := make([]string, 0, len(st))
		for k, v := range st {
			total += v
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeJSON(http.StatusOK, map[string]any{"total": total, "requests": st})
	case "DELETE /stats":
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	case "GET /faults":
		writeJSON(http.StatusOK, s.Faults())
	case "POST /faults":
		var in struct {
			Fault
			LatencyMS int `json:"latency_ms"`
		}
		if !decode(&in) {
			return
		}
		f := in.Fault
		if in.LatencyMS > 0 {
			f.Latency = time.Duration(in.LatencyMS) * time.Millisecond
		}
		if err := s.InjectFault(f); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(http.StatusCreated, f)
	case "DELETE /faults":
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	case "GET /clock":
		writeJSON(http.StatusOK, map[string]any{"now": s.now()})
	case "POST /clock/advance":
		var in struct {
			Seconds  float64 `json:"seconds"`
			Duration string  `json:"duration"`
		}
		if !decode(&in) {
			return
		}
		d := time.Duration(in.Seconds * float64(time.Second))
		if in.Duration != "" {
			var err error
			if d, err = time.ParseDuration(in.Duration); err != nil {
				fail(http.StatusBadRequest, fmt.Errorf("duration: %w", err))
				return
			}
		}
		if d <= 0 {
			fail(http.StatusBadRequest, fmt.Errorf("seconds or duration must be positive"))
			return
		}
		s.Advance(d)
		writeJSON(http.StatusOK, map[string]any{"now": s.now()})
	case "POST /reset":
		if err := s.Reset(); err != nil {
			fail(http.StatusInternalServerError, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case "POST /seed":
		var in struct {
			Design   string `json:"design"`
			Endpoint string `json:"endpoint"`
		}
		if !decode(&in) {
			return
		}
		if err := s.Seed(in.Design, in.Endpoint); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case "POST /config":
		var in struct {
			RequireIfMatch  *bool `json:"require_if_match"`
			PageSize        *int  `json:"page_size"`
			SessionLimit    *int  `json:"session_limit"`
			FailNextBiosJob *bool `json:"fail_next_bios_job"`
			IgnoreGraceful  *bool `json:"ignore_graceful_shutdown"`
			FailNextUpdate  *bool `json:"fail_next_update"`
		}
		if !decode(&in) {
			return
		}
		if in.RequireIfMatch != nil {
			s.SetRequireIfMatch(*in.RequireIfMatch)
		}
		if in.PageSize != nil {
			s.SetPageSize(*in.PageSize)
		}
		if in.SessionLimit != nil {
			s.SetSessionLimit(*in.SessionLimit)
		}
		if in.FailNextUpdate != nil {
			if err := s.FailNextUpdate(*in.FailNextUpdate); err != nil {
				fail(http.StatusBadRequest, err)
				return
			}
		}
		if in.FailNextBiosJob != nil || in.IgnoreGraceful != nil {
			s.mu.Lock()
			failJob, ignore := false, false
			if s.sys != nil {
				failJob, ignore = s.sys.failNextJob, s.sys.ignoreGraceful
			}
			s.mu.Unlock()
			if in.FailNextBiosJob != nil {
				failJob = *in.FailNextBiosJob
			}
			if in.IgnoreGraceful != nil {
				ignore = *in.IgnoreGraceful
			}
			if err := s.SetServerFaults(failJob, ignore); err != nil {
				fail(http.StatusBadRequest, err)
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	case "GET /images":
		writeJSON(http.StatusOK, s.Images())
	case "POST /images":
		var img Image
		if !decode(&img) {
			return
		}
		if err := s.RegisterImage(img); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(http.StatusCreated, img)
	case "GET /events":
		writeJSON(http.StatusOK, s.MappingEvents())
	default:
		fail(http.StatusNotFound, fmt.Errorf("unknown control request %s %s", r.Method, path))
	}
}
