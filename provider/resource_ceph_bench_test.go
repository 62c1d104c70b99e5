package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// BenchmarkR4Images measures hpcstorage_rbd_images with the real Terraform
// CLI in the r4 lab: the apply that creates the 200 images of examples/r4
// and the no-op plan of the whole configuration afterwards, as agent
// requests (SSH round trips) and commands run on the admin node (mon1, where
// every ceph and rbd command runs) per image. The cost of refreshing the
// resources the images depend on (cluster, OSD spec, pool: Terraform
// refreshes them with a targeted apply) is measured alone first and taken
// off the apply's figure.
//
//	make agent-dist && go test ./provider -run '^$' -bench R4Images -benchtime 3x
func BenchmarkR4Images(b *testing.B) {
	r := newR4Lab(b)
	ctx := context.Background()
	const images = 200
	mon1 := r.node("mon1")
	requests := func() int64 { return mon1.Execs() + int64(len(mon1.ServeRequests())) }
	commands := func() int64 {
		data, _ := os.ReadFile(filepath.Join(r.roots["mon1"], strings.TrimPrefix(runner.LogPath, "/")))
		return int64(strings.Count(string(data), "\n"))
	}
	pool := tfexec.Target("module.ceph.hpcstorage_ceph_pool.rbd")
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), pool); err != nil {
		b.Fatalf("apply up to the pool: %v", err)
	}
	q0 := requests()
	if _, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri), pool); err != nil {
		b.Fatal(err)
	}
	refresh := requests() - q0
	q0, c0 := requests(), commands()
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri), tfexec.Target("module.ceph.hpcstorage_rbd_images.this")); err != nil {
		b.Fatalf("apply of the images: %v", err)
	}
	applyReq, applyCmd := requests()-q0-refresh, commands()-c0
	if err := r.tf.Apply(ctx, tfexec.Reattach(r.ri)); err != nil {
		b.Fatalf("apply of the rest: %v", err)
	}
	b.ResetTimer()
	var planReq, planCmd int64
	for range b.N {
		q, c := requests(), commands()
		changes, err := r.tf.Plan(ctx, tfexec.Reattach(r.ri))
		if err != nil || changes {
			b.Fatalf("no-op plan: changes %v, %v", changes, err)
		}
		planReq += requests() - q
		planCmd += commands() - c
	}
	b.StopTimer()
	b.ReportMetric(float64(applyReq)/images, "apply-requests/image")
	b.ReportMetric(float64(applyCmd)/images, "apply-commands/image")
	b.ReportMetric(float64(planReq)/float64(b.N)/images, "plan-requests/image")
	b.ReportMetric(float64(planCmd)/float64(b.N)/images, "plan-commands/image")
	b.Logf("images apply on mon1: %d requests (dependencies' refresh of %d taken off), %d commands run; no-op plan of the "+
		"whole configuration on mon1: %d requests, %d commands per plan", applyReq, refresh, applyCmd, planReq/int64(b.N), planCmd/int64(b.N))
}
