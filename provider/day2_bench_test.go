package provider

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/agentbin"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// BenchmarkR2RollingChange measures the R2 rolling BIOS change against its
// floor, in one run: a rolling change cannot be faster than the members
// rebooted one after the other, so the floor is the sum of each server's
// own reboot through its BMC (measured alone, outside any sequence), plus
// a standby failover and failback of the pair. Reported: rolling_s,
// floor_s and rolling/floor.
func BenchmarkR2RollingChange(b *testing.B) {
	tfPath := terraformCLI(b)
	if _, _, err := agentbin.For(runtime.GOARCH); err != nil {
		testenv.Missing(b, "the provider binary needs the embedded agent: run make agent-dist first (%v)", err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	bin := buildBenchProviders(b, dir)
	labDir := filepath.Join(dir, "lab")
	l, err := lab.Up(lab.Config{Design: "r2", Dir: labDir, PowerDelay: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cfg := copyExample(b, dir, "r2", "modules/nfs-ha")
	setLabEnv(b, labDir)
	useDevProviders(b, dir, bin)
	tf, err := tfexec.NewTerraform(cfg, tfPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := tf.Get(ctx); err != nil {
		b.Fatal(err)
	}
	if err := tf.Apply(ctx); err != nil {
		b.Fatalf("apply: %v", err)
	}

	// The floor: each server rebooted alone through its BMC, one after the
	// other, and a failover and failback of the pair (standby, unstandby).
	floorStart := time.Now()
	for _, n := range []string{"nfs1", "nfs2"} {
		ep := labEndpoint(b, l, n+"-bmc")
		id, err := ep.FindSystem(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		if err := ep.Restart(ctx, id, redfish.Waiter{Interval: 100 * time.Millisecond, Timeout: time.Minute}); err != nil {
			b.Fatal(err)
		}
	}
	for _, v := range []string{`standby=["nfs1"]`, `standby=[]`} {
		if err := tf.Apply(ctx, tfexec.Var(v)); err != nil {
			b.Fatalf("failover %s: %v", v, err)
		}
	}
	floor := time.Since(floorStart)

	b.ResetTimer()
	var rolling time.Duration
	for i := 0; i < b.N; i++ {
		v := []string{"Disabled", "Enabled"}[i%2]
		start := time.Now()
		if err := tf.Apply(ctx, tfexec.Var(`bios_attributes={SysProfile="PerfOptimized",SubNumaCluster="`+v+`",LogicalProc="Disabled",AdddcSetting="Disabled"}`)); err != nil {
			b.Fatalf("rolling change: %v", err)
		}
		rolling += time.Since(start)
	}
	b.StopTimer()
	per := rolling.Seconds() / float64(b.N)
	b.ReportMetric(per, "rolling_s")
	b.ReportMetric(floor.Seconds(), "floor_s")
	b.ReportMetric(per/floor.Seconds(), "rolling/floor")
}

// labEndpoint is a Redfish client of one of the lab's endpoints.
func labEndpoint(b *testing.B, l *lab.Lab, name string) *redfish.Endpoint {
	b.Helper()
	for _, e := range l.State.Endpoints {
		if e.Name != name {
			continue
		}
		pool, err := redfish.NewPool([]redfish.Config{{Name: name, URL: e.URL, Username: e.Username,
			Password: os.Getenv(lab.PasswordEnv(name)), CACertPEM: []byte(l.State.CACertificate)}})
		if err != nil {
			b.Fatal(err)
		}
		ep, err := pool.Endpoint(name)
		if err != nil {
			b.Fatal(err)
		}
		return ep
	}
	b.Fatalf("no endpoint %s in the lab", name)
	return nil
}
