// Package nodeconfig maps the typed node configuration the Terraform
// resource holds (maps keyed by sysctl name, file path, unit name, ...) to
// an agent spec and back, and maps an agent check result onto that typed
// configuration so drift shows on the attribute it concerns. It is pure:
// no I/O, no Terraform types.
package nodeconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Config is one owner's desired (or observed) state of one node.
type Config struct {
	PackageFloors map[string]string       `json:"package_floors"` // package name -> minimum version
	Sysctl        map[string]string       `json:"sysctl"`         // kernel parameter -> value
	THP           *THP                    `json:"thp"`
	BlockQueues   []BlockQueue            `json:"block_queues"`
	KernelModules map[string]KernelModule `json:"kernel_modules"` // by module name
	UdevRules     map[string]UdevRule     `json:"udev_rules"`     // by rule file name
	Files         map[string]File         `json:"files"`          // by absolute path
	Mounts        map[string]Mount        `json:"mounts"`         // by mount point
	Commands      []Command               `json:"commands"`
	Services      map[string]Service      `json:"services"` // by unit name
}

// THP is transparent huge pages; "" leaves a field alone.
type THP struct {
	Enabled string `json:"enabled"`
	Defrag  string `json:"defrag"`
}

// BlockQueue tunes the disks the match selects.
type BlockQueue struct {
	Match        protocol.DiskMatch `json:"match"`
	Scheduler    string             `json:"scheduler"`
	NrRequests   *int               `json:"nr_requests"`
	ReadAheadKB  *int               `json:"read_ahead_kb"`
	MaxSectorsKB *int               `json:"max_sectors_kb"`
}

// KernelModule loads a module with options.
type KernelModule struct {
	Options string   `json:"options"`
	Load    *bool    `json:"load"`
	Boot    *bool    `json:"boot"`
	Notify  []string `json:"notify"`
}

// UdevRule is a rules file.
type UdevRule struct {
	Content string   `json:"content"`
	Notify  []string `json:"notify"`
}

// File is a whole file (Content) or keys laid over it (Set), plus metadata.
type File struct {
	Content *string           `json:"content"`
	Set     map[string]string `json:"set"`
	Mode    string            `json:"mode"`
	Owner   string            `json:"owner"`
	Group   string            `json:"group"`
	Notify  []string          `json:"notify"`
}

// Mount is a mounted file system.
type Mount struct {
	Device  string   `json:"device"`
	FSType  string   `json:"fstype"`
	Options []string `json:"options"`
	Persist string   `json:"persist"`
	Notify  []string `json:"notify"`
}

// Command runs once, guarded.
type Command struct {
	Name    string   `json:"name"`
	Argv    []string `json:"argv"`
	Creates string   `json:"creates"`
	Unless  []string `json:"unless"`
	Notify  []string `json:"notify"`
}

// Service is a systemd unit.
type Service struct {
	Enabled *bool             `json:"enabled"`
	State   string            `json:"state"`
	Masked  *bool             `json:"masked"`
	DropIns map[string]string `json:"dropins"` // drop-in name -> content
	Notify  []string          `json:"notify"`
}

// Attribute names, as the Terraform resource spells them. Locators use them
// so errors can name the attribute a bad value came from.
const (
	AttrPackageFloors = "package_floors"
	AttrSysctl        = "sysctl"
	AttrTHP           = "thp"
	AttrBlockQueues   = "block_queues"
	AttrKernelModules = "kernel_modules"
	AttrUdevRules     = "udev_rules"
	AttrFiles         = "files"
	AttrMounts        = "mounts"
	AttrCommands      = "commands"
	AttrServices      = "services"
)

// Locator says which attribute element an item came from: Key for map
// attributes, Index for lists, neither for thp.
type Locator struct {
	Attr  string
	Key   string
	Index int // -1 when not a list element
}

// Path is the attribute element as a location (internal/located).
func (l Locator) Path() located.Path {
	p := located.At(l.Attr)
	switch {
	case l.Key != "":
		return p.Key(l.Key)
	case l.Index >= 0:
		return p.Index(l.Index)
	}
	return p
}

// Empty reports whether the config manages nothing.
func (c Config) Empty() bool {
	return len(c.PackageFloors) == 0 && len(c.Sysctl) == 0 && c.THP == nil && len(c.BlockQueues) == 0 &&
		len(c.KernelModules) == 0 && len(c.UdevRules) == 0 && len(c.Files) == 0 && len(c.Mounts) == 0 &&
		len(c.Commands) == 0 && len(c.Services) == 0
}

// Items renders the agent items in apply order (package floors first, as a
// preflight; kernel settings; files; mounts and commands; services last so
// their notify targets exist) with a locator per item. Map keys are sorted,
// so the same config always gives the same spec.
func (c Config) Items() ([]protocol.Item, []Locator) {
	var its []protocol.Item
	var locs []Locator
	add := func(it protocol.Item, attr, key string, idx int) {
		its = append(its, it)
		locs = append(locs, Locator{Attr: attr, Key: key, Index: idx})
	}
	for _, k := range sortedKeys(c.PackageFloors) {
		add(protocol.Item{PackageVersion: &protocol.PackageVersion{Name: k, Min: c.PackageFloors[k]}}, AttrPackageFloors, k, -1)
	}
	for _, k := range sortedKeys(c.Sysctl) {
		add(protocol.Item{Sysctl: &protocol.Sysctl{Key: k, Value: protocol.Scalar(c.Sysctl[k])}}, AttrSysctl, k, -1)
	}
	if c.THP != nil {
		add(protocol.Item{THP: &protocol.THP{Enabled: c.THP.Enabled, Defrag: c.THP.Defrag}}, AttrTHP, "", -1)
	}
	for i, q := range c.BlockQueues {
		add(protocol.Item{BlockQueue: &protocol.BlockQueue{Match: q.Match, Scheduler: q.Scheduler,
			NrRequests: q.NrRequests, ReadAheadKB: q.ReadAheadKB, MaxSectorsKB: q.MaxSectorsKB}}, AttrBlockQueues, "", i)
	}
	for _, k := range sortedKeys(c.KernelModules) {
		m := c.KernelModules[k]
		add(protocol.Item{KernelModule: &protocol.KernelModule{Name: k, Options: m.Options, Load: m.Load, Boot: m.Boot,
			Notify: m.Notify}}, AttrKernelModules, k, -1)
	}
	for _, k := range sortedKeys(c.UdevRules) {
		r := c.UdevRules[k]
		add(protocol.Item{UdevRule: &protocol.UdevRule{Name: k, Content: r.Content, Notify: r.Notify}}, AttrUdevRules, k, -1)
	}
	for _, k := range sortedKeys(c.Files) {
		f := c.Files[k]
		pf := &protocol.File{Path: k, Content: f.Content, Mode: f.Mode, Owner: f.Owner, Group: f.Group, Notify: f.Notify}
		if f.Set != nil {
			pf.Set = map[string]protocol.Scalar{}
			for sk, sv := range f.Set {
				pf.Set[sk] = protocol.Scalar(sv)
			}
		}
		add(protocol.Item{File: pf}, AttrFiles, k, -1)
	}
	for _, k := range sortedKeys(c.Mounts) {
		m := c.Mounts[k]
		add(protocol.Item{Mount: &protocol.Mount{Device: m.Device, Path: k, FSType: m.FSType, Options: m.Options,
			Persist: m.Persist, Notify: m.Notify}}, AttrMounts, k, -1)
	}
	for i, cmd := range c.Commands {
		add(protocol.Item{Command: &protocol.Command{Name: cmd.Name, Argv: cmd.Argv, Creates: cmd.Creates,
			Unless: cmd.Unless, Notify: cmd.Notify}}, AttrCommands, "", i)
	}
	for _, k := range sortedKeys(c.Services) {
		s := c.Services[k]
		ps := &protocol.Service{Name: k, Enabled: s.Enabled, State: s.State, Masked: s.Masked, Notify: s.Notify}
		for _, d := range sortedKeys(s.DropIns) {
			ps.DropIns = append(ps.DropIns, protocol.DropIn{Name: d, Content: s.DropIns[d]})
		}
		add(protocol.Item{Service: ps}, AttrServices, k, -1)
	}
	if its == nil {
		its = []protocol.Item{}
	}
	return its, locs
}

// Spec is the agent spec for owner.
func (c Config) Spec(owner string) (*protocol.Spec, []Locator) {
	its, locs := c.Items()
	return &protocol.Spec{APIVersion: protocol.APIVersion, Owner: owner, Items: its}, locs
}

// SpecJSON is the spec as the agent reads it.
func (c Config) SpecJSON(owner string) ([]byte, []Locator, error) {
	s, locs := c.Spec(owner)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("encode spec: %w", err)
	}
	return b, locs, nil
}

// FromItems builds a config from agent items (a rendered profile). Items
// that map onto one config key twice are an error.
func FromItems(items []protocol.Item) (Config, error) {
	var c Config
	dup := func(id string) error { return fmt.Errorf("item %s appears twice", id) }
	for _, it := range items {
		switch {
		case it.PackageVersion != nil:
			c.PackageFloors = put(c.PackageFloors)
			if _, ok := c.PackageFloors[it.PackageVersion.Name]; ok {
				return c, dup(it.ID())
			}
			c.PackageFloors[it.PackageVersion.Name] = it.PackageVersion.Min
		case it.Sysctl != nil:
			c.Sysctl = put(c.Sysctl)
			if _, ok := c.Sysctl[it.Sysctl.Key]; ok {
				return c, dup(it.ID())
			}
			c.Sysctl[it.Sysctl.Key] = string(it.Sysctl.Value)
		case it.THP != nil:
			if c.THP != nil {
				return c, dup(it.ID())
			}
			c.THP = &THP{Enabled: it.THP.Enabled, Defrag: it.THP.Defrag}
		case it.BlockQueue != nil:
			q := it.BlockQueue
			c.BlockQueues = append(c.BlockQueues, BlockQueue{Match: q.Match, Scheduler: q.Scheduler,
				NrRequests: q.NrRequests, ReadAheadKB: q.ReadAheadKB, MaxSectorsKB: q.MaxSectorsKB})
		case it.KernelModule != nil:
			m := it.KernelModule
			c.KernelModules = put(c.KernelModules)
			if _, ok := c.KernelModules[m.Name]; ok {
				return c, dup(it.ID())
			}
			c.KernelModules[m.Name] = KernelModule{Options: m.Options, Load: m.Load, Boot: m.Boot, Notify: m.Notify}
		case it.UdevRule != nil:
			c.UdevRules = put(c.UdevRules)
			if _, ok := c.UdevRules[it.UdevRule.Name]; ok {
				return c, dup(it.ID())
			}
			c.UdevRules[it.UdevRule.Name] = UdevRule{Content: it.UdevRule.Content, Notify: it.UdevRule.Notify}
		case it.File != nil:
			f := it.File
			c.Files = put(c.Files)
			if _, ok := c.Files[f.Path]; ok {
				return c, dup(it.ID())
			}
			cf := File{Content: f.Content, Mode: f.Mode, Owner: f.Owner, Group: f.Group, Notify: f.Notify}
			if f.Set != nil {
				cf.Set = map[string]string{}
				for k, v := range f.Set {
					cf.Set[k] = string(v)
				}
			}
			c.Files[f.Path] = cf
		case it.Mount != nil:
			m := it.Mount
			c.Mounts = put(c.Mounts)
			if _, ok := c.Mounts[m.Path]; ok {
				return c, dup(it.ID())
			}
			c.Mounts[m.Path] = Mount{Device: m.Device, FSType: m.FSType, Options: m.Options, Persist: m.Persist, Notify: m.Notify}
		case it.Command != nil:
			m := it.Command
			c.Commands = append(c.Commands, Command{Name: m.Name, Argv: m.Argv, Creates: m.Creates, Unless: m.Unless, Notify: m.Notify})
		case it.Service != nil:
			s := it.Service
			c.Services = put(c.Services)
			if _, ok := c.Services[s.Name]; ok {
				return c, dup(it.ID())
			}
			cs := Service{Enabled: s.Enabled, State: s.State, Masked: s.Masked, Notify: s.Notify}
			for _, d := range s.DropIns {
				cs.DropIns = put(cs.DropIns)
				cs.DropIns[d.Name] = d.Content
			}
			c.Services[s.Name] = cs
		default:
			return c, fmt.Errorf("item with no type")
		}
	}
	return c, nil
}

// Clone is a deep copy, so observed state never aliases the desired one.
func (c Config) Clone() Config {
	out := c
	out.PackageFloors = maps.Clone(c.PackageFloors)
	out.Sysctl = maps.Clone(c.Sysctl)
	if c.THP != nil {
		t := *c.THP
		out.THP = &t
	}
	out.BlockQueues = slices.Clone(c.BlockQueues)
	out.KernelModules = maps.Clone(c.KernelModules)
	out.UdevRules = maps.Clone(c.UdevRules)
	if c.Files != nil {
		out.Files = make(map[string]File, len(c.Files))
		for k, f := range c.Files {
			f.Set = maps.Clone(f.Set)
			if f.Content != nil {
				s := *f.Content
				f.Content = &s
			}
			out.Files[k] = f
		}
	}
	out.Mounts = maps.Clone(c.Mounts)
	out.Commands = slices.Clone(c.Commands)
	if c.Services != nil {
		out.Services = make(map[string]Service, len(c.Services))
		for k, s := range c.Services {
			s.DropIns = maps.Clone(s.DropIns)
			out.Services[k] = s
		}
	}
	return out
}

func put[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
