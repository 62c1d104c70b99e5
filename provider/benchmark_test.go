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
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

const providerAddr = "registry.terraform.io/hashicorp/hpcstorage"

// BenchmarkNoopPlan measures one real `terraform plan` with nothing to do
// over 100 servers (100 BMCs) and 32 volumes (the four ME4084 of R1, eight
// RAID6 8+2 groups each), and reports what it cost on the wire from the
// mock's request statistics.
//
//	CHECKPOINT_DISABLE=1 go test ./provider -run '^$' -bench NoopPlan -benchtime 3x
func BenchmarkNoopPlan(b *testing.B) {
	tfPath := terraformCLI(b)
	b.Setenv("CHECKPOINT_DISABLE", "1")
	b.Setenv("TF_LOG_PROVIDER", "OFF") // the in-process server would print its trace log
	b.Setenv("TF_LOG_SDK", "OFF")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const servers, arrays = 100, 4
	var names []string
	for i := 1; i <= servers; i++ {
		names = append(names, fmt.Sprintf("bmc-%03d", i))
	}
	lab := &mockLab{svcs: map[string]*redfishmock.Service{}, eps: map[string]redfish.Config{}}
	ca, err := redfishmock.NewCA()
	if err != nil {
		b.Fatal(err)
	}
	opts := redfishmock.Options{Username: "root", Password: "bench-s3cret", PowerDelay: 10 * time.Millisecond, SessionLimit: 64}
	add := func(name, design, endpoint string) {
		svc, err := redfishmock.NewService(design, endpoint, opts)
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
	for _, n := range names {
		add(n, "r1", "stor1-bmc")
	}
	var cfg strings.Builder
	for a := 1; a <= arrays; a++ {
		name := fmt.Sprintf("me4084-%d", a)
		add(name, "r1", name)
		// The disk groups exist already; the benchmark is about volumes.
		ep := lab.client(b, name)
		drives, err := ep.Drives(ctx, "controller_a")
		if err != nil {
			b.Fatal(err)
		}
		var ld []layout.Drive
		for _, d := range drives {
			ld = append(ld, layout.Drive{ID: d.ID, MediaType: d.MediaType, Drawer: d.Drawer, Slot: d.Slot})
		}
		plan, err := layout.Make(ld, layout.Policy{Level: layout.RAID6, DrivesPerGroup: 10, LeftoverAsSpares: true})
		if err != nil {
			b.Fatal(err)
		}
		for g, grp := range plan.Groups {
			if _, err := ep.CreatePool(ctx, "controller_a", grp.Name, string(grp.Level), grp.DriveIDs); err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(&cfg, `
resource "hpcstorage_volume" "a%d_%s" {
  endpoint      = %q
  disk_group    = %q
  name          = "st%d%02d"
  host_mappings = [{ host = "stor1", lun = %d }, { host = "stor2", lun = %d }]
}
`, a, grp.Name, name, grp.Name, a, g+1, g, g)
		}
	}
	for _, n := range names {
		fmt.Fprintf(&cfg, `
resource "hpcstorage_server" %q {
  endpoint    = %q
  power_state = "On"
  bios_attributes = {
    SysProfile     = "PerfOptimized"
    LogicalProc    = "Disabled"
    SubNumaCluster = "Enabled"
  }
}
`, n, n)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(lab.providerBlock()+cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}

	// Serve the provider in-process and point the CLI at it.
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
	if err := tf.Apply(ctx, reattach, tfexec.Parallelism(10)); err != nil {
		b.Fatal(err)
	}
	_ = CloseSessions(ctx)

	// Terraform's own share: the same plan without refreshing anything.
	start := time.Now()
	if _, err := tf.Plan(ctx, reattach, tfexec.Refresh(false)); err != nil {
		b.Fatal(err)
	}
	b.Logf("plan -refresh=false (no Redfish request): %s", time.Since(start).Round(time.Millisecond))
	_ = CloseSessions(ctx)

	var gets, volumeGets, maxSessions, otherWrites int
	var planTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range lab.svcs {
			s.ResetStats()
		}
		start := time.Now()
		changed, err := tf.Plan(ctx, reattach)
		planTime += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if changed {
			b.Fatal("the no-op plan has changes")
		}
		b.StopTimer()
		_ = CloseSessions(ctx) // what the provider's main does when the plugin stops
		for name, s := range lab.svcs {
			sessions := 0
			for k, n := range s.Stats() {
				switch {
				case strings.HasPrefix(k, "GET "):
					if strings.HasPrefix(name, "me4084") {
						volumeGets += n
					} else {
						gets += n
					}
				case k == "POST /redfish/v1/SessionService/Sessions":
					sessions += n
				case strings.HasPrefix(k, "DELETE /redfish/v1/SessionService/Sessions/"):
				default:
					otherWrites += n
				}
			}
			maxSessions = max(maxSessions, sessions)
		}
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(gets)/n/servers, "GETs/server")
	b.ReportMetric(float64(volumeGets)/n/(arrays*8), "GETs/volume")
	b.ReportMetric(float64(maxSessions), "max-sessions/endpoint/plan")
	b.ReportMetric(planTime.Seconds()/n, "s/plan")
	if otherWrites > 0 {
		b.Errorf("a no-op plan sent %d writes", otherWrites)
	}
	// Details for the log: the busiest request kinds of one server.
	st := lab.svcs[names[0]].Stats()
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.Logf("last plan on %s: %v", names[0], keys)
}
