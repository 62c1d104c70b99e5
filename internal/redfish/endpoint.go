package redfish

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
)

// Config describes one named endpoint (a BMC or an array controller).
type Config struct {
	Name     string
	URL      string // https://host[:port]
	Username string
	Password string
	// CACertPEM, when set, is the only trust anchor for the endpoint's TLS
	// certificate; otherwise the system pool is used.
	CACertPEM []byte
	// Insecure skips TLS verification; only ever true when asked for.
	Insecure bool
	// MaxConcurrent caps requests in flight to this endpoint (default 4).
	MaxConcurrent int
	// Timeout bounds one HTTP attempt (default 30 s).
	Timeout time.Duration
	Retry   Retry
	// HTTPClient replaces the client built from the TLS settings (tests).
	HTTPClient *http.Client
	// Log receives one line per request and response, already redacted.
	Log func(msg string)
	// Sleep waits between attempts; tests replace it to run fast.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retry tunes retries of idempotent requests.
type Retry struct {
	MaxAttempts   int           // attempts in total, default 5
	BaseDelay     time.Duration // first backoff, default 500 ms
	MaxDelay      time.Duration // backoff cap, default 20 s
	MaxRetryAfter time.Duration // longest Retry-After honoured, default 2 min
}

func (r Retry) withDefaults() Retry {
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

// Stats counts what an endpoint did, for logs and benchmarks.
type Stats struct {
	Requests int64 // HTTP exchanges, retries and logins included
	Retries  int64
	Logins   int64 // sessions created
}

// Endpoint is a connection to one named service. It is safe for concurrent
// use; all resources of a provider process share it.
type Endpoint struct {
	cfg  Config
	base string
	hc   *http.Client
	sem  chan struct{}

	gate       authgate.Gate // one login at a time; counts logins so one expiry causes one re-login
	mu         sync.Mutex    // guards the fields below
	authKind   authKind
	token      string
	sessionURI string
	registries map[string]registryEntry
	cache      collectionCache

	requests, retries, logins atomic.Int64
}

type authKind int

const (
	authUnknown authKind = iota
	authNone
	authSession
	authBasic
)

// NewEndpoint checks cfg and builds the endpoint; nothing is sent yet.
func NewEndpoint(cfg Config) (*Endpoint, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: endpoint %q: url %q must look like https://host[:port]", ErrInvalid, cfg.Name, cfg.URL)
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	cfg.Retry = cfg.Retry.withDefaults()
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
	// Redirects would resend credentials elsewhere; Redfish services don't need them.
	hc2 := *hc
	hc2.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Endpoint{
		cfg:  cfg,
		base: strings.TrimRight(u.String(), "/"),
		hc:   &hc2,
		sem:  make(chan struct{}, cfg.MaxConcurrent),

		registries: map[string]registryEntry{},
	}, nil
}

// Name is the endpoint's configured name.
func (e *Endpoint) Name() string { return e.cfg.Name }

// Stats returns the counters so far.
func (e *Endpoint) Stats() Stats {
	return Stats{Requests: e.requests.Load(), Retries: e.retries.Load(), Logins: e.logins.Load()}
}

// Response is a fully read answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// ETag returns the response's ETag header, or the @odata.etag of the body.
func (r *Response) ETag() string {
	if t := r.Header.Get("ETag"); t != "" {
		return t
	}
	var b struct {
		ETag string `json:"@odata.etag"`
	}
	_ = json.Unmarshal(r.Body, &b)
	return b.ETag
}

// Decode unmarshals the body into v.
func (r *Response) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%w: decoding answer: %w", ErrServer, err)
	}
	return nil
}

// Get fetches path and decodes it into v (when v is not nil). A body that
// is not valid JSON (a BMC cut the answer short) is fetched once more.
func (e *Endpoint) Get(ctx context.Context, path string, v any) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := e.Do(ctx, http.MethodGet, path, nil, nil)
		if err != nil {
			return nil, err
		}
		if v == nil && json.Valid(resp.Body) || len(resp.Body) == 0 {
			return resp, nil
		}
		if v == nil {
			if attempt < 2 {
				continue
			}
			return resp, fmt.Errorf("%w: GET %s on %s: answer is not JSON", ErrServer, path, e.cfg.Name)
		}
		err = resp.Decode(v)
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Valid JSON with a member of another type than the one we
			// read it as: that member stays empty, the rest is read (a
			// BMC's odd member must not fail the whole document).
			e.logf("%s: GET %s: member %s holds a JSON %s, expected %s; ignored", e.cfg.Name, path, te.Field, te.Value, te.Type)
			return resp, nil
		}
		if err != nil && attempt < 2 {
			e.logf("%s: GET %s: %v; fetching again", e.cfg.Name, path, err)
			continue
		}
		return resp, err
	}
}

// Patch sends body to path with If-Match: etag. With an ETag the PATCH is
// idempotent and is retried; without one (the service published none) it is
// sent once.
func (e *Endpoint) Patch(ctx context.Context, path, etag string, body any) (*Response, error) {
	var h map[string]string
	if etag != "" {
		h = map[string]string{"If-Match": etag}
	}
	return e.Do(ctx, http.MethodPatch, path, body, h)
}

// Post sends body once. Callers that create objects look them up by name
// when this fails with ErrUncertain or ErrUnavailable, before trying again.
func (e *Endpoint) Post(ctx context.Context, path string, body any) (*Response, error) {
	return e.Do(ctx, http.MethodPost, path, body, nil)
}

// Delete removes path; a 404 is reported as ErrNotFound for the caller to
// treat as done.
func (e *Endpoint) Delete(ctx context.Context, path string) (*Response, error) {
	return e.Do(ctx, http.MethodDelete, path, nil, nil)
}

// rawBody is a payload Do sends as is (a multipart firmware push); the
// caller sets its Content-Type.
type rawBody []byte

func idempotent(method string, headers map[string]string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut:
		return true
	case http.MethodPatch:
		return headers["If-Match"] != ""
	}
	return false
}

// Do sends one logical request: it logs in when needed, retries idempotent
// requests on transient failures, and returns a fully read response or an
// error wrapping a sentinel.
func (e *Endpoint) Do(ctx context.Context, method, path string, body any, headers map[string]string) (*Response, error) {
	var payload []byte
	if raw, ok := body.(rawBody); ok {
		payload = raw
	} else if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("%w: encoding %s %s: %v", ErrInvalid, method, path, err)
		}
	}
	if err := e.ensureAuth(ctx); err != nil {
		return nil, err
	}
	if method != http.MethodGet && method != http.MethodHead {
		e.cache.invalidate()
		defer e.cache.invalidate() // drop what concurrent reads cached meanwhile
	}
	retry := idempotent(method, headers)
	reauthed := false
	for attempt := 1; ; attempt++ {
		gen, resp, err := e.send(ctx, method, path, payload, headers, true)
		if err != nil {
			if tlsVerifyError(err) {
				return nil, tlsError(e.cfg.Name, e.base, err)
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%w: %s %s on %s: %v", ErrTimeout, method, path, e.cfg.Name, ctx.Err())
			}
			if !retry {
				return nil, fmt.Errorf("%w: %s %s on %s may or may not have been applied: %v", ErrUncertain, method, path, e.cfg.Name, err)
			}
			if attempt >= e.cfg.Retry.MaxAttempts {
				return nil, fmt.Errorf("%w: %s %s on %s after %d attempts: %v", ErrTransport, method, path, e.cfg.Name, attempt, err)
			}
			if werr := e.wait(ctx, attempt, ""); werr != nil {
				return nil, werr
			}
			continue
		}
		if resp.Status == http.StatusUnauthorized && !reauthed && e.kind() == authSession {
			// The session expired or was reaped: log in again once, resend.
			reauthed = true
			if err := e.gate.Renew(ctx, gen, e.login); err != nil {
				return nil, err
			}
			attempt--
			continue
		}
		if resp.Status < 300 {
			return resp, nil
		}
		herr := newHTTPError(method, path, resp.Status, resp.Body)
		herr.RetryAfter = resp.Header.Get("Retry-After")
		if !retry || !transientStatus(resp.Status) || attempt >= e.cfg.Retry.MaxAttempts {
			if transientStatus(resp.Status) && retry {
				return nil, fmt.Errorf("after %d attempts: %w", attempt, herr)
			}
			return nil, herr
		}
		if werr := e.wait(ctx, attempt, resp.Header.Get("Retry-After")); werr != nil {
			return nil, fmt.Errorf("%w (last answer: %v)", werr, herr)
		}
	}
}

func transientStatus(s int) bool {
	switch s {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// wait sleeps before attempt+1: the Retry-After the service asked for, or
// an exponential backoff with jitter so a fleet of resources retrying the
// same BMC does not retry in lockstep.
func (e *Endpoint) wait(ctx context.Context, attempt int, retryAfter string) error {
	e.retries.Add(1)
	r := e.cfg.Retry
	if d, ok := parseRetryAfter(retryAfter, time.Now()); ok {
		if d > r.MaxRetryAfter {
			return fmt.Errorf("%w: %s asked to retry after %s, longer than the %s allowed", ErrUnavailable, e.cfg.Name, d, r.MaxRetryAfter)
		}
		return e.cfg.Sleep(ctx, d)
	}
	d := r.BaseDelay << (attempt - 1)
	if d > r.MaxDelay || d <= 0 {
		d = r.MaxDelay
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	return e.cfg.Sleep(ctx, d)
}

// parseRetryAfter reads delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
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

// send makes one HTTP exchange under the concurrency limit and the per
// attempt timeout, and reads the whole body before the timeout ends.
func (e *Endpoint) send(ctx context.Context, method, path string, payload []byte, headers map[string]string, auth bool) (int64, *Response, error) {
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	}
	defer func() { <-e.sem }()

	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, method, e.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("OData-Version", "4.0")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	var gen int64
	if auth {
		gen = e.authorize(req)
	}
	e.requests.Add(1)
	e.logRequest(req, payload)
	start := time.Now()
	hr, err := e.hc.Do(req)
	if err != nil {
		e.logf("%s %s %s: %v", e.cfg.Name, method, path, err)
		return gen, nil, err
	}
	defer hr.Body.Close()
	body, err := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	if err != nil {
		return gen, nil, err
	}
	resp := &Response{Status: hr.StatusCode, Header: hr.Header, Body: body}
	e.logResponse(method, path, resp, time.Since(start))
	return gen, resp, nil
}

func (e *Endpoint) kind() authKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.authKind
}

func (e *Endpoint) authorize(req *http.Request) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch e.authKind {
	case authSession:
		req.Header.Set("X-Auth-Token", e.token)
	case authBasic:
		req.SetBasicAuth(e.cfg.Username, e.cfg.Password)
	}
	return e.gate.Gen()
}

const sessionsPath = "/redfish/v1/SessionService/Sessions"

// ensureAuth logs in on first use.
func (e *Endpoint) ensureAuth(ctx context.Context) error {
	return e.gate.Ensure(ctx, func() bool { return e.kind() != authUnknown }, e.login)
}

func (e *Endpoint) setAuth(kind authKind, token, uri string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.authKind, e.token, e.sessionURI = kind, token, uri
	e.gate.Bump()
}

// login creates a session (the gate's login lock held); services without a session
// collection get basic auth, and endpoints without credentials get none.
func (e *Endpoint) login(ctx context.Context) error {
	if e.cfg.Username == "" {
		e.setAuth(authNone, "", "")
		return nil
	}
	body, _ := json.Marshal(map[string]string{"UserName": e.cfg.Username, "Password": e.cfg.Password})
	for attempt := 1; ; attempt++ {
		_, resp, err := e.send(ctx, http.MethodPost, sessionsPath, body, nil, false)
		if err != nil && tlsVerifyError(err) {
			return tlsError(e.cfg.Name, e.base, err)
		}
		if err != nil {
			// Nothing was created that we know of; a session left behind
			// by a lost answer expires on the BMC's idle timer.
			if ctx.Err() != nil || attempt >= e.cfg.Retry.MaxAttempts {
				return fmt.Errorf("%w: logging in to %s: %v", ErrTransport, e.cfg.Name, err)
			}
			if err := e.wait(ctx, attempt, ""); err != nil {
				return err
			}
			continue
		}
		switch resp.Status {
		case http.StatusCreated, http.StatusOK:
			tok := resp.Header.Get("X-Auth-Token")
			if tok == "" {
				return fmt.Errorf("%w: %s created a session without an X-Auth-Token", ErrServer, e.cfg.Name)
			}
			e.setAuth(authSession, tok, sessionLocation(resp))
			e.logins.Add(1)
			return nil
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			e.setAuth(authBasic, "", "")
			return nil
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			// Every session slot is taken (often by other tools, or by runs
			// killed before they could log out): basic auth still works and
			// takes no slot, so use it rather than fail or wait for expiry.
			if herr := newHTTPError(http.MethodPost, sessionsPath, resp.Status, resp.Body); strings.Contains(strings.Join(herr.Messages, " "), "SessionLimit") {
				e.logf("%s: session limit reached, using basic authentication", e.cfg.Name)
				e.setAuth(authBasic, "", "")
				return nil
			}
			// BMC busy: the service refused before creating anything, so
			// asking again later is safe.
			if attempt >= e.cfg.Retry.MaxAttempts {
				return fmt.Errorf("logging in to %s: %w", e.cfg.Name, newHTTPError(http.MethodPost, sessionsPath, resp.Status, resp.Body))
			}
			if err := e.wait(ctx, attempt, resp.Header.Get("Retry-After")); err != nil {
				return err
			}
		default:
			return fmt.Errorf("logging in to %s as %q: %w", e.cfg.Name, e.cfg.Username, newHTTPError(http.MethodPost, sessionsPath, resp.Status, resp.Body))
		}
	}
}

func sessionLocation(resp *Response) string {
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err == nil {
			return u.Path
		}
	}
	var b struct {
		ID string `json:"@odata.id"`
	}
	_ = json.Unmarshal(resp.Body, &b)
	return b.ID
}

// Close logs out of the session, if one is open.
func (e *Endpoint) Close(ctx context.Context) error {
	e.mu.Lock()
	uri, kind := e.sessionURI, e.authKind
	e.mu.Unlock()
	if kind != authSession || uri == "" {
		return nil
	}
	_, resp, err := e.send(ctx, http.MethodDelete, uri, nil, nil, true)
	e.gate.Locked(func() {
		e.mu.Lock()
		e.authKind, e.token, e.sessionURI = authUnknown, "", ""
		e.mu.Unlock()
	})
	if err != nil {
		return fmt.Errorf("%w: logging out of %s: %v", ErrTransport, e.cfg.Name, err)
	}
	if resp.Status >= 300 && resp.Status != http.StatusNotFound {
		return newHTTPError(http.MethodDelete, uri, resp.Status, resp.Body)
	}
	return nil
}

func asHTTP(err error, target **HTTPError) bool { return errors.As(err, target) }

// IsGone reports whether err means the object no longer exists.
func IsGone(err error) bool { return errors.Is(err, ErrNotFound) }
