package redfishmock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sharedDir is ../shared next to the repository (read-only project data).
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "schemas")); err != nil {
		t.Skipf("project data %s not present: skipping (it holds the official schemas and captures)", shared)
	}
	return shared
}

// testService builds one endpoint on a manual clock with known credentials.
func testService(t testing.TB, design, endpoint string, mod func(*Options)) (*Service, *ManualClock) {
	t.Helper()
	clk := NewManualClock(time.Time{})
	o := Options{Username: "admin", Password: "secret", Clock: clk, PowerDelay: 5 * time.Second}
	if mod != nil {
		mod(&o)
	}
	s, err := NewService(design, endpoint, o)
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

// call runs one request against a service in-process.
type result struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func call(t testing.TB, s http.Handler, method, path string, body any, hdr ...string) result {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.SetBasicAuth("admin", "secret")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Authorization" && hdr[i+1] == "" {
			req.Header.Del("Authorization")
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	r := result{status: w.Code, header: w.Header(), raw: w.Body.Bytes()}
	if len(r.raw) > 0 {
		_ = json.Unmarshal(r.raw, &r.body)
	}
	return r
}

// messageIDs lists the MessageIds of a Redfish error body.
func messageIDs(body map[string]any) []string {
	e, _ := body["error"].(map[string]any)
	info, _ := e["@Message.ExtendedInfo"].([]any)
	var ids []string
	for _, m := range info {
		if mm, ok := m.(map[string]any); ok {
			ids = append(ids, fmt.Sprint(mm["MessageId"]))
		}
	}
	return ids
}

func wantError(t testing.TB, r result, status int, id string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	for _, got := range messageIDs(r.body) {
		if got == "Base.1.12."+id {
			return
		}
	}
	t.Fatalf("message ids %v, want Base.1.12.%s; body %s", messageIDs(r.body), id, r.raw)
}

// crawl fetches every document reachable from /redfish/v1 through
// @odata.id references, as a client walking the tree would.
func crawl(t testing.TB, s http.Handler) map[string]map[string]any {
	t.Helper()
	seen := map[string]map[string]any{}
	queue := []string{"/redfish/v1"}
	for len(queue) > 0 && len(seen) < 20000 {
		p := queue[0]
		queue = queue[1:]
		if _, done := seen[norm(p)]; done {
			continue
		}
		r := call(t, s, http.MethodGet, p, nil)
		if r.status != http.StatusOK {
			seen[norm(p)] = nil
			continue
		}
		seen[norm(p)] = r.body
		for _, l := range links(r.body) {
			if _, done := seen[norm(l)]; !done {
				queue = append(queue, l)
			}
		}
	}
	for k, v := range seen {
		if v == nil {
			delete(seen, k)
		}
	}
	return seen
}

func links(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if k == "@odata.id" {
					if s, ok := x.(string); ok && strings.HasPrefix(s, "/redfish/v1") && !strings.Contains(s, "#") {
						out = append(out, s)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// schemaSet validates documents against the official schemas in
// ../shared/schemas, mapping schema URLs to local files (no network).
type schemaSet struct {
	dir      string
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	cache    map[string]*jsonschema.Schema
	newest   map[string]string // type name -> newest versioned file
	where    map[string]string // file -> subdirectory
}

type anyRegexp struct{}

func (anyRegexp) MatchString(string) bool { return true }
func (anyRegexp) String() string          { return ".*" }

func newSchemaSet(t testing.TB) *schemaSet {
	t.Helper()
	dir := filepath.Join(sharedDir(t), "schemas")
	ss := &schemaSet{dir: dir, cache: map[string]*jsonschema.Schema{}, newest: map[string]string{}, where: map[string]string{}}
	ver := regexp.MustCompile(`^(.+)\.v(\d+)_(\d+)_(\d+)\.json$`)
	rank := map[string][3]int{}
	// The DMTF and SNIA schemas, then the Dell OEM types the dell
	// personality serves (testdata/oem-schemas, read when a name is not
	// found in the official sets).
	for _, sub := range []string{"redfish", "swordfish", oemSchemaDir} {
		files, err := os.ReadDir(ss.subDir(sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := f.Name()
			if _, dup := ss.where[name]; !dup {
				ss.where[name] = sub
			}
			if m := ver.FindStringSubmatch(name); m != nil {
				var v [3]int
				fmt.Sscan(m[2], &v[0])
				fmt.Sscan(m[3], &v[1])
				fmt.Sscan(m[4], &v[2])
				if old, ok := rank[m[1]]; !ok || fmt.Sprintf("%05d%05d%05d", v[0], v[1], v[2]) > fmt.Sprintf("%05d%05d%05d", old[0], old[1], old[2]) {
					rank[m[1]] = v
					ss.newest[m[1]] = name
				}
			}
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(ss)
	c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) {
		re, err := regexp.Compile(s)
		if err != nil { // a few schema patterns use syntax Go lacks; accept those values
			return anyRegexp{}, nil
		}
		return re, nil
	})
	ss.compiler = c
	return ss
}

// oemSchemaDir holds the schemas of Dell OEM types, written from the iDRAC
// capture's shapes (DMTF does not publish them).
const oemSchemaDir = "testdata/oem-schemas"

func (ss *schemaSet) subDir(sub string) string {
	if sub == oemSchemaDir {
		return sub
	}
	return filepath.Join(ss.dir, sub)
}

// Load implements jsonschema.URLLoader.
func (ss *schemaSet) Load(url string) (any, error) {
	name := url[strings.LastIndex(url, "/")+1:]
	if m := regexp.MustCompile(`^(.+)\.v\d+_\d+_\d+\.json$`).FindStringSubmatch(name); m != nil {
		if n, ok := ss.newest[m[1]]; ok {
			name = n
		}
	}
	sub, ok := ss.where[name]
	if !ok {
		if strings.HasPrefix(name, "redfish-schema") {
			return map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "http://json-schema.org/draft-07/schema#"}, nil
		}
		return nil, fmt.Errorf("schema %s not in %s", url, ss.dir)
	}
	f, err := os.Open(filepath.Join(ss.subDir(sub), name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); ok {
		m["$schema"] = "http://json-schema.org/draft-07/schema#"
		m["$id"] = url
	}
	ss.canonicalRefs(doc)
	return doc, nil
}

var versionedRef = regexp.MustCompile(`([A-Za-z0-9]+)\.v\d+_\d+_\d+\.json`)

// canonicalRefs points every versioned $ref at the newest file of its type,
// so each schema is compiled once whatever version a document refers to.
func (ss *schemaSet) canonicalRefs(v any) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if l, ok := t[k].([]any); ok && len(l) == 0 { // invalid for draft-07; a few SNIA files have it
				delete(t, k)
			}
		}
		for k, x := range t {
			if s, ok := x.(string); ok && k == "$ref" {
				t[k] = versionedRef.ReplaceAllStringFunc(s, func(m string) string {
					ns := m[:strings.Index(m, ".v")]
					if n, ok := ss.newest[ns]; ok {
						return n
					}
					return m
				})
				continue
			}
			ss.canonicalRefs(x)
		}
	case []any:
		for _, x := range t {
			ss.canonicalRefs(x)
		}
	}
}

// validate checks one document against the schema its @odata.type names.
func (ss *schemaSet) validate(body map[string]any) error {
	typ, _ := body["@odata.type"].(string)
	if typ == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(typ, "#"), ".")
	ns, def := parts[0], parts[len(parts)-1]
	file := ns + ".json"
	if len(parts) == 3 {
		if n, ok := ss.newest[ns]; ok {
			file = n
		}
	}
	sub, ok := ss.where[file]
	if !ok {
		return fmt.Errorf("no schema for %s", typ)
	}
	prefix := "http://redfish.dmtf.org/schemas/v1/"
	switch sub {
	case "swordfish":
		prefix = "http://redfish.dmtf.org/schemas/swordfish/v1/"
	case oemSchemaDir:
		prefix = "http://hpcstorage.invalid/oem-schemas/"
	}
	url := prefix + file + "#/definitions/" + def
	ss.mu.Lock()
	sch, ok := ss.cache[url]
	if !ok {
		var err error
		sch, err = ss.compiler.Compile(url)
		if err != nil {
			ss.mu.Unlock()
			return fmt.Errorf("compile %s: %w", url, err)
		}
		ss.cache[url] = sch
	}
	ss.mu.Unlock()
	raw, _ := json.Marshal(body)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

func sortedPaths(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func jsonschemaValue(raw []byte) (any, error) { return jsonschema.UnmarshalJSON(bytes.NewReader(raw)) }
