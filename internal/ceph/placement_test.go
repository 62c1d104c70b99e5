package ceph

import (
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// locatedAt lists where err's located errors are.
func locatedAt(err error) []string {
	var out []string
	for _, le := range located.All(err) {
		out = append(out, le.Path.String())
	}
	return out
}

func TestCheckHostsLocatesEachRule(t *testing.T) {
	b := Bootstrap{MonIP: "10.40.0.1", PublicNetwork: "10.40.0.0/24"}
	for _, c := range []struct {
		name  string
		hosts []ClusterHost
		want  []string
	}{
		{"fine", []ClusterHost{{"mon1", "n1", "10.40.0.1"}, {"osd1", "n2", "10.40.0.11"}}, nil},
		{"unknown values wait", []ClusterHost{{"mon1", "", ""}, {"osd1", "", ""}}, nil},
		{"shared address", []ClusterHost{{"mon1", "n1", "10.40.0.1"}, {"osd1", "n2", "10.40.0.1"}}, []string{`hosts["osd1"].addr`}},
		{"shared machine", []ClusterHost{{"mon1", "n1:22", "10.40.0.1"}, {"osd1", "N1", "10.40.0.2"}}, []string{`hosts["osd1"].host`}},
		{"outside the public network", []ClusterHost{{"mon1", "n1", "10.40.0.1"}, {"osd1", "n2", "10.41.0.1"}}, []string{`hosts["osd1"].addr`}},
		{"not an address", []ClusterHost{{"mon1", "n1", "10.40.0.1"}, {"osd1", "n2", "osd1.lab"}}, []string{`hosts["osd1"].addr`}},
		{"bootstrap host moved", []ClusterHost{{"mon1", "n1", "10.40.0.5"}}, []string{"mon_ip"}},
		{"bootstrap host missing", []ClusterHost{{"mon2", "n1", "10.40.0.1"}}, []string{"bootstrap_host"}},
		{"bad name", []ClusterHost{{"mon1", "n1", "10.40.0.1"}, {"osd_1", "n2", "10.40.0.2"}}, []string{`hosts["osd_1"]`}},
	} {
		got := locatedAt(CheckHosts(b, "mon1", c.hosts))
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("%s: located at %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCheckPoolSizeAgainstFailureDomains(t *testing.T) {
	two := &FailureDomains{Type: "host", Names: []string{"osd1", "osd2"}}
	for _, c := range []struct {
		size, min int
		fd        *FailureDomains
		want      []string
	}{
		{2, 1, two, nil},
		{3, 2, two, []string{"size"}},
		{3, 2, nil, nil},
		{1, 1, nil, []string{"size"}},
		{2, 3, nil, []string{"min_size"}},
		{2, 2, &FailureDomains{Type: "rack", Names: []string{"r1"}}, []string{"size"}},
		{3, 2, &FailureDomains{Type: "host"}, nil}, // no OSD yet: they come later
	} {
		got := locatedAt(CheckPoolSize(c.size, c.min, c.fd))
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("size %d min %d %v: located at %v, want %v", c.size, c.min, c.fd, got, c.want)
		}
	}
}

func TestParseFailureDomainsCountsBucketsWithOSDs(t *testing.T) {
	rules := `[{"rule_id":0,"rule_name":"replicated_rule","type":1,"steps":[{"op":"take","item":-1},{"op":"chooseleaf_firstn","num":0,"type":"host"},{"op":"emit"}]}]`
	tree := `{"nodes":[{"id":-1,"name":"default","type":"root","children":[-3,-5,-7]},
{"id":-3,"name":"osd1","type":"host","children":[0,1]},{"id":-5,"name":"osd2","type":"host","children":[2]},
{"id":-7,"name":"mon1","type":"host","children":[]},
{"id":0,"name":"osd.0","type":"osd"},{"id":1,"name":"osd.1","type":"osd"},{"id":2,"name":"osd.2","type":"osd"}],"stray":[]}`
	fd, err := ParseFailureDomains([]byte(rules), []byte(tree), -1)
	if err != nil || fd.Type != "host" || len(fd.Names) != 2 || fd.Names[0] != "osd1" || fd.Names[1] != "osd2" {
		t.Fatalf("%+v %v", fd, err)
	}
	if _, err := ParseFailureDomains([]byte(rules), []byte(tree), 4); err == nil {
		t.Fatal("a pool on a rule that is not there")
	}
}

func TestCheckPGNumAgainstTheMonitorsLimit(t *testing.T) {
	for _, c := range []struct {
		pg, size, others, osds int
		bad                    bool
	}{
		{32, 3, 0, 0, false},    // a new cluster counts as 3 OSDs: 750
		{256, 3, 0, 0, true},    // 768 > 750
		{4096, 2, 0, 44, false}, // 8192 <= 11000
		{8192, 2, 0, 44, true},
		{4096, 2, 3000, 44, true},
	} {
		err := CheckPGNum(located.At("pg_num"), c.pg, c.size, c.others, c.osds)
		if (err != nil) != c.bad {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
