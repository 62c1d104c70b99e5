package redfish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest"
)

// BIOS validation errors.
var (
	ErrUnknownAttribute = errors.New("unknown BIOS attribute")
	ErrBadValue         = errors.New("value not accepted by the BIOS attribute registry")
	ErrReadOnly         = errors.New("read-only BIOS attribute")
	// ErrNoBios: the system links no Bios resource (BIOS settings cannot
	// be read or managed through this BMC).
	ErrNoBios = fmt.Errorf("%w: the system has no BIOS resource", ErrNotSupported)
	// ErrNoRegistry: the BMC publishes no attribute registry that could be
	// found; values can only be checked against the current ones.
	ErrNoRegistry = fmt.Errorf("%w: no BIOS attribute registry found", ErrNotSupported)
)

// Bios is the current and pending state of a system's BIOS (two GETs).
type Bios struct {
	URI        string
	RegistryID string
	// RegistryURI, when known from an earlier run, is where the attribute
	// registry was found: BiosRegistry tries it first (one GET).
	RegistryURI  string
	Current      map[string]any
	SettingsURI  string
	SettingsETag string
	ApplyTimes   []string // SupportedApplyTimes; empty when not published
	Pending      map[string]any
}

type biosDoc struct {
	AttributeRegistry string         `json:"AttributeRegistry"`
	Attributes        map[string]any `json:"Attributes"`
	Settings          struct {
		Object     schemasLink `json:"SettingsObject"`
		ApplyTimes []string    `json:"SupportedApplyTimes"`
	} `json:"@Redfish.Settings"`
}

// GetBios reads current attributes and, when the BMC has a settings object,
// the values waiting for the next reset.
func (e *Endpoint) GetBios(ctx context.Context, biosURI string) (*Bios, error) {
	if biosURI == "" {
		return nil, fmt.Errorf("%w (%s)", ErrNoBios, e.cfg.Name)
	}
	var doc biosDoc
	if _, err := e.Get(ctx, biosURI, &doc); err != nil {
		return nil, err
	}
	b := newBios(biosURI, doc)
	if b.SettingsURI == "" {
		return b, nil
	}
	var set biosDoc
	resp, err := e.Get(ctx, b.SettingsURI, &set)
	if err != nil {
		if IsGone(err) {
			return b, nil
		}
		return nil, err
	}
	b.addPending(set, resp.ETag())
	return b, nil
}

func newBios(uri string, doc biosDoc) *Bios {
	return &Bios{URI: uri, RegistryID: doc.AttributeRegistry, Current: doc.Attributes,
		SettingsURI: doc.Settings.Object.ID, ApplyTimes: doc.Settings.ApplyTimes, Pending: map[string]any{}}
}

// addPending records what the settings object holds that differs from the
// current values: some BMCs list only pending values there, others every
// value.
func (b *Bios) addPending(set biosDoc, etag string) {
	b.SettingsETag = etag
	for k, v := range set.Attributes {
		if cur, ok := b.Current[k]; !ok || FormatValue(cur) != FormatValue(v) {
			b.Pending[k] = v
		}
	}
}

// SystemAndBios reads a system with its BIOS. Given the BIOS and settings
// URIs of an earlier read, the three GETs go out together, so a refresh
// costs one round trip instead of three.
func (e *Endpoint) SystemAndBios(ctx context.Context, id, biosURI, settingsURI string) (*System, *Bios, error) {
	if biosURI == "" || settingsURI == "" {
		sys, err := e.GetSystem(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if sys.BiosURI == "" {
			return sys, nil, nil
		}
		b, err := e.GetBios(ctx, sys.BiosURI)
		return sys, b, err
	}
	var (
		wg                 sync.WaitGroup
		sys                *System
		doc, set           biosDoc
		setResp            *Response
		sysErr, bErr, sErr error
	)
	wg.Add(3)
	go func() { defer wg.Done(); sys, sysErr = e.GetSystem(ctx, id) }()
	go func() { defer wg.Done(); _, bErr = e.Get(ctx, biosURI, &doc) }()
	go func() { defer wg.Done(); setResp, sErr = e.Get(ctx, settingsURI, &set) }()
	wg.Wait()
	if sysErr != nil {
		return nil, nil, sysErr
	}
	if bErr != nil || (sErr != nil && !IsGone(sErr)) || doc.Settings.Object.ID != settingsURI || sys.BiosURI != biosURI {
		// Moved or failed: read the plain way.
		b, err := e.GetBios(ctx, sys.BiosURI)
		return sys, b, err
	}
	b := newBios(biosURI, doc)
	if sErr == nil {
		b.addPending(set, setResp.ETag())
	}
	return sys, b, nil
}

// FormatValue renders a BIOS value the way the provider stores it: strings
// as is, whole numbers without a decimal point, booleans as true/false.
func FormatValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return strconv.FormatInt(int64(t), 10)
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(t, 10)
	case int:
		return strconv.Itoa(t)
	case bool:
		return strconv.FormatBool(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Registry is a BIOS attribute registry, indexed by attribute name.
type Registry struct {
	ID    string
	URI   string // where it was read
	Attrs map[string]RegistryAttr
}

// RegistryAttr is one attribute of a registry. It is decoded here rather
// than with gofish's schemas.Attributes, whose uint64 bounds reject the
// 1.8e19 upper bounds real iDRAC registries publish.
type RegistryAttr struct {
	AttributeName string
	Type          string
	ReadOnly      bool
	Immutable     bool
	Value         []struct{ ValueName string }
	LowerBound    *float64
	UpperBound    *float64
	MaxLength     *int
}

// Names lists the writable attribute names, sorted (for error messages).
func (r *Registry) Names() []string {
	var out []string
	for n, a := range r.Attrs {
		if !a.ReadOnly && !a.Immutable {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Convert checks value (as written in Terraform) against the registry and
// returns it with the registry's type, ready to PATCH.
func (r *Registry) Convert(name, value string) (any, error) {
	a, ok := r.Attrs[name]
	if !ok {
		return nil, fmt.Errorf("%w %q in registry %s%s", ErrUnknownAttribute, name, r.ID, suggest.DidYouMean(name, r.Names(), 3))
	}
	if a.ReadOnly || a.Immutable {
		return nil, fmt.Errorf("%w %q", ErrReadOnly, name)
	}
	switch strings.ToLower(a.Type) {
	case "enumeration":
		var allowed []string
		for _, v := range a.Value {
			allowed = append(allowed, v.ValueName)
		}
		if !slices.Contains(allowed, value) {
			return nil, fmt.Errorf("%w: %s = %q; allowed: %s", ErrBadValue, name, value, strings.Join(allowed, ", "))
		}
		return value, nil
	case "integer":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s takes an integer, got %q", ErrBadValue, name, value)
		}
		if a.LowerBound != nil && float64(n) < *a.LowerBound || a.UpperBound != nil && float64(n) > *a.UpperBound {
			return nil, fmt.Errorf("%w: %s = %d is outside %s..%s", ErrBadValue, name, n, bound(a.LowerBound), bound(a.UpperBound))
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%w: %s takes true or false, got %q", ErrBadValue, name, value)
		}
		return b, nil
	default: // String, Password
		if a.MaxLength != nil && len(value) > *a.MaxLength {
			return nil, fmt.Errorf("%w: %s is at most %d characters", ErrBadValue, name, *a.MaxLength)
		}
		return value, nil
	}
}

func bound(b *float64) string {
	if b == nil {
		return "any"
	}
	return strconv.FormatFloat(*b, 'f', -1, 64)
}

// registriesPath is the collection of registry files (MessageRegistryFile).
const registriesPath = "/redfish/v1/Registries"

type registryFile struct {
	ID       string `json:"Id"`
	Registry string `json:"Registry"`
	Location []struct {
		Language       string `json:"Language"`
		URI            string `json:"Uri"`
		PublicationURI string `json:"PublicationUri"`
	} `json:"Location"`
}

// registryBase is a registry name without its version:
// BiosAttributeRegistryA42.v1_2_60 and BiosAttributeRegistry.1.0.0 give
// BiosAttributeRegistryA42 and BiosAttributeRegistry.
func registryBase(name string) string {
	name, _, _ = strings.Cut(name, ".")
	return strings.ToLower(name)
}

// langRank orders registry locations: English first (en, unset, then any
// en-*), other languages last (attribute names do not change with them).
func langRank(lang string) int {
	l := strings.ToLower(lang)
	switch {
	case l == "en" || l == "":
		return 0
	case strings.HasPrefix(l, "en"):
		return 1
	}
	return 2
}

// localPath turns a registry location into a path on this endpoint; a
// location on another host is not fetched (it would need our credentials
// or the internet).
func (e *Endpoint) localPath(uri string) (string, bool) {
	if strings.HasPrefix(uri, "/") {
		return uri, true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", false
	}
	base, _ := url.Parse(e.base)
	if base == nil || !strings.EqualFold(u.Host, base.Host) {
		return "", false
	}
	return u.RequestURI(), true
}

// registryFiles finds the registry files for name: the file of that exact
// name, else the members of the Registries collection whose name has the
// same base (a versioned AttributeRegistry against an unversioned member,
// or the other way round), or, with no name, any BIOS attribute registry.
func (e *Endpoint) registryFiles(ctx context.Context, name string, note func(string, string)) ([]registryFile, error) {
	if name != "" {
		var f registryFile
		uri := registriesPath + "/" + name
		_, err := e.Get(ctx, uri, &f)
		switch {
		case err == nil:
			return []registryFile{f}, nil
		case IsGone(err):
			note(uri, "404")
		default:
			return nil, err
		}
	}
	var coll struct {
		Members []schemasLink `json:"Members"`
	}
	if _, err := e.Get(ctx, registriesPath, &coll); err != nil {
		if IsGone(err) {
			note(registriesPath, "404")
			return nil, nil
		}
		return nil, err
	}
	var exact, same []string
	for _, m := range coll.Members {
		seg := lastSegment(m.ID)
		switch {
		case name != "" && strings.EqualFold(seg, name):
			exact = append(exact, m.ID)
		case name != "" && registryBase(seg) == registryBase(name):
			same = append(same, m.ID)
		case name == "" && strings.Contains(strings.ToLower(seg), "biosattributeregistry"):
			same = append(same, m.ID)
		}
	}
	if len(exact)+len(same) == 0 {
		what := "no member named like " + name
		if name == "" {
			what = "no BIOS attribute registry member"
		}
		note(registriesPath, what)
	}
	var out []registryFile
	for _, uri := range append(exact, same...) {
		var f registryFile
		if _, err := e.Get(ctx, uri, &f); err != nil {
			if IsGone(err) {
				note(uri, "404")
				continue
			}
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// readRegistry reads a registry hint; any failure is noted, not returned.
func (e *Endpoint) readRegistry(ctx context.Context, b *Bios, uri string, note func(string, string)) (*Registry, bool) {
	r, ok, err := e.readRegistryAt(ctx, b, uri, note)
	if err != nil {
		note(uri, err.Error())
	}
	return r, ok && err == nil
}

// readRegistryAt reads an attribute registry document; ok is false (and
// the reason noted) when uri holds none.
func (e *Endpoint) readRegistryAt(ctx context.Context, b *Bios, uri string, note func(string, string)) (*Registry, bool, error) {
	var doc struct {
		ID              string `json:"Id"`
		RegistryEntries struct {
			Attributes []RegistryAttr
		}
	}
	resp, err := e.Get(ctx, uri, nil)
	var he *HTTPError
	switch {
	case IsGone(err):
		note(uri, "404")
		return nil, false, nil
	case asHTTP(err, &he) || errors.Is(err, ErrServer):
		note(uri, err.Error())
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	if _, err := decodeLenient(resp.Body, &doc); err != nil || len(doc.RegistryEntries.Attributes) == 0 {
		note(uri, "no RegistryEntries.Attributes")
		return nil, false, nil
	}
	r := &Registry{ID: cmpOr(doc.ID, b.RegistryID), URI: uri, Attrs: map[string]RegistryAttr{}}
	for _, a := range doc.RegistryEntries.Attributes {
		r.Attrs[a.AttributeName] = a
	}
	return r, true, nil
}

type registryEntry struct {
	r   *Registry
	err error
}

// BiosRegistry finds and reads the attribute registry of a Bios the ways
// the Redfish specification allows: the registry file named by the Bios's
// AttributeRegistry (or, without one, any BIOS attribute registry file),
// looked up directly or among the Registries collection's members by name
// without version; each file's locations in English first (en, en-US ...),
// by Uri, or PublicationUri when it is on this BMC; finally the Dell
// location beside the Bios. When none works the ErrNoRegistry error lists
// every lookup tried. The outcome is cached for the provider run.
func (e *Endpoint) BiosRegistry(ctx context.Context, b *Bios) (*Registry, error) {
	key := b.URI + "|" + b.RegistryID
	e.mu.Lock()
	if c, ok := e.registries[key]; ok {
		e.mu.Unlock()
		return c.r, c.err
	}
	e.mu.Unlock()
	r, err := e.findBiosRegistry(ctx, b)
	var he *HTTPError
	if err == nil || errors.Is(err, ErrNoRegistry) || asHTTP(err, &he) && he.Status < 500 {
		e.mu.Lock()
		e.registries[key] = registryEntry{r, err}
		e.mu.Unlock()
	}
	return r, err
}

// CachedRegistryURI says where this run found the registry of a Bios, if it
// looked (no request).
func (e *Endpoint) CachedRegistryURI(biosURI, registryID string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.registries[biosURI+"|"+registryID]; ok && c.r != nil {
		return c.r.URI
	}
	return ""
}

func (e *Endpoint) findBiosRegistry(ctx context.Context, b *Bios) (*Registry, error) {
	var tried []string
	note := func(uri, outcome string) { tried = append(tried, uri+" ("+outcome+")") }
	if b.RegistryURI != "" {
		if r, ok := e.readRegistry(ctx, b, b.RegistryURI, note); ok {
			return r, nil
		}
	}
	files, err := e.registryFiles(ctx, b.RegistryID, note)
	if err != nil {
		return nil, err
	}
	type cand struct {
		uri  string
		rank int
	}
	var cands []cand
	for _, f := range files {
		for _, l := range f.Location {
			switch p, ok := e.localPath(l.URI); {
			case ok:
				cands = append(cands, cand{p, langRank(l.Language)})
			case l.URI == "" && l.PublicationURI != "":
				if p, ok := e.localPath(l.PublicationURI); ok {
					cands = append(cands, cand{p, langRank(l.Language)})
				} else {
					note(l.PublicationURI, "PublicationUri on another host, not fetched")
				}
			case l.URI != "":
				note(l.URI, "Uri on another host, not fetched")
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.rank - b.rank })
	cands = append(cands, cand{uri: strings.TrimRight(b.URI, "/") + "/BiosRegistry"})
	seen := map[string]bool{b.RegistryURI: b.RegistryURI != ""}
	for _, c := range cands {
		if seen[c.uri] {
			continue
		}
		seen[c.uri] = true
		r, ok, err := e.readRegistryAt(ctx, b, c.uri, note)
		if err != nil {
			return nil, err
		}
		if ok {
			return r, nil
		}
	}
	name := b.RegistryID
	if name == "" {
		name = "(the Bios names none)"
	}
	return nil, fmt.Errorf("%w on %s for AttributeRegistry %s; tried: %s", ErrNoRegistry, e.cfg.Name, name, strings.Join(tried, "; "))
}

// BiosChange is the outcome of ApplyBios.
type BiosChange struct {
	Changed  []string // attributes that were set
	Rebooted bool
	Task     string // the job or task the BMC created for them, if any
	// PowerState is the system's power state when the values were seen
	// applied ("" when nothing was changed).
	PowerState string
}

// ApplyBios sets the attributes that differ from their current values:
// one PATCH of the settings object with the apply time the BMC offers
// (OnReset preferred), at most one reboot of the host, then it waits until
// every value landed and fails with ErrPending naming those that did not.
// want holds registry-typed values (see Registry.Convert).
func (e *Endpoint) ApplyBios(ctx context.Context, sys *System, want map[string]any, w Waiter) (BiosChange, error) {
	return e.ApplyBiosFrom(ctx, sys, nil, want, w)
}

// ApplyBiosFrom is ApplyBios starting from a Bios just read (nil: read it),
// so a caller that read it to type the values does not read it twice.
//
// Requests: the PATCH, the configuration job where the BMC needs one and did
// not create it, one reset, then a poll that backs off: the job alone while
// it runs, then the current BIOS (not the settings object) and the power
// state once.
func (e *Endpoint) ApplyBiosFrom(ctx context.Context, sys *System, b *Bios, want map[string]any, w Waiter) (BiosChange, error) {
	var ch BiosChange
	var diff map[string]any
	applyNow := false
	// A 412 means someone changed the settings since we read them: read
	// again, recompute the difference, and PATCH once more.
	for attempt := 1; ; attempt++ {
		if b == nil || attempt > 1 {
			var err error
			if b, err = e.GetBios(ctx, sys.BiosURI); err != nil {
				return ch, err
			}
		}
		diff = b.Diff(want)
		ch.Changed = make([]string, 0, len(diff))
		for k := range diff {
			ch.Changed = append(ch.Changed, k)
		}
		sort.Strings(ch.Changed)
		if len(diff) == 0 {
			return ch, nil
		}
		if b.SettingsURI == "" {
			return ch, fmt.Errorf("%w: %s publishes no BIOS settings object", ErrNotSupported, e.cfg.Name)
		}
		body := map[string]any{"Attributes": diff}
		switch {
		case slices.Contains(b.ApplyTimes, "OnReset"):
			body["@Redfish.SettingsApplyTime"] = map[string]string{"ApplyTime": "OnReset"}
		case slices.Contains(b.ApplyTimes, "Immediate"):
			body["@Redfish.SettingsApplyTime"] = map[string]string{"ApplyTime": "Immediate"}
			applyNow = true
		}
		// Without an ETag the PATCH is sent once (not retried); with one it
		// is retried safely on transient errors.
		resp, err := e.Patch(ctx, b.SettingsURI, b.SettingsETag, body)
		if errors.Is(err, ErrPreconditionFailed) && attempt < 3 {
			continue
		}
		if err != nil {
			return ch, err
		}
		// iDRAC answers with its configuration job, Immediate with a task.
		if loc := resp.Header.Get("Location"); loc != "" && resp.Status == http.StatusAccepted {
			ch.Task = sessionLocation(resp)
		}
		break
	}
	if ch.Task == "" && !applyNow {
		// iDRAC firmware that took the PATCH without an apply time applies
		// nothing at reboot unless a configuration job exists (the
		// "settings stay pending" trap): create it when the BMC has a job queue.
		task, err := e.dellConfigJob(ctx, sys, b.SettingsURI)
		if err != nil {
			return ch, err
		}
		ch.Task = task
	}
	if !applyNow {
		// The power state decides the reset: the one read by the caller
		// when it is fresh (a transition under way is read again).
		s := sys
		if s.PowerState != "On" && s.PowerState != "Off" {
			var err error
			if s, err = e.GetSystem(ctx, sys.ID); err != nil {
				return ch, err
			}
		}
		if err := e.boot(ctx, s); err != nil {
			return ch, fmt.Errorf("rebooting to apply BIOS settings: %w", err)
		}
	}
	ch.Rebooted = true
	taskDone := ch.Task == ""
	polls, jobStatus := 0, ""
	err := w.Until(ctx, "BIOS settings to apply on "+e.cfg.Name, func() (bool, string, error) {
		polls++
		if !taskDone {
			// While the job runs, mostly the job alone is read; a failed
			// job will never apply the values: stop waiting. Every third
			// poll looks at the values too, for BMCs whose jobs never say
			// they are done.
			t, err := e.GetTask(ctx, ch.Task)
			switch {
			case IsGone(err):
				taskDone = true // some BMCs drop finished jobs
			case err != nil:
				return false, "", err
			case t.Failed:
				return false, "", fmt.Errorf("%w: BIOS job %s ended %s: %s", ErrPending, ch.Task, t.State, strings.Join(t.Messages, "; "))
			case t.Done:
				taskDone = true
			default:
				jobStatus = fmt.Sprintf("job %s %d%%", t.State, t.Percent)
				if polls%3 != 0 {
					return false, jobStatus, nil
				}
			}
		}
		var cur biosDoc
		if _, err := e.Get(ctx, sys.BiosURI, &cur); err != nil {
			return false, "", err
		}
		var missing []string
		for k, v := range diff {
			if FormatValue(cur.Attributes[k]) != FormatValue(v) {
				missing = append(missing, fmt.Sprintf("%s=%s (now %s)", k, FormatValue(v), FormatValue(cur.Attributes[k])))
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			if !taskDone {
				return false, jobStatus, nil // one status per job state keeps the backoff going
			}
			return false, "still pending: " + strings.Join(missing, ", "), nil
		}
		s, err := e.GetSystem(ctx, sys.ID)
		if err != nil {
			return false, "", err
		}
		ch.PowerState = s.PowerState
		return s.PowerState == "On", "power " + s.PowerState, nil
	})
	if errors.Is(err, ErrTimeout) {
		return ch, fmt.Errorf("%w after one reboot: %v", ErrPending, err)
	}
	return ch, err
}

// Diff is what of want differs from the current values (compared as
// the BMC writes them): what applying want would change, and reboot for.
func (b *Bios) Diff(want map[string]any) map[string]any {
	diff := map[string]any{}
	for k, v := range want {
		if FormatValue(b.Current[k]) != FormatValue(v) {
			diff[k] = v
		}
	}
	return diff
}

// ConvertLike types value like the attribute's current value, for BMCs that
// publish no attribute registry: numbers stay numbers, booleans booleans.
func (b *Bios) ConvertLike(name, value string) (any, error) {
	cur, ok := b.Current[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: the BIOS reports no such attribute", ErrUnknownAttribute, name)
	}
	switch cur.(type) {
	case float64:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s takes an integer, got %q", ErrBadValue, name, value)
		}
		return n, nil
	case bool:
		v, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%w: %s takes true or false, got %q", ErrBadValue, name, value)
		}
		return v, nil
	}
	return value, nil
}

// dellConfigJob creates the BIOS configuration job on BMCs with a Dell job
// queue (Manager Links.Oem.Dell.Jobs); elsewhere it does nothing.
func (e *Endpoint) dellConfigJob(ctx context.Context, sys *System, settingsURI string) (string, error) {
	if sys.ManagerURI == "" {
		return "", nil
	}
	var mgr struct {
		Links struct {
			Oem struct {
				Dell struct {
					Jobs schemasLink `json:"Jobs"`
				} `json:"Dell"`
			} `json:"Oem"`
		} `json:"Links"`
	}
	if _, err := e.Get(ctx, sys.ManagerURI, &mgr); err != nil {
		if IsGone(err) {
			return "", nil
		}
		return "", err
	}
	jobs := mgr.Links.Oem.Dell.Jobs.ID
	if jobs == "" {
		return "", nil
	}
	resp, err := e.Post(ctx, jobs, map[string]string{"TargetSettingsURI": settingsURI})
	if err != nil {
		return "", fmt.Errorf("creating the BIOS configuration job: %w", err)
	}
	return sessionLocation(resp), nil
}
