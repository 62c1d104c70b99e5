// Package santricitymock is the lab's NetApp E-Series array: the SANtricity
// Web Services REST API (devmgr/utils and devmgr/v2) over real HTTPS, with
// the array's state rules: drives are consumed by the volume group built
// from them, volumes use the group's free capacity, a volume has one LUN
// mapping and a LUN is unique per host, names are unique, and refusals come
// back in SANtricity's error shape (errorMessage, retcode, codeType). Like
// internal/lab/redfishmock it has login sessions, injectable faults,
// request statistics and mapping events for the lab's cabling, under the
// same /_mock control API.
package santricitymock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// ArraySpec is one E-Series array.
type ArraySpec struct {
	Name     string   `json:"name"`
	Model    string   `json:"model"`
	CabledTo []string `json:"cabled_to,omitempty"`
	Trays    []TraySpec
}

// TraySpec is one shelf of drives.
type TraySpec struct {
	ID         int // 99 for the controller shelf
	Slots      int
	MediaType  string // ssd, hdd
	Interface  string // nvme, sas
	DriveBytes int64
	Product    string
}

const tb = int64(1000 * 1000 * 1000 * 1000)

// EF600 is an all-NVMe EF600: 24 bays in the controller shelf (tray 99).
func EF600(name string, driveBytes int64, cabled ...string) ArraySpec {
	return ArraySpec{Name: name, Model: "EF600", CabledTo: cabled, Trays: []TraySpec{{ID: 99, Slots: 24, MediaType: "ssd",
		Interface: "nvme", DriveBytes: driveBytes, Product: "MZWLJ3T8HBLS-0G5"}}}
}

// DesignArrays returns the E-Series arrays of a reference design: R3 puts
// one EF600 in each of its three building blocks, cabled to the block's
// two file nodes.
func DesignArrays(design string) []ArraySpec {
	switch strings.ToLower(design) {
	case "r3":
		var out []ArraySpec
		for b := 1; b <= 3; b++ {
			out = append(out, EF600(fmt.Sprintf("ef600-%d", b), 3840*1000*1000*1000,
				fmt.Sprintf("bb%d-node1", b), fmt.Sprintf("bb%d-node2", b)))
		}
		return out
	}
	return nil
}

// Options tune a service.
type Options struct {
	Username string // default admin
	Password string // default: random
	// SessionIdle ends a session unused for this long (default 30 min).
	SessionIdle time.Duration
	// SessionLimit caps open sessions (default 32); logins beyond it are
	// refused with 422 as the array does, until one expires or logs out.
	SessionLimit int
	// CabledHosts seeds a host object (Linux DM-MP, one NVMe-oF initiator)
	// for each node the array is cabled to, as the site's administrator
	// defines them when cabling; a factory-fresh array has none.
	CabledHosts bool
	Now         func() time.Time
}

type drive struct {
	ref, tray        string
	trayID, slot     int
	media, iface     string
	bytes            int64
	product, serial  string
	hotSpare         bool
	vg               *pool
	status           string
	wwn              string
	removedForFaults bool
}

type pool struct {
	ref, name string
	level     string
	drives    []*drive
	total     int64
	volumes   []*volume
}

func (p *pool) used() int64 {
	var n int64
	for _, v := range p.volumes {
		n += v.bytes
	}
	return n
}

type volume struct {
	ref, name string
	pool      *pool
	bytes     int64
	segment   int64 // bytes
	wwn       string
}

type host struct {
	ref, name string
	typeIndex int
	group     *hostGroup
	ports     []port
}

type port struct {
	Type, Address, Label string
}

type hostGroup struct {
	ref, name string
}

type mapping struct {
	ref    string
	vol    *volume
	host   *host      // one of host, group
	group  *hostGroup //
	lun    int
	target string
}

func (m *mapping) targetRef() string {
	if m.host != nil {
		return m.host.ref
	}
	return m.group.ref
}

// Service is one array. It is an http.Handler.
type Service struct {
	spec ArraySpec
	opts Options

	mu        sync.Mutex
	seq       int
	drives    []*drive
	trays     map[int]string // trayId -> trayRef
	pools     []*pool
	volumes   []*volume
	hosts     []*host
	groups    []*hostGroup
	maps      []*mapping
	sessions  map[string]time.Time // JSESSIONID -> last use
	faults    []*redfishmock.Fault
	stats     map[string]int
	logins    int
	events    []redfishmock.MappingEvent
	outbox    []redfishmock.MappingEvent
	listeners []func(redfishmock.MappingEvent)
	dispatch  sync.Mutex
}

// New builds an array from its spec, with every drive unassigned.
func New(spec ArraySpec, opts Options) *Service {
	if opts.Username == "" {
		opts.Username = "admin"
	}
	if opts.Password == "" {
		opts.Password = randomHex(12)
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 30 * time.Minute
	}
	if opts.SessionLimit <= 0 {
		opts.SessionLimit = 32
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{spec: spec, opts: opts}
	s.reseed()
	return s
}

// Spec is the array's description.
func (s *Service) Spec() ArraySpec { return s.spec }

// Credentials returns the user name and password.
func (s *Service) Credentials() (string, string) { return s.opts.Username, s.opts.Password }

// reseed rebuilds the factory state; mu held or s not shared yet.
func (s *Service) reseed() {
	s.seq = 0
	s.drives, s.pools, s.volumes, s.hosts, s.groups, s.maps = nil, nil, nil, nil, nil, nil
	s.trays = map[int]string{}
	s.sessions = map[string]time.Time{}
	s.stats = map[string]int{}
	s.events, s.outbox = nil, nil
	for ti, t := range s.spec.Trays {
		tref := s.ref(0x0E)
		s.trays[t.ID] = tref
		for slot := 0; slot < t.Slots; slot++ {
			s.drives = append(s.drives, &drive{ref: s.ref(0x01), tray: tref, trayID: t.ID, slot: slot, media: t.MediaType,
				iface: t.Interface, bytes: t.DriveBytes, product: t.Product, status: "optimal",
				serial: strings.ToUpper(hash(s.spec.Name, "serial", fmt.Sprint(ti, slot))[:12]),
				wwn:    "5" + "0002ac" + strings.ToUpper(hash(s.spec.Name, "drive", fmt.Sprint(ti, slot))[:9])})
		}
	}
	if s.opts.CabledHosts {
		for _, node := range s.spec.CabledTo {
			s.hosts = append(s.hosts, &host{ref: s.ref(0x84), name: node, typeIndex: 28,
				ports: []port{{Type: "nvmeof", Address: NodeNQN(node), Label: node + "_ib0"}}})
		}
	}
}

// NodeNQN is the NVMe host NQN the lab gives a node (its initiator port).
func NodeNQN(node string) string {
	h := hash("hostnqn", node)
	return "nqn.2014-08.org.nvmexpress:uuid:" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// ref makes a 40-hex-digit SANtricity object reference.
func (s *Service) ref(kind int) string {
	s.seq++
	return fmt.Sprintf("%02X%s%08X", kind, strings.ToUpper(hash(s.spec.Name)[:30]), s.seq)
}

func hash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "/")))
	return hex.EncodeToString(h[:])
}

// volumeWWN is an NAA type 6 name under NetApp's OUI (00A098), stable for an
// array and volume name so a re-created volume is told apart by its serial.
func (s *Service) volumeWWN(name string) string {
	return strings.ToUpper("600a0980" + hash(s.spec.Name, "vol", name, fmt.Sprint(s.seq))[:24])
}

// Reset drops every change, session, fault and counter; listeners stay.
func (s *Service) Reset() {
	s.mu.Lock()
	s.faults = nil
	s.reseed()
	s.mu.Unlock()
}

// usable is the capacity a volume group of level over n drives of the
// smallest size min offers. A Dynamic Disk Pool keeps two drives' worth of
// reconstruction reserve and stores data in 8+2 RAID 6 stripes.
func usable(level string, n int, min int64) int64 {
	switch level {
	case "raid0":
		return int64(n) * min
	case "raid1":
		return int64(n/2) * min
	case "raid5":
		return int64(n-1) * min
	case "raid6":
		return int64(n-2) * min
	case "raidDiskPool":
		return int64(n-2) * min / 10 * 8
	}
	return 0
}

// checkDriveCount follows the limits NetApp's storagepool module documents.
func checkDriveCount(level string, n int) string {
	switch level {
	case "raid0":
		if n >= 1 {
			return ""
		}
		return "RAID 0 needs at least 1 drive"
	case "raid1":
		if n >= 2 && n%2 == 0 {
			return ""
		}
		return "RAID 1 needs an even number of drives, at least 2"
	case "raid5":
		if n >= 3 && n <= 30 {
			return ""
		}
		return "RAID 5 needs 3 to 30 drives"
	case "raid6":
		if n >= 5 && n <= 30 {
			return ""
		}
		return "RAID 6 needs 5 to 30 drives"
	case "raidDiskPool":
		if n >= 11 {
			return ""
		}
		return "a disk pool needs at least 11 drives"
	}
	return "unknown RAID level"
}

var segmentChoicesKiB = []int64{8, 16, 32, 64, 128, 256, 512}

// visibleLUNs is the set of LUNs a host already sees: its own mappings
// and its host group's.
func (s *Service) lunsOfHost(h *host) map[int]*mapping {
	out := map[int]*mapping{}
	for _, m := range s.maps {
		if m.host == h || (h.group != nil && m.group == h.group) {
			out[m.lun] = m
		}
	}
	return out
}

// hostsSeeing lists the hosts a mapping exposes its volume to.
func (s *Service) hostsSeeing(m *mapping) []*host {
	if m.host != nil {
		return []*host{m.host}
	}
	var out []*host
	for _, h := range s.hosts {
		if h.group == m.group {
			out = append(out, h)
		}
	}
	return out
}

func (s *Service) emitMapping(kind string, m *mapping) {
	for _, h := range s.hostsSeeing(m) {
		s.emitOne(kind, m, h)
	}
}

func mappingEvent(s *Service, kind string, m *mapping, h *host) redfishmock.MappingEvent {
	return redfishmock.MappingEvent{Array: s.spec.Name, Kind: kind, Volume: m.vol.ref, VolumeName: m.vol.name,
		WWN: strings.ToLower(m.vol.wwn), SizeBytes: m.vol.bytes, Host: h.name, LUN: m.lun, Time: s.opts.Now()}
}

// OnMapping registers fn, run after every change of what a host sees
// (mapped, unmapped, resized), outside the lock, in order.
func (s *Service) OnMapping(fn func(redfishmock.MappingEvent)) {
	s.mu.Lock()
	s.listeners = append(s.listeners, fn)
	s.mu.Unlock()
}

// MappingEvents returns every mapping event so far.
func (s *Service) MappingEvents() []redfishmock.MappingEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

func (s *Service) flushEvents() {
	s.dispatch.Lock()
	defer s.dispatch.Unlock()
	s.mu.Lock()
	out, ls := s.outbox, slices.Clone(s.listeners)
	s.outbox = nil
	s.mu.Unlock()
	for _, e := range out {
		for _, fn := range ls {
			fn(e)
		}
	}
}

// Counts summarises the array's objects (tests, demo).
type Counts struct {
	Drives, FreeDrives, HotSpares, VolumeGroups, Volumes, Hosts, HostGroups, Mappings, Sessions int
}

// Counts returns how many objects of each kind exist.
func (s *Service) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Counts{Drives: len(s.drives), VolumeGroups: len(s.pools), Volumes: len(s.volumes), Hosts: len(s.hosts),
		HostGroups: len(s.groups), Mappings: len(s.maps), Sessions: len(s.sessions)}
	for _, d := range s.drives {
		switch {
		case d.hotSpare:
			c.HotSpares++
		case d.vg == nil:
			c.FreeDrives++
		}
	}
	return c
}
