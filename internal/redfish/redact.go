package redfish

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// secretHeaders never reach a log.
var secretHeaders = []string{"Authorization", "X-Auth-Token", "Cookie", "Set-Cookie"}

const redacted = "REDACTED"

// RedactHeaders returns a copy of h with credential headers masked.
func RedactHeaders(h http.Header) http.Header {
	out := h.Clone()
	for k := range out {
		for _, s := range secretHeaders {
			if strings.EqualFold(k, s) {
				out[k] = []string{redacted}
			}
		}
	}
	return out
}

// RedactBody masks the value of every JSON member whose name contains
// "password" (any case, any depth). Bodies that are not JSON are replaced
// whole, since nothing proves they hold no secret.
func RedactBody(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return []byte(fmt.Sprintf("<%d bytes, not JSON>", len(b)))
	}
	out, err := json.Marshal(redactValue(v))
	if err != nil {
		return []byte("<unprintable>")
	}
	return out
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if strings.Contains(strings.ToLower(k), "password") {
				t[k] = redacted
				continue
			}
			t[k] = redactValue(x)
		}
	case []any:
		for i, x := range t {
			t[i] = redactValue(x)
		}
	}
	return v
}

func headerLine(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(h[k], ","))
	}
	return strings.Join(parts, "; ")
}

func (e *Endpoint) logf(format string, args ...any) {
	if e.cfg.Log != nil {
		e.cfg.Log(fmt.Sprintf(format, args...))
	}
}

func (e *Endpoint) logRequest(req *http.Request, payload []byte) {
	if e.cfg.Log == nil {
		return
	}
	e.logf("%s > %s %s [%s] %s", e.cfg.Name, req.Method, req.URL.Path, headerLine(RedactHeaders(req.Header)), RedactBody(payload))
}

func (e *Endpoint) logResponse(method, path string, r *Response, took time.Duration) {
	if e.cfg.Log == nil {
		return
	}
	e.logf("%s < %s %s %d in %s [%s] %s", e.cfg.Name, method, path, r.Status, took.Round(time.Millisecond),
		headerLine(RedactHeaders(r.Header)), RedactBody(r.Body))
}
