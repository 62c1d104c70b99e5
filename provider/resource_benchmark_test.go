package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestBenchmarkPlanRefusals: bad parameters are refused while planning,
// before any run: a block size of 0, an unknown preset (with the nearest
// name), more threads than the clients' CPUs × 4 (from their facts).
func TestBenchmarkPlanRefusals(t *testing.T) {
	r := upR1(t, 2)
	conf := func(body string) string {
		return r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_benchmark" "b" {
  clients   = [%q, %q]
  directory = "/mnt/beegfs/bench"
%s
}
`, r.node("client01").Host, r.node("client02").Host, body)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: conf(`  preset = "r1-seq"
  tool = "fio"
  block_size_bytes = 0`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Attribute block_size_bytes:.*invalid\s+benchmark\s+parameter:\s+must\s+be\s+above\s+0`)},
			{Config: conf(`  preset = "r1-sqe"`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)"r1-sqe" is not a preset; did you mean\s+"r1-seq"`)},
			{Config: conf(`  tool = "mdtest"
  phases = ["write"]`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Attribute phases\[0\]:.*mdtest has no\s+phase\s+"write"`)},
			// Each lab client has 64 CPUs: 2 × 64 × 4 = 512.
			{Config: conf(`  preset  = "r1-seq"
  tool    = "fio"
  threads = [1, 513]`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Too Many Benchmark Threads.*Attribute threads\[1\]:.*128 CPUs in all.*513 threads is more\s+than\s+the\s+clients'\s+CPUs\s+×\s+4\s+\(512\)`)},
		},
	})
}
