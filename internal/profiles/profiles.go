// Package profiles holds the built-in tuning presets: per node role, the
// kernel, device and daemon settings the reference designs and the public
// automation for each storage stack agree on (or disagree on: each preset
// lists the known conflicts and which side it takes). Every value carries
// its source. Rendering a preset is a pure function to agent items.
//
// Presets are versioned: a value change bumps the preset's Version, so a
// configuration that pins a version notices when a provider upgrade would
// retune its nodes.
package profiles

//go:generate go run ./gendoc ../../templates/guides/tuning-profiles.md.tmpl

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	suggestpkg "github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest"
)

// Errors wrapped by Render.
var (
	ErrUnknownPreset  = errors.New("unknown tuning profile")
	ErrUnknownSetting = errors.New("unknown setting")
	ErrVersion        = errors.New("profile version mismatch")
	ErrBadOverride    = errors.New("invalid override")
)

// Kinds of setting. The kind decides which agent item a setting renders
// into; "cluster" settings are documentation only: they belong to the file
// system's own configuration (mmchconfig, ceph config), not to the node.
const (
	KindSysctl  = "sysctl"
	KindTHP     = "thp"
	KindQueue   = "block_queue"
	KindConf    = "conf"
	KindModule  = "kernel_module"
	KindUdev    = "udev_rule"
	KindService = "service"
	KindPackage = "package"
	KindCluster = "cluster"
)

// Kinds lists every kind, in the order settings render and are documented.
var Kinds = []string{KindPackage, KindSysctl, KindTHP, KindQueue, KindModule, KindUdev, KindConf, KindService, KindCluster}

// Setting is one value of a preset. Key is what overrides name: it is
// "<kind>:<name>", e.g. "sysctl:vm.dirty_ratio", "thp:enabled",
// "block_queue:scheduler", "conf:tuneNumWorkers", "package:lvm2".
type Setting struct {
	Key    string
	Value  string
	Source string // a key of Sources
	Note   string // why, and what other sources say
}

// Kind is the part of Key before the first colon.
func (s Setting) Kind() string { k, _, _ := strings.Cut(s.Key, ":"); return k }

// Name is the part of Key after the first colon.
func (s Setting) Name() string { _, n, _ := strings.Cut(s.Key, ":"); return n }

// Preset is one node role's tuning.
type Preset struct {
	Name    string
	Version int
	Summary string
	// Designs names the reference designs the preset serves (R1..R5).
	Designs []string
	// Match selects the disks block_queue settings apply to.
	Match protocol.DiskMatch
	// Conf is the daemon configuration file conf settings go into, and
	// ConfSection, when set, makes it an INI drop-in written whole with
	// that section (nfs.conf); otherwise keys are laid over the file.
	Conf        string
	ConfSection string
	Settings    []Setting
	// Conflicts are keys of Conflicts that concern this preset.
	Conflicts []string
}

// Source is where values come from.
type Source struct {
	Title string
	Where string
}

// Sources cites every source a setting names.
var Sources = map[string]Source{
	"R1":        {"Dell BeeGFS high-capacity storage reference design (2020)", "tuning section: sysctl, THP, block devices, beegfs-meta/storage/client.conf"},
	"R2":        {"Dell NFS storage solution NSS 7.4-HA (2019)", "server settings: deadline scheduler, 256 nfsd threads, known-bad package versions"},
	"R3":        {"NetApp BeeGFS on E-Series building blocks (2024)", "client cache mode and failover settings"},
	"R4":        {"Supermicro all-flash Ceph with Red Hat Ceph Storage 4.2", "3 monitors, 4 all-NVMe OSD nodes"},
	"R5":        {"Dell PixStor (IBM Spectrum Scale) capacity expansion", "file system settings: 8 MiB blocks, 16 GiB pagepool, scatter allocation; RAID6 8+2 LUNs with 512 KiB segments"},
	"netapp":    {"NetApp/beegfs Ansible collection 3.2 (netapp_eseries.beegfs)", "roles/beegfs_ha_7_4/defaults/main.yml, beegfs_client role"},
	"beegfs":    {"BeeGFS server tuning guide (ThinkParQ)", "as quoted by the NetApp collection's docs/beegfs_ha/performance_tuning.md"},
	"cephadm":   {"ceph/ceph cephadm", "src/cephadm: sysctl drop-in written for OSD daemons"},
	"cephans":   {"ceph/ceph-ansible", "roles/ceph-osd/tasks/system_tuning.yml, roles/ceph-defaults"},
	"scale":     {"IBM/ibm-spectrum-scale-install-infra", "network role: arp_filter for multi-rail nodes"},
	"derived":   {"derived from the design's geometry", "the note says how"},
	"kernel":    {"Linux block layer", "blk-mq kernels (RHEL 8+) offer mq-deadline and none instead of deadline and noop"},
	"nfs-utils": {"nfs-utils nfs.conf(5)", "[nfsd] threads; /etc/nfs.conf.d drop-ins are read after /etc/nfs.conf"},
}

// Conflicts are the known disagreements between sources.
var Conflicts = map[string]string{
	"thp": "Transparent huge pages per role: R1 disables THP on BeeGFS metadata and storage servers, while the BeeGFS " +
		"tuning guide and the NetApp collection ask for `always` (NetApp's rule never fires); ceph-ansible keeps THP " +
		"enabled for BlueStore OSDs and disables it only for filestore; tuned's hpc-compute sets `always`. Presets " +
		"follow the reference design of their role and leave THP alone where no design sets it.",
	"dirty-ratios": "BeeGFS dirty ratios: R1 and the BeeGFS guide use vm.dirty_background_ratio 5 / vm.dirty_ratio 20; " +
		"the NetApp collection's code uses 1 / 75 (its own docs say 5 / 20). tuned's throughput-performance profile sets " +
		"dirty_bytes-based limits (40 % / 10 %) that replace dirty_ratio when tuned starts: the agent warns when a tuned " +
		"profile or another sysctl.d file overrides a value.",
	"zone-reclaim": "vm.zone_reclaim_mode: BeeGFS sources (NetApp performance tuning, BeeGFS guide) set 1 to keep " +
		"memory local to the NUMA zone a daemon is bound to; ceph-ansible sets 0. On a converged node running both, " +
		"only one node_config may own the key (the agent refuses a second owner): override one preset's value.",
	"nr-requests": "Block queue depth of BeeGFS storage HDD targets: R1 2048, BeeGFS guide 4096 (with max_sectors_kb 256), " +
		"NetApp 1024. Presets follow R1.",
	"scheduler-names": "R1, R2 and older NetApp defaults name the `deadline` and `noop` schedulers, which blk-mq kernels " +
		"reject (udev only logs it). Presets use `mq-deadline` and `none`, and the agent refuses a scheduler the device " +
		"does not offer.",
	"aio-max-nr": "fs.aio-max-nr on Ceph OSD nodes: cephadm writes 2097152, ceph-ansible 1048576. The preset takes cephadm's.",
}

// Names lists the presets in documentation order.
func Names() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// Get returns a copy of the named preset.
func Get(name string) (Preset, error) {
	for _, p := range presets {
		if p.Name == name {
			p.Settings = slices.Clone(p.Settings)
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownPreset, name, strings.Join(Names(), ", "))
}

// All returns copies of every preset.
func All() []Preset {
	out := make([]Preset, 0, len(presets))
	for _, n := range Names() {
		p, _ := Get(n)
		out = append(out, p)
	}
	return out
}

// Setting looks a setting up by key.
func (p Preset) Setting(key string) (Setting, bool) {
	for _, s := range p.Settings {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// Apply returns the preset with overrides applied: a value replaces the
// setting's value (its source becomes "override"), an empty value drops
// the setting. Keys the preset does not have are an error, except new
// "sysctl:" and "conf:" keys, which are added.
func (p Preset) Apply(overrides map[string]string) (Preset, error) {
	out := p
	out.Settings = slices.Clone(p.Settings)
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(overrides)) {
		val := overrides[key]
		i := slices.IndexFunc(out.Settings, func(s Setting) bool { return s.Key == key })
		switch {
		case i >= 0 && val == "":
			out.Settings = slices.Delete(out.Settings, i, i+1)
		case i >= 0:
			out.Settings[i].Value = val
			out.Settings[i].Source = "override"
			out.Settings[i].Note = "preset value " + p.Settings[slices.IndexFunc(p.Settings, func(s Setting) bool { return s.Key == key })].Value
		case strings.HasPrefix(key, KindSysctl+":") && val != "",
			strings.HasPrefix(key, KindConf+":") && val != "" && p.Conf != "":
			out.Settings = append(out.Settings, Setting{Key: key, Value: val, Source: "override"})
		case val == "":
			// Dropping what is not there is a no-op, so a shared override
			// map can serve several presets.
		default:
			errs = append(errs, fmt.Errorf("%w %q in profile %s%s (settings: %s; new keys may be sysctl:<name>%s)",
				ErrUnknownSetting, key, p.Name, suggest(key, p.keys()), strings.Join(p.keys(), ", "), confHint(p)))
		}
	}
	return out, errors.Join(errs...)
}

func confHint(p Preset) string {
	if p.Conf == "" {
		return ""
	}
	return " or conf:<key> for " + p.Conf
}

func (p Preset) keys() []string {
	out := make([]string, len(p.Settings))
	for i, s := range p.Settings {
		out[i] = s.Key
	}
	return out
}

// Render turns the preset into agent items (cluster settings are not node
// items and are left out). owner is only used to validate the result.
func (p Preset) Render() ([]protocol.Item, error) {
	var items []protocol.Item
	var thp *protocol.THP
	var queue *protocol.BlockQueue
	var conf map[string]protocol.Scalar
	var errs []error
	bad := func(s Setting, why string) {
		errs = append(errs, fmt.Errorf("%w: %s = %q: %s", ErrBadOverride, s.Key, s.Value, why))
	}
	for _, kind := range Kinds {
		for _, s := range p.Settings {
			if s.Kind() != kind {
				continue
			}
			switch kind {
			case KindPackage:
				items = append(items, protocol.Item{PackageVersion: &protocol.PackageVersion{Name: s.Name(), Min: s.Value}})
			case KindSysctl:
				items = append(items, protocol.Item{Sysctl: &protocol.Sysctl{Key: s.Name(), Value: protocol.Scalar(s.Value)}})
			case KindTHP:
				if thp == nil {
					thp = &protocol.THP{}
					items = append(items, protocol.Item{THP: thp})
				}
				switch s.Name() {
				case "enabled":
					thp.Enabled = s.Value
				case "defrag":
					thp.Defrag = s.Value
				}
			case KindQueue:
				if queue == nil {
					queue = &protocol.BlockQueue{Match: p.Match}
					items = append(items, protocol.Item{BlockQueue: queue})
				}
				if s.Name() == "scheduler" {
					queue.Scheduler = s.Value
					continue
				}
				n, err := strconv.Atoi(s.Value)
				if err != nil {
					bad(s, "want an integer")
					continue
				}
				switch s.Name() {
				case "nr_requests":
					queue.NrRequests = &n
				case "read_ahead_kb":
					queue.ReadAheadKB = &n
				case "max_sectors_kb":
					queue.MaxSectorsKB = &n
				}
			case KindModule:
				items = append(items, protocol.Item{KernelModule: &protocol.KernelModule{Name: s.Name(), Options: s.Value}})
			case KindUdev:
				items = append(items, protocol.Item{UdevRule: &protocol.UdevRule{Name: s.Name(), Content: s.Value}})
			case KindConf:
				if conf == nil {
					conf = map[string]protocol.Scalar{}
				}
				conf[s.Name()] = protocol.Scalar(s.Value)
			case KindService:
				t := true
				items = append(items, protocol.Item{Service: &protocol.Service{Name: s.Name(), Enabled: &t, State: s.Value}})
			}
		}
		if kind == KindConf && conf != nil {
			items = append(items, protocol.Item{File: p.confFile(conf)})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if items == nil {
		items = []protocol.Item{}
	}
	spec := protocol.Spec{APIVersion: protocol.APIVersion, Owner: "profile", Items: items}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	return items, nil
}

// confFile lays keys over the daemon's file, or for an INI drop-in writes
// the whole file: nfs.conf keys live in sections the agent's key=value
// overlay does not model.
func (p Preset) confFile(conf map[string]protocol.Scalar) *protocol.File {
	if p.ConfSection == "" {
		return &protocol.File{Path: p.Conf, Set: conf}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by the hpcstorage %s tuning profile.\n[%s]\n", p.Name, p.ConfSection)
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		fmt.Fprintf(&b, "%s = %s\n", k, conf[k])
	}
	s := b.String()
	return &protocol.File{Path: p.Conf, Content: &s, Mode: "0644"}
}

// ClusterSettings are the preset's settings that belong to the file
// system's configuration rather than the node.
func (p Preset) ClusterSettings() map[string]string {
	out := map[string]string{}
	for _, s := range p.Settings {
		if s.Kind() == KindCluster {
			out[s.Name()] = s.Value
		}
	}
	return out
}

// Resolve is Get, a version check (0 accepts any), Apply and Render.
func Resolve(name string, version int, overrides map[string]string) (Preset, []protocol.Item, error) {
	p, err := Get(name)
	if err != nil {
		return p, nil, err
	}
	if version != 0 && version != p.Version {
		return p, nil, fmt.Errorf("%w: profile %s is at version %d in this provider, the configuration pins %d: "+
			"read the tuning profiles guide for what changed, then update the pin", ErrVersion, name, p.Version, version)
	}
	p, err = p.Apply(overrides)
	if err != nil {
		return p, nil, err
	}
	items, err := p.Render()
	return p, items, err
}

// suggest names a near key, if any.
func suggest(got string, options []string) string { return suggestpkg.DidYouMean(got, options, 3) }
