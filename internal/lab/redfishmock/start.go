package redfishmock

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// CA is a throw-away certificate authority: each mock generates its own, and
// clients verify the mock's TLS with its PEM instead of skipping checks.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
	pool *x509.CertPool
}

// NewCA creates a CA valid for ten years.
func NewCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("CA serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "hpcstorage redfish mock CA", Organization: []string{"hpcstorage lab"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{cert: cert, key: key, pool: pool, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// PEM is the CA certificate clients should trust.
func (ca *CA) PEM() []byte { return append([]byte(nil), ca.pem...) }

// Pool is a certificate pool holding only the CA.
func (ca *CA) Pool() *x509.CertPool { return ca.pool }

// leaf issues a server certificate for loopback names.
func (ca *CA) leaf(host string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate server key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("server serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	} else if ip == nil && host != "" && host != "localhost" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("sign server certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key}, nil
}

// Client returns an HTTP client that trusts only this CA.
func (ca *CA) Client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12}
	tr.MaxIdleConnsPerHost = 32 // Terraform runs 10 operations at once; keep their connections
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// Server is one running endpoint, in the spirit of httptest.Server.
type Server struct {
	URL      string
	Username string
	Password string
	Service  *Service
	ca       *CA
	srv      *http.Server
	ln       net.Listener
	done     chan struct{}
	closeMu  sync.Once
	closeErr error
}

// Client returns a client that verifies the server's TLS certificate (or a
// plain client for an HTTP server).
func (s *Server) Client() *http.Client {
	if s.ca == nil {
		return &http.Client{Timeout: 60 * time.Second}
	}
	return s.ca.Client()
}

// CAPEM is the PEM of the CA that signed the server certificate (nil for HTTP).
func (s *Server) CAPEM() []byte {
	if s.ca == nil {
		return nil
	}
	return s.ca.PEM()
}

// Close shuts the server down, giving requests in flight a moment. It does
// not wait out connections that never sent a request: Shutdown counts one
// accepted less than five seconds ago as busy, and an HTTP client's spare
// dial is one, so a graceful Shutdown alone cost every lab five seconds.
func (s *Server) Close() error {
	s.closeMu.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if err := s.srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
			s.closeErr = s.srv.Close()
		} else {
			s.closeErr = err
		}
		<-s.done
	})
	return s.closeErr
}

// Start serves svc on addr ("127.0.0.1:0" for a random port). With a CA it
// serves HTTPS with a certificate from that CA; with nil, plain HTTP.
func Start(svc *Service, addr string, ca *CA) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		// BMCs speak HTTP/1.1 only; an empty map keeps HTTP/2 off.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	scheme := "http"
	if ca != nil {
		host, _, _ := net.SplitHostPort(addr)
		cert, err := ca.leaf(host)
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	u, p := svc.Credentials()
	s := &Server{URL: scheme + "://" + ln.Addr().String(), Username: u, Password: p, Service: svc, ca: ca, srv: srv, ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.closeErr = err
		}
	}()
	return s, nil
}

// Endpoint is what a client needs to reach one running BMC or array.
type Endpoint struct {
	Name        string   `json:"name"`
	Kind        Kind     `json:"kind"`
	Personality string   `json:"personality"`
	Model       string   `json:"model"`
	Node        string   `json:"node,omitempty"`
	CabledTo    []string `json:"cabled_to,omitempty"`
	URL         string   `json:"url"`
	Username    string   `json:"username"`
	Password    string   `json:"password"`
}

// Lab is a running design: one listener per endpoint.
type Lab struct {
	Design    *Design
	CA        *CA // nil when serving plain HTTP
	Endpoints []Endpoint
	Servers   []*Server
}

// StartConfig says where a design listens. Each endpoint needs its own base
// URL (Redfish paths are absolute), so endpoint i listens on Host:FirstPort+i,
// or on a random port each when FirstPort is 0.
type StartConfig struct {
	Host      string // default 127.0.0.1
	FirstPort int
	PlainHTTP bool
}

// Start serves every endpoint of the design.
func (d *Design) Start(cfg StartConfig) (*Lab, error) {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	lab := &Lab{Design: d}
	if !cfg.PlainHTTP {
		ca, err := NewCA()
		if err != nil {
			return nil, err
		}
		lab.CA = ca
	}
	for i, svc := range d.services {
		port := 0
		if cfg.FirstPort > 0 {
			port = cfg.FirstPort + i
		}
		srv, err := Start(svc, net.JoinHostPort(cfg.Host, strconv.Itoa(port)), lab.CA)
		if err != nil {
			_ = lab.Close()
			return nil, fmt.Errorf("endpoint %s: %w", svc.spec.Name, err)
		}
		lab.Servers = append(lab.Servers, srv)
		u, p := svc.Credentials()
		lab.Endpoints = append(lab.Endpoints, Endpoint{Name: svc.spec.Name, Kind: svc.spec.Kind, Personality: svc.spec.Personality,
			Model: svc.spec.Model, Node: svc.spec.Node, CabledTo: svc.spec.CabledTo, URL: srv.URL, Username: u, Password: p})
	}
	return lab, nil
}

// Client returns a client that trusts the lab's CA.
func (l *Lab) Client() *http.Client {
	if l.CA == nil {
		return &http.Client{Timeout: 60 * time.Second}
	}
	return l.CA.Client()
}

// Close stops every listener.
func (l *Lab) Close() error {
	var errs []error
	for _, s := range l.Servers {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
