package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	suggestpkg "github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest"
)

// ErrInvalidSpec is wrapped by every parse and validation error.
var ErrInvalidSpec = errors.New("invalid spec")

// MaxSpecBytes bounds a spec; a node spec is a few KiB.
const MaxSpecBytes = 8 << 20

// FieldError is one problem at a located path such as "items[3].sysctl.value".
type FieldError struct {
	Path string `json:"path"`
	Msg  string `json:"message"`
	// Line and Column locate Path in the YAML or JSON text (1-based; 0 for
	// specs built in Go and errors about the whole document).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

func (e FieldError) String() string {
	s := e.Msg
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.Line > 0 {
		s = fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, s)
	}
	return s
}

// SpecError lists every problem found in a spec. It wraps ErrInvalidSpec.
type SpecError struct {
	Errors []FieldError
}

func (e *SpecError) Error() string {
	lines := make([]string, len(e.Errors))
	for i, f := range e.Errors {
		lines[i] = f.String()
	}
	if len(lines) == 1 {
		return "invalid spec: " + lines[0]
	}
	return fmt.Sprintf("invalid spec (%d problems):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// Unwrap makes errors.Is(err, ErrInvalidSpec) true.
func (e *SpecError) Unwrap() error { return ErrInvalidSpec }

func (e *SpecError) add(path, format string, args ...any) {
	e.Errors = append(e.Errors, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (e *SpecError) orNil() error {
	if len(e.Errors) == 0 {
		return nil
	}
	return e
}

// ParseSpec decodes a JSON or YAML spec strictly (unknown fields are errors)
// and validates it. Every problem is reported, each with its path.
func ParseSpec(data []byte) (*Spec, error) {
	s, bad, serr := decodeSpec(data)
	if s == nil {
		return nil, serr
	}
	// Validate what did decode too, so one run reports every problem.
	s.validate(serr, bad)
	if err := serr.orNil(); err != nil {
		serr.locate(data)
		return nil, err
	}
	return s, nil
}

// ReadSpec reads at most MaxSpecBytes from r and parses it.
func ReadSpec(r io.Reader) (*Spec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	if len(data) > MaxSpecBytes {
		return nil, &SpecError{Errors: []FieldError{{Msg: fmt.Sprintf("larger than %d bytes", MaxSpecBytes)}}}
	}
	return ParseSpec(data)
}

// DecodeSpec decodes without validating values (shape errors only).
func DecodeSpec(data []byte) (*Spec, error) {
	s, _, serr := decodeSpec(data)
	if err := serr.orNil(); err != nil {
		serr.locate(data)
		return nil, err
	}
	return s, nil
}

// decodeSpec returns the spec (nil when even its top level is unreadable),
// the indexes of items that did not decode, and the errors so far.
func decodeSpec(data []byte) (*Spec, map[int]bool, *SpecError) {
	serr := &SpecError{}
	bad := map[int]bool{}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		serr.add("", "empty document")
		return nil, bad, serr
	}
	js := trimmed
	if trimmed[0] != '{' {
		var err error
		js, err = yaml.YAMLToJSON(trimmed)
		if err != nil {
			serr.add("", "not valid YAML or JSON: %v", err)
			return nil, bad, serr
		}
	}
	var top struct {
		APIVersion *string           `json:"apiVersion"`
		Owner      *string           `json:"owner"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := strictDecode(js, &top); err != nil {
		serr.add(jsonErrPath("", err), "%s", jsonErrMsg(err))
		serr.locate(trimmed)
		return nil, bad, serr
	}
	s := &Spec{}
	if top.APIVersion != nil {
		s.APIVersion = *top.APIVersion
	}
	if top.Owner != nil {
		s.Owner = *top.Owner
	}
	if top.Items == nil {
		serr.add("items", "required (a list, may be empty)")
	}
	s.Items = make([]Item, len(top.Items))
	for i, raw := range top.Items {
		path := fmt.Sprintf("items[%d]", i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			serr.add(path, "want a map with one key naming the item type (%s)", strings.Join(Kinds, ", "))
			bad[i] = true
			continue
		}
		if len(m) != 1 {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			serr.add(path, "want exactly one key naming the item type, got %d (%s)", len(m), strings.Join(keys, ", "))
			bad[i] = true
			continue
		}
		for kind, body := range m {
			if !knownKind(kind) {
				serr.add(path, "unknown item type %q (want one of %s)%s", kind, strings.Join(Kinds, ", "), suggest(kind, Kinds))
				bad[i] = true
				continue
			}
			if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
				serr.add(path+"."+kind, "want a map of fields, got null")
				bad[i] = true
				continue
			}
			it, err := decodeItem(kind, body)
			if err != nil {
				serr.add(jsonErrPath(path+"."+kind, err), "%s", jsonErrMsg(err))
				bad[i] = true
				continue
			}
			s.Items[i] = it
		}
	}
	return s, bad, serr
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the document")
	}
	return nil
}

// jsonErrPath turns a decoder error into a spec path ("items[2].sysctl.value").
func jsonErrPath(prefix string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return joinPath(prefix, te.Field)
	}
	return prefix
}

func joinPath(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

func jsonErrMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg := fmt.Sprintf("want %s, got %s", friendlyType(te.Type.String()), te.Value)
		if te.Value == "bool" && te.Type.Kind() == reflect.String {
			msg += " (YAML reads unquoted yes/no/on/off/y/n as booleans: quote the value)"
		}
		if te.Value == "number" && te.Type.Kind() == reflect.String && (te.Field == "mode" || strings.HasSuffix(te.Field, ".mode")) {
			msg += ` (YAML reads an unquoted 0644 as the octal number 420: quote it, mode: "0644")`
		}
		return msg
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	if strings.HasPrefix(msg, "unknown field") {
		return msg + " (see docs/guides/agent.md)"
	}
	return msg
}

func friendlyType(t string) string {
	switch t {
	case "string", "protocol.Scalar":
		return "a string"
	case "int", "*int":
		return "an integer"
	case "bool", "*bool":
		return "true or false"
	case "[]string":
		return "a list of strings"
	}
	if strings.HasPrefix(t, "map[") {
		return "a map"
	}
	if strings.HasPrefix(t, "[]") {
		return "a list"
	}
	return "a map of fields"
}

// decodeItem decodes one item body into the field its kind names.
func decodeItem(kind string, body []byte) (Item, error) {
	var it Item
	var err error
	switch kind {
	case "sysctl":
		it.Sysctl = &Sysctl{}
		err = strictDecode(body, it.Sysctl)
	case "file":
		it.File = &File{}
		err = strictDecode(body, it.File)
	case "udev_rule":
		it.UdevRule = &UdevRule{}
		err = strictDecode(body, it.UdevRule)
	case "block_queue":
		it.BlockQueue = &BlockQueue{}
		err = strictDecode(body, it.BlockQueue)
	case "thp":
		it.THP = &THP{}
		err = strictDecode(body, it.THP)
	case "kernel_module":
		it.KernelModule = &KernelModule{}
		err = strictDecode(body, it.KernelModule)
	case "service":
		it.Service = &Service{}
		err = strictDecode(body, it.Service)
	case "mount":
		it.Mount = &Mount{}
		err = strictDecode(body, it.Mount)
	case "command":
		it.Command = &Command{}
		err = strictDecode(body, it.Command)
	case "package_version":
		it.PackageVersion = &PackageVersion{}
		err = strictDecode(body, it.PackageVersion)
	default:
		err = fmt.Errorf("unknown item type %q", kind)
	}
	return it, err
}

func knownKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// suggest returns ` (did you mean "x"?)` for a near miss, else "".
func suggest(got string, options []string) string { return suggestpkg.DidYouMean(got, options, 2) }
