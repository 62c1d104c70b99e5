package ceph

// Placement rules that Ceph applies across a cluster, checked before any
// command runs: every host is one machine with one address in the public
// network, and a replicated pool needs as many CRUSH failure domains
// (hosts by default) holding OSDs as it keeps copies. Each error is located
// at the attribute that holds the value.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ClusterHost is one host of hpcstorage_ceph_cluster.hosts. An empty SSH or
// Addr is a value not known yet: the checks that need it wait.
type ClusterHost struct {
	Name string
	SSH  string
	Addr string
}

// CheckHosts checks the hosts as cephadm and the monitors would use them:
// valid host names, one address each in the public network, no address or
// SSH target (one machine) shared by two hosts, and the bootstrap host's
// address being the first monitor's (cephadm bootstrap adds it with
// --mon-ip). Paths are hosts["NAME"].addr, hosts["NAME"].host, mon_ip,
// bootstrap_host.
func CheckHosts(b Bootstrap, bootstrapHost string, hosts []ClusterHost) error {
	hs := append([]ClusterHost(nil), hosts...)
	sort.Slice(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
	var errs []error
	var public netip.Prefix
	if p, err := netip.ParsePrefix(b.PublicNetwork); err == nil {
		public = p
	}
	byAddr, bySSH, byName := map[netip.Addr]string{}, map[string]string{}, map[string]string{}
	found := false
	for _, h := range hs {
		at := located.At("hosts").Key(h.Name)
		if !reHostname.MatchString(h.Name) {
			errs = append(errs, invalid(at, "%q is not a host name: letters, digits, '.' and '-'", h.Name))
		}
		// Host names are DNS names: two that differ in case are one machine.
		if other, dup := byName[strings.ToLower(h.Name)]; dup {
			errs = append(errs, invalid(at, "host %s and host %s differ only in case: DNS names them the same machine", other, h.Name))
		}
		byName[strings.ToLower(h.Name)] = h.Name
		if h.SSH != "" {
			if other, dup := bySSH[sshTarget(h.SSH)]; dup {
				errs = append(errs, invalid(at.Name("host"), "%s is also host %s's: two Ceph hosts would be one machine, "+
					"and cephadm would deploy both hosts' daemons on it", h.SSH, other))
			}
			bySSH[sshTarget(h.SSH)] = h.Name
		}
		if h.Name == bootstrapHost {
			found = true
		}
		if h.Addr == "" {
			continue
		}
		ip, err := netip.ParseAddr(h.Addr)
		if err != nil {
			errs = append(errs, invalid(at.Name("addr"), "%q is not an IP address", h.Addr))
			continue
		}
		if other, dup := byAddr[ip]; dup {
			errs = append(errs, invalid(at.Name("addr"), "%s is also host %s's address: cephadm would reach one machine "+
				"under two names", h.Addr, other))
		}
		byAddr[ip] = h.Name
		if public.IsValid() && !public.Contains(ip) {
			errs = append(errs, invalid(at.Name("addr"), "%s is outside public_network %s: cephadm places no monitor there "+
				"and its OSDs could not reach the monitors", h.Addr, public))
		}
		if h.Name == bootstrapHost && b.MonIP != "" {
			if mon, err := netip.ParseAddr(b.MonIP); err == nil && mon != ip {
				errs = append(errs, invalid(located.At("mon_ip"), "%s is not host %s's address %s: cephadm bootstrap adds "+
					"the bootstrap host with mon_ip, and adding it again with addr would move its monitor", b.MonIP, h.Name, h.Addr))
			}
		}
	}
	if bootstrapHost != "" && !found {
		errs = append(errs, invalid(located.At("bootstrap_host"), "%q is not a key of hosts", bootstrapHost))
	}
	return errors.Join(errs...)
}

// sshTarget is an SSH address without the default port.
func sshTarget(s string) string {
	return strings.ToLower(strings.TrimSuffix(s, ":22"))
}

// CheckLabels checks that enough hosts carry the label a service is
// placed by (count daemons of it): cephadm would place fewer. at is the
// count's attribute.
func CheckLabels(at, label string, count int, labels map[string][]string) error {
	n := 0
	for _, l := range labels {
		for _, x := range l {
			if x == label {
				n++
				break
			}
		}
	}
	if n < count {
		return invalid(located.At(at), "%s is %d but only %d hosts carry the label %q: cephadm would place fewer "+
			"daemons than asked", at, count, n, label)
	}
	return nil
}

// FailureDomains are the CRUSH buckets of one type that hold OSDs: what a
// replicated pool's copies are spread over.
type FailureDomains struct {
	// Type is the rule's failure domain type ("host", "rack", "osd").
	Type string
	// Names are the buckets of that type with at least one OSD under them.
	Names []string
	// OSDs counts the cluster's OSDs.
	OSDs int
}

// PoolSizeMin is the smallest size Ceph accepts without
// mon_allow_pool_size_one and --yes-i-really-mean-it, which this provider
// never passes.
const PoolSizeMin = 2

// CheckPoolSize checks a replicated pool's size and min_size against the
// failure domains that exist (nil: not known, only the values themselves
// are checked; none: the cluster has no OSD yet, they come later, as Ceph
// lets a pool wait for them). Paths: size, min_size.
func CheckPoolSize(size, minSize int, fd *FailureDomains) error {
	var errs []error
	if size == 1 {
		errs = append(errs, invalid(located.At("size"), "Ceph refuses size 1 (\"configuring pool size as 1 is disabled "+
			"by default\"): one copy loses data with any OSD; use 2 or more"))
	}
	if minSize > size {
		errs = append(errs, invalid(located.At("min_size"), "min_size %d is above size %d: the pool would never serve I/O "+
			"(Ceph refuses: min_size must be between 1 and size)", minSize, size))
	}
	if fd != nil && len(fd.Names) > 0 {
		n := len(fd.Names)
		switch {
		case size > n:
			errs = append(errs, invalid(located.At("size"), "size %d needs %d CRUSH failure domains of type %s holding OSDs; "+
				"the cluster has %d (%s): every placement group would stay undersized and never hold its %d copies (OSDs "+
				"still to be created are not counted: apply their spec first)", size, size, fd.Type, n, strings.Join(fd.Names, ", "), size))
		case minSize > n:
			errs = append(errs, invalid(located.At("min_size"), "min_size %d needs %d failure domains of type %s; the "+
				"cluster has %d: the pool would block all I/O", minSize, minSize, fd.Type, n))
		}
	}
	return errors.Join(errs...)
}

// MonMaxPGPerOSD is mon_max_pg_per_osd's default; DefaultPGNum is
// osd_pool_default_pg_num, what a pool gets without a pg_num.
const (
	MonMaxPGPerOSD = 250
	DefaultPGNum   = 32
)

// CheckPGNum is the monitors' check on a pool's creation, size or pg_num
// (OSDMonitor::check_pg_num): every pool's placement groups, pg_num ×
// size summed (otherPGs for the others), within mon_max_pg_per_osd per
// OSD, the cluster counted as at least 3 OSDs. The error is at at.
func CheckPGNum(at located.Path, pgNum, size, otherPGs, osds int) error {
	osds = max(osds, 3)
	limit := MonMaxPGPerOSD * osds
	if projected := pgNum*size + otherPGs; projected > limit {
		return invalid(at, "pg_num %d at size %d would make the cluster's pools hold %d placement groups, above the %d "+
			"Ceph allows (mon_max_pg_per_osd %d × %d OSDs): the monitors refuse it (ERANGE)", pgNum, size, projected, limit,
			MonMaxPGPerOSD, osds)
	}
	return nil
}

// ParseFailureDomains reads `ceph osd crush rule dump -f json` and `ceph
// osd tree -f json`: the failure domain of the pool's rule (ruleID < 0:
// the first replicated rule, which a new pool gets) and the buckets of
// that type with OSDs under them.
func ParseFailureDomains(rules, tree []byte, ruleID int) (FailureDomains, error) {
	var rs []struct {
		ID    int `json:"rule_id"`
		Type  int `json:"type"`
		Steps []struct {
			Op   string `json:"op"`
			Type string `json:"type"`
		} `json:"steps"`
	}
	if err := decode("ceph osd crush rule dump", rules, &rs); err != nil {
		return FailureDomains{}, err
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	fd := FailureDomains{}
	for _, r := range rs {
		if (ruleID >= 0 && r.ID != ruleID) || (ruleID < 0 && r.Type != 1) {
			continue
		}
		for _, s := range r.Steps {
			if strings.HasPrefix(s.Op, "choose") && s.Type != "" {
				fd.Type = s.Type
			}
		}
		break
	}
	if fd.Type == "" {
		return fd, fmt.Errorf("ceph osd crush rule dump: no replicated rule with a failure domain (rule %d)", ruleID)
	}
	var t struct {
		Nodes []struct {
			ID       int    `json:"id"`
			Name     string `json:"name"`
			Type     string `json:"type"`
			Children []int  `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(tree, &t); err != nil {
		return fd, fmt.Errorf("ceph osd tree: %w", err)
	}
	byID := map[int]int{}
	for i, n := range t.Nodes {
		byID[n.ID] = i
	}
	var holdsOSD func(id int, depth int) bool
	holdsOSD = func(id, depth int) bool {
		i, ok := byID[id]
		if !ok || depth > 16 {
			return false
		}
		if t.Nodes[i].Type == "osd" {
			return true
		}
		for _, c := range t.Nodes[i].Children {
			if holdsOSD(c, depth+1) {
				return true
			}
		}
		return false
	}
	for _, n := range t.Nodes {
		if n.Type == fd.Type && holdsOSD(n.ID, 0) {
			fd.Names = append(fd.Names, n.Name)
		}
		if n.Type == "osd" {
			fd.OSDs++
		}
	}
	sort.Strings(fd.Names)
	return fd, nil
}
