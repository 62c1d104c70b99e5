package redfishmock

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// NewReplay serves a captured mockup folder in the DMTF layout: one
// index.json per URI, either tall (the folder holds redfish/v1/...) or short
// (the folder's own index.json is /redfish/v1). Writes (PATCH, POST, DELETE)
// are kept in memory; Reset reloads the folder.
func NewReplay(dir string, opts Options) (*Service, error) {
	opts = opts.withDefaults()
	s := &Service{opts: opts, clock: opts.Clock, password: opts.Password, replay: true, replayDir: dir,
		spec: EndpointSpec{Name: filepath.Base(filepath.Clean(dir)), Kind: KindReplay, Personality: "replay", Model: "mockup"}}
	if s.password == "" {
		s.password = randomHex(12)
	}
	if err := s.loadMockup(); err != nil {
		return nil, err
	}
	return s, nil
}

// mockupRoot finds the folder that maps to /redfish/v1.
func mockupRoot(dir string) (string, error) {
	for _, cand := range []string{filepath.Join(dir, "redfish", "v1"), dir} {
		if _, err := os.Stat(filepath.Join(cand, "index.json")); err == nil {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%w %s: neither redfish/v1/index.json (tall) nor index.json (short) found", ErrBadMockup, dir)
}

func (s *Service) loadMockup() error {
	root, err := mockupRoot(s.replayDir)
	if err != nil {
		return err
	}
	docs := map[string]*doc{}
	broken := map[string]string{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "index.json" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		uri := "/redfish/v1"
		if rel != "." {
			if un, uerr := url.PathUnescape(filepath.ToSlash(rel)); uerr == nil {
				rel = un
			}
			uri += "/" + filepath.ToSlash(rel)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		var body obj
		if err := json.Unmarshal(raw, &body); err != nil {
			if uri == "/redfish/v1" {
				return fmt.Errorf("%w: %s is not a JSON object: %v", ErrBadMockup, p, err)
			}
			// Real captures hold documents a BMC served broken (trailing
			// commas): serve the rest, answer 500 for this one, as the BMC
			// would have failed to serve it cleanly.
			log.Printf("redfishmock replay: %s is not a JSON object (%v); GET %s answers 500", p, err, uri)
			broken[norm(uri)] = err.Error()
			return nil
		}
		docs[norm(uri)] = &doc{body: body, raw: raw, gen: 1}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load mockup %s: %w", s.replayDir, err)
	}
	s.docs = docs
	s.broken = broken
	s.routes = nil
	s.timers = nil
	s.faults = nil
	s.stats = map[string]int{}
	s.tasks = map[string]*task{}
	sessions := "/redfish/v1/SessionService/Sessions"
	if l, isObj := s.get("/redfish/v1")["Links"].(map[string]any); isObj {
		if id, found := idOf(l["Sessions"]); found {
			sessions = id
		}
	}
	s.sessionsPath = sessions
	s.sessions = map[string]*session{}
	if s.get(sessions) == nil {
		s.collection(sessions, "#SessionCollection.SessionCollection", "Session Collection")
	}
	s.handle(http.MethodPost, sessions, postSession)
	s.handle(http.MethodDelete, sessions+"/{}", deleteSession)
	return nil
}

// BrokenDocuments lists the captured documents that are not valid JSON
// objects, by URI, with the parse error; GET answers 500 for them.
func (s *Service) BrokenDocuments() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.broken))
	for k, v := range s.broken {
		out[k] = v
	}
	return out
}

// replayWrite keeps writes to a captured tree in memory, like the DMTF
// mockup server, but answers with the representation and proper codes.
func replayWrite(s *Service, r *request) (*reply, error) {
	cur := s.get(r.path)
	switch r.method {
	case http.MethodPatch:
		if cur == nil {
			return nil, notFound(r.path)
		}
		if _, isColl := cur["Members"]; isColl {
			return nil, &apiError{status: http.StatusMethodNotAllowed, messages: []obj{message("ActionNotSupported", "PATCH")}}
		}
		if len(r.body) == 0 {
			return nil, rfErr(http.StatusBadRequest, "MalformedJSON").withSummary("empty PATCH body")
		}
		merged := deepCopy(cur).(map[string]any)
		mergeInto(merged, r.body)
		s.put(r.path, merged)
		return ok(http.StatusOK, merged)
	case http.MethodPost:
		if cur != nil {
			if _, isColl := cur["Members"]; isColl {
				return replayCreate(s, r, cur)
			}
		}
		if i := strings.Index(r.path, "/Actions/"); i > 0 && s.get(r.path[:i]) != nil {
			return &reply{status: http.StatusNoContent}, nil
		}
		return nil, rfErr(http.StatusNotFound, "ActionNotSupported", r.path)
	case http.MethodDelete:
		if cur == nil {
			return nil, notFound(r.path)
		}
		if r.path == "/redfish/v1" {
			return nil, rfErr(http.StatusMethodNotAllowed, "ResourceCannotBeDeleted")
		}
		s.remove(r.path)
		parent := r.path[:strings.LastIndex(r.path, "/")]
		if p := s.get(parent); p != nil {
			if _, isColl := p["Members"]; isColl {
				s.removeMember(parent, r.path)
			}
		}
		return &reply{status: http.StatusNoContent}, nil
	}
	return nil, &apiError{status: http.StatusMethodNotAllowed, messages: []obj{message("ActionNotSupported", r.method)}}
}

func replayCreate(s *Service, r *request, coll obj) (*reply, error) {
	id, _ := asString(r.body["Id"])
	if id == "" {
		n := len(memberPaths(coll)) + 1
		for s.get(r.path+"/"+strconv.Itoa(n)) != nil {
			n++
		}
		id = strconv.Itoa(n)
	}
	path := r.path + "/" + id
	if s.get(path) != nil {
		return nil, rfErr(http.StatusConflict, "ResourceAlreadyExists", "Resource", "Id", id)
	}
	body := deepCopy(r.body).(map[string]any)
	body["@odata.id"], body["Id"] = path, id
	if _, has := body["Name"]; !has {
		body["Name"] = id
	}
	if t, isStr := coll["@odata.type"].(string); isStr && body["@odata.type"] == nil {
		// #VolumeCollection.VolumeCollection -> #Volume.Volume
		if base, found := strings.CutSuffix(strings.TrimPrefix(t[strings.LastIndex(t, ".")+1:], "#"), "Collection"); found {
			body["@odata.type"] = "#" + base + "." + base
		}
	}
	s.put(path, body)
	s.addMember(r.path, path)
	return &reply{status: http.StatusCreated, body: body, headers: map[string]string{"Location": path}}, nil
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sm, isObj := v.(map[string]any); isObj {
			if dm, isObj := dst[k].(map[string]any); isObj {
				mergeInto(dm, sm)
				continue
			}
		}
		dst[k] = deepCopy(v)
	}
}
