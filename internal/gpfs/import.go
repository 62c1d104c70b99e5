package gpfs

import (
	"fmt"
	"slices"
	"strconv"
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

// ImportFS is the file system that matches one read back (mmlsfs -Y,
// mmlsdisk -Y, mmlspolicy -L): mmcrfs settings, disks in mmlsdisk order,
// pools other than system with the file system's block size and
// allocation, and the installed policy.
func ImportFS(device string, seen FSSeen) (FileSystem, error) {
	a := seen.Attrs
	num := func(k string) (int, error) {
		n, err := strconv.Atoi(a[k])
		if err != nil {
			return 0, fmt.Errorf("%w: mmlsfs %s: %q is not a number", ErrInvalid, k, a[k])
		}
		return n, nil
	}
	f := FileSystem{Device: device, LayoutMap: a["blockAllocationType"], MountPoint: a["defaultMountPoint"],
		AutoMount: a["automaticMountOption"] == "yes"}
	bs, err := ParseSize(a["blockSize"])
	if err != nil {
		return f, fmt.Errorf("mmlsfs blockSize: %w", err)
	}
	f.BlockSize = FormatSize(bs)
	if v, ok := a["blockSize/system pool"]; ok {
		md, err := ParseSize(v)
		if err != nil {
			return f, fmt.Errorf("mmlsfs blockSize (system pool): %w", err)
		}
		f.MetaBlockSize = FormatSize(md)
	}
	for _, x := range []struct {
		key string
		to  *int
	}{{"defaultMetadataReplicas", &f.MetaRepl}, {"maxMetadataReplicas", &f.MaxMeta}, {"defaultDataReplicas", &f.DataRepl},
		{"maxDataReplicas", &f.MaxData}, {"numNodes", &f.NumNodes}} {
		if *x.to, err = num(x.key); err != nil {
			return f, err
		}
	}
	pools := map[string]bool{}
	for _, d := range seen.Disks {
		fg, err := strconv.Atoi(d.FailureGroup)
		if err != nil {
			return f, fmt.Errorf("%w: mmlsdisk: failure group %q of %s", ErrInvalid, d.FailureGroup, d.Name)
		}
		f.Disks = append(f.Disks, NSD{Name: d.Name, Usage: d.Usage(), FailureGroup: fg, Pool: d.Pool})
		if d.Pool != SystemPool && !pools[d.Pool] {
			pools[d.Pool] = true
			f.Pools = append(f.Pools, Pool{Name: d.Pool, BlockSize: f.BlockSize, LayoutMap: f.LayoutMap})
		}
	}
	if !strings.HasPrefix(seen.Policy, "No policy file was installed") {
		f.Policy = seen.Policy
	}
	return f, nil
}
