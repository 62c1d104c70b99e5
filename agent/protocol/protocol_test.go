package protocol

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseYAMLAndJSONAgree(t *testing.T) {
	y := `
apiVersion: hpcstorage/v1
owner: r1-storage-tuning
items:
  - sysctl: {key: vm.dirty_ratio, value: 20}
  - file: {path: /etc/beegfs/beegfs-client.conf, set: {connMaxInternodeNum: 24, tuneX: true}}
  - block_queue: {match: {name: "sd*", rotational: true}, scheduler: mq-deadline, nr_requests: 2048}
  - thp: {enabled: never}
  - service: {name: beegfs-storage, enabled: true, state: started}
`
	j := `{"apiVersion":"hpcstorage/v1","owner":"r1-storage-tuning","items":[
 {"sysctl":{"key":"vm.dirty_ratio","value":"20"}},
 {"file":{"path":"/etc/beegfs/beegfs-client.conf","set":{"connMaxInternodeNum":"24","tuneX":"true"}}},
 {"block_queue":{"match":{"name":"sd*","rotational":true},"scheduler":"mq-deadline","nr_requests":2048}},
 {"thp":{"enabled":"never"}},
 {"service":{"name":"beegfs-storage","enabled":true,"state":"started"}}]}`
	a, err := ParseSpec([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseSpec([]byte(j))
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("YAML and JSON differ:\n%s\n%s", ja, jb)
	}
	wantIDs := []string{"sysctl:vm.dirty_ratio", "file:/etc/beegfs/beegfs-client.conf", "block_queue:sd*", "thp", "service:beegfs-storage"}
	for i, it := range a.Items {
		if it.ID() != wantIDs[i] {
			t.Errorf("item %d id = %q, want %q", i, it.ID(), wantIDs[i])
		}
	}
}

func TestParseErrorsAreLocated(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string // "path: substring"
	}{
		{"unknown field", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - sysctl: {key: vm.x, valeu: 1}\n",
			[]string{"items[0].sysctl: unknown field \"valeu\""}},
		{"unknown type", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - sysctll: {key: vm.x}\n",
			[]string{`items[0]: unknown item type "sysctll"`, `did you mean "sysctl"`}},
		{"two types", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - {thp: {enabled: never}, sysctl: {key: a, value: 1}}\n",
			[]string{"items[0]: want exactly one key"}},
		{"wrong type", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - block_queue: {match: {name: sd*}, nr_requests: many}\n",
			[]string{"items[0].block_queue.nr_requests: want an integer"}},
		{"yaml bool", "apiVersion: hpcstorage/v1\nowner: no\nitems: []\n", []string{"owner: want a string, got bool (YAML"}},
		{"content_base64", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - file: {path: /etc/a, content: x, content_base64: eA==}\n  - file: {path: /etc/b, content_base64: \"not base64!\"}\n",
			[]string{"items[0].file: content and content_base64 are exclusive", "items[1].file.content_base64: not standard base64"}},
		{"shape and value errors together", "apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - thp: {enabled: off}\n  - sysctl: {key: vm.x, value: \"\"}\n",
			[]string{"items[0].thp.enabled: want a string, got bool", "items[1].sysctl.value: required"}},
		{"values", `apiVersion: hpcstorage/v2
owner: "Bad Owner"
items:
  - sysctl: {key: "vm..x", value: ""}
  - thp: {enabled: sometimes}
  - thp: {defrag: nevr}
  - file: {path: etc/x, content: a, set: {a: b}}
  - file: {path: /etc/../x, mode: "999"}
  - block_queue: {match: {}, nr_requests: 1}
  - service: {name: beegfs-storage, state: running, masked: true, enabled: true}
  - mount: {device: sdb, path: /data, fstype: XFS!, options: ["a,b"], persist: always}
  - command: {argv: []}
  - package_version: {name: lvm2, min: "", why: "two\nlines"}
  - file: {path: /etc/a, content: x, notify: [beegfs-meta]}
  - udev_rule: {name: ../x, content: ""}
  - command: {argv: [beegfs-ctl, --getentryinfo, /mnt/beegfs], read_only: true, creates: /x}
  - command: {argv: [x], creates: /x, unless_match: ["("]}
`, []string{
			`apiVersion: "hpcstorage/v2": want "hpcstorage/v1"`,
			"owner: ",
			"items[0].sysctl.key",
			"items[0].sysctl.value: required",
			"items[1].thp.enabled",
			`items[2].thp.defrag: "nevr": want one of always, defer, defer+madvise, madvise, never (did you mean "never"?)`,
			"items[2].thp: duplicate item",
			"items[3].file.path: \"etc/x\": want an absolute path",
			"items[3].file: content and set are exclusive",
			"items[4].file.path",
			"items[4].file.mode",
			"items[5].block_queue.match: required",
			"items[5].block_queue.nr_requests: 1: want 4 to",
			"items[6].service.state",
			"items[6].service.masked: a masked unit cannot be enabled",
			"items[7].mount.device",
			"items[7].mount.fstype",
			"items[7].mount.options[0]",
			"items[7].mount.persist",
			"items[8].command.argv: required",
			"items[8].command: set creates or unless",
			"items[9].package_version.min",
			"items[9].package_version.why: want one line",
			`items[10].file.notify[0]: "beegfs-meta" is not a service item`,
			"items[11].udev_rule.name",
			"items[11].udev_rule.content: required",
			"items[12].command.read_only: a read-only command runs on every plan",
			"items[13].command.unless_match: needs unless",
			"items[13].command.unless_match[0]: \"(\": error parsing regexp",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSpec([]byte(tt.spec))
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("err = %v, want ErrInvalidSpec", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
			}
		})
	}
}

func TestScalar(t *testing.T) {
	tests := []struct{ in, want string }{{`"20"`, "20"}, {`20`, "20"}, {`1.5`, "1.5"}, {`true`, "true"}}
	for _, tt := range tests {
		var s Scalar
		if err := json.Unmarshal([]byte(tt.in), &s); err != nil || string(s) != tt.want {
			t.Errorf("%s -> %q, %v", tt.in, s, err)
		}
	}
	var s Scalar
	if err := json.Unmarshal([]byte(`null`), &s); err == nil {
		t.Error("null accepted")
	}
	if err := json.Unmarshal([]byte(`[1]`), &s); err == nil {
		t.Error("list accepted")
	}
}

func TestResultShape(t *testing.T) {
	r := Result{APIVersion: APIVersion, Owner: "o", Items: []ItemResult{{ID: "sysctl:vm.dirty_ratio", Changed: true,
		Diff: "-vm.dirty_ratio = 40\n+vm.dirty_ratio = 20\n"}}, Handlers: []HandlerResult{{ID: "service:beegfs-storage", Action: "restarted"}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"apiVersion", "owner", "check", "changed", "failed", "items", "handlers"} {
		if _, ok := m[k]; !ok {
			t.Errorf("result lacks %q: %s", k, b)
		}
	}
	item := m["items"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "changed", "diff", "error"} {
		if _, ok := item[k]; !ok {
			t.Errorf("item lacks %q", k)
		}
	}
	probe := RenderText(Result{Items: []ItemResult{{ID: "command:info", Output: "+ Type: RAID0\n+ Chunksize: 1M\n"}}})
	if !strings.Contains(probe, "= command:info\n    | + Type: RAID0\n    | + Chunksize: 1M\n") {
		t.Errorf("read-only output in text:\n%s", probe)
	}
	text := RenderText(r)
	if !strings.Contains(text, "+ sysctl:vm.dirty_ratio\n    -vm.dirty_ratio = 40\n") || !strings.Contains(text, "handler service:beegfs-storage: restarted") {
		t.Errorf("text rendering:\n%s", text)
	}
}

func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "agent", "*.yaml"))
	if len(files) == 0 {
		t.Skip("no examples/agent/*.yaml next to this package")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSpec(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "examples", "agent", "*.yaml"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"apiVersion":"hpcstorage/v1","owner":"o","items":[{"sysctl":{"key":"vm.x","value":1}}]}`,
		"apiVersion: hpcstorage/v1\nowner: o\nitems:\n  - mount: {device: LABEL=x, path: /data, fstype: xfs}\n",
		"items: [{file: {path: /../x}}]",
		"{", "- a", "apiVersion: hpcstorage/v1\nowner: o\nitems:\n  - command: {argv: [a], creates: /x, unless: [test]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data)
		if err != nil {
			var serr *SpecError
			if !errors.As(err, &serr) || len(serr.Errors) == 0 {
				t.Fatalf("error is not a located SpecError: %v", err)
			}
			return
		}
		// A valid spec: every item has one type, an id, and clean paths.
		for i, it := range s.Items {
			if len(it.kinds()) != 1 || it.ID() == "" {
				t.Fatalf("items[%d] accepted without exactly one type: %+v", i, it)
			}
			if it.File != nil && CheckPath(it.File.Path) != "" {
				t.Fatalf("items[%d] accepted bad path %q", i, it.File.Path)
			}
		}
		// Re-encoding a valid spec parses to the same spec.
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ParseSpec(b)
		if err != nil {
			t.Fatalf("re-encoded valid spec rejected: %v\n%s", err, b)
		}
		b2, _ := json.Marshal(s2)
		if string(b) != string(b2) {
			t.Fatalf("round trip differs:\n%s\n%s", b, b2)
		}
		if !slices.Equal(Kinds, []string{"sysctl", "file", "udev_rule", "block_queue", "thp", "kernel_module", "service", "mount", "command", "package_version"}) {
			t.Fatal("kinds changed")
		}
	})
}
