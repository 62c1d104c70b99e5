package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
)

func TestNodeFactsDataSource(t *testing.T) {
	l := startNodeLab(t, 1)
	const ds = "data.hpcstorage_node_facts.n"
	vols := fakenode.ArrayVolumes("stor01", 4)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: l.providerBlock() + fmt.Sprintf(`data "hpcstorage_node_facts" "n" { host = %q }`, l.host(0)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("hostname"), knownvalue.StringExact("stor01")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices").AtSliceIndex(1).AtMapKey("fstype"),
						knownvalue.StringExact("")),
					// The system disk plus the four array volumes.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices"), knownvalue.ListSizeExact(5)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices").AtSliceIndex(1).AtMapKey("wwn"),
						knownvalue.StringRegexp(regexp.MustCompile("(?i)^(0x)?"+vols[0].WWN[len(vols[0].WWN)-16:]+"$|"+vols[0].WWN))),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices").AtSliceIndex(1).AtMapKey("schedulers"),
						knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.NotNull()})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpus"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("numa_nodes"), knownvalue.NotNull()),
				},
			},
			{
				// The documented example, pointed at the lab node: its
				// output lists the four rotational array volumes by WWN.
				Config: l.providerBlock() + strings.Replace(exampleFile(t, "../examples/data-sources/hpcstorage_node_facts/data-source.tf"),
					`host = "stor01"`, fmt.Sprintf("host = %q", l.host(0)), 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("array_disks", knownvalue.MapSizeExact(4)),
				},
			},
			{
				// A disk that already carries a file system reports it, so a
				// configuration can refuse to format it.
				PreConfig: func() {
					if err := fakenode.AddBlockDevice(l.Nodes[0].Root, fakenode.Disk{Name: "sdz", SizeBytes: 1 << 40,
						Rotational: true, WWN: "600c0ff0000000000000000000000abc", Model: "ME4084", FSType: "xfs"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: l.providerBlock() + fmt.Sprintf(`data "hpcstorage_node_facts" "n" { host = %q }`, l.host(0)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices"), knownvalue.ListSizeExact(6)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices").AtSliceIndex(5).AtMapKey("name"),
						knownvalue.StringExact("sdz")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("block_devices").AtSliceIndex(5).AtMapKey("fstype"),
						knownvalue.StringExact("xfs")),
				},
			},
			{
				Config:      l.providerBlock() + `data "hpcstorage_node_facts" "n" { host = "127.0.0.1:1" }`,
				ExpectError: regexp.MustCompile(`(?s)Node\s+Unreachable.*Host\s+127.0.0.1:1`),
			},
		},
	})
}
