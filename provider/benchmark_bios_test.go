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

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// BenchmarkBiosChangeRequests measures what a BIOS change costs on the wire:
// a real `terraform apply` setting two BIOS attributes (LogicalProc and
// SubNumaCluster) on 5 iDRAC-like BMCs of the lab, then a no-op plan. It
// reports requests per server for each (every method, logins included),
// from the mock's request statistics.
//
//	go test ./provider -run '^$' -bench BiosChangeRequests -benchtime 2x
func BenchmarkBiosChangeRequests(b *testing.B) {
	tfPath := terraformCLI(b)
	b.Setenv("CHECKPOINT_DISABLE", "1")
	b.Setenv("TF_LOG_PROVIDER", "OFF")
	b.Setenv("TF_LOG_SDK", "OFF")
	b.Setenv("TF_LOG_PROVIDER_HPCSTORAGE", "OFF")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const servers = 5
	lab := &mockLab{svcs: map[string]*redfishmock.Service{}, eps: map[string]redfish.Config{}}
	ca, err := redfishmock.NewCA()
	if err != nil {
		b.Fatal(err)
	}
	opts := redfishmock.Options{Username: "root", Password: "bench-s3cret", PowerDelay: 10 * time.Millisecond}
	var names []string
	for i := 1; i <= servers; i++ {
		name := fmt.Sprintf("bmc-%d", i)
		names = append(names, name)
		svc, err := redfishmock.NewService("r1", "stor1-bmc", opts)
		if err != nil {
			b.Fatal(err)
		}
		srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = srv.Close() })
		lab.svcs[name] = svc
		lab.eps[name] = redfish.Config{Name: name, URL: srv.URL, Username: opts.Username, Password: opts.Password, CACertPEM: ca.PEM()}
	}
	dir := b.TempDir()
	writeConfig := func(lp, snc string) {
		var cfg strings.Builder
		cfg.WriteString(lab.providerBlock())
		for _, n := range names {
			fmt.Fprintf(&cfg, `
resource "hpcstorage_server" %q {
  endpoint    = %q
  power_state = "On"
  bios_attributes = {
    LogicalProc    = %q
    SubNumaCluster = %q
  }
}
`, n, n, lp, snc)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o600); err != nil {
			b.Fatal(err)
		}
	}

	ri, stopProvider := serveProviderAt(b, providerAddr, &hpcstorageProvider{version: "bench", hooks: testHooks{pollInterval: 5 * time.Millisecond}})
	defer stopProvider()
	reattach := tfexec.Reattach(ri)
	tf, err := tfexec.NewTerraform(dir, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := tf.Init(ctx, reattach); err != nil {
		b.Fatal(err)
	}
	// Created with the values each server already has: no change yet.
	cur, _ := lab.svcs[names[0]].BiosAttributes()
	lp, snc := fmt.Sprint(cur["LogicalProc"]), fmt.Sprint(cur["SubNumaCluster"])
	writeConfig(lp, snc)
	if err := tf.Apply(ctx, reattach); err != nil {
		b.Fatal(err)
	}
	_ = CloseSessions(ctx)
	flip := func(v string) string {
		if v == "Enabled" {
			return "Disabled"
		}
		return "Enabled"
	}

	count := func() (total int, kinds map[string]int) {
		kinds = map[string]int{}
		for _, s := range lab.svcs {
			for k, n := range s.Stats() {
				total += n
				kinds[k] += n
			}
		}
		return total, kinds
	}
	reset := func() {
		for _, s := range lab.svcs {
			s.ResetStats()
		}
	}
	var changeReqs, noopReqs int
	var lastChange map[string]int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lp, snc = flip(lp), flip(snc)
		writeConfig(lp, snc)
		reset()
		if err := tf.Apply(ctx, reattach); err != nil {
			b.Fatal(err)
		}
		_ = CloseSessions(ctx)
		n, kinds := count()
		changeReqs += n
		lastChange = kinds
		b.StopTimer()
		for _, s := range lab.svcs {
			if got, pending := s.BiosAttributes(); fmt.Sprint(got["LogicalProc"]) != lp || fmt.Sprint(got["SubNumaCluster"]) != snc || len(pending) != 0 {
				b.Fatalf("BIOS not applied: %v pending %v", got, pending)
			}
		}
		reset()
		changed, err := tf.Plan(ctx, reattach)
		if err != nil {
			b.Fatal(err)
		}
		if changed {
			b.Fatal("the plan after the BIOS change is not empty")
		}
		_ = CloseSessions(ctx)
		n, _ = count()
		noopReqs += n
		b.StartTimer()
	}
	b.StopTimer()
	per := float64(b.N * servers)
	b.ReportMetric(float64(changeReqs)/per, "requests/server/bios-change")
	b.ReportMetric(float64(noopReqs)/per, "requests/server/noop-plan")
	keys := make([]string, 0, len(lastChange))
	for k, n := range lastChange {
		keys = append(keys, fmt.Sprintf("%s x%.1f", k, float64(n)/servers))
	}
	sort.Strings(keys)
	b.Logf("requests per server in the last BIOS change: %s", strings.Join(keys, "; "))
}
