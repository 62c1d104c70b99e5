package santricitymock

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// Fault is redfishmock's fault, so both mocks take the same control
// requests: kind status, latency, reset or truncate, on a method and a path
// (a trailing "*" matches a prefix), for Count requests (0: all).
type Fault = redfishmock.Fault

// ErrBadFault is returned for a fault that cannot be applied.
var ErrBadFault = errors.New("invalid fault")

func validateFault(f *Fault) error {
	if f.Path == "" {
		return fmt.Errorf("%w: path is required", ErrBadFault)
	}
	switch f.Kind {
	case redfishmock.FaultStatus:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("%w: status %d is not an HTTP error status", ErrBadFault, f.Status)
		}
	case redfishmock.FaultLatency:
		if f.Latency <= 0 || f.Latency > time.Minute {
			return fmt.Errorf("%w: latency %s must be between 0 and 1m", ErrBadFault, f.Latency)
		}
	case redfishmock.FaultReset, redfishmock.FaultTruncate:
	default:
		return fmt.Errorf("%w: kind %q is not one of status, latency, reset, truncate", ErrBadFault, f.Kind)
	}
	if f.Count < 0 {
		return fmt.Errorf("%w: count %d is negative", ErrBadFault, f.Count)
	}
	return nil
}

func faultMatches(f *Fault, method, path string) bool {
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
	if err := validateFault(&f); err != nil {
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

func (s *Service) countAndFault(method, path string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats[method+" "+path]++
	for i, f := range s.faults {
		if !faultMatches(f, method, path) {
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

// truncWriter keeps half of what the handler writes.
type truncWriter struct {
	http.ResponseWriter
	buf []byte
}

func (t *truncWriter) Write(b []byte) (int, error) { t.buf = append(t.buf, b...); return len(b), nil }

// applyFault acts on a fault; true means the request is finished. A reset
// fault on a POST drops the connection after the array acted, the case a
// client must recover from without creating a duplicate.
func (s *Service) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	switch f.Kind {
	case redfishmock.FaultLatency:
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return true
		}
		return false
	case redfishmock.FaultReset:
		if r.Method != http.MethodGet {
			path := norm(r.URL.Path)
			func() {
				defer s.flushEvents()
				_, _, _, _ = s.route(r, path) // the work is done, the answer is lost
			}()
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		raw := conn
		if tc, ok := conn.(interface{ NetConn() net.Conn }); ok {
			raw = tc.NetConn()
		}
		if tc, ok := raw.(interface{ SetLinger(int) error }); ok {
			_ = tc.SetLinger(0)
		}
		_ = raw.Close()
		return true
	case redfishmock.FaultTruncate:
		tw := &truncWriter{ResponseWriter: w}
		path := norm(r.URL.Path)
		status, body, _, err := s.route(r, path)
		s.flushEvents()
		if err != nil {
			writeError(tw, err)
			status = err.status
		} else if body != nil {
			_ = json.NewEncoder(tw).Encode(body)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(tw.buf[:len(tw.buf)/2])
		return true
	case redfishmock.FaultStatus:
		e := mgrErr(f.Status, "unexpectedError", "Injected fault")
		switch f.Status {
		case http.StatusServiceUnavailable:
			e = &apiError{status: f.Status, retcode: "busy", codeType: "symbol", message: "The controller is busy; try again later"}
			e.headers = map[string]string{"Retry-After": strconv.Itoa(max(f.RetryAfter, 1))}
		case http.StatusTooManyRequests:
			e.headers = map[string]string{"Retry-After": strconv.Itoa(max(f.RetryAfter, 1))}
		default:
			if f.RetryAfter > 0 {
				e.headers = map[string]string{"Retry-After": strconv.Itoa(f.RetryAfter)}
			}
		}
		writeError(w, e)
		return true
	}
	return false
}

// Stats returns how many requests each "METHOD /path" received (control
// API excluded).
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

// Logins is how many sessions were opened.
func (s *Service) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// ResetStats zeroes the request counters.
func (s *Service) ResetStats() {
	s.mu.Lock()
	s.stats = map[string]int{}
	s.logins = 0
	s.mu.Unlock()
}

// ExpireSessions ends every session, as a controller reboot or the
// inactivity timer would.
func (s *Service) ExpireSessions() {
	s.mu.Lock()
	s.sessions = map[string]time.Time{}
	s.mu.Unlock()
}

func (s *Service) serveControl(w http.ResponseWriter, r *http.Request, path string) {
	fail := func(status int, err error) { writeJSON(w, status, map[string]string{"error": err.Error()}) }
	if u, p, ok := r.BasicAuth(); !ok || !s.checkPassword(u, p) {
		w.Header().Set("WWW-Authenticate", `Basic realm="santricitymock-control"`)
		fail(http.StatusUnauthorized, errors.New("control API needs the endpoint's basic credentials"))
		return
	}
	switch r.Method + " " + path {
	case "GET ", "GET /info":
		writeJSON(w, http.StatusOK, map[string]any{"name": s.spec.Name, "kind": "array", "personality": "santricity",
			"model": s.spec.Model, "cabled_to": s.spec.CabledTo, "counts": s.Counts()})
	case "GET /stats":
		st := s.Stats()
		total := 0
		keys := make([]string, 0, len(st))
		for k, v := range st {
			total += v
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeJSON(w, http.StatusOK, map[string]any{"total": total, "requests": st, "logins": s.Logins()})
	case "DELETE /stats":
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	case "GET /faults":
		writeJSON(w, http.StatusOK, s.Faults())
	case "POST /faults":
		var in struct {
			Fault
			LatencyMS int `json:"latency_ms"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			fail(http.StatusBadRequest, err)
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
		writeJSON(w, http.StatusCreated, f)
	case "DELETE /faults":
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	case "POST /reset":
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	case "POST /sessions/expire":
		s.ExpireSessions()
		w.WriteHeader(http.StatusNoContent)
	case "GET /events":
		writeJSON(w, http.StatusOK, s.MappingEvents())
	default:
		fail(http.StatusNotFound, fmt.Errorf("unknown control request %s %s", r.Method, path))
	}
}

// Server is one running array, in the spirit of httptest.Server.
type Server struct {
	URL      string
	Username string
	Password string
	Service  *Service
	caPEM    []byte
	pool     *x509.CertPool
	srv      *http.Server
	done     chan struct{}
	once     sync.Once
}

// Start serves svc over HTTPS on addr ("127.0.0.1:0" for a random port)
// with a fresh self-signed certificate; clients trust CAPEM.
func Start(svc *Service, addr string) (*Server, error) {
	cert, caPEM, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tc,
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	u, p := svc.Credentials()
	s := &Server{URL: "https://" + ln.Addr().String(), Username: u, Password: p, Service: svc, caPEM: caPEM, pool: pool,
		srv: srv, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = srv.Serve(tls.NewListener(ln, tc))
	}()
	return s, nil
}

// CAPEM is the certificate clients should trust.
func (s *Server) CAPEM() []byte { return append([]byte(nil), s.caPEM...) }

// Client returns an HTTP client that trusts only the server's certificate.
func (s *Server) Client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// Close stops the server.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		// Close, not Shutdown: a connection a client dialled but never
		// used would hold Shutdown for five seconds.
		err = s.srv.Close()
		<-s.done
	})
	return err
}

// selfSigned makes a certificate for the loopback names that is its own
// trust anchor.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "hpcstorage santricity mock", Organization: []string{"hpcstorage lab"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
