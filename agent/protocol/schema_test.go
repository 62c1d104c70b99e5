package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatalf("the generated schema does not compile: %v", err)
	}
	return s
}

func validateYAML(s *jsonschema.Schema, spec []byte) error {
	js, err := yaml.YAMLToJSON(spec)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// agent/spec.schema.json is what the Go types generate.
func TestSchemaFileIsCurrent(t *testing.T) {
	want, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../spec.schema.json")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("agent/spec.schema.json is stale (%v): run go generate ./agent/protocol (make generate)", err)
	}
}

// Every example spec passes both the schema and the parser; the mistakes
// editors should flag fail both.
func TestSchemaAgreesWithParser(t *testing.T) {
	s := compileSchema(t)
	files, _ := filepath.Glob("../../examples/agent/*.yaml")
	if len(files) < 5 {
		t.Fatalf("example specs: %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateYAML(s, b); err != nil {
			t.Errorf("%s fails the schema: %v", f, err)
		}
		if _, err := ParseSpec(b); err != nil {
			t.Errorf("%s fails the parser: %v", f, err)
		}
	}
	head := "apiVersion: hpcstorage/v1\nowner: a\nitems:\n"
	for name, body := range map[string]string{
		"misspelt field":  "  - sysctl: {key: vm.x, valeu: \"1\"}\n",
		"missing value":   "  - sysctl: {key: vm.x}\n",
		"two kinds":       "  - {thp: {enabled: never}, sysctl: {key: a, value: 1}}\n",
		"unknown kind":    "  - sysctll: {key: a, value: 1}\n",
		"unquoted mode":   "  - file: {path: /etc/x, content: a, mode: 0644}\n",
		"bad enum":        "  - thp: {enabled: sometimes}\n",
		"bad owner":       "",
		"wrong type":      "  - block_queue: {match: {name: sd*}, nr_requests: many}\n",
		"nested misspelt": "  - block_queue: {match: {nmae: sd*}, nr_requests: 64}\n",
	} {
		spec := head + body
		if name == "bad owner" {
			spec = "apiVersion: hpcstorage/v1\nowner: Bad Owner\nitems: []\n"
		}
		if err := validateYAML(s, []byte(spec)); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
		if _, err := ParseSpec([]byte(spec)); err == nil {
			t.Errorf("%s: the parser accepts it", name)
		}
	}
}
