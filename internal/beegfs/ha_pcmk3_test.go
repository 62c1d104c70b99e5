package beegfs

import (
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/pcmktest"
)

// The BeeGFS HA clusters' CIBs (R1's pairs, R1 as one cluster, an R3
// block), for each Pacemaker version, pass Debian's crm_verify (2.1; a
// Pacemaker 3 CIB with its root down-converted, as the lab keeps it) and
// Pacemaker 3.0.2's pacemaker-4.0 schema.
func TestHACIBsPassBothPacemakers(t *testing.T) {
	rng := simtest.Schema4(t)
	meta, stor := r1Metadata(), r1Storage()
	one := cluster(t, "r1", meta)
	meta.Others, stor.Others = stor.Nodes, meta.Nodes
	oneMeta, err := meta.Resources()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := stor.Resources()
	if err != nil {
		t.Fatal(err)
	}
	one.TwoNode = false
	one.Groups, one.Locations, one.Colocations, one.Orders = oneMeta.Groups, oneMeta.Locations, oneMeta.Colocations, oneMeta.Orders
	one.Groups = append(one.Groups, rs.Groups...)
	one.Locations = append(one.Locations, rs.Locations...)
	for i, n := range stor.Nodes {
		one.Nodes = append(one.Nodes, pacemaker.Node{Name: n, ID: 3 + i, Addrs: []string{"10.20.0." + string(rune('3'+i))}})
		one.Fencing = append(one.Fencing, pacemaker.RedfishFence(pacemaker.RedfishBMC{Node: n, Address: "10.30.0." + string(rune('3'+i)),
			SystemsURI: "/redfish/v1/Systems/System.Embedded.1", Username: "root"}))
	}
	all := map[string]pacemaker.Cluster{
		"r1-metadata": cluster(t, "r1-metadata", r1Metadata()),
		"r1-storage":  cluster(t, "r1-storage", r1Storage()),
		"r1":          one,
		"bb1":         cluster(t, "bb1", r3Block()),
	}
	for name, c := range all {
		for _, v := range pacemaker.Versions {
			c.Version = v
			t.Run(name+"/"+v, func(t *testing.T) {
				cib, err := c.Render(true)
				if err != nil {
					t.Fatal(err)
				}
				simtest.CheckSchema4(t, name, rng, cib)
				if v == pacemaker.Version3 {
					cib = simtest.DownConvert(cib)
				}
				pcmktest.CRMVerify(t, name, cib)
			})
		}
	}
}
