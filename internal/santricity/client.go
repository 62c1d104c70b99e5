// Package santricity talks to NetApp E-Series arrays through the SANtricity
// Web Services REST API (embedded on the controllers, or the Web Services
// Proxy). It applies the transport rules of internal/redfish to that API:
// one login session per endpoint reused and re-created on expiry (basic
// authentication when the service has no login), TLS verified unless the
// user says otherwise, retries with backoff and jitter for idempotent
// requests only, a per-endpoint concurrency limit, every create re-checked
// by name so a lost answer never makes a duplicate, and logs and errors
// that never carry a password or a session cookie. Errors wrap the
// sentinels of internal/redfish, so callers test one set with errors.Is.
//
// Endpoint shapes and field names come from NetApp's public material:
//   - the Web Services API reference as generated into NetApp's Java SDK
//     (github.com/NetApp/santricity-webapi-javasdk: api/utils/LoginApi,
//     api/v2/VolumesApi, MappingApi, HardwareApi; models/v2 DriveEx,
//     VolumeGroupEx, VolumeEx, HostEx, HostGroup, StoragePoolCreateRequest,
//     VolumeCreateRequest, VolumeExpansionRequest, VolumeMappingCreateRequest,
//     HostCreateRequest, HostGroupCreateRequest; models/symbol LUNMapping,
//     ReturnCodeWithRef for the SYMbol return codes);
//   - the netapp_eseries.santricity Ansible collection
//     (github.com/NetApp/santricity: plugins/module_utils/santricity.py for
//     devmgr/v2, devmgr/utils/about and the embedded system id "1";
//     na_santricity_storagepool, na_santricity_volume (sizeUnit bytes,
//     segSize in KiB, expansionSize as the new total), na_santricity_host,
//     na_santricity_hostgroup and na_santricity_lun_mapping (one mapping per
//     volume, to a host or a host group; LUN unique per target)).
package santricity

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/authgate"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// The sentinels are the Redfish client's, so code above both clients
// matches one set.
var (
	ErrNotFound     = redfish.ErrNotFound
	ErrBadRequest   = redfish.ErrBadRequest
	ErrUnauthorized = redfish.ErrUnauthorized
	ErrForbidden    = redfish.ErrForbidden
	ErrConflict     = redfish.ErrConflict
	ErrUnavailable  = redfish.ErrUnavailable
	ErrServer       = redfish.ErrServer
	ErrUncertain    = redfish.ErrUncertain
	ErrTransport    = redfish.ErrTransport
	ErrTimeout      = redfish.ErrTimeout
	ErrInvalid      = redfish.ErrInvalid
	ErrNotSupported = redfish.ErrNotSupported
)

// API paths, relative to the endpoint's base URL.
const (
	aboutPath = "/devmgr/utils/about"
	loginPath = "/devmgr/utils/login"
	apiPrefix = "/devmgr/v2"
)

// Config describes one array endpoint.
type Config struct {
	Name     string
	URL      string // https://controller[:8443]
	Username string
	Password string
	// SystemID picks the storage system on a Web Services Proxy (its id or
	// name); empty on an embedded endpoint, which serves only its own.
	SystemID  string
	CACertPEM []byte
	// Insecure skips TLS verification; only ever true when asked for.
	Insecure      bool
	MaxConcurrent int           // requests in flight, default 4
	Timeout       time.Duration // one HTTP attempt, default 60 s (the array answers slowly while it carves)
	Retry         redfish.Retry
	HTTPClient    *http.Client
	Log           func(msg string)
	Sleep         func(ctx context.Context, d time.Duration) error
}

// Stats counts what a client did.
type Stats struct {
	Requests, Retries, Logins int64
}

// Client is a connection to one array. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base string
	hc   *http.Client
	sem  chan struct{}

	gate     authgate.Gate // one login at a time; counts logins so one expiry causes one re-login
	mu       sync.Mutex    // guards the fields below
	auth     authKind
	cookie   string // "JSESSIONID=..." of the session
	systemID string
	trays    map[string]int // tray ref -> tray id

	requests, retries, logins atomic.Int64
}

type authKind int

const (
	authUnknown authKind = iota
	authSession
	authBasic
)

// New checks cfg and builds the client; nothing is sent yet.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: endpoint %q: url %q must look like https://host[:port]", ErrInvalid, cfg.Name, cfg.URL)
	}
	if cfg.Username == "" {
		return nil, fmt.Errorf("%w: endpoint %q: SANtricity needs a username", ErrInvalid, cfg.Name)
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	cfg.Retry = withDefaults(cfg.Retry)
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.Insecure} //nolint:gosec // only when the user sets insecure
		if len(cfg.CACertPEM) > 0 {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(cfg.CACertPEM) {
				return nil, fmt.Errorf("%w: endpoint %q: ca_certificate holds no PEM certificate", ErrInvalid, cfg.Name)
			}
			tc.RootCAs = pool
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = tc
		tr.MaxIdleConnsPerHost = cfg.MaxConcurrent
		hc = &http.Client{Transport: tr}
	}
	// A redirect would resend the session cookie or the password elsewhere.
	hc2 := *hc
	hc2.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hc2.Jar = nil // the session cookie is ours to send, to this host only
	return &Client{cfg: cfg, base: strings.TrimRight(u.String(), "/"), hc: &hc2, sem: make(chan struct{}, cfg.MaxConcurrent)}, nil
}

func withDefaults(r redfish.Retry) redfish.Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 500 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 20 * time.Second
	}
	if r.MaxRetryAfter <= 0 {
		r.MaxRetryAfter = 2 * time.Minute
	}
	return r
}

// Name is the endpoint's configured name.
func (c *Client) Name() string { return c.cfg.Name }

// Stats returns the counters so far.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Retries: c.retries.Load(), Logins: c.logins.Load()}
}

// Error is a non-success answer, decoded from SANtricity's error body
// (errorMessage, localizedMessage, retcode, codeType).
type Error struct {
	Method, Path string
	Status       int
	Message      string
	RetCode      string // e.g. "invalidLabel", "partLunCollision"
	CodeType     string // symbol, devicemgrerror, systemerror
	RetryAfter   string
	sentinel     error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d (%v)", e.Method, e.Path, e.Status, e.sentinel)
	if e.RetCode != "" {
		msg += ": " + e.RetCode
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func (e *Error) Unwrap() error { return e.sentinel }

func newError(method, path string, status int, body []byte) *Error {
	e := &Error{Method: method, Path: path, Status: status, sentinel: redfish.SentinelFor(status)}
	var b struct {
		ErrorMessage     string `json:"errorMessage"`
		LocalizedMessage string `json:"localizedMessage"`
		RetCode          string `json:"retcode"`
		CodeType         string `json:"codeType"`
	}
	if json.Unmarshal(body, &b) == nil {
		e.Message = b.ErrorMessage
		if e.Message == "" {
			e.Message = b.LocalizedMessage
		}
		if len(e.Message) > 300 {
			e.Message = e.Message[:300] + "..."
		}
		e.RetCode, e.CodeType = b.RetCode, b.CodeType
	}
	return e
}

// RetCode returns the SANtricity return code carried by err, if any.
func RetCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.RetCode
	}
	return ""
}

// IsGone reports whether err means the object no longer exists.
func IsGone(err error) bool { return errors.Is(err, ErrNotFound) }

func transientStatus(s int) bool {
	switch s {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// SANtricity changes state with POST as well as creating with it, so only
// GET, DELETE and PUT are retried blindly.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut:
		return true
	}
	return false
}

// do sends one logical request to an absolute API path and decodes a JSON
// answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("%w: encoding %s %s: %v", ErrInvalid, method, path, err)
		}
	}
	if err := c.ensureAuth(ctx); err != nil {
		return err
	}
	retry := idempotent(method)
	reauthed := false
	for attempt := 1; ; attempt++ {
		gen, resp, err := c.send(ctx, method, path, payload, true)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: %s %s on %s: %v", ErrTimeout, method, path, c.cfg.Name, ctx.Err())
			}
			if terr := c.trustError(err); terr != nil {
				return terr // no retry can make an untrusted certificate trusted
			}
			if !retry {
				return fmt.Errorf("%w: %s %s on %s may or may not have been applied: %v", ErrUncertain, method, path, c.cfg.Name, err)
			}
			if attempt >= c.cfg.Retry.MaxAttempts {
				return fmt.Errorf("%w: %s %s on %s after %d attempts: %v", ErrTransport, method, path, c.cfg.Name, attempt, err)
			}
			if werr := c.wait(ctx, attempt, ""); werr != nil {
				return werr
			}
			continue
		}
		if resp.status == http.StatusUnauthorized && !reauthed && c.kind() == authSession {
			// The session timed out (or the controller rebooted): log in
			// again once and resend; nothing was done under the old one.
			reauthed = true
			if err := c.gate.Renew(ctx, gen, c.login); err != nil {
				return err
			}
			attempt--
			continue
		}
		if resp.status < 300 {
			if out != nil && len(resp.body) > 0 {
				if err := json.Unmarshal(resp.body, out); err != nil {
					if retry && attempt < c.cfg.Retry.MaxAttempts {
						continue // cut short by a flaky link: read again
					}
					if !retry {
						// The array acted but its answer is unreadable:
						// callers look the object up rather than trust it.
						return fmt.Errorf("%w: %s %s on %s answered %d with an unreadable body: %v", ErrUncertain, method, path, c.cfg.Name, resp.status, err)
					}
					return fmt.Errorf("%w: decoding %s %s on %s: %v", ErrServer, method, path, c.cfg.Name, err)
				}
			}
			return nil
		}
		herr := newError(method, path, resp.status, resp.body)
		herr.RetryAfter = resp.header.Get("Retry-After")
		if !retry || !transientStatus(resp.status) || attempt >= c.cfg.Retry.MaxAttempts {
			if retry && transientStatus(resp.status) {
				return fmt.Errorf("after %d attempts: %w", attempt, herr)
			}
			return herr
		}
		if werr := c.wait(ctx, attempt, herr.RetryAfter); werr != nil {
			return fmt.Errorf("%w (last answer: %v)", werr, herr)
		}
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (c *Client) send(ctx context.Context, method, path string, payload []byte, auth bool) (int64, *response, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	}
	defer func() { <-c.sem }()
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	var gen int64
	if auth {
		gen = c.authorize(req)
	}
	c.requests.Add(1)
	c.logf("%s > %s %s [%s] %s", c.cfg.Name, method, req.URL.Path, headerLine(redfish.RedactHeaders(req.Header)), redfish.RedactBody(payload))
	start := time.Now()
	hr, err := c.hc.Do(req)
	if err != nil {
		c.logf("%s %s %s: %v", c.cfg.Name, method, path, err)
		return gen, nil, err
	}
	defer hr.Body.Close()
	body, err := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	if err != nil {
		return gen, nil, err
	}
	c.logf("%s < %s %s %d in %s [%s] %s", c.cfg.Name, method, path, hr.StatusCode, time.Since(start).Round(time.Millisecond),
		headerLine(redfish.RedactHeaders(hr.Header)), redfish.RedactBody(body))
	return gen, &response{status: hr.StatusCode, header: hr.Header, body: body}, nil
}

// trustError turns a failed TLS verification into an error that says what
// to do; nil for any other error.
func (c *Client) trustError(err error) error {
	if err == nil {
		return nil
	}
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		ierr x509.CertificateInvalidError
	)
	if !errors.As(err, &verr) && !errors.As(err, &uerr) && !errors.As(err, &herr) && !errors.As(err, &ierr) {
		return nil
	}
	return fmt.Errorf("%w: the TLS certificate of %s is not trusted: set ca_certificate to the PEM of the CA that signed it "+
		"(or the array's own certificate when self-signed): %v", ErrTransport, c.cfg.Name, err)
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log(fmt.Sprintf(format, args...))
	}
}

func headerLine(h http.Header) string {
	var parts []string
	for _, k := range []string{"Content-Type", "Cookie", "Set-Cookie", "Authorization", "Retry-After"} {
		if v := h.Values(k); len(v) > 0 {
			parts = append(parts, k+": "+strings.Join(v, ","))
		}
	}
	return strings.Join(parts, "; ")
}

// wait sleeps before attempt+1: Retry-After when the array sent one, else
// an exponential backoff with jitter.
func (c *Client) wait(ctx context.Context, attempt int, retryAfter string) error {
	c.retries.Add(1)
	r := c.cfg.Retry
	if n, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && n >= 0 {
		d := time.Duration(n) * time.Second
		if d > r.MaxRetryAfter {
			return fmt.Errorf("%w: %s asked to retry after %s, longer than the %s allowed", ErrUnavailable, c.cfg.Name, d, r.MaxRetryAfter)
		}
		return c.cfg.Sleep(ctx, d)
	}
	d := r.BaseDelay << (attempt - 1)
	if d > r.MaxDelay || d <= 0 {
		d = r.MaxDelay
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	return c.cfg.Sleep(ctx, d)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
	case <-t.C:
		return nil
	}
}

func (c *Client) kind() authKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.auth
}

func (c *Client) authorize(req *http.Request) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.auth {
	case authSession:
		req.Header.Set("Cookie", c.cookie)
	case authBasic:
		req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	}
	return c.gate.Gen()
}

func (c *Client) setAuth(k authKind, cookie string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth, c.cookie = k, cookie
	c.gate.Bump()
}

// ensureAuth logs in on first use.
func (c *Client) ensureAuth(ctx context.Context) error {
	return c.gate.Ensure(ctx, func() bool { return c.kind() != authUnknown }, c.login)
}

// login opens a session (POST devmgr/utils/login, LoginApi in NetApp's SDK);
// the session is the JSESSIONID cookie of the answer. A service without the
// login call gets basic authentication, as NetApp's Ansible modules use.
func (c *Client) login(ctx context.Context) error {
	body, _ := json.Marshal(map[string]any{"userId": c.cfg.Username, "password": c.cfg.Password, "xsrfProtected": false})
	for attempt := 1; ; attempt++ {
		_, resp, err := c.send(ctx, http.MethodPost, loginPath, body, false)
		if terr := c.trustError(err); terr != nil {
			return terr
		}
		if err != nil {
			// A session left behind by a lost answer ends on the array's
			// inactivity timer; logging in again is harmless.
			if ctx.Err() != nil || attempt >= c.cfg.Retry.MaxAttempts {
				return fmt.Errorf("%w: logging in to %s: %v", ErrTransport, c.cfg.Name, err)
			}
			if err := c.wait(ctx, attempt, ""); err != nil {
				return err
			}
			continue
		}
		switch {
		case resp.status == http.StatusOK || resp.status == http.StatusNoContent:
			for _, ck := range (&http.Response{Header: resp.header}).Cookies() {
				if ck.Name == "JSESSIONID" && ck.Value != "" {
					c.setAuth(authSession, ck.Name+"="+ck.Value)
					c.logins.Add(1)
					return nil
				}
			}
			return fmt.Errorf("%w: %s accepted the login but set no JSESSIONID cookie", ErrServer, c.cfg.Name)
		case resp.status == http.StatusNotFound || resp.status == http.StatusMethodNotAllowed:
			c.setAuth(authBasic, "")
			return nil
		case transientStatus(resp.status) && attempt < c.cfg.Retry.MaxAttempts:
			if err := c.wait(ctx, attempt, resp.header.Get("Retry-After")); err != nil {
				return err
			}
		case resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden:
			return fmt.Errorf("%s refused the credentials of %q (check username and password): %w", c.cfg.Name, c.cfg.Username,
				newError(http.MethodPost, loginPath, resp.status, resp.body))
		default:
			return fmt.Errorf("logging in to %s as %q: %w", c.cfg.Name, c.cfg.Username, newError(http.MethodPost, loginPath, resp.status, resp.body))
		}
	}
}

// Close ends the session, if one is open.
func (c *Client) Close(ctx context.Context) error {
	if c.kind() != authSession {
		return nil
	}
	_, resp, err := c.send(ctx, http.MethodDelete, loginPath, nil, true)
	c.gate.Locked(func() { c.setAuth(authUnknown, "") })
	if err != nil {
		return fmt.Errorf("%w: logging out of %s: %v", ErrTransport, c.cfg.Name, err)
	}
	if resp.status >= 300 && resp.status != http.StatusNotFound && resp.status != http.StatusUnauthorized {
		return newError(http.MethodDelete, loginPath, resp.status, resp.body)
	}
	return nil
}

// About is what devmgr/utils/about says about the service.
type About struct {
	RunningAsProxy bool   `json:"runningAsProxy"`
	Version        string `json:"version"`
	SystemID       string `json:"systemId"`
}

// About reads devmgr/utils/about (no credentials needed, but sent anyway).
func (c *Client) About(ctx context.Context) (*About, error) {
	var a About
	if err := c.do(ctx, http.MethodGet, aboutPath, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// System is one storage system (StorageSystemResponse).
type System struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	WWN       string `json:"wwn"`
	Model     string `json:"model"`
	Status    string `json:"status"`
	FWVersion string `json:"fwVersion"`
	Drives    int    `json:"driveCount"`
	Trays     int    `json:"trayCount"`
}

// SystemID returns the id used in storage-systems/{id}/...: "1" on an
// embedded endpoint (the only system it serves, as NetApp's modules assume),
// or on a proxy the system whose id or name is Config.SystemID.
func (c *Client) SystemID(ctx context.Context) (string, error) {
	c.mu.Lock()
	id := c.systemID
	c.mu.Unlock()
	if id != "" {
		return id, nil
	}
	about, err := c.About(ctx)
	if err != nil {
		return "", err
	}
	want := c.cfg.SystemID
	switch {
	case !about.RunningAsProxy && want == "":
		id = "1"
	default:
		var systems []System
		if err := c.do(ctx, http.MethodGet, apiPrefix+"/storage-systems", nil, &systems); err != nil {
			return "", err
		}
		var names []string
		for _, s := range systems {
			names = append(names, s.ID)
			if want != "" && (s.ID == want || s.Name == want) || want == "" && len(systems) == 1 {
				id = s.ID
			}
		}
		if id == "" {
			return "", fmt.Errorf("%w: %s serves storage systems %v; set system_id to one of them", ErrInvalid, c.cfg.Name, names)
		}
	}
	c.mu.Lock()
	c.systemID = id
	c.mu.Unlock()
	return id, nil
}

// System reads the storage system.
func (c *Client) System(ctx context.Context) (*System, error) {
	id, err := c.SystemID(ctx)
	if err != nil {
		return nil, err
	}
	var s System
	if err := c.do(ctx, http.MethodGet, apiPrefix+"/storage-systems/"+url.PathEscape(id), nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// sys returns the path prefix of the storage system.
func (c *Client) sys(ctx context.Context) (string, error) {
	id, err := c.SystemID(ctx)
	if err != nil {
		return "", err
	}
	return apiPrefix + "/storage-systems/" + url.PathEscape(id), nil
}
