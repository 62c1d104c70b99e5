package gpfs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// NSD is one network shared disk: an array volume seen by its servers.
type NSD struct {
	Name string
	// Device is the block device on the servers (a multipath alias
	// /dev/mapper/X or /dev/disk/by-id/wwn-0x...).
	Device       string
	Servers      []string
	Usage        string
	FailureGroup int
	Pool         string
}

// Pool is a storage pool's %pool stanza.
type Pool struct {
	Name      string
	BlockSize string
	// LayoutMap is "scatter" or "cluster".
	LayoutMap string
}

// LayoutMaps are the allocation maps mmcrfs -j and %pool layoutMap take.
var LayoutMaps = []string{"scatter", "cluster"}

// AlternateServers orders an NSD's servers so the primaries alternate:
// NSD i of a set served by the same pair starts with server i mod n, so
// half the NSDs are served first by each node of an HA pair.
func AlternateServers(servers []string, i int) []string {
	if len(servers) == 0 {
		return nil
	}
	n := len(servers)
	out := make([]string, 0, n)
	for k := 0; k < n; k++ {
		out = append(out, servers[(i+k)%n])
	}
	return out
}

// NSDStanza is one %nsd stanza. Device is left out when empty (mmcrfs and
// mmadddisk read stanzas of existing NSDs, named by nsd= only).
func NSDStanza(n NSD) string {
	var b strings.Builder
	b.WriteString("%nsd:")
	if n.Device != "" {
		b.WriteString(" device=" + n.Device)
	}
	b.WriteString(" nsd=" + n.Name)
	if len(n.Servers) > 0 {
		b.WriteString(" servers=" + strings.Join(n.Servers, ","))
	}
	if n.Usage != "" {
		b.WriteString(" usage=" + n.Usage)
	}
	if n.FailureGroup != 0 {
		b.WriteString(" failureGroup=" + strconv.Itoa(n.FailureGroup))
	}
	if n.Pool != "" {
		b.WriteString(" pool=" + n.Pool)
	}
	return b.String()
}

// PoolStanza is one %pool stanza.
func PoolStanza(p Pool) string {
	s := "%pool: pool=" + p.Name
	if p.BlockSize != "" {
		s += " blockSize=" + p.BlockSize
	}
	if p.LayoutMap != "" {
		s += " layoutMap=" + p.LayoutMap
	}
	return s
}

// StanzaFile renders pools then NSDs, one stanza a line; only pools other
// than system get a %pool stanza (the system pool's block size is mmcrfs -B).
func StanzaFile(nsds []NSD, pools []Pool) string {
	var b strings.Builder
	for _, p := range pools {
		if p.Name == SystemPool {
			continue
		}
		b.WriteString(PoolStanza(p) + "\n")
	}
	for _, n := range nsds {
		b.WriteString(NSDStanza(n) + "\n")
	}
	return b.String()
}

// ValidateNSDs checks an NSD set on its own and against the cluster's
// nodes (nil: not known yet, not checked); attrs are "nsds[i].field".
func ValidateNSDs(nsds []NSD, clusterNodes []string) Problems {
	var ps Problems
	seen := map[string]int{}
	for i, n := range nsds {
		at := func(f string) string { return fmt.Sprintf("nsds[%d].%s", i, f) }
		switch {
		case !validName(n.Name, "") || n.Name[0] >= '0' && n.Name[0] <= '9':
			ps.add(at("name"), "%q is not an NSD name: letters, digits and underscores, not starting with a digit", n.Name)
		case strings.HasPrefix(strings.ToLower(n.Name), "gpfs"):
			ps.add(at("name"), "%q: names starting with \"gpfs\" are reserved for NSDs GPFS names itself", n.Name)
		}
		if j, dup := seen[n.Name]; dup {
			ps.add(at("name"), "NSD name %q is not unique: nsds[%d] has it too", n.Name, j)
		} else {
			seen[n.Name] = i
		}
		if len(n.Servers) == 0 {
			ps.add(at("servers"), "NSD %s has no server", n.Name)
		}
		if len(n.Servers) > MaxServersPerNSD {
			ps.add(at("servers"), "NSD %s has %d servers; GPFS allows at most %d", n.Name, len(n.Servers), MaxServersPerNSD)
		}
		dupSrv := map[string]bool{}
		for _, s := range n.Servers {
			if dupSrv[s] {
				ps.add(at("servers"), "NSD %s lists server %s twice", n.Name, s)
			}
			dupSrv[s] = true
			if clusterNodes != nil && !slices.Contains(clusterNodes, s) {
				ps.add(at("servers"), "server %s of NSD %s is not a node of the cluster (nodes: %s)", s, n.Name,
					strings.Join(clusterNodes, ", "))
			}
		}
		if n.Usage != "" && !slices.Contains(Usages, n.Usage) {
			ps.add(at("usage"), "usage %q is not one of %s%s", n.Usage, strings.Join(Usages, ", "), didYouMean(n.Usage, Usages))
		}
		if n.FailureGroup < -1 || n.FailureGroup > 2147483647 {
			ps.add(at("failure_group"), "failure group %d is out of range", n.FailureGroup)
		}
		if n.Pool != "" && !validName(n.Pool, "-") {
			ps.add(at("pool"), "%q is not a pool name", n.Pool)
		}
		if n.Pool != "" && n.Pool != SystemPool && n.Usage != "" && n.Usage != DataOnly {
			ps.add(at("usage"), "NSD %s is in pool %s: only the system pool holds metadata, so its usage must be %s",
				n.Name, n.Pool, DataOnly)
		}
	}
	return ps
}
