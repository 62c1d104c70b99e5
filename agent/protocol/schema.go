package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
)

//go:generate go run ./genschema ../spec.schema.json

// SchemaID names the spec's JSON Schema (agent/spec.schema.json).
const SchemaID = "https://hpcstorage.dev/schemas/agent-spec-v1.json"

// schemaEnums and schemaPatterns are the validators' own lists and
// patterns, by "kind.field" ("" kind: the spec's top level).
var (
	schemaEnums = map[string][]string{
		"thp.enabled": THPEnabled, "thp.defrag": THPDefrag, "service.state": ServiceStates, "mount.persist": MountPersist,
		".apiVersion": {APIVersion},
	}
	schemaPatterns = map[string]pattern{
		".owner": reOwner, "file.mode": {reMode, 3, 5}, "mount.fstype": reFSType, "block_queue.scheduler": reSchedulerName,
		"kernel_module.name": reModule, "package_version.min": reVersion,
		"package_version.platforms": rePlatform,
	}
)

// JSONSchema is the spec's JSON Schema (draft 2020-12), derived from the
// Go types: a field without omitempty is required, unknown fields are
// refused, each item is a map with exactly one key naming its type, and
// enumerations and patterns are the validators'. Editors use it to complete
// and check specs; ParseSpec checks more (paths, cross-item rules).
func JSONSchema() ([]byte, error) {
	defs := map[string]any{}
	g := &schemaGen{defs: defs}
	kinds := map[string]any{}
	it := reflect.TypeOf(Item{})
	var oneOf []any
	for i := range it.NumField() {
		kind := jsonName(it.Field(i))
		kinds[kind] = g.typ(it.Field(i).Type, kind, "")
		oneOf = append(oneOf, map[string]any{"required": []string{kind}})
	}
	defs["item"] = map[string]any{
		"description":          "One item: a map with exactly one key naming its type.",
		"type":                 "object",
		"properties":           kinds,
		"additionalProperties": false,
		"minProperties":        1,
		"maxProperties":        1,
		"oneOf":                oneOf,
	}
	top := g.object(reflect.TypeOf(Spec{}), "")
	top["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	top["$id"] = SchemaID
	top["title"] = "hpcstorage-agent spec"
	top["description"] = "What one owner wants on a node: hpcstorage-agent apply -f SPEC (see docs/guides/agent.md)."
	top["$defs"] = defs
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type schemaGen struct{ defs map[string]any }

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// typ is the schema of t; kind and field name where it sits, for enums.
func (g *schemaGen) typ(t reflect.Type, kind, field string) any {
	if t == reflect.TypeOf(Scalar("")) {
		return map[string]any{"type": []string{"string", "number", "boolean"}}
	}
	if t == reflect.TypeOf(Item{}) {
		return map[string]any{"$ref": "#/$defs/item"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typ(t.Elem(), kind, field)
	case reflect.String:
		s := map[string]any{"type": "string"}
		if e, ok := schemaEnums[kind+"."+field]; ok {
			s["enum"] = e
		}
		if p, ok := schemaPatterns[kind+"."+field]; ok {
			s["pattern"], s["minLength"], s["maxLength"] = p.re.String(), p.min, p.max
		}
		return s
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.typ(t.Elem(), kind, field)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.typ(t.Elem(), kind, field)}
	case reflect.Struct:
		name := strings.ToLower(t.Name())
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // recursion guard
			g.defs[name] = g.object(t, kind)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	return map[string]any{}
}

func (g *schemaGen) object(t reflect.Type, kind string) map[string]any {
	props := map[string]any{}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || name == "-" {
			continue
		}
		props[name] = g.typ(f.Type, kind, name)
		if !strings.Contains(f.Tag.Get("json"), ",omitempty") {
			required = append(required, name)
		}
	}
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}
