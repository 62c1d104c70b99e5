package redfishmock

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type session struct {
	id, token, user, path string
	lastUsed              time.Time
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("redfishmock: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// public says which requests need no credentials: the service root, the
// OData documents, and session login, as the Redfish specification requires.
func (s *Service) public(method, path string) bool {
	switch path {
	case "/redfish/v1", "/redfish/v1/odata", "/redfish/v1/$metadata":
		return method == http.MethodGet || method == http.MethodHead
	}
	return method == http.MethodPost && path == norm(s.sessionsPath)
}

func (s *Service) authenticate(r *http.Request) *apiError {
	if tok := r.Header.Get("X-Auth-Token"); tok != "" {
		for _, se := range s.sessions {
			if subtle.ConstantTimeCompare([]byte(se.token), []byte(tok)) == 1 {
				se.lastUsed = s.now()
				return nil
			}
		}
		return rfErr(http.StatusUnauthorized, "NoValidSession")
	}
	if u, p, ok := r.BasicAuth(); ok && s.checkPassword(u, p) {
		return nil
	}
	return rfErr(http.StatusUnauthorized, "NoValidSession")
}

func (s *Service) checkPassword(u, p string) bool {
	uok := subtle.ConstantTimeCompare([]byte(u), []byte(s.opts.Username)) == 1
	pok := subtle.ConstantTimeCompare([]byte(p), []byte(s.password)) == 1
	return uok && pok
}

func (s *Service) expireSessions() {
	now := s.now()
	for tok, se := range s.sessions {
		if now.Sub(se.lastUsed) >= s.opts.SessionTimeout {
			delete(s.sessions, tok)
			s.remove(se.path)
			s.removeMember(s.sessionsPath, se.path)
		}
	}
}

// installSessionService adds SessionService and its Sessions collection.
func (s *Service) installSessionService(sessionsPath string) {
	s.sessionsPath = sessionsPath
	s.sessions = map[string]*session{}
	svcPath := sessionsPath[:strings.LastIndex(norm(sessionsPath), "/")]
	s.put(svcPath, obj{
		"@odata.id":      svcPath,
		"@odata.type":    "#SessionService.v1_2_0.SessionService",
		"Id":             "SessionService",
		"Name":           "Session Service",
		"ServiceEnabled": true,
		"SessionTimeout": int(s.opts.SessionTimeout / time.Second),
		"Sessions":       ref(sessionsPath),
	})
	s.collection(sessionsPath, "#SessionCollection.SessionCollection", "Session Collection")
	s.handle(http.MethodPost, sessionsPath, postSession)
	s.handle(http.MethodDelete, sessionsPath+"/{}", deleteSession)
}

func postSession(s *Service, r *request) (*reply, error) {
	var errs errorList
	user, uok := asString(r.body["UserName"])
	pass, pok := asString(r.body["Password"])
	if !uok {
		errs.add(http.StatusBadRequest, "PropertyMissing", "UserName")
	}
	if !pok {
		errs.add(http.StatusBadRequest, "PropertyMissing", "Password")
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if !s.checkPassword(user, pass) {
		return nil, rfErr(http.StatusUnauthorized, "NoValidSession").withSummary("invalid user name or password")
	}
	if len(s.sessions) >= s.opts.SessionLimit {
		e := rfErr(http.StatusServiceUnavailable, "SessionLimitExceeded")
		e.headers = map[string]string{"Retry-After": "30"}
		return nil, e
	}
	s.sessionSeq++
	id := strconv.Itoa(s.sessionSeq)
	path := norm(s.sessionsPath) + "/" + id
	se := &session{id: id, token: randomHex(16), user: user, path: path, lastUsed: s.now()}
	s.sessions[se.token] = se
	body := obj{
		"@odata.id":   path,
		"@odata.type": "#Session.v1_8_0.Session",
		"Id":          id,
		"Name":        "User Session",
		"UserName":    user,
		"CreatedTime": s.now().Format(time.RFC3339),
	}
	s.put(path, body)
	s.addMember(s.sessionsPath, path)
	return &reply{status: http.StatusCreated, body: body,
		headers: map[string]string{"Location": path, "X-Auth-Token": se.token}}, nil
}

func deleteSession(s *Service, r *request) (*reply, error) {
	for tok, se := range s.sessions {
		if se.path == r.path {
			delete(s.sessions, tok)
			s.remove(se.path)
			s.removeMember(s.sessionsPath, se.path)
			return &reply{status: http.StatusNoContent}, nil
		}
	}
	return nil, notFound(r.path)
}
