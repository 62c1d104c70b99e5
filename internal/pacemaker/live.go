package pacemaker

// The live cluster: its configuration as `cibadmin --query --scope
// configuration` prints it, compared with the rendered one, and the two
// documents crm_diff turns into the patch that is pushed. Pacemaker writes
// a few cluster properties itself (its version, the cluster layer); they
// are carried over into the pushed configuration and never count as drift.

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// ErrLive is wrapped by errors about what the cluster returned.
var ErrLive = errors.New("unreadable cluster answer")

// PacemakerOwned are the cluster properties pacemaker's controller writes
// on its own (at every election): the pushed configuration keeps the live
// values and drift ignores them.
var PacemakerOwned = []string{"dc-version", "cluster-infrastructure", "have-watchdog", "last-lrm-refresh"}

// Configuration renders the configuration section alone: what is pushed
// to a live cluster, whose status stays its own.
func (c Cluster) Configuration() ([]byte, error) {
	cib, err := c.Render(false)
	if err != nil {
		return nil, err
	}
	root, err := parseTree(cib)
	if err != nil {
		return nil, err
	}
	conf := root.child("configuration")
	if conf == nil {
		return nil, fmt.Errorf("rendering the CIB: no configuration")
	}
	return conf.marshal(), nil
}

// tree is an XML element: whitespace between elements and comments are
// dropped, attributes and children keep their order.
type tree struct {
	Name     string
	Attrs    []xml.Attr
	Children []*tree
}

func parseTree(b []byte) (*tree, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var stack []*tree
	var root *tree
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrLive, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &tree{Name: t.Name.Local, Attrs: append([]xml.Attr(nil), t.Attr...)}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no XML element", ErrLive)
	}
	return root, nil
}

func (t *tree) attr(name string) string {
	for _, a := range t.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (t *tree) child(name string) *tree {
	for _, c := range t.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (t *tree) marshal() []byte {
	var b bytes.Buffer
	t.write(&b, "")
	return b.Bytes()
}

func (t *tree) write(b *bytes.Buffer, indent string) {
	b.WriteString(indent + "<" + t.Name)
	for _, a := range t.Attrs {
		b.WriteString(" " + a.Name.Local + `="`)
		_ = xml.EscapeText(b, []byte(a.Value))
		b.WriteString(`"`)
	}
	if len(t.Children) == 0 {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">\n")
	for _, c := range t.Children {
		c.write(b, indent+"  ")
	}
	b.WriteString(indent + "</" + t.Name + ">\n")
}

// owned reports whether an nvpair of crm_config is pacemaker's own.
func owned(parents []*tree, n *tree) bool {
	if n.Name != "nvpair" || len(parents) < 2 || parents[len(parents)-2].Name != "crm_config" {
		return false
	}
	return contains(PacemakerOwned, n.attr("name"))
}

// lines flattens a configuration into one line per element that has
// attributes: its path of ids, then its attributes sorted. Group members
// carry their position (their order is their start order); everything
// else compares as a set, so the order pacemaker keeps siblings in does
// not count.
func lines(conf *tree) []string {
	var out []string
	var walk func(parents []*tree, n *tree, at string)
	walk = func(parents []*tree, n *tree, at string) {
		if owned(parents, n) || isLockSet(parents, n) {
			return
		}
		step := n.Name
		if id := n.attr("id"); id != "" {
			step += "[" + id + "]"
		}
		if len(parents) > 0 && parents[len(parents)-1].Name == "group" && n.Name == "primitive" {
			pos := 0
			for _, s := range parents[len(parents)-1].Children {
				if s == n {
					break
				}
				if s.Name == "primitive" {
					pos++
				}
			}
			step = strconv.Itoa(pos+1) + ":" + step
		}
		p := at + "/" + step
		var attrs []string
		for _, a := range n.Attrs {
			if a.Name.Local != "id" {
				attrs = append(attrs, a.Name.Local+"="+strconv.Quote(a.Value))
			}
		}
		sort.Strings(attrs)
		if len(attrs) > 0 || (n.attr("id") != "" && len(n.Children) == 0) {
			out = append(out, strings.TrimSpace(p+" "+strings.Join(attrs, " ")))
		}
		for _, c := range n.Children {
			walk(append(parents, n), c, p)
		}
	}
	for _, c := range conf.Children {
		walk([]*tree{conf}, c, "")
	}
	sort.Strings(out)
	return out
}

// ConfigDiff compares a live configuration with the rendered one and
// returns what differs, one line per element: "-" what only the cluster
// has, "+" what only the rendered configuration has. Empty: the same.
func ConfigDiff(live, want []byte) (string, error) {
	l, err := parseConfiguration(live)
	if err != nil {
		return "", err
	}
	w, err := parseConfiguration(want)
	if err != nil {
		return "", err
	}
	ll, wl := lines(l), lines(w)
	have := map[string]int{}
	for _, s := range ll {
		have[s]++
	}
	for _, s := range wl {
		have[s]--
	}
	var b strings.Builder
	for _, s := range ll {
		if have[s] > 0 {
			b.WriteString("- " + s + "\n")
			have[s]--
		}
	}
	for _, s := range wl {
		if have[s] < 0 {
			b.WriteString("+ " + s + "\n")
			have[s]++
		}
	}
	return b.String(), nil
}

func parseConfiguration(b []byte) (*tree, error) {
	t, err := parseTree(b)
	if err != nil {
		return nil, err
	}
	if t.Name == "cib" {
		t = t.child("configuration")
	}
	if t == nil || t.Name != "configuration" {
		return nil, fmt.Errorf("%w: want a <configuration> element (cibadmin --query --scope configuration)", ErrLive)
	}
	return t, nil
}

// PatchDocuments returns the two documents crm_diff compares to make the
// patch that turns the live configuration into want: both are CIBs with
// the same (empty) status, so the patch touches the configuration only,
// at the paths of the live CIB. The pacemaker-owned properties of live are
// kept, first in the cluster's property set, as the controller wrote them.
func PatchDocuments(live, want []byte) (orig, next []byte, err error) {
	l, err := parseConfiguration(live)
	if err != nil {
		return nil, nil, err
	}
	w, err := parseConfiguration(want)
	if err != nil {
		return nil, nil, err
	}
	// The cluster's property set keeps the live order (the controller's
	// properties where it wrote them), so the patch moves nothing; new
	// properties go last.
	var liveSet *tree
	if cc := l.child("crm_config"); cc != nil {
		for _, set := range cc.Children {
			if set.attr("id") == "cib-bootstrap-options" {
				liveSet = set
			}
		}
	}
	if cc := w.child("crm_config"); cc != nil && liveSet != nil {
		for _, set := range cc.Children {
			if set.attr("id") != "cib-bootstrap-options" {
				continue
			}
			ours := map[string]*tree{}
			for _, nv := range set.Children {
				ours[nv.attr("id")] = nv
			}
			var merged []*tree
			for _, nv := range liveSet.Children {
				if owned([]*tree{cc, liveSet}, nv) {
					merged = append(merged, nv)
				} else if o, ok := ours[nv.attr("id")]; ok {
					merged = append(merged, o)
					delete(ours, nv.attr("id"))
				}
			}
			for _, nv := range set.Children {
				if _, ok := ours[nv.attr("id")]; ok {
					merged = append(merged, nv)
				}
			}
			set.Children = merged
		}
	}
	// A maintenance lock of a day-2 run in progress (or interrupted) is
	// the run's, not the configuration's: the push keeps it.
	if lc := l.child("crm_config"); lc != nil {
		wc := w.child("crm_config")
		if wc == nil {
			wc = &tree{Name: "crm_config"}
			w.Children = append([]*tree{wc}, w.Children...)
		}
		for _, set := range lc.Children {
			if isLockSet([]*tree{lc}, set) {
				wc.Children = append(wc.Children, set)
			}
		}
	}
	// crm_diff writes its version 2 patch format (xpaths, what cibadmin
	// --patch applies on pacemaker 1.1.12 and later) only for documents
	// whose crm_feature_set is above 3.0.8: RHEL 7.6's pacemaker has 3.0.14.
	wrap := func(conf *tree) []byte {
		root := &tree{Name: "cib", Attrs: []xml.Attr{{Name: xml.Name{Local: "crm_feature_set"}, Value: "3.0.14"}},
			Children: []*tree{conf, {Name: "status"}}}
		return root.marshal()
	}
	return wrap(l), wrap(w), nil
}

// Placement reads `crm_mon --output-as=xml` (pacemaker 2) or `crm_mon
// --as-xml` (1.1): where each resource, group and group member runs ("" when
// stopped). A group is where its members run (its first member's node).
func Placement(monXML []byte) (map[string]string, error) {
	root, err := parseTree(monXML)
	if err != nil {
		return nil, err
	}
	if root.Name != "pacemaker-result" && root.Name != "crm_mon" {
		return nil, fmt.Errorf("%w: want crm_mon's XML, got <%s>", ErrLive, root.Name)
	}
	res := root.child("resources")
	if res == nil {
		if st := root.child("status"); st != nil && st.attr("code") != "0" {
			return nil, fmt.Errorf("%w: crm_mon: %s", ErrLive, st.attr("message"))
		}
		return map[string]string{}, nil
	}
	out := map[string]string{}
	where := func(r *tree) string {
		if r.attr("role") != "Started" && r.attr("role") != "Promoted" && r.attr("role") != "Master" {
			return ""
		}
		if n := r.child("node"); n != nil {
			return n.attr("name")
		}
		return ""
	}
	for _, r := range res.Children {
		switch r.Name {
		case "resource":
			out[r.attr("id")] = where(r)
		case "group":
			first := true
			for _, m := range r.Children {
				if m.Name != "resource" {
					continue
				}
				out[m.attr("id")] = where(m)
				if first {
					out[r.attr("id")] = where(m)
					first = false
				}
			}
		}
	}
	return out, nil
}
