package protocol

import (
	"errors"
	"strings"
	"testing"
)

// Errors carry the YAML line and column, name a near field with the valid
// ones, explain an unquoted mode, and come sorted by position.
func TestParseErrorsHaveLineAndColumn(t *testing.T) {
	spec := `apiVersion: hpcstorage/v1
owner: a
items:
  - thp: {enabld: never}
  - file:
      path: /etc/x
      content: a
      mode: 0644
  - sysctl:
      key: vm.x
      valeu: "1"
  - service: {name: beegfs-storage, state: strated}
`
	_, err := ParseSpec([]byte(spec))
	var serr *SpecError
	if !errors.As(err, &serr) {
		t.Fatalf("err = %v", err)
	}
	want := []string{
		`line 4, column 11: items[0].thp: unknown field "enabld" (did you mean "enabled"?); valid fields: enabled, defrag`,
		`line 8, column 7: items[1].file.mode: want a string, got number (YAML reads an unquoted 0644 as the octal number 420: quote it, mode: "0644")`,
		`line 11, column 7: items[2].sysctl: unknown field "valeu" (did you mean "value"?); valid fields: key, value`,
		`line 12, column 37: items[3].service.state: "strated": want one of started, stopped, restarted (did you mean "started"?)`,
	}
	if len(serr.Errors) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(serr.Errors), len(want), err)
	}
	for i, w := range want {
		if got := serr.Errors[i].String(); !strings.HasPrefix(got, w) {
			t.Errorf("error %d:\n got %s\nwant %s...", i, got, w)
		}
	}

	// JSON specs are located the same way; a misspelt top-level field too.
	_, err = ParseSpec([]byte("{\"apiVersion\": \"hpcstorage/v1\",\n \"ownr\": \"a\", \"items\": []}"))
	if err == nil || !strings.Contains(err.Error(), `line 2, column 2: unknown field "ownr" (did you mean "owner"?); valid fields: apiVersion, owner, items`) {
		t.Errorf("top-level: %v", err)
	}
	// A nested map's unknown field names that map's fields.
	_, err = ParseSpec([]byte("apiVersion: hpcstorage/v1\nowner: a\nitems:\n  - block_queue:\n      match: {nmae: sd*}\n      nr_requests: 64\n"))
	if err == nil || !strings.Contains(err.Error(), `line 5, column 15: items[0].block_queue.match: unknown field "nmae" (did you mean "name"?)`) {
		t.Errorf("nested: %v", err)
	}
}
