package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/dellpeer"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// BenchmarkPeerBIOS sets two BIOS attributes on the five iDRACs of R1 with
// Dell's provider (dell/terraform-provider-redfish v1.6.1, redfish_bios) and
// with hpcstorage_server, on the same lab in one run, and reports what each
// cost on the wire per server (every request the mock counted, sessions
// included), for the change and for the no-op plan after it. Both run with
// their production waits against the mock's default 5 s power transitions.
// Not part of make bench (the Dell provider alone takes minutes): run it
// with make bench-peer.
func BenchmarkPeerBIOS(b *testing.B) {
	if os.Getenv("HPCSTORAGE_BENCH_PEER") == "" {
		b.Skip("set HPCSTORAGE_BENCH_PEER=1 (make bench-peer): builds Dell's provider and waits its fixed 180 s")
	}
	tfPath := terraformCLI(b)
	b.Setenv("CHECKPOINT_DISABLE", "1")
	b.Setenv("TF_LOG_PROVIDER", "OFF")
	b.Setenv("TF_LOG_PROVIDER_HPCSTORAGE", "OFF") // the in-process server's own trace log
	b.Setenv("TF_LOG_SDK", "OFF")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	pluginDir, err := dellpeer.Build(ctx, "")
	if err != nil {
		b.Fatal(err)
	}

	names := []string{"mgmt-bmc", "meta1-bmc", "meta2-bmc", "stor1-bmc", "stor2-bmc"}
	lab := startLab(b, "r1", redfishmock.Options{PowerDelay: 5 * time.Second, SessionLimit: 16}, names...)
	attrs := map[string]string{"LogicalProc": "Disabled", "SubNumaCluster": "Enabled"}
	servers := float64(len(names))
	count := func() (total int, byKind map[string]int) {
		byKind = map[string]int{}
		for _, n := range names {
			for k, v := range lab.svcs[n].Stats() {
				total += v
				byKind[kindOf(k)] += v
			}
		}
		return total, byKind
	}
	resetStats := func() {
		for _, n := range names {
			lab.svcs[n].ResetStats()
		}
	}
	// Each run starts from the BMCs as seeded: BIOS defaults, no job.
	reset := func() {
		for _, n := range names {
			if err := lab.svcs[n].Reset(); err != nil {
				b.Fatal(err)
			}
		}
		resetStats()
	}
	applied := func(who string) {
		for _, n := range names {
			cur, pending := lab.svcs[n].BiosAttributes()
			for k, v := range attrs {
				if cur[k] != v || len(pending) != 0 {
					b.Fatalf("%s: after %s's apply %s = %v (pending %v)", n, who, k, cur[k], pending)
				}
			}
		}
	}

	var dellChange, dellNoop, oursChange, oursNoop int
	var dellTime, oursTime time.Duration
	for i := 0; i < b.N; i++ {
		// Dell's provider, as a user would run it.
		reset()
		dir := b.TempDir()
		caFile := filepath.Join(dir, "lab-ca.pem")
		if err := os.WriteFile(caFile, lab.eps[names[0]].CACertPEM, 0o600); err != nil {
			b.Fatal(err)
		}
		var ds []dellpeer.Server
		for _, n := range names {
			c := lab.eps[n]
			ds = append(ds, dellpeer.Server{Name: strings.TrimSuffix(n, "-bmc"), Endpoint: c.URL, Username: c.Username, Password: c.Password})
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(dellpeer.BiosConfig(ds, attrs, false)), 0o600); err != nil {
			b.Fatal(err)
		}
		ws, err := dellpeer.NewWorkspace(dir, tfPath, pluginDir, caFile)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if out, err := ws.Run(ctx, "apply", "-auto-approve", "-no-color"); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		dellTime += time.Since(start)
		applied("Dell's provider")
		n, kinds := count()
		dellChange += n
		b.Logf("Dell provider, change, all servers: %s", kindSummary(kinds))
		resetStats()
		if out, err := ws.Run(ctx, "plan", "-detailed-exitcode", "-no-color"); err != nil {
			b.Fatalf("Dell provider's second plan is not empty: %v\n%s", err, out)
		}
		n, _ = count()
		dellNoop += n

		// hpcstorage_server on the same BMCs, back at their defaults.
		reset()
		change, noop, elapsed := runOurs(ctx, b, tfPath, lab, names, attrs, count, resetStats)
		oursChange += change
		oursNoop += noop
		oursTime += elapsed
		applied("hpcstorage")
	}
	per := func(total int) float64 { return float64(total) / float64(b.N) / servers }
	b.ReportMetric(per(dellChange), "dell-req/server")
	b.ReportMetric(per(oursChange), "ours-req/server")
	b.ReportMetric(per(dellNoop), "dell-noop-req/server")
	b.ReportMetric(per(oursNoop), "ours-noop-req/server")
	b.ReportMetric(float64(oursChange)/float64(max(dellChange, 1)), "ours/dell-change")
	b.ReportMetric(dellTime.Seconds()/float64(b.N), "dell-s/apply")
	b.ReportMetric(oursTime.Seconds()/float64(b.N), "ours-s/apply")
}

// runOurs applies hpcstorage_server with the two attributes on every BMC,
// served in-process with the provider's production waits, then plans once
// more; it returns the requests of each and the apply's wall time.
func runOurs(ctx context.Context, b *testing.B, tfPath string, lab *mockLab, names []string, attrs map[string]string,
	count func() (int, map[string]int), resetStats func()) (change, noop int, elapsed time.Duration) {
	b.Helper()
	var cfg strings.Builder
	cfg.WriteString(lab.providerBlock())
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, n := range names {
		fmt.Fprintf(&cfg, "\nresource \"hpcstorage_server\" %q {\n  endpoint = %q\n  bios_attributes = {\n", strings.TrimSuffix(n, "-bmc"), n)
		for _, k := range keys {
			fmt.Fprintf(&cfg, "    %s = %q\n", k, attrs[k])
		}
		cfg.WriteString("  }\n}\n")
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	ri, stopProvider := serveProviderAt(b, providerAddr, &hpcstorageProvider{version: "bench-peer"})
	defer stopProvider()
	reattach := tfexec.Reattach(ri)
	tf, err := tfexec.NewTerraform(dir, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := tf.Init(ctx, reattach); err != nil {
		b.Fatal(err)
	}
	resetStats() // init sends nothing to the BMCs; start from zero anyway
	start := time.Now()
	if err := tf.Apply(ctx, reattach); err != nil {
		b.Fatal(err)
	}
	elapsed = time.Since(start)
	_ = CloseSessions(ctx) // the logouts belong to the run, as Dell's do
	change, kinds := count()
	b.Logf("hpcstorage_server, change, all servers: %s", kindSummary(kinds))
	resetStats()
	changed, err := tf.Plan(ctx, reattach)
	if err != nil {
		b.Fatal(err)
	}
	if changed {
		b.Fatal("hpcstorage_server's second plan is not empty")
	}
	_ = CloseSessions(ctx)
	noop, _ = count()
	return change, noop, elapsed
}

// kindOf groups a "METHOD /path" statistic by what it is for.
func kindOf(k string) string {
	method, path, _ := strings.Cut(k, " ")
	switch {
	case strings.Contains(path, "/SessionService/Sessions"):
		return method + " session"
	case strings.Contains(path, "/TaskService/") || strings.Contains(path, "/Jobs"):
		return method + " task/job"
	case strings.Contains(path, "/Registries") || strings.HasSuffix(path, "/BiosRegistry"):
		return method + " registry"
	case strings.Contains(path, "/Bios"):
		return method + " bios"
	case strings.Contains(path, "/Managers"):
		return method + " manager"
	case strings.Contains(path, "/Systems"):
		return method + " system"
	case path == "/redfish/v1":
		return method + " service root"
	}
	return method + " other"
}

func kindSummary(kinds map[string]int) string {
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	return strings.Join(parts, ", ")
}
