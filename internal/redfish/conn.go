package redfish

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/stmcginnis/gofish/schemas"
)

// conn lets gofish's schemas package decode objects through the endpoint's
// transport (sessions, retries, limits, redacted logs) with a context bound
// to the current Terraform operation.
type conn struct {
	ep  *Endpoint
	ctx context.Context
}

var _ schemas.Client = conn{}

func (c conn) do(method, url string, payload any, h map[string]string) (*http.Response, error) {
	r, err := c.ep.Do(c.ctx, method, url, payload, h)
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: r.Status, Header: r.Header, Body: io.NopCloser(bytes.NewReader(r.Body))}, nil
}

func (c conn) GetSettings() schemas.ClientSettings    { return schemas.ClientSettings{} }
func (c conn) Get(url string) (*http.Response, error) { return c.do(http.MethodGet, url, nil, nil) }
func (c conn) Delete(url string) (*http.Response, error) {
	return c.do(http.MethodDelete, url, nil, nil)
}
func (c conn) Post(url string, p any) (*http.Response, error) {
	return c.do(http.MethodPost, url, p, nil)
}
func (c conn) Put(url string, p any) (*http.Response, error) {
	return c.do(http.MethodPut, url, p, nil)
}
func (c conn) Patch(url string, p any) (*http.Response, error) {
	return c.do(http.MethodPatch, url, p, nil)
}
func (c conn) GetWithHeaders(url string, h map[string]string) (*http.Response, error) {
	return c.do(http.MethodGet, url, nil, h)
}
func (c conn) PostWithHeaders(url string, p any, h map[string]string) (*http.Response, error) {
	return c.do(http.MethodPost, url, p, h)
}
func (c conn) PatchWithHeaders(url string, p any, h map[string]string) (*http.Response, error) {
	return c.do(http.MethodPatch, url, p, h)
}
func (c conn) PutWithHeaders(url string, p any, h map[string]string) (*http.Response, error) {
	return c.do(http.MethodPut, url, p, h)
}
func (c conn) DeleteWithHeaders(url string, h map[string]string) (*http.Response, error) {
	return c.do(http.MethodDelete, url, nil, h)
}
func (c conn) PostMultipart(string, map[string]io.Reader) (*http.Response, error) {
	return nil, ErrNotSupported
}
func (c conn) PostMultipartWithHeaders(string, map[string]io.Reader, map[string]string) (*http.Response, error) {
	return nil, ErrNotSupported
}

// getObject fetches one gofish object.
func getObject[T any, PT schemas.GenericSchemaObjectPointer[T]](ctx context.Context, ep *Endpoint, uri string) (*T, error) {
	return schemas.GetObject[T, PT](conn{ep: ep, ctx: ctx}, uri)
}
