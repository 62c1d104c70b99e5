package protocol

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// positions maps spec paths ("items[3].sysctl.value") to where they start
// in the document: a field's key, a list element's first token. JSON is
// YAML, so one parser serves both; a document it cannot read has none.
func positions(data []byte) map[string][2]int {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	pos := map[string][2]int{}
	var walk func(n *yamlv3.Node, path string)
	walk = func(n *yamlv3.Node, path string) {
		switch n.Kind {
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p := joinPath(path, k.Value)
				pos[p] = [2]int{k.Line, k.Column}
				walk(n.Content[i+1], p)
			}
		case yamlv3.SequenceNode:
			for i, c := range n.Content {
				p := path + "[" + strconv.Itoa(i) + "]"
				pos[p] = [2]int{c.Line, c.Column}
				walk(c, p)
			}
		case yamlv3.AliasNode:
			if n.Alias != nil {
				walk(n.Alias, path)
			}
		}
	}
	walk(doc.Content[0], "")
	return pos
}

var unknownFieldRE = regexp.MustCompile(`^unknown field "([^"]*)"`)

// locate gives every error the line and column of its path (or of the
// unknown field it names, or of its nearest located parent) and sorts the
// errors by position; errors about the whole document stay first.
func (e *SpecError) locate(data []byte) {
	pos := positions(data)
	if pos == nil {
		return
	}
	for i := range e.Errors {
		f := &e.Errors[i]
		p := f.Path
		if m := unknownFieldRE.FindStringSubmatch(f.Msg); m != nil {
			if at, ok := findKey(pos, p, m[1]); ok {
				p = at
				f.Path = strings.TrimSuffix(strings.TrimSuffix(at, m[1]), ".")
			}
			kind, sub := splitItemPath(f.Path)
			f.Msg = unknownFieldMsg(kind, sub, m[1])
		}
		for {
			if lc, ok := pos[p]; ok {
				f.Line, f.Column = lc[0], lc[1]
				break
			}
			cut := strings.LastIndexAny(p, ".[")
			if cut <= 0 {
				break
			}
			p = p[:cut]
		}
	}
	sort.SliceStable(e.Errors, func(i, j int) bool {
		a, b := e.Errors[i], e.Errors[j]
		return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
	})
}

var itemPathRE = regexp.MustCompile(`^items\[\d+\]\.([a-z_]+)\.?(.*)$`)

// splitItemPath splits "items[2].file.source" into the item kind and the
// path below its body ("file", "source"); other paths belong to the spec.
func splitItemPath(p string) (kind, sub string) {
	if m := itemPathRE.FindStringSubmatch(p); m != nil {
		return m[1], m[2]
	}
	return "", p
}

// findKey finds the key name under prefix: directly, else anywhere below
// it (the JSON decoder does not say in which nested map a field was).
func findKey(pos map[string][2]int, prefix, name string) (string, bool) {
	if _, ok := pos[joinPath(prefix, name)]; ok {
		return joinPath(prefix, name), true
	}
	var found []string
	for p := range pos {
		if strings.HasPrefix(p, prefix) && strings.HasSuffix(p, "."+name) {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	if len(found) > 0 {
		return found[0], true
	}
	return "", false
}

// fieldNames are the JSON names of a struct type's fields, in order.
func fieldNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// unknownFieldMsg names a near field and lists the valid ones of the map
// the field is in (at is its path below the item body, "" for the body).
func unknownFieldMsg(kind, at, field string) string {
	t := itemType(kind)
	for _, seg := range strings.Split(at, ".") {
		if seg == "" || t == nil {
			continue
		}
		t = fieldType(t, strings.TrimRightFunc(seg, func(r rune) bool { return r == ']' || r == '[' || (r >= '0' && r <= '9') }))
	}
	names := fieldNames(t)
	if len(names) == 0 {
		return fmt.Sprintf("unknown field %q", field)
	}
	return fmt.Sprintf("unknown field %q%s; valid fields: %s", field, suggest(field, names), strings.Join(names, ", "))
}

// itemType is the body type of an item kind; "" is the spec itself.
func itemType(kind string) reflect.Type {
	if kind == "" {
		return reflect.TypeOf(Spec{})
	}
	t := reflect.TypeOf(Item{})
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == kind {
			return t.Field(i).Type
		}
	}
	return nil
}

// fieldType is the type of the field named name (JSON) of struct t, through
// pointers, slices and maps.
func fieldType(t reflect.Type, name string) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if n == name {
			ft := t.Field(i).Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
				ft = ft.Elem()
			}
			return ft
		}
	}
	return nil
}
