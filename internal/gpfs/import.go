package gpfs

import (
	"slices"
	"strings"
)

// configHousekeeping are the mmlsconfig keys GPFS lists on its own (set by
// mmcrcluster or always shown): an import leaves them out of config.
var configHousekeeping = []string{"clusterName", "clusterId", "autoload", "dmapiFileHandleSize", "minReleaseLevel",
	"ccrEnabled", "cipherList", "adminMode"}

// ImportCluster is the spec that matches a cluster read back (with its
// node classes): nodes with the roles mmlscluster's designation (quorum,
// manager), its CES nodes (gateway) and the NSD servers say, a node with
// none of them a client; user node classes; every configuration value
// by scope except GPFS's housekeeping keys.
func ImportCluster(seen ClusterSeen, nsdServers []string) ClusterSpec {
	s := ClusterSpec{Name: seen.Cluster.Name, Classes: map[string][]string{}, Config: map[string]map[string]string{}}
	for _, n := range seen.Cluster.Nodes {
		name := ShortName(n.DaemonName)
		d := strings.ToLower(n.Designation)
		var roles []string
		for _, r := range []struct {
			role string
			has  bool
		}{{RoleQuorum, strings.Contains(d, "quorum") && !strings.Contains(d, "nonquorum")}, {RoleManager, strings.Contains(d, "manager")},
			{RoleNSDServer, slices.Contains(nsdServers, name)}, {RoleGateway, slices.Contains(seen.Cluster.CESNodes, name)}} {
			if r.has {
				roles = append(roles, r.role)
			}
		}
		if len(roles) == 0 {
			roles = []string{RoleClient}
		}
		s.Nodes = append(s.Nodes, Node{Name: name, Roles: roles})
	}
	slices.SortFunc(s.Nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	for c, members := range seen.Classes {
		if !slices.Contains(SystemClasses, c) {
			s.Classes[c] = members
		}
	}
	for key, byScope := range seen.Config {
		if slices.Contains(configHousekeeping, key) {
			continue
		}
		for list, v := range byScope {
			scopes := strings.Split(list, ",")
			if list == "" {
				scopes = []string{AllNodes}
			}
			for _, sc := range scopes {
				sc = strings.TrimSpace(sc)
				if s.Config[sc] == nil {
					s.Config[sc] = map[string]string{}
				}
				s.Config[sc][key] = v
			}
		}
	}
	return s
}
