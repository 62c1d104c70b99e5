// Package located carries an attribute's location with an error, so the
// provider puts a diagnostic on the attribute without reading the message.
// internal/ packages return these; only provider/ turns them into
// diagnostics (provider/diagnostics.go, addLocated).
package located

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Step is one hop of a path: an attribute name, a list index or a map key.
// Exactly one of Name, Key or Index (>= 0) is set.
type Step struct {
	Name  string
	Key   string
	Index int
	isKey bool
}

// Path names an attribute from the resource's root, e.g. groups[0].name.
// The empty path is the resource itself.
type Path []Step

// At starts a path at a top-level attribute.
func At(name string) Path { return Path{{Name: name, Index: -1}} }

// Name descends into a nested attribute.
func (p Path) Name(name string) Path { return p.with(Step{Name: name, Index: -1}) }

// Index descends into a list element.
func (p Path) Index(i int) Path { return p.with(Step{Index: i}) }

// Key descends into a map element.
func (p Path) Key(k string) Path { return p.with(Step{Key: k, Index: -1, isKey: true}) }

// with copies, so paths that share a prefix never share a backing array.
func (p Path) with(s Step) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, s)
}

// IsKey reports whether the step is a map key.
func (s Step) IsKey() bool { return s.isKey }

// String writes the path as Terraform does: a.b[3]["k"].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.isKey:
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
		case s.Name != "":
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		default:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		}
	}
	return b.String()
}

// Error is an error about one attribute. Warning marks a finding that
// should not stop the plan.
type Error struct {
	Path    Path
	Err     error
	Warning bool
}

func (e *Error) Error() string {
	if len(e.Path) == 0 {
		return e.Err.Error()
	}
	return e.Path.String() + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Wrap locates err at p; nil stays nil.
func Wrap(p Path, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Path: p, Err: err}
}

// Errorf locates a new error at p (%w wraps as in fmt.Errorf).
func Errorf(p Path, format string, args ...any) error {
	return &Error{Path: p, Err: fmt.Errorf(format, args...)}
}

// Warnf locates a warning at p.
func Warnf(p Path, format string, args ...any) error {
	return &Error{Path: p, Err: fmt.Errorf(format, args...), Warning: true}
}

// Under prefixes the location of err with p: a renderer that checks one
// element returns paths from that element, and its caller says which
// element it was. An error without a location gets p.
func Under(p Path, err error) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		full := make(Path, 0, len(p)+len(le.Path))
		full = append(append(full, p...), le.Path...)
		return &Error{Path: full, Err: le.Err, Warning: le.Warning}
	}
	return &Error{Path: p, Err: err}
}

// Find returns the first located error in err's tree (errors.Join included).
func Find(err error) (*Error, bool) {
	var le *Error
	if errors.As(err, &le) {
		return le, true
	}
	return nil, false
}

// All lists every located error in err's tree, in order: the leaves of
// errors.Join and of wrapping chains, each once.
func All(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if le, ok := e.(*Error); ok {
			out = append(out, le)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}
