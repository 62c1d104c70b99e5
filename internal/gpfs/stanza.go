package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"

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
// nodes (nil: not known yet, not checked); wwns are the volumes' WWNs
// ("": not known yet, as while the volume is created in the same apply).
// Problems are on nsds[i].<field>.
func ValidateNSDs(nsds []NSD, wwns []string, clusterNodes []string) Problems {
	var ps Problems
	seen := map[string]int{}
	vols, devs := map[string]int{}, map[string]int{}
	for i, n := range nsds {
		at := func(f string) located.Path { return located.At("nsds").Index(i).Name(f) }
		// One volume, one NSD: mmcrnsd refuses a disk that already holds
		// an NSD descriptor, after it created the stanzas before it.
		if i < len(wwns) && wwns[i] != "" {
			if j, dup := vols[wwns[i]]; dup {
				ps.add(at("wwn"), "volume %s is already NSD %s (nsds[%d]): a volume holds one NSD", wwns[i], nsds[j].Name, j)
			} else {
				vols[wwns[i]] = i
			}
		}
		if n.Device != "" {
			if j, dup := devs[n.Device]; dup && (i >= len(wwns) || j >= len(wwns) || wwns[i] != wwns[j] || wwns[i] == "") {
				ps.add(at("device"), "device %s is already NSD %s (nsds[%d]): a volume holds one NSD", n.Device, nsds[j].Name, j)
			} else if !dup {
				devs[n.Device] = i
			}
		}
	}
	for i, n := range nsds {
		at := func(f string) located.Path { return located.At("nsds").Index(i).Name(f) }
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

// NormWWN is a WWN in the form udev links it (lower-case hex, no prefix).
func NormWWN(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	w = strings.TrimPrefix(w, "naa.")
	return strings.TrimPrefix(w, "0x")
}

// WWNDevice is where udev links a volume by its WWN.
func WWNDevice(wwn string) string { return "/dev/disk/by-id/wwn-0x" + NormWWN(wwn) }

// OrderServers rotates each NSD's servers so that, among the NSDs served
// by the same set of nodes, primaries alternate in list order.
func OrderServers(nsds []NSD) []NSD {
	out := slices.Clone(nsds)
	seen := map[string]int{}
	for i, n := range out {
		key := strings.Join(sorted(n.Servers), ",")
		out[i].Servers = AlternateServers(n.Servers, seen[key])
		seen[key]++
	}
	return out
}

// NSDSteps create the NSDs mmlsnsd does not list (one mmcrnsd for all of
// them, -v yes: GPFS refuses a disk that holds an NSD descriptor unless
// wipe) and delete the dropped ones it still lists (one mmdelnsd).
func NSDSteps(nsds []NSD, seen map[string]NSDInfo, dropped []string, dir string, wipe bool) []Step {
	var steps []Step
	var gone []string
	for _, n := range sorted(dropped) {
		if _, ok := seen[n]; ok {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		steps = append(steps, once(Step{Name: "mmdelnsd", Argv: []string{"mmdelnsd", strings.Join(gone, ";")}}))
	}
	var missing []NSD
	for _, n := range nsds {
		if _, ok := seen[n.Name]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		f := dir + "/mmcrnsd.stanza"
		v := "yes"
		if wipe {
			v = "no"
		}
		var names []string
		for _, n := range missing {
			names = append(names, n.Name)
		}
		q, m := guardNSDs(names)
		steps = append(steps, guarded(Step{Name: "mmcrnsd", Argv: []string{"mmcrnsd", "-F", f, "-v", v}, Files: map[string]string{f: StanzaFile(missing, nil)}}, q, m))
	}
	return steps
}

// DeleteNSDSteps delete the named NSDs mmlsnsd still lists (seen), with
// one mmdelnsd; refused, before any command, while one belongs to a file
// system (GPFS would refuse it, after deleting the ones before it).
func DeleteNSDSteps(names []string, seen map[string]NSDInfo) ([]Step, error) {
	var gone []string
	for _, n := range sorted(names) {
		info, ok := seen[n]
		if !ok {
			continue
		}
		if info.FileSystem != "" {
			return nil, fmt.Errorf("%w: NSD %s belongs to file system %s", ErrInvalid, n, info.FileSystem)
		}
		gone = append(gone, n)
	}
	if len(gone) == 0 {
		return nil, nil
	}
	return []Step{once(Step{Name: "mmdelnsd", Argv: []string{"mmdelnsd", strings.Join(gone, ";")}})}, nil
}

// NSDDrift lists NSDs missing from mmlsnsd or served by other nodes.
func NSDDrift(nsds []NSD, seen map[string]NSDInfo) map[string]string {
	d := map[string]string{}
	for _, n := range nsds {
		got, ok := seen[n.Name]
		switch {
		case !ok:
			d["nsd:"+n.Name] = "not found by mmlsnsd"
		case !sameSet(got.Servers, n.Servers):
			d["nsd:"+n.Name] = fmt.Sprintf("servers %s, want %s", strings.Join(got.Servers, ","), strings.Join(n.Servers, ","))
		}
	}
	return d
}
