// Package redfish talks to BMCs (Redfish) and storage arrays (Swordfish) for
// the provider. It owns the transport rules a fleet of flaky BMCs needs: one
// session per endpoint reused and re-created on expiry, basic-auth fallback,
// retries with backoff and jitter that honour Retry-After for idempotent
// requests only, a per-endpoint concurrency limit, ETags on every PATCH, and
// traffic logs that never carry credentials. Documents are decoded into
// structs that hold only the members the provider uses, leniently, so a
// vendor's extra or odd member never fails a read; error bodies with the
// gofish schemas package. It never imports Terraform packages: callers get
// wrapped Go errors and match the sentinels below with errors.Is.
package redfish

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// Sentinel errors.
var (
	ErrUnknownEndpoint      = errors.New("endpoint not configured")
	ErrNotFound             = errors.New("not found")
	ErrBadRequest           = errors.New("rejected by the service")
	ErrUnauthorized         = errors.New("authentication failed")
	ErrForbidden            = errors.New("not allowed")
	ErrConflict             = errors.New("conflicts with the current state")
	ErrPreconditionFailed   = errors.New("changed since it was read (ETag mismatch)")
	ErrPreconditionRequired = errors.New("the service requires If-Match")
	ErrUnavailable          = errors.New("service unavailable")
	ErrServer               = errors.New("service error")
	// ErrUncertain: a non-idempotent request failed in a way that leaves
	// unknown whether the service acted on it (connection reset, timeout).
	ErrUncertain = errors.New("outcome unknown")
	ErrTransport = errors.New("transport error")
	ErrTimeout   = errors.New("timed out")
	// ErrNotSupported: the service does not offer what was asked.
	ErrNotSupported = errors.New("not supported by the service")
	// ErrInvalid: the request is wrong before anything was sent.
	ErrInvalid = errors.New("invalid request")
	// ErrPending: settings were accepted but did not take effect.
	ErrPending = errors.New("settings still pending")
	// ErrTLSVerify: the endpoint's certificate is not trusted. Retrying
	// cannot help; only trusting the right CA (or fixing the URL) can.
	ErrTLSVerify = errors.New("TLS certificate not trusted")
)

// tlsVerifyError reports whether err is a failed certificate check (unknown
// CA, wrong host name, expired) rather than a network fault.
func tlsVerifyError(err error) bool {
	var (
		unknown   x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verifyErr *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verifyErr)
}

// tlsError wraps a certificate failure with what to do about it.
func tlsError(name, url string, err error) error {
	return fmt.Errorf("%w: %s (%s): %v; set ca_certificate of this endpoint to the CA that signed the BMC's certificate "+
		"(or to its self-signed certificate), and check that the URL's host name is one the certificate names", ErrTLSVerify, name, url, err)
}

// HTTPError is a non-success answer from the service.
type HTTPError struct {
	Method   string
	Path     string
	Status   int
	Messages []string // MessageId: Message of each @Message.ExtendedInfo
	// RetryAfter is the Retry-After header of the answer, if any.
	RetryAfter string
	sentinel   error
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d (%v)", e.Method, e.Path, e.Status, e.sentinel)
	if len(e.Messages) > 0 {
		msg += ": " + strings.Join(e.Messages, "; ")
	}
	return msg
}

func (e *HTTPError) Unwrap() error { return e.sentinel }

// newHTTPError decodes a Redfish error body (gofish's schemas.Error) into an
// HTTPError wrapping the sentinel of the status code.
func newHTTPError(method, path string, status int, body []byte) *HTTPError {
	e := &HTTPError{Method: method, Path: path, Status: status, sentinel: SentinelFor(status)}
	var se *schemas.Error
	if errors.As(schemas.ConstructError(status, body), &se) {
		for _, x := range se.ExtendedInfos {
			e.Messages = append(e.Messages, strings.TrimSpace(x.MessageID+": "+x.Message))
		}
		if len(e.Messages) == 0 && se.Message != "" && len(se.Message) < 300 && se.Code != "" {
			e.Messages = append(e.Messages, se.Code+": "+se.Message)
		}
	}
	return e
}

// SentinelFor is the sentinel error of an HTTP status, shared by every
// client of the provider (Redfish, SANtricity) so callers test one set.
func SentinelFor(status int) error {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusUnprocessableEntity:
		return ErrBadRequest
	case http.StatusUnauthorized:
		return ErrUnauthorized
	case http.StatusForbidden:
		return ErrForbidden
	case http.StatusNotFound, http.StatusGone:
		return ErrNotFound
	case http.StatusConflict:
		return ErrConflict
	case http.StatusPreconditionFailed:
		return ErrPreconditionFailed
	case http.StatusPreconditionRequired:
		return ErrPreconditionRequired
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return ErrUnavailable
	case http.StatusNotImplemented:
		return ErrNotSupported
	}
	return ErrServer
}
