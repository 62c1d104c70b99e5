package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// One mistake, one diagnostic, on the attribute, with the agent's own
// bounds and lists (terraform validate with the real CLI).
func TestOneDiagnosticPerMistake(t *testing.T) {
	env := devOverrides(t, providerBinary(t))
	node := func(body string) string {
		return "resource \"hpcstorage_node_config\" \"a\" {\n  host  = \"stor01\"\n  owner = \"a\"\n" + body + "\n}\n"
	}
	for _, tc := range []struct {
		name, config, attr, msg string
	}{
		{"thp off", node(`  thp = { enabled = "off" }`), "thp.enabled", `"off": want one of always, madvise, never`},
		{"nr_requests -1", node(`  block_queues = [{ match = { name = "sd*" }, nr_requests = -1 }]`), "block_queues[0].nr_requests", `-1: want 4 to 1048576`},
		{"read_ahead_kb too big", node(`  block_queues = [{ match = { name = "sd*" }, read_ahead_kb = 99999999 }]`), "block_queues[0].read_ahead_kb", `want 0 to 16777216`},
		{"service state", node(`  services = { "beegfs-storage" = { state = "runing" } }`), `services["beegfs-storage"].state`, `"runing": want one of started, stopped, restarted`},
		{"request_timeout", `provider "hpcstorage" {
  request_timeout = "forever"
}

data "hpcstorage_tuning_profile" "x" {
  name = "beegfs-storage"
}
`, "request_timeout", `"forever" is not a positive Go duration`},
		{"mount persist", node(`  mounts = { "/data" = { device = "LABEL=x", fstype = "xfs", persist = "always" } }`), `mounts["/data"].persist`, `"always": want one of fstab, none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"main.tf": `terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}
` + tc.config})
			out, _ := tfRun(t, dir, env, "validate", "-json", "-no-color")
			// dev_overrides print a warning before the JSON.
			var res struct {
				Diagnostics []struct {
					Severity, Summary, Detail string
					Address                   string
					Range                     *struct{ Filename string }
				} `json:"diagnostics"`
			}
			if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
				t.Fatalf("validate -json: %v\n%s", err, out)
			}
			var errs []string
			for _, d := range res.Diagnostics {
				if d.Severity == "error" {
					errs = append(errs, d.Summary+": "+d.Detail)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("%d error diagnostics, want 1:\n%s", len(errs), strings.Join(errs, "\n"))
			}
			if !strings.Contains(errs[0], tc.msg) || !strings.Contains(errs[0], tc.attr) {
				t.Errorf("diagnostic %q lacks %q or the attribute %s", errs[0], tc.msg, tc.attr)
			}
		})
	}
}
