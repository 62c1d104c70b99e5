package beegfs

// BeeGFS under pacemaker (R1's server pairs, R3's building blocks), as
// NetApp's beegfs_ha role and Dell's BeeGFS HA guide run it: every
// management, metadata (per instance) and storage service is one resource
// group, started in order on one node of its pair: the service's floating
// IP, the Filesystem mounts of its targets, then its systemd unit. Each
// group prefers one node (R1: the instances of server A prefer A) and may
// run on the other; the targets are formatted once and mounted only by the
// cluster (never through fstab), the units are disabled at boot (the
// cluster starts them), and each service listens only on its floating IP
// (connInterfacesFile names the IP's interface label, connNetFilterFile its
// network) so clients follow it to whichever node holds it.

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// Location scores of a group: its preferred node, then the pair's other
// node(s). No resource stickiness is set, so a group returns to its
// preferred node when that node is back (failback after unstandby).
const (
	HAPreferredScore = "200"
	HASecondaryScore = "100"
)

// HAInitDir holds one marker per service whose store this provider
// initialised (beegfs-setup-*): the init step's guard, kept on destroy.
const HAInitDir = "/var/lib/hpcstorage/beegfs/initialised"

// HAClientSettings are what a client of an HA file system needs: without
// session checks a client keeps its open files when a service moves to
// the other node of its pair (R3's clients run with it).
var HAClientSettings = map[string]string{"sysSessionChecksEnabled": "false"}

// maxIfName is Linux's limit on an interface name ("nic:label").
const maxIfName = 15

// HATarget is one target volume a service group mounts.
type HATarget struct {
	Target
	// MappedTo are the hosts the array maps the volume to: every node of
	// the pair, or the service could not fail over.
	MappedTo []string
}

// HAService is one BeeGFS service as a resource group.
type HAService struct {
	// Kind is management, metadata or storage.
	Kind string
	// Name is the instance (unit beegfs-<kind>@<Name>) and the group id.
	Name string
	// FloatingIP is the service's address with its prefix, 10.10.0.101/16.
	FloatingIP string
	// Interface is the network interface the floating IP is raised on.
	Interface string
	// Preferred is the node the group runs on when it can.
	Preferred string
	// Targets are mounted in order before the service starts.
	Targets []HATarget
	// With is the group whose targets hold this service's store (R1's
	// management store in a folder of metadata target 1): this group runs
	// with it and starts after it.
	With string
	// Directory is the management or metadata store; storage services
	// list theirs in StorageTargets.
	Directory      string
	NodeID         int
	Port           int
	NumaZone       *int
	StorageTargets []StorageTarget
	Settings       map[string]string
}

// HA is the BeeGFS services of one pacemaker cluster (a pair).
type HA struct {
	Nodes []string
	// Others are the cluster's nodes outside the pair (one cluster for a
	// whole file system, as NetApp's role builds it): the pair's groups
	// may never run there (-INFINITY), they do not see its volumes.
	Others []string
	// MgmtdPort is the management service's port; its host is the
	// management group's floating IP (MgmtdIP, or the IP of the
	// management service in Services).
	MgmtdPort int
	MgmtdIP   string
	Services  []HAService
	Auth      Auth
}

// Unit is the service's systemd unit (multi-mode template instance). BeeGFS
// 7.x ships a template for every server service, mgmtd included: its
// beegfs.spec installs beegfs-mgmtd@.service next to beegfs-mgmtd.service,
// and the template runs `beegfs-mgmtd cfgFile=/etc/beegfs/%I.d/beegfs-mgmtd.conf`
// (ThinkParQ/beegfs, mgmtd/build/dist/usr/lib/systemd/system/), which is
// ConfPath below.
func (s HAService) Unit() string { return "beegfs-" + unitKind(s.Kind) + "@" + s.Name }

func unitKind(kind string) string {
	switch kind {
	case KindManagement:
		return "mgmtd"
	case KindMetadata:
		return "meta"
	}
	return "storage"
}

// InstanceDir is where the instance's config and its files live.
func (s HAService) InstanceDir() string { return ConfDir + "/" + s.Name + ".d" }

// ConfPath is the instance's config, where the template unit reads it.
func (s HAService) ConfPath() string {
	return s.InstanceDir() + "/beegfs-" + unitKind(s.Kind) + ".conf"
}

// Label is the floating IP's interface label, nic:label, which the
// service's connInterfacesFile names: the service then advertises the
// floating IP only, not the node's own addresses.
func (s HAService) Label() string {
	p := map[string]string{KindManagement: "mg", KindMetadata: "md", KindStorage: "st"}[s.Kind]
	if s.Kind == KindManagement {
		return s.Interface + ":" + p
	}
	return fmt.Sprintf("%s:%s%d", s.Interface, p, s.NodeID)
}

func (s HAService) id(what string) string { return s.Name + "-" + what }

// TargetID is the id of target i's Filesystem resource.
func (s HAService) TargetID(i int) string { return s.id(fmt.Sprintf("fs%d", i+1)) }

// IPID and ServiceID are the ids of the group's first and last members.
func (s HAService) IPID() string      { return s.id("ip") }
func (s HAService) ServiceID() string { return s.id("service") }

func (s HAService) prefix() (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s.FloatingIP)
	if err != nil || p.Addr().Is4() && p.Bits() < 1 {
		return netip.Prefix{}, fmt.Errorf("want an address with its prefix length, e.g. 10.10.0.101/16")
	}
	return p, nil
}

func haInvalid(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, field, fmt.Sprintf(format, a...))
}

// Validate checks what pacemaker cannot: every target reaches every node,
// no floating IP, target or instance twice, preferred nodes in the pair.
func (h HA) Validate() error {
	if len(h.Nodes) < 2 {
		return haInvalid("nodes", "%d node(s): a service fails over only to another node of its pair", len(h.Nodes))
	}
	for _, n := range h.Others {
		if slices.Contains(h.Nodes, n) {
			return haInvalid("cluster_nodes", "%q is a node of the pair", n)
		}
	}
	if err := checkPort("mgmtd_port", h.MgmtdPort); err != nil {
		return err
	}
	if err := h.Auth.validate(); err != nil {
		return err
	}
	if len(h.Services) == 0 {
		return haInvalid("services", "no service to run")
	}
	ips, names, wwns, ids := map[netip.Addr]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for i, s := range h.Services {
		field := fmt.Sprintf("services[%d]", i)
		if !contains(TargetKinds, s.Kind) {
			return haInvalid(field+".kind", "%q: want one of %s", s.Kind, strings.Join(TargetKinds, ", "))
		}
		if !reMetaIns.MatchString(s.Name) {
			return haInvalid(field+".name", "%q: 1-32 of a-z A-Z 0-9 _ -", s.Name)
		}
		if prev, dup := names[s.Name]; dup {
			return haInvalid(field+".name", "%q is also %s", s.Name, prev)
		}
		names[s.Name] = field
		p, err := s.prefix()
		if err != nil {
			return haInvalid(field+".floating_ip", "%q: %v", s.FloatingIP, err)
		}
		if prev, dup := ips[p.Addr()]; dup {
			return haInvalid(field+".floating_ip", "%s is also the floating IP of %s: two groups cannot share an address "+
				"(clients would reach whichever node raised it last)", p.Addr(), prev)
		}
		ips[p.Addr()] = field + " (" + s.Name + ")"
		if s.Interface == "" || strings.ContainsAny(s.Interface, " :/") {
			return haInvalid(field+".interface", "%q: want the network interface (ib0, enp1s0f0)", s.Interface)
		}
		if l := s.Label(); len(l) > maxIfName {
			return haInvalid(field+".interface", "label %q is longer than Linux's %d characters: use a shorter interface name",
				l, maxIfName)
		}
		if !slices.Contains(h.Nodes, s.Preferred) {
			return haInvalid(field+".preferred_node", "%q is not a node of the pair (%s)", s.Preferred, strings.Join(h.Nodes, ", "))
		}
		if s.Kind != KindManagement {
			if s.NodeID < 1 || s.NodeID > 65535 {
				return haInvalid(field+".node_id", "%d: want 1 to 65535", s.NodeID)
			}
			if prev, dup := ids[s.Kind+itoa(s.NodeID)]; dup {
				return haInvalid(field+".node_id", "%d is also the node id of %s", s.NodeID, prev)
			}
			ids[s.Kind+itoa(s.NodeID)] = field
		}
		if err := checkPort(field+".port", s.Port); err != nil {
			return err
		}
		if s.With != "" && s.With == s.Name {
			return haInvalid(field+".with", "a group cannot run with itself")
		}
		if len(s.Targets) == 0 && s.With == "" {
			return haInvalid(field+".targets", "a service needs a target its store is on (or with, the group holding it)")
		}
		for j, t := range s.Targets {
			tf := fmt.Sprintf("%s.targets[%d]", field, j)
			if err := t.Validate(); err != nil {
				return fmt.Errorf("%s: %w", tf, err)
			}
			w := NormWWN(t.WWN)
			if prev, dup := wwns[w]; dup {
				return haInvalid(tf+".wwn", "volume %s is also mounted by %s: a volume belongs to one group", w, prev)
			}
			wwns[w] = tf
			for _, n := range h.Nodes {
				if !slices.Contains(t.MappedTo, n) {
					return haInvalid(tf+".mapped_to", "volume %s is mapped to %s but not to %s: the group could not fail over "+
						"there; map the volume to every node of the pair", w, listOr(t.MappedTo), n)
				}
			}
		}
		switch s.Kind {
		case KindStorage:
			if len(s.StorageTargets) == 0 {
				return haInvalid(field+".storage_targets", "a storage service needs its targets")
			}
			for j, st := range s.StorageTargets {
				if !underAny(st.Directory, s, h) {
					return haInvalid(fmt.Sprintf("%s.storage_targets[%d].directory", field, j), "%s is on none of the group's "+
						"targets: it would not move with the service", st.Directory)
				}
			}
		default:
			if err := absPath(field+".directory", s.Directory); err != nil {
				return err
			}
			if !underAny(s.Directory, s, h) {
				return haInvalid(field+".directory", "%s is on none of the group's targets: it would not move with the service", s.Directory)
			}
		}
	}
	for i, s := range h.Services {
		if s.With != "" {
			if _, ok := names[s.With]; !ok {
				return haInvalid(fmt.Sprintf("services[%d].with", i), "%q is not a service of this cluster", s.With)
			}
		}
	}
	if _, err := h.mgmtdHost(); err != nil {
		return err
	}
	return nil
}

func listOr(l []string) string {
	if len(l) == 0 {
		return "no host"
	}
	return strings.Join(l, ", ")
}

// underAny reports whether dir is on one of s's targets, or of the group s
// runs with.
func underAny(dir string, s HAService, h HA) bool {
	var ts []HATarget
	ts = append(ts, s.Targets...)
	for _, o := range h.Services {
		if s.With != "" && o.Name == s.With {
			ts = append(ts, o.Targets...)
		}
	}
	for _, t := range ts {
		if strings.HasPrefix(dir, t.MountPoint+"/") || dir == t.MountPoint {
			return true
		}
	}
	return false
}

// mgmtdHost is the management service's floating IP.
func (h HA) mgmtdHost() (string, error) {
	if h.MgmtdIP != "" {
		if _, err := netip.ParseAddr(h.MgmtdIP); err != nil {
			return "", haInvalid("mgmtd_ip", "%q: want the management group's floating IP", h.MgmtdIP)
		}
		return h.MgmtdIP, nil
	}
	for _, s := range h.Services {
		if s.Kind == KindManagement {
			p, _ := s.prefix()
			return p.Addr().String(), nil
		}
	}
	return "", haInvalid("mgmtd_ip", "no management service in this cluster: give the management group's floating IP")
}

// ClusterResources are the groups and constraints to put in the pair's
// cluster (hpcstorage_ha_cluster's groups, locations, colocations and
// orders).
type ClusterResources struct {
	Groups      []pacemaker.Group
	Locations   []pacemaker.Location
	Colocations []pacemaker.Colocation
	Orders      []pacemaker.Order
}

// Resources renders the groups: floating IP, target mounts, service.
func (h HA) Resources() (ClusterResources, error) {
	var out ClusterResources
	if err := h.Validate(); err != nil {
		return out, err
	}
	for _, s := range h.Services {
		p, _ := s.prefix()
		_, label, _ := strings.Cut(s.Label(), ":")
		g := pacemaker.Group{ID: s.Name, Members: []pacemaker.Primitive{{ID: s.IPID(), Class: "ocf", Provider: "heartbeat", Type: "IPaddr2",
			Params: map[string]string{"ip": p.Addr().String(), "cidr_netmask": itoa(p.Bits()), "nic": s.Interface, "iflabel": label}}}}
		for i, t := range s.Targets {
			g.Members = append(g.Members, pacemaker.Primitive{ID: s.TargetID(i), Class: "ocf", Provider: "heartbeat", Type: "Filesystem",
				Params: map[string]string{"device": DevicePath(t.WWN), "directory": t.MountPoint, "fstype": t.FSType(),
					"options": strings.Join(clusterMountOptions(t.Target), ",")}})
		}
		g.Members = append(g.Members, pacemaker.Primitive{ID: s.ServiceID(), Class: "systemd", Type: s.Unit(),
			// BeeGFS services take their time to stop cleanly (the
			// storage service flushes its targets).
			Ops: []pacemaker.Operation{{Name: "start", Interval: "0s", Timeout: "120s"}, {Name: "stop", Interval: "0s", Timeout: "300s"},
				{Name: "monitor", Interval: "30s", Timeout: "60s"}}})
		out.Groups = append(out.Groups, g)
		for _, n := range h.Nodes {
			score := HASecondaryScore
			if n == s.Preferred {
				score = HAPreferredScore
			}
			out.Locations = append(out.Locations, pacemaker.Location{ID: "prefer-" + s.Name + "-" + n, Rsc: s.Name, Node: n, Score: score})
		}
		for _, n := range h.Others {
			out.Locations = append(out.Locations, pacemaker.Location{ID: "avoid-" + s.Name + "-" + n, Rsc: s.Name, Node: n, Score: "-INFINITY"})
		}
		if s.With != "" {
			out.Colocations = append(out.Colocations, pacemaker.Colocation{ID: s.Name + "-with-" + s.With, Rsc: s.Name, WithRsc: s.With, Score: "INFINITY"})
			out.Orders = append(out.Orders, pacemaker.Order{ID: s.With + "-then-" + s.Name, First: s.With, Then: s.Name})
		}
	}
	return out, nil
}

// clusterMountOptions are the target's options without nofail, which
// only means something in fstab.
func clusterMountOptions(t Target) []string {
	var out []string
	for _, o := range t.Options() {
		if o != "nofail" {
			out = append(out, o)
		}
	}
	return out
}

// initScript mounts the target (unless mounted), runs the setup argv
// ("$@"), unmounts what it mounted and writes the marker. Arguments:
// device, mount point, fstype, marker, setup argv...
const initScript = `dev=$1 mnt=$2 fstype=$3 marker=$4; shift 4
mounted=0
if ! grep -qs " $mnt " /proc/mounts; then
  mkdir -p "$mnt" && mount -t "$fstype" "$dev" "$mnt" || exit 1
  mounted=1
fi
"$@"; rc=$?
if [ "$mounted" = 1 ]; then umount "$mnt" || exit 1; fi
[ "$rc" = 0 ] || exit "$rc"
mkdir -p "${marker%/*}" && printf '%s\n' "$*" > "$marker"`

// NodeItems are what node needs to run any of the pair's services: per
// instance its config, interface and network files and auth file, the
// unit disabled at boot and never started here (the cluster starts it).
// On a service's preferred node, its targets are also formatted (once)
// and its store initialised, mounting each target only for that: the
// group's Filesystem resources mount them from then on.
func (h HA) NodeItems(node string) ([]protocol.Item, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if !slices.Contains(h.Nodes, node) {
		return nil, haInvalid("node", "%q is not a node of the pair", node)
	}
	mgmtd, _ := h.mgmtdHost()
	var items, formats, inits []protocol.Item
	off := false
	for _, s := range h.Services {
		conf, err := h.conf(s, mgmtd)
		if err != nil {
			return nil, err
		}
		p, _ := s.prefix()
		unit := s.Unit()
		ifaces, nets, content := s.Label()+"\n", p.Masked().String()+"\n", renderConf(unit, conf)
		auth := authItem(unit, h.Auth)
		auth.File.Path = s.InstanceDir() + "/conn.auth"
		// No restart from here: the unit runs where the cluster put it,
		// on one node, and only the cluster starts it.
		auth.File.Notify = nil
		items = append(items,
			protocol.Item{File: &protocol.File{Path: s.InstanceDir() + "/connInterfacesFile", Content: &ifaces, Mode: "0644"}},
			protocol.Item{File: &protocol.File{Path: s.InstanceDir() + "/connNetFilterFile", Content: &nets, Mode: "0644"}},
			auth,
			protocol.Item{File: &protocol.File{Path: s.ConfPath(), Content: &content, Mode: "0644"}},
			// Enabled false, no state: the cluster starts and stops it.
			protocol.Item{Service: &protocol.Service{Name: unit, Enabled: &off}})
		if node != s.Preferred {
			continue
		}
		for _, t := range s.Targets {
			c := t.FormatCommand()
			formats = append(formats, protocol.Item{Command: &c})
		}
		inits = append(inits, h.initItems(s, mgmtd)...)
	}
	// Every format before any init: a store may be on another group's
	// target (With).
	return append(append(items, formats...), inits...), nil
}

// conf is the instance's config: the plain service's settings, its own
// auth, interface and network files, the management floating IP.
func (h HA) conf(s HAService, mgmtd string) (map[string]string, error) {
	base := map[string]string{"sysMgmtdHost": mgmtd, "connMgmtdPortTCP": itoa(h.MgmtdPort), "connMgmtdPortUDP": itoa(h.MgmtdPort),
		"storeAllowFirstRunInit": "false", "connAuthFile": s.InstanceDir() + "/conn.auth", "sysTargetOfflineTimeoutSecs": "900",
		"connInterfacesFile": s.InstanceDir() + "/connInterfacesFile", "connNetFilterFile": s.InstanceDir() + "/connNetFilterFile",
		"logStdFile": "/var/log/" + s.Unit() + ".log"}
	var tuning map[string]string
	switch s.Kind {
	case KindManagement:
		delete(base, "sysMgmtdHost")
		base["storeMgmtdDirectory"] = s.Directory
	case KindMetadata:
		base["storeMetaDirectory"] = s.Directory
		base["connMetaPortTCP"], base["connMetaPortUDP"] = itoa(s.Port), itoa(s.Port)
		tuning = MetaTuning
	case KindStorage:
		var dirs []string
		for _, t := range s.StorageTargets {
			dirs = append(dirs, t.Directory)
		}
		base["storeStorageDirectory"] = strings.Join(dirs, ",")
		base["connStoragePortTCP"], base["connStoragePortUDP"] = itoa(s.Port), itoa(s.Port)
		tuning = StorageTuning
	}
	if s.Kind == KindManagement {
		base["connMgmtdPortTCP"], base["connMgmtdPortUDP"] = itoa(s.Port), itoa(s.Port)
	}
	for k, v := range tuning {
		base[k] = v
	}
	if s.NumaZone != nil {
		base["tuneBindToNumaZone"] = itoa(*s.NumaZone)
	}
	return merge(base, s.Settings)
}

// initItems run beegfs-setup-* once per store, with its target mounted.
func (h HA) initItems(s HAService, mgmtd string) []protocol.Item {
	type step struct {
		dir   string
		argv  []string
		guard string
	}
	var steps []step
	switch s.Kind {
	case KindManagement:
		steps = append(steps, step{s.Directory, []string{SetupDir + "/beegfs-setup-mgmtd", "-C", "-p", s.Directory}, s.Name})
	case KindMetadata:
		steps = append(steps, step{s.Directory, []string{SetupDir + "/beegfs-setup-meta", "-C", "-p", s.Directory, "-s", itoa(s.NodeID),
			"-S", s.Name, "-m", mgmtd}, s.Name})
	case KindStorage:
		for _, t := range s.StorageTargets {
			steps = append(steps, step{t.Directory, []string{SetupDir + "/beegfs-setup-storage", "-C", "-p", t.Directory, "-s", itoa(s.NodeID),
				"-i", itoa(t.ID), "-P", itoa(t.Pool)}, fmt.Sprintf("%s-target-%d", s.Name, t.ID)})
		}
	}
	targets := s.Targets
	for _, o := range h.Services {
		if s.With != "" && o.Name == s.With {
			targets = append(targets, o.Targets...)
		}
	}
	var items []protocol.Item
	for _, st := range steps {
		for _, t := range targets {
			if !strings.HasPrefix(st.dir, t.MountPoint+"/") {
				continue
			}
			marker := HAInitDir + "/" + st.guard
			argv := append([]string{"/bin/sh", "-c", initScript, "hpcstorage-beegfs-init", DevicePath(t.WWN), t.MountPoint, t.FSType(), marker}, st.argv...)
			items = append(items, protocol.Item{Command: &protocol.Command{Name: "init-" + st.guard, Argv: argv, Creates: marker}})
			break
		}
	}
	return items
}
