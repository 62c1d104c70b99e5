package main

import (
	"bytes"
	"strings"
	"testing"
)

// --help, -h, help and help COMMAND print to stdout and exit 0; misuse goes
// to stderr with a non-zero status.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, noOut string // in stdout; in stderr
	}{
		{[]string{"--help"}, 0, "usage: hpcstorage-lab COMMAND", ""},
		{[]string{"-h"}, 0, "serve-redfish --design", ""},
		{[]string{"help"}, 0, "help COMMAND", ""},
		{[]string{"help", "up"}, 0, "-clients int", ""},
		{[]string{"up", "--help"}, 0, "-design string", ""},
		{[]string{"status", "-h"}, 0, "usage: hpcstorage-lab status --dir DIR", ""},
		{[]string{"help", "serve-redfish"}, 0, "-listen string", ""},
		{[]string{"bench-fleet", "-help"}, 0, "-n int", ""},
		{[]string{"help", "nope"}, 1, "", `unknown command "nope"`},
		{[]string{"nope"}, 1, "", `unknown command "nope"`},
		{[]string{"down", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{nil, 1, "", "usage: hpcstorage-lab COMMAND"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.noOut) {
			t.Errorf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
		if tc.code == 0 && stderr.Len() > 0 {
			t.Errorf("%v: help wrote to stderr: %s", tc.args, stderr.String())
		}
	}
}
